"""lesson 00: the learner's language for agent_core's own run-time messages (verdicts, widget labels).

A message is marked where it is written, `_("✓ Exercise {exercise}: {success}", exercise=..., success=...)`:
its English is the key of a gettext catalogue, `agent_core/locale/<lang>/messages.po`, shipped in the
package and read here at run time by a few lines of pure Python (no compiled .mo file, no Babel), so
that the browser edition (Pyodide) reads it too. The English path is the text itself, formatted:
with no catalogue entry, and in English, `_()` gives exactly what the f-string gave.

Which language: `AGENT_CORE_LANG` (`es`, `en`) when it is set; otherwise Spanish when the kernel runs
in a folder `es` of `lessons/` or `solutions/` (JupyterLab and JupyterLite start a notebook's kernel in
the notebook's folder, so the notebooks of `lessons/es/` get Spanish and those of `lessons/` English);
otherwise English. The system's locale is not read: an English notebook stays English everywhere.
What the model reads (tool results, guardrail feedback, reasons sent back) is never translated.
"""

from __future__ import annotations

import ast
import os
from functools import cache
from pathlib import Path

__all__ = ["LANGUAGES", "language", "_", "N_", "catalogue", "read_po"]

LANGUAGES = ("en", "es")
LOCALE = Path(__file__).resolve().parent / "locale"


def language() -> str:
    """the language of run-time messages now: AGENT_CORE_LANG, else the notebook's folder, else English"""
    chosen = os.environ.get("AGENT_CORE_LANG", "").strip().lower()[:2]
    if chosen in LANGUAGES:
        return chosen
    try:
        here = Path.cwd()
    except OSError:  # the working folder was deleted
        return "en"
    return "es" if here.name == "es" and here.parent.name in ("lessons", "solutions") else "en"


def read_po(text: str) -> dict[str, str]:
    """English -> translation for each entry of a PO file's text that is translated and not fuzzy"""
    entries: dict[str, str] = {}
    fields: dict[str, str] = {}
    current, fuzzy = "", False
    for line in (raw.strip() for raw in text.splitlines()):
        if current == "msgstr" and line.startswith(("#", "msgid ", "msgctxt ")):  # the next entry
            if fields.get("msgid") and fields.get("msgstr") and not fuzzy:
                entries[fields["msgid"]] = fields["msgstr"]
            fields, current, fuzzy = {}, "", False
        if line.startswith("#"):
            fuzzy = fuzzy or (line.startswith("#,") and "fuzzy" in line)
        elif line.startswith('"') and current:
            fields[current] += ast.literal_eval(line)
        elif line:
            current, _space, quoted = line.partition(" ")
            fields[current] = ast.literal_eval(quoted)
    if fields.get("msgid") and fields.get("msgstr") and not fuzzy:
        entries[fields["msgid"]] = fields["msgstr"]
    return entries


@cache
def catalogue(lang: str) -> dict[str, str]:
    """the messages of one language, read once (English has none: its messages are their keys)"""
    path = LOCALE / lang / "messages.po"
    return read_po(path.read_text(encoding="utf-8")) if lang != "en" and path.exists() else {}


def _(message: str, /, **fields: object) -> str:
    """a run-time message in the learner's language; its {fields} filled in as str.format does"""
    text = catalogue(language()).get(message, message)
    return text.format(**fields) if fields else text


def N_(message: str, /) -> str:
    """marks a message kept in a table for translation later, with `_(message)`, where it is shown"""
    return message
