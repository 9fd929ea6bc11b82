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

The Spanish notebooks' stored outputs come from a run, not a guess: when `AGENT_CORE_MESSAGE_LOG` names a
file, `_()` also renders the Spanish of each message it shows and appends `{"en": ..., "es": ...}` (one
JSON line) there. A field that is an earlier message (a problem inside a verdict), or holds such texts
joined ("; ".join of problems), is rendered as a Spanish run renders it: through the English -> Spanish
of every message this process has shown so far, the whole value first, then the known renderings inside
it, longest first. Any other field (a name, a number, a model's words) stays as it is, as a Spanish run
prints it. `tools/notebooks.py run` keeps what each cell of an English notebook logs, and
`tools/translate.py build` puts it into the Spanish notebook's outputs. Without the variable, `_()`
costs one more environment lookup.
"""

from __future__ import annotations

import ast
import json
import os
import re
from functools import cache
from pathlib import Path

__all__ = ["LANGUAGES", "MESSAGE_LOG", "language", "_", "N_", "catalogue", "read_po"]

LANGUAGES = ("en", "es")
LOCALE = Path(__file__).resolve().parent / "locale"
MESSAGE_LOG = "AGENT_CORE_MESSAGE_LOG"  # a file: each message shown, with its Spanish, as a JSON line
LOGGED = "es"  # the language the log renders


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
    shown = text.format(**fields) if fields else text
    log = os.environ.get(MESSAGE_LOG)
    if log:
        _log(log, message, fields)
    return shown


_rendered: dict[str, str] = {}  # this process's English renderings of messages so far -> their Spanish
_inside: list[re.Pattern[str] | None] = [None]  # those renderings as one pattern, longest first
_recent: list[str] = []  # renderings made since that pattern was compiled (a check makes thousands:
# compiling the pattern again after each would cost seconds; it is compiled again only when one of
# these is found inside a field)


def _log(path: str, message: str, fields: dict[str, object]) -> None:
    """append the message's English and Spanish renderings to the log (an English run's log: a field
    that is an earlier message's English becomes its Spanish, as a Spanish run would have shown it),
    and the earlier renderings found inside a field's longer text (`{"inside": english}`: a joiner such
    as " and ", one of several problems joined), which the build then need not look for on their own,
    where a short one would be a guess"""
    english = message.format(**fields) if fields else message
    template = catalogue(LOGGED).get(message, message)
    used: list[str] = []
    spanish = template.format(**{k: _translated(v, used) for k, v in fields.items()}) if fields else template
    if english == spanish:
        return
    if _rendered.get(english) != spanish:
        if english not in _rendered:
            _recent.append(english)
        _rendered[english] = spanish
    lines = [{"inside": text} for text in dict.fromkeys(used)] + [{"en": english, "es": spanish}]
    with open(path, "a", encoding="utf-8") as file:
        file.write("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines))


# a value shown quoted, as repr shows a string ('10 - 4 and 6/3'): a Spanish run shows it unchanged, so a
# known rendering inside it (" and ") is none of its messages; the apostrophe of "model's" opens nothing
_QUOTED = r"(?<!\w)'[^'\n]*'(?!\w)|(?<!\w)\"[^\"\n]*\"(?!\w)"


def _whole(text: str) -> str:
    """a pattern for the text where it stands alone: not the start or end of a longer word"""
    before = r"(?<!\w)" if text[:1].isalnum() or text[:1] == "_" else ""
    after = r"(?!\w)" if text[-1:].isalnum() or text[-1:] == "_" else ""
    return before + re.escape(text) + after


def _translated(value: object, used: list[str]) -> object:
    """a field as a Spanish run fills it in: a text (or a list or tuple of texts) that is, or holds,
    earlier messages' English has their Spanish (the longest first, each where it stands alone and not
    inside a quoted value; each one found inside a longer text is added to `used`); anything else is
    unchanged"""
    if isinstance(value, list | tuple) and type(value) in (list, tuple):  # not a named tuple
        if all(isinstance(v, str) for v in value):
            return type(value)(_translated(v, used) for v in value)
    if not isinstance(value, str) or not _rendered:
        return value
    if value in _rendered:  # a message passed whole: it may be shown on its own too (a panel's prompt)
        return _rendered[value]
    pattern = _inside[0]
    if pattern is None or any(text in value for text in _recent):
        known = sorted(_rendered, key=len, reverse=True)
        pattern = _inside[0] = re.compile("|".join([*map(_whole, known), _QUOTED]))
        _recent.clear()

    def spanish(match: re.Match[str]) -> str:
        found = match.group(0)
        if found not in _rendered:
            return found  # a quoted value
        used.append(found)
        return _rendered[found]

    return pattern.sub(spanish, value)


def N_(message: str, /) -> str:
    """marks a message kept in a table for translation later, with `_(message)`, where it is shown"""
    return message
