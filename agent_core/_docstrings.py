"""lesson 01: reading a docstring: the summary a model reads, and each parameter's text (Google or Sphinx
style)."""

from __future__ import annotations

import inspect
import re

__all__ = ["parse_docstring"]

_PARAMETER_SECTIONS = {"args", "arguments", "parameters", "params", "keyword args"}
_OTHER_SECTIONS = {"returns", "return", "yields", "raises", "examples", "example", "notes", "note"}
_OTHER_SECTIONS |= {"attributes", "see also", "warning", "warnings", "todo", "references"}
_GOOGLE_PARAMETER = re.compile(r"^\*{0,2}(?P<name>\w+)\s*(?:\([^)]*\))?\s*:(?P<text>.*)$")
_SPHINX_PARAMETER = re.compile(
    r"^:(?:param|parameter|arg|argument|key|keyword)\s+(?:[^:]*\s)?(?P<name>\w+)\s*:(?P<text>.*)$"
)
_SPHINX_OTHER_FIELD = re.compile(r"^:\w[^:]*:")


def parse_docstring(docstring: str) -> tuple[str, dict[str, str]]:
    """(description, {parameter: text}) from a Google-style or `:param name:` docstring"""
    summary: list[str] = []
    texts: dict[str, str] = {}
    section = "summary"  # or "args", "sphinx", "other"
    current = None  # the parameter whose text continues on the next lines
    base_indent = 0
    for line in inspect.cleandoc(docstring).splitlines():
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        header = stripped.rstrip(":").lower() if stripped.endswith(":") else None
        sphinx = _SPHINX_PARAMETER.match(stripped)
        if indent == 0 and sphinx:
            section, current = "sphinx", sphinx["name"]
            texts[current] = sphinx["text"].strip()
        elif indent == 0 and _SPHINX_OTHER_FIELD.match(stripped):
            section, current = "other", None
        elif indent == 0 and header in _PARAMETER_SECTIONS | _OTHER_SECTIONS:
            section = "args" if header in _PARAMETER_SECTIONS else "other"
            current, base_indent = None, -1  # the section's indent is that of its first line
        elif section == "summary":
            summary.append(stripped)
        elif not stripped or section == "other":
            continue
        elif section == "args":
            if base_indent < 0:
                base_indent = indent
            google = _GOOGLE_PARAMETER.match(stripped)
            if indent == 0:
                section, current = "other", None  # prose after the section: not a parameter
            elif indent <= base_indent and google:
                current = google["name"]
                texts[current] = google["text"].strip()
            elif current:
                texts[current] = f"{texts[current]} {stripped}".strip()
        elif section == "sphinx" and current and indent > 0:
            texts[current] = f"{texts[current]} {stripped}".strip()
    paragraphs = " ".join(line or "\n\n" for line in summary).split("\n\n")
    description = "\n\n".join(" ".join(p.split()) for p in paragraphs if p.strip())
    return description, {name: text for name, text in texts.items() if text}
