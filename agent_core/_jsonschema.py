"""jsonschema, imported without the few seconds its optional IRI-format checker costs (lesson 03)."""

from __future__ import annotations

import sys

__all__ = ["Draft202012Validator", "ValidationError", "relevance"]

# When rfc3987_syntax is installed (JupyterLab brings it), `import jsonschema` loads it to check
# the "iri" string format, and building its grammar takes seconds in every kernel. Tool schemas
# never use that format, so it is hidden while jsonschema is imported, then put back.
_HIDDEN = "rfc3987_syntax"
_hide = _HIDDEN not in sys.modules and "jsonschema" not in sys.modules
if _hide:
    sys.modules[_HIDDEN] = None  # type: ignore[assignment]  # makes `import rfc3987_syntax` fail
try:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError, relevance
finally:
    if _hide:
        del sys.modules[_HIDDEN]
