"""lesson 03: jsonschema, imported without the optional libraries it loads to check string formats."""

from __future__ import annotations

import sys

import referencing  # jsonschema's registry of schemas; loads no format library

__all__ = ["Draft202012Validator", "ValidationError", "relevance", "NOTHING_TO_FETCH"]

# `import jsonschema` loads every library it can find for checking string formats ("iri", "date",
# "duration"...), and JupyterLab installs them all. Building the IRI grammar of rfc3987_syntax
# alone takes about a second, in every kernel and every pytest process. The dispatcher validates
# without a FormatChecker, so formats are never checked: these libraries are hidden while
# jsonschema is imported, then put back. pyproject.toml loads this module first in pytest
# (`-p agent_core._jsonschema`), before nbval imports jsonschema through nbformat.
FORMAT_LIBRARIES = (
    "fqdn", "idna", "isoduration", "jsonpointer", "rfc3339_validator", "rfc3986_validator",
    "rfc3987", "rfc3987_syntax", "uri_template", "webcolors",
)  # fmt: skip
_hidden = (
    [] if "jsonschema" in sys.modules else [name for name in FORMAT_LIBRARIES if name not in sys.modules]
)
for name in _hidden:
    sys.modules[name] = None  # type: ignore[assignment]  # makes `import name` fail
try:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError, relevance
finally:
    for name in _hidden:
        if sys.modules.get(name, ...) is None:
            del sys.modules[name]


def _refuse_to_fetch(uri: str) -> referencing.Resource:
    raise LookupError(f"{uri} is outside the schema, and a schema is never fetched")


# A validator given this registry resolves a "$ref" only inside its own schema. jsonschema's default
# registry would fetch any other URI over the network (with a DeprecationWarning). `retrieve` is
# Registry's documented argument (the alias of its attrs field _retrieve, which mypy's attrs plugin
# does not read).
NOTHING_TO_FETCH: referencing.Registry = referencing.Registry(retrieve=_refuse_to_fetch)  # type: ignore[call-arg]
