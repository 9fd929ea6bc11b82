"""The Spanish edition: gettext catalogues keyed by the English text, and the Spanish notebooks and pages
built from the English ones plus those catalogues.

    python tools/translate.py extract              # update every catalogue in locale/es/ from the English
    python tools/translate.py extract 04 docs/real_models.md   # ... and start catalogues for these
    python tools/translate.py build                # write lessons/es/, solutions/es/ and the *.es.md pages
    python tools/translate.py check                # what CI checks (also run by tests/test_translation.py)

agent_core's own run-time messages (a check's verdict, a widget's labels) have a catalogue of their own,
agent_core/locale/es/messages.po, read by agent_core._i18n at run time: `extract` adds every message the
code marks (`_("...")`, `N_("...")`, the `what` of `needs_local_install`) and `check` names each one
without a Spanish entry, or whose {fields} differ from the English.

A catalogue is a PO file (Poedit, Weblate or any text editor): locale/es/04_the_loop.po holds lesson 04
and its solution (the same English gets the same Spanish), locale/es/README.po the README,
locale/es/docs/teaching.po docs/teaching.md. Its units are the English markdown blocks (a paragraph, a
heading, a whole list or table) and the comments of the code cells; code and metadata are copied
unchanged, and so are outputs but for agent_core's run-time messages: `tools/notebooks.py run` logs,
for each cell of an English notebook, every message it showed with its Spanish as a Spanish run renders
it (agent_core/_i18n.py, tools/message_log.py) into locale/es/outputs/, and `build` puts those in
Spanish in the cell's outputs (`spanish_outputs`); conftest.py fails an nbval cell whose messages no
longer match its logged ones. Each entry's locations say where it comes from: a notebook and a cell
number, or a file and a line number. When the English changes, `extract` keeps the old translation as
fuzzy beside the previous English, and `check` and `build` fail, naming the notebook, the cell and what
changed, until a translator updates the entry and clears its fuzzy flag. Relative links are rewritten at build
time to the Spanish version where one exists; translators keep the English targets. The same goes for
the folder a page's shell command opens in JupyterLab (`jupyter lab lessons/` becomes
`jupyter lab lessons/es/`): the rest of a page's code is copied unchanged.
"""

from __future__ import annotations

import argparse
import difflib
import html
import io
import os
import re
import sys
import tokenize
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat
from babel.messages.catalog import Catalog, Message
from babel.messages.pofile import read_po, unescape, write_po

sys.path.insert(0, str(Path(__file__).resolve().parent))  # tools/: run as a script or imported
import message_log  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
LOCALE = Path("locale") / "es"
GLOSSARY = Path("docs") / "glossary.es.md"
NOTEBOOK_FOLDERS = ("lessons", "solutions")
HEADER = """\
# Spanish translation of the agent-core course: {sources}.
# A location such as lessons/00_one_model_call.ipynb:19 is a notebook's cell 19 (no number: cell 0);
# README.md:12 is line 12.
# Translate msgstr only, keep code spans, code and link targets as they are, and use the terms of
# docs/glossary.es.md. Then: python tools/translate.py build && python tools/translate.py check
#"""
# "**English** · [Español](X.es.md)" at the top of an English page becomes "[English](X.md) · **Español**"
SWITCH = re.compile(r"^\*\*English\*\* · \[Español\]\([^)\s]+\)$")
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})\s*([\w+-]*)")
HEADING = re.compile(r"^ {0,3}#{1,6}(\s|$)")
LIST_ITEM = re.compile(r"^ {0,3}([-*+]|\d{1,9}[.)])(\s|$)")
CODE_SPAN = re.compile(r"(`+).+?\1", re.DOTALL)
LINK_TARGET = re.compile(r"(\]\(\s*<?|(?:href|src)=\")([^)\s\">]+)")
PRAGMA = re.compile(r"^#\s*(noqa|type:|fmt:|pragma|%%|!)")
PYTHON_FENCES = {"python", "py", "ipython", "python3"}
SHELL_FENCES = {"bash", "sh", "shell", "console", "powershell", "bat", "cmd", "toml", "ini", "yaml"}


@dataclass(frozen=True)
class Unit:
    """one piece of English a translator translates: a markdown block or a code comment"""

    text: str
    source: str  # the English file, relative to the course's root (posix)
    place: int  # cell number in a notebook, line number in a markdown file
    kind: str  # "text", "comment" (a block of whole-line comments) or "trailing comment" (one line)


@dataclass(frozen=True)
class Document:
    """a catalogue and the English files it translates"""

    catalogue: Path  # relative to the root
    sources: tuple[str, ...]


# --- which files, and where their Spanish twins go ------------------------------------------------


def spanish_path(source: str) -> str:
    """lessons/04_the_loop.ipynb -> lessons/es/04_the_loop.ipynb; docs/teaching.md -> docs/teaching.es.md"""
    path = Path(source)
    if path.suffix == ".ipynb":
        return (path.parent / "es" / path.name).as_posix()
    return path.with_suffix(".es" + path.suffix).as_posix()


def document(name: str, root: Path = ROOT) -> Document:
    """the document a name means: 04, 04_the_loop, lessons/04_the_loop.ipynb, README.md, docs/x.md"""
    number = re.fullmatch(r"(?:(?:lessons|solutions)/)?(\d\d)(?:_\w+)?(?:\.ipynb)?", name)
    if number:
        stems = sorted({p.stem for f in NOTEBOOK_FOLDERS for p in (root / f).glob(f"{number[1]}_*.ipynb")})
        if len(stems) != 1:
            raise SystemExit(f"no single notebook pair numbered {number[1]}: {stems}")
        sources = tuple(
            f"{f}/{stems[0]}.ipynb" for f in NOTEBOOK_FOLDERS if (root / f / f"{stems[0]}.ipynb").exists()
        )
        return Document(LOCALE / f"{stems[0]}.po", sources)
    if not name.endswith(".md") or not (root / name).is_file():
        raise SystemExit(f"{name}: not a lesson number or a markdown file of the course")
    return Document(LOCALE / Path(name).with_suffix(".po"), (Path(name).as_posix(),))


def documents(root: Path = ROOT) -> list[Document]:
    """every document of the Spanish edition: one per catalogue in locale/es/"""
    found = []
    for po in sorted((root / LOCALE).rglob("*.po")):
        relative = po.relative_to(root / LOCALE)
        if re.fullmatch(r"\d\d_\w+", relative.stem) and relative.parent == Path("."):
            found.append(document(relative.stem, root))
        else:
            found.append(document(relative.with_suffix(".md").as_posix(), root))
    return found


# --- units: where the translatable text is --------------------------------------------------------

Translate = Callable[[str, str, int], str]  # (English text, kind, line within the text) -> Spanish


def translate_markdown(text: str, translate: Translate, switch: str | None = None) -> str:
    """the text with each block passed through translate (fenced code: only its comments); a language
    switch line (SWITCH) is no unit: it becomes `switch` when one is given"""
    lines = text.split("\n")
    out, start = [], 0
    while start < len(lines):
        end = _block_end(lines, start)
        block = "\n".join(lines[start:end])
        fence = FENCE.match(lines[start])
        if fence and fence[2].lower() in PYTHON_FENCES | SHELL_FENCES:
            inner = "\n".join(lines[start + 1 : end - 1])
            language = "python" if fence[2].lower() in PYTHON_FENCES else "shell"
            translated = translate_code(inner, _shifted(translate, start + 1), language)
            block = "\n".join([lines[start], translated, lines[end - 1]]) if end - start > 1 else block
        elif SWITCH.match(block):
            block = switch or block  # not a unit: the build writes it
        elif not fence and _has_words(block):
            block = translate(block, "text", start + 1)
        out.append(block)
        start = end
    return "\n".join(out)


def _shifted(translate: Translate, offset: int) -> Translate:
    """translate, told line numbers of the whole text for those of a part starting at offset"""
    return lambda text, kind, line: translate(text, kind, line + offset)


def _block_end(lines: list[str], start: int) -> int:
    """where the markdown block starting at lines[start] ends (exclusive)"""
    first = lines[start]
    if not first.strip() or HEADING.match(first):
        return start + 1
    fence = FENCE.match(first)
    if fence:
        closing = re.compile(rf"^\s*{re.escape(fence[1][0])}{{{len(fence[1])},}}\s*$")
        return next((i + 1 for i in range(start + 1, len(lines)) if closing.match(lines[i])), len(lines))
    end = start + 1
    in_list = bool(LIST_ITEM.match(first))
    while end < len(lines):
        line = lines[end]
        if not line.strip():
            following = next((x for x in lines[end:] if x.strip()), None)
            if not in_list or following is None or not (following[0] in " \t" or LIST_ITEM.match(following)):
                return end
        elif in_list and FENCE.match(line) and line[0].isspace():  # code inside a list item
            end = _block_end(lines, end) - 1
        elif (HEADING.match(line) and not (in_list and line[0].isspace())) or FENCE.match(line):
            return end
        end += 1
    return end


def _has_words(block: str) -> bool:
    """prose, once code spans, link targets and HTML tags are taken out"""
    prose = re.sub(r"<[^>]*>|\]\([^)]*\)", " ", CODE_SPAN.sub(" ", block))
    return re.search(r"[A-Za-z]{2}", prose) is not None


def translate_code(source: str, translate: Translate, language: str = "python") -> str:
    """the code with its comments passed through translate; the code itself unchanged

    Whole-line comments on consecutive lines at the same column are one unit (a translation may
    have more or fewer lines); a comment after code is a unit of one line.
    """
    lines = source.split("\n")
    groups: list[tuple[int, int, int, bool]] = []  # first row, last row, column, after code
    for row, col in _comments(source, language):
        if not _is_prose(lines[row][col:]):
            continue
        after_code = bool(lines[row][:col].strip())
        last = groups[-1] if groups else None
        if not after_code and last and not last[3] and last[1] == row - 1 and last[2] == col:
            groups[-1] = (last[0], row, col, False)
        else:
            groups.append((row, row, col, after_code))
    replacements = []  # asked in order (extraction lists them so), applied from the bottom up
    for first, last_row, col, after_code in groups:
        indent = lines[first][:col]
        if after_code:
            spanish = translate(lines[first][col + 1 :].strip(), "trailing comment", first + 1)
            replacements.append((first, last_row, [indent + "# " + spanish.strip()]))
        else:
            text = "\n".join(_comment_text(lines[r][col:]) for r in range(first, last_row + 1))
            spanish = translate(text, "comment", first + 1)
            new = [indent + ("# " + s.rstrip() if s.strip() else "#") for s in spanish.split("\n")]
            replacements.append((first, last_row, new))
    for first, last_row, new in reversed(replacements):
        lines[first : last_row + 1] = new
    return "\n".join(lines)


def fenced_code(text: str) -> list[str]:
    """the code of each fenced block in a markdown text, comments and blank lines left out"""
    blocks: list[tuple[int, int, str]] = []
    lines = text.split("\n")
    for start, line in enumerate(lines):
        fence = FENCE.match(line.strip())
        if fence and (not blocks or start >= blocks[-1][1]):
            end = _block_end([x.strip() for x in lines], start)
            blocks.append((start, end, fence[2].lower()))
    code = []
    for start, end, language in blocks:
        inner = "\n".join(x.strip() for x in lines[start + 1 : end - 1])
        cuts = dict(_comments(inner, "python" if language in PYTHON_FENCES else "shell"))
        kept = [x[: cuts.get(i, len(x))].rstrip() for i, x in enumerate(inner.split("\n"))]
        code.append("\n".join(x for x in kept if x))
    return code


def _comment_text(comment: str) -> str:
    text = comment[1:]
    return (text[1:] if text.startswith(" ") else text).rstrip()


def _is_prose(comment: str) -> bool:
    return not PRAGMA.match(comment) and re.search(r"[A-Za-z]{2}", comment) is not None


def _comments(source: str, language: str) -> list[tuple[int, int]]:
    """(line, column) of each comment's '#', lines counted from 0"""
    if language == "python":
        try:
            tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
            return [(t.start[0] - 1, t.start[1]) for t in tokens if t.type == tokenize.COMMENT]
        except (tokenize.TokenError, IndentationError, SyntaxError):
            pass  # not Python as a whole: whole-line comments only
        return [
            (i, len(line) - len(line.lstrip()))
            for i, line in enumerate(source.split("\n"))
            if line.lstrip().startswith("#")
        ]
    found = []
    for i, line in enumerate(source.split("\n")):
        quote = None
        for col, char in enumerate(line):
            if quote:
                quote = None if char == quote else quote
            elif char in "'\"":
                quote = char
            elif char == "#" and (col == 0 or line[col - 1].isspace()):
                found.append((i, col))
                break
    return found


def units(source: str, root: Path = ROOT) -> list[Unit]:
    """every translatable piece of one English file, in order"""
    found: list[Unit] = []

    def record(place: int, offset: bool) -> Translate:
        def keep(text: str, kind: str, line: int) -> str:
            found.append(Unit(text, source, line if offset else place, kind))
            return text

        return keep

    path = root / source
    if path.suffix == ".ipynb":
        for index, cell in enumerate(nbformat.read(path, as_version=4).cells):
            if cell.cell_type == "markdown":
                translate_markdown(cell.source, record(index, False))
            elif cell.cell_type == "code":
                translate_code(cell.source, record(index, False))
    else:
        translate_markdown(path.read_text(encoding="utf-8"), record(0, True))
    return found


# --- catalogues ------------------------------------------------------------------------------------


def read_catalogue(path: Path) -> Catalog:
    """a PO file, with the previous English of a fuzzy entry (`#| msgid`) as its previous_id

    Babel writes `#|` lines but reads them back as comments: here they become previous_id again.
    """
    with open(path, "rb") as file:
        catalogue = read_po(file, locale="es")
    for message in [*catalogue, *catalogue.obsolete.values()]:
        previous = [c[1:].strip() for c in message.user_comments if c.startswith("|")]
        if previous and previous[0].startswith("msgid "):
            message.previous_id = [_previous_english(" ".join(previous)[len("msgid ") :])]
            message.user_comments = [c for c in message.user_comments if not c.startswith("|")]
    return catalogue


def _previous_english(quoted: str) -> str:
    """the text of `#| msgid "a" "b" ...`: Babel wraps that comment at the page width, anywhere between
    or inside its quoted pieces, so the lines are joined again (a wrap stands for one space) and every
    quoted piece is read in turn"""
    return "".join(unescape(f'"{piece}"') for piece in re.findall(r'"((?:[^"\\]|\\.)*)"', quoted))


def _string(message: Message) -> str:
    """a message's translation (this project's catalogues have no plurals)"""
    return message.string if isinstance(message.string, str) else ""


def write_catalogue(catalogue: Catalog, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    write_po(buffer, catalogue, width=100, include_previous=True)
    path.write_bytes(buffer.getvalue())


def template(doc: Document, root: Path = ROOT) -> Catalog:
    """the English of a document as a catalogue with no translations"""
    catalogue = Catalog(locale="es", project="agent-core", fuzzy=False)
    for unit in (u for source in doc.sources for u in units(source, root)):
        comment = {
            "comment": "a comment in a code cell: keep it a comment (one '# ' line per line)",
            "trailing comment": "a comment after code: keep it on one line",
        }.get(unit.kind)
        message = catalogue.get(unit.text)
        if message is None:
            catalogue.add(
                unit.text, locations=[(unit.source, unit.place)], auto_comments=[comment] if comment else []
            )
        elif (unit.source, unit.place) not in message.locations:
            message.locations.append((unit.source, unit.place))
    return catalogue


def updated(doc: Document, root: Path = ROOT) -> Catalog:
    """the document's catalogue brought up to date with the English (what `extract` writes)

    Babel's update keeps a translation whose English is the same, keeps a close one as fuzzy with
    the previous English beside it, and moves entries whose English is gone to the obsolete ones.
    """
    fresh = template(doc, root)
    path = root / doc.catalogue
    catalogue = (
        read_catalogue(path) if path.exists() else Catalog(locale="es", project="agent-core", fuzzy=False)
    )
    previous = {m.id: m.previous_id for m in catalogue if m.id and m.previous_id}
    for msgid in [m for m in catalogue.obsolete if m in fresh]:  # English that came back
        catalogue[msgid] = catalogue.obsolete.pop(msgid)
    catalogue.update(fresh, update_creation_date=False)
    for message in catalogue:
        if message.id and message.fuzzy and not message.previous_id and previous.get(message.id):
            message.previous_id = previous[message.id]  # Babel drops it on the next update
    catalogue.header_comment = HEADER.format(sources=", ".join(doc.sources))
    catalogue.fuzzy = False
    return catalogue


def extract(names: list[str], root: Path = ROOT) -> list[Path]:
    docs = {d.catalogue: d for d in documents(root)} | {
        d.catalogue: d for d in (document(n, root) for n in names)
    }
    for doc in docs.values():
        write_catalogue(updated(doc, root), root / doc.catalogue)
    return [doc.catalogue for doc in docs.values()]


# --- building the Spanish files --------------------------------------------------------------------


def render(
    doc: Document, catalogue: Catalog, edition: set[str], root: Path = ROOT
) -> tuple[dict[str, str], list[str]]:
    """the Spanish file for each of the document's sources, and what stops them being complete"""
    files: dict[str, str] = {}
    missing: dict[str, list[tuple[str, int]]] = {}

    def lookup(source: str, place: int | None, english: str, spanish: str) -> Translate:
        def translate(text: str, kind: str, line: int) -> str:
            message = catalogue.get(text)
            string = _string(message) if message is not None and not message.fuzzy else ""
            if (
                not string
                or (kind == "trailing comment" and "\n" in string)
                or fenced_code(text) != fenced_code(string)
            ):
                missing.setdefault(text, []).append((source, line if place is None else place))
            if not string:
                return text
            return relink(string, english, spanish, edition) if kind == "text" else string

        return translate

    for source in doc.sources:
        target = spanish_path(source)
        path = root / source
        if path.suffix == ".ipynb":
            nb = nbformat.read(path, as_version=4)
            logged = message_log.load(message_log.sidecar(path, root))
            for index, cell in enumerate(nb.cells):
                if cell.cell_type == "markdown":
                    cell.source = translate_markdown(cell.source, lookup(source, index, source, target))
                elif cell.cell_type == "code":
                    cell.source = translate_code(cell.source, lookup(source, index, source, target))
                    cell.outputs = spanish_outputs(cell.outputs, logged.get(index, []))
            files[target] = nbformat.writes(nb).rstrip("\n") + "\n"
        else:
            back = os.path.relpath(source, os.path.dirname(target) or ".").replace(os.sep, "/")
            switch = f"[English]({back}) · **Español**"
            files[target] = spanish_commands(
                translate_markdown(
                    path.read_text(encoding="utf-8"), lookup(source, None, source, target), switch
                )
            )
    problems = [_problem(text, places, catalogue, doc) for text, places in missing.items()]
    return files, problems


# `jupyter lab lessons/` in a shell command: the folder JupyterLab opens
JUPYTER_FOLDER = re.compile(
    r"(\bjupyter[ -](?:lab|notebook)\s+)((?:lessons|solutions)/?)(?=\s|$)", re.MULTILINE
)


def spanish_commands(page: str) -> str:
    """a Spanish page whose shell commands open the Spanish notebooks' folder in JupyterLab"""
    lines = page.split("\n")
    start = 0
    while start < len(lines):
        end = _block_end(lines, start)
        fence = FENCE.match(lines[start])
        if fence and fence[2].lower() in SHELL_FENCES:
            block = "\n".join(lines[start:end])
            block = JUPYTER_FOLDER.sub(lambda m: m[1] + m[2].rstrip("/") + "/es/", block)
            lines[start:end] = block.split("\n")
        start = end
    return "\n".join(lines)


def _problem(text: str, places: list[tuple[str, int]], catalogue: Catalog, doc: Document) -> str:
    where = ", ".join(
        f"{s} {'cell' if s.endswith('.ipynb') else 'line'} {n}" for s, n in dict.fromkeys(places)
    )
    message = catalogue.get(text)
    string = _string(message) if message is not None else ""
    if message is not None and message.fuzzy and message.previous_id:
        previous = message.previous_id if isinstance(message.previous_id, str) else message.previous_id[0]
        what = f"the English changed since it was translated: {word_diff(previous, text)}"
    elif message is not None and message.fuzzy:
        what = f"its translation is marked fuzzy: {_short(text)}"
    elif string and fenced_code(text) != fenced_code(string):
        what = f"the translation changes the code of a fenced block (only comments change): {_short(text)}"
    elif string and "\n" in string:
        what = f"a comment after code must stay on one line: {_short(string)}"
    else:
        what = f"new English, not translated yet: {_short(text)}"
    todo = (
        "update it there and clear its fuzzy flag"
        if message is not None and message.fuzzy
        else "translate it there"
    )
    return f"{where}: {what} ({doc.catalogue.as_posix()}: {todo})"


def word_diff(old: str, new: str) -> str:
    """the changed words only: [-removed-]{+added+}, with a few words of context"""
    a, b = old.split(), new.split()
    parts = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op == "equal":
            words = a[i1:i2]
            parts.append(
                " ".join(words) if len(words) <= 6 else f"{' '.join(words[:3])} … {' '.join(words[-3:])}"
            )
        else:
            parts.append(
                (f"[-{' '.join(a[i1:i2])}-]" if i2 > i1 else "")
                + (f"{{+{' '.join(b[j1:j2])}+}}" if j2 > j1 else "")
            )
    return " ".join(p for p in parts if p)


def _short(text: str, width: int = 90) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= width else flat[: width - 1] + "…")


def relink(text: str, english: str, spanish: str, edition: set[str]) -> str:
    """relative links of a block written for `english`, made right from `spanish`: to the Spanish
    version of their target where the edition has one, to the English file otherwise"""

    def fix(match: re.Match[str]) -> str:
        target = match[2]
        if re.match(r"[A-Za-z][\w+.-]*:|[#/]", target):
            return match[0]  # a URL, an anchor on the same page, an absolute path
        path, hash_, anchor = target.partition("#")
        resolved = os.path.normpath(os.path.join(os.path.dirname(english), path)).replace(os.sep, "/")
        if resolved in edition:
            resolved = spanish_path(resolved)
        new = os.path.relpath(resolved, os.path.dirname(spanish) or ".").replace(os.sep, "/")
        return match[1] + new + hash_ + anchor

    out, done = [], 0
    for span in CODE_SPAN.finditer(text):  # code spans and fenced code keep what they say
        out += [LINK_TARGET.sub(fix, text[done : span.start()]), span[0]]
        done = span.end()
    return "".join(out) + LINK_TARGET.sub(fix, text[done:])


def build(root: Path = ROOT, write: bool = True) -> tuple[dict[str, str], list[str]]:
    """every Spanish file as `build` writes it, and the problems that keep a document from being built"""
    docs = documents(root)
    edition = {source for doc in docs for source in doc.sources}
    files: dict[str, str] = {}
    problems: list[str] = []
    for doc in docs:
        rendered, missing = render(doc, updated(doc, root), edition, root)
        problems += missing
        if not missing:
            files |= rendered
            if write:
                for target, text in rendered.items():
                    (root / target).parent.mkdir(parents=True, exist_ok=True)
                    (root / target).write_text(text, encoding="utf-8", newline="\n")
    return files, problems


def check(root: Path = ROOT) -> list[str]:
    """what is wrong with the Spanish edition, as sentences (empty when it is in step)"""
    files, problems = build(root, write=False)
    docs = documents(root)
    expected = {spanish_path(s) for doc in docs for s in doc.sources}
    for target in sorted(expected):
        path = root / target
        if target not in files:
            continue  # its problems are listed already
        if not path.exists():
            problems.append(f"{target} is missing: run python tools/translate.py build")
        elif path.read_text(encoding="utf-8") != files[target]:
            problems.append(f"{target} differs from what build writes: run python tools/translate.py build")
    stray = [p for f in NOTEBOOK_FOLDERS for p in (root / f / "es").glob("*.ipynb")]
    stray += [p for p in [root / "README.es.md", *(root / "docs").glob("*.es.md")] if p.exists()]
    for path in stray:
        relative = path.relative_to(root).as_posix()
        if relative not in expected and relative != GLOSSARY.as_posix():
            problems.append(
                f"{relative} has no catalogue in {LOCALE.as_posix()}/ (delete it, or extract one)"
            )
    return problems + glossary_problems(root) + runtime_problems(root)


# --- the glossary ----------------------------------------------------------------------------------


def _table(root: Path, header: str) -> list[list[str]]:
    """the rows of the glossary's table whose first header cell is `header`, as lists of cells"""
    rows: list[list[str]] = []
    inside = False
    for line in (root / GLOSSARY).read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.startswith("|"):
            inside = False
        elif cells[0] == header:
            inside = True
        elif inside and len(cells) >= 2 and not set(cells[0]) <= set("-: "):
            rows.append(cells)
    return rows


def glossary(root: Path = ROOT) -> list[tuple[list[str], list[str]]]:
    """(English forms, accepted Spanish forms) for each row of the glossary's table"""
    rows = []
    for cells in _table(root, "inglés"):
        if len(cells) >= 3:
            english = [w.strip() for w in cells[0].split(",") if w.strip()]
            spanish = [w.strip() for w in (cells[1] + "," + cells[2]).split(",") if w.strip()]
            rows.append((english, spanish))
    return rows


def avoided(root: Path = ROOT) -> list[tuple[list[str], str]]:
    """(Spanish forms no translation uses, what to write instead): the glossary's second table"""
    return [
        ([w.strip() for w in cells[0].split(",") if w.strip()], cells[1])
        for cells in _table(root, "no escribas")
    ]


def prose(text: str) -> str:
    """the words a reader reads: code spans, fenced code, link targets and HTML tags taken out"""
    return re.sub(r"<[^>]*>|\]\([^)]*\)|https?://\S+", " ", CODE_SPAN.sub(" ", text))


def _runtime_prose(text: str) -> str:
    """the words of a run-time message a reader reads: its {fields} (values) and the code it quotes
    (a word holding a call's parentheses, a dot, an underscore, = or brackets) taken out"""
    return re.sub(r"\{\{.*?\}\}|\{[^{}]*\}|\S*[()._=\[\]]\S*", " ", prose(text))


def _mentions(text: str, forms: list[str]) -> bool:
    """whether the text says one of these forms; a term may be wrapped across two lines"""
    spaced = " ".join(text.split())
    return any(re.search(rf"(?<![\w-]){re.escape(f)}(?![\w-])", spaced, re.IGNORECASE) for f in forms)


def glossary_problems(root: Path = ROOT) -> list[str]:
    """entries whose English names a glossary term and whose Spanish does not use the glossary's, and
    entries whose Spanish uses a form the glossary rules out"""
    if not (root / GLOSSARY).exists():
        return []
    terms, avoid = glossary(root), avoided(root)
    found = []
    catalogues = [doc.catalogue for doc in documents(root)] + [RUNTIME]  # agent_core's messages too
    for catalogue in catalogues:
        path = root / catalogue
        for message in read_catalogue(path) if path.exists() else []:
            msgid, string = message.id, _string(message)
            if not isinstance(msgid, str) or not msgid or not string or message.fuzzy:
                continue
            said = prose(msgid) if catalogue != RUNTIME else _runtime_prose(msgid)
            for english, spanish in terms:
                if _mentions(said, english) and not _mentions(prose(string), spanish):
                    source, place = message.locations[0] if message.locations else ("?", 0)
                    place = place or 0  # Babel writes no number for cell 0
                    found.append(
                        f"{catalogue.as_posix()} ({source}:{place}): the English says {english[0]!r}, "
                        f"the Spanish does not say {spanish[0]!r} ({GLOSSARY.as_posix()}): " + _short(string)
                    )
            for forms, instead in avoid:
                if _mentions(prose(string), forms):
                    source, place = message.locations[0] if message.locations else ("?", 0)
                    found.append(
                        f"{catalogue.as_posix()} ({source}:{place or 0}): the Spanish says "
                        f"{forms[0]!r}, write {instead} ({GLOSSARY.as_posix()}): " + _short(string)
                    )
    return found


# --- agent_core's run-time messages ----------------------------------------------------------------

RUNTIME = Path("agent_core") / "locale" / "es" / "messages.po"
MARKERS = {"_": (0,), "N_": (0,), "needs_local_install": (0, 1)}  # the calls whose text is a message
MARKED = re.compile(r"\b(?:N_|_|needs_local_install)\(")


def runtime_messages(root: Path = ROOT) -> dict[str, list[tuple[str, int]]]:
    """every message agent_core marks for translation, with where: literal text in a marking call (a
    lesson number such as "07" is no message; "06 or 08" is)"""
    import ast

    found: dict[str, list[tuple[str, int]]] = {}
    package = root / "agent_core"
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        if relative.startswith("agent_core/coding/projects/"):
            continue
        text = path.read_text(encoding="utf-8")
        if not MARKED.search(text):  # most modules mark nothing: no need to parse them
            continue
        for node in ast.walk(ast.parse(text, relative)):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
            for index in MARKERS.get(name, ()):
                if index < len(node.args):
                    argument = node.args[index]
                    if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
                        if not argument.value.isdigit():
                            found.setdefault(argument.value, []).append((relative, node.lineno))
    return found


def _fields(text: str) -> set[str]:
    import string

    return {field for _, field, _, _ in string.Formatter().parse(text) if field is not None}


def runtime_problems(root: Path = ROOT) -> list[str]:
    """marked run-time messages with no Spanish entry (or a fuzzy one, or other {fields}), and entries
    no code marks any more"""
    messages = runtime_messages(root)
    if not messages:
        return []
    path = root / RUNTIME
    catalogue = read_catalogue(path) if path.exists() else Catalog(locale="es")
    problems = []
    for english, places in messages.items():
        message = catalogue.get(english)
        where = ", ".join(f"{source}:{line}" for source, line in places)
        string = _string(message) if message is not None else ""
        if not string or (message is not None and message.fuzzy):
            problems.append(
                f"{where}: {english!r} has no Spanish in {RUNTIME.as_posix()}: translate it there"
            )
        elif _fields(string) != _fields(english):
            problems.append(
                f"{where}: the Spanish of {english!r} in {RUNTIME.as_posix()} has the fields "
                f"{sorted(_fields(string))}, the English {sorted(_fields(english))}"
            )
    for message in catalogue:
        if message.id and message.id not in messages:
            problems.append(
                f"{RUNTIME.as_posix()}: {message.id!r} is marked nowhere in agent_core: run extract"
            )
    return problems


def _alone(text: str) -> str:
    """a pattern for the text where it is no part of a longer word ("nothing" is not in "nothingness")"""
    before = r"(?<!\w)" if re.match(r"\w", text[:1]) else ""
    after = r"(?!\w)" if re.match(r"\w", text[-1:]) else ""
    return before + re.escape(text) + after


def spanish_outputs(outputs: list[Any], pairs: list[list[str]]) -> list[Any]:
    """a code cell's stored outputs as the Spanish notebook's: the English outputs with the messages
    this cell showed when it ran (tools/message_log.py: [English, Spanish] as agent_core._i18n logged
    them) in Spanish, in printed text, text/plain and text/html (escaped) alike: the longest English
    first, each occurrence replaced once and never inside a longer word; nothing else changes"""
    if not pairs:
        return outputs
    table: dict[str, str] = {}
    for english, spanish in pairs:
        for escape in (str, lambda t: html.escape(t, quote=False), html.escape):
            table.setdefault(escape(english), escape(spanish))
    pattern = re.compile("|".join(_alone(e) for e in sorted(table, key=len, reverse=True)))

    def in_spanish(text: Any) -> str:
        return pattern.sub(lambda m: table[m.group(0)], text if isinstance(text, str) else "".join(text))

    result = []
    for output in outputs:
        if output.get("output_type") == "stream":
            output = nbformat.from_dict({**output, "text": in_spanish(output["text"])})
        elif "data" in output:
            data = dict(output["data"])
            for kind in ("text/plain", "text/html"):
                if kind in data:
                    data[kind] = in_spanish(data[kind])
            output = nbformat.from_dict({**output, "data": data})
        result.append(output)
    return result


def extract_runtime(root: Path = ROOT) -> Path:
    """the run-time catalogue with every marked message: new ones untranslated, unmarked ones dropped"""
    path = root / RUNTIME
    old = read_catalogue(path) if path.exists() else Catalog(locale="es")
    catalogue = Catalog(locale="es", project="agent-core", fuzzy=False, creation_date=old.creation_date)
    catalogue.header_comment = (
        "# Spanish run-time messages of agent_core (agent_core._i18n reads this file at run time).\n"
        "# Keep {fields} as they are. Then: python tools/translate.py check\n#"
    )
    for english, places in runtime_messages(root).items():
        previous = old.get(english)
        # a file and no line (Babel writes "#: file"): a line number moves with every edit of the code
        files: list[Any] = [(source, None) for source in sorted({source for source, _ in places})]
        catalogue.add(
            english,
            _string(previous) if previous is not None else "",
            locations=files,
            flags=previous.flags if previous is not None else (),
        )
    write_catalogue(catalogue, path)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("command", choices=["extract", "build", "check"])
    parser.add_argument(
        "names", nargs="*", help="extract: lessons (04) or markdown files to start catalogues for"
    )
    args = parser.parse_args(argv)
    if args.command == "extract":
        for path in extract(args.names):
            print("updated", path.as_posix())
        print("updated", extract_runtime().relative_to(ROOT).as_posix())
        return 0
    if args.names:
        parser.error(f"{args.command} takes no names")
    if args.command == "build":
        files, problems = build()
        for target in sorted(files):
            print("wrote", target)
    else:
        problems = check()
    print("\n".join(problems) if problems else "the Spanish edition is in step with the English")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
