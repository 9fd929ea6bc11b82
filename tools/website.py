"""Build the course website: the lessons, their solutions and the docs as static pages that work offline.

    python tools/website.py build           # -> site/index.html (site/ is git-ignored)
    python tools/website.py build --open    # ... and open it in the web browser
    python tools/website.py build --solutions      # with the solved notebooks (default: kept back)
    python tools/lite.py serve --dir site          # served to a room, the browser edition in site/lite

The pages are made from the notebooks as stored, with their outputs: nothing is re-executed. Each
notebook goes through nbconvert's JupyterLab template (the look of JupyterLab, code highlighted by
Pygments), extended in tools/site_assets/course.html.j2 with a course menu and without anything
that the stock template loads from a CDN (RequireJS, MathJax, Mermaid, the widget manager). Saved
widget state, such as the step-through viewer of lesson 04, is rendered by the vendored
@jupyter-widgets/html-manager (tools/site_assets/html-manager), so its buttons work with no kernel
and no network, from file:// or any static host. README.md becomes the home page and docs/*.md
become pages, and so does every other markdown file of the course that a page links to; links
between them and to notebooks point at the pages; a link to any other file of the course gets a
copy of that file.

The Spanish edition is built beside the English one, into es/: README.es.md, lessons/es/,
solutions/es/ and the *.es.md files, whichever exist (tools/translate.py writes them), with a Spanish
menu, banners and pager. Its menu lists every lesson, the English page where there is no Spanish one
yet, and its links lead to the Spanish page wherever there is one; the English menu lists English
pages only. A switch on every page leads to the same page in the other language, or to that
language's home page where the page has no twin.

A notebook is untrusted input, as JupyterLab treats a notebook it did not run: HTML in outputs and
markdown is sanitised (no scripts, no event handlers, no javascript: URLs, no frames or objects),
JavaScript outputs are not run, and the only scripts on a page are the vendored widget manager and
the saved widget state of the course's own widgets. Only the course's own files are ever copied:
never a hidden file (.env), a file reached through a symbolic link, or one git does not track.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import webbrowser
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

try:
    # bleach ships no type information, and its stub package (types-bleach) is not in the lock
    import bleach  # type: ignore[import-untyped]
    import nbconvert  # noqa: F401  # imported for its pages in _exporter()
    import nbformat
    import tinycss2  # type: ignore[import-untyped]  # noqa: F401  # bleach's CSS sanitiser needs it
    from bleach.css_sanitizer import ALLOWED_CSS_PROPERTIES, CSSSanitizer  # type: ignore[import-untyped]
    from translate import spanish_path  # where a file's Spanish twin is (it needs babel)
except ModuleNotFoundError as missing:
    sys.exit(
        f"tools/website.py needs the course's packages ({missing.name} is missing): "
        "pip install -r requirements-lock.txt, then pip install --no-deps -e ."
    )

from agent_core._browser import LOCAL_INSTALL_LESSONS  # noqa: E402  # after the check above

try:
    import fcntl  # builds side by side share the page cache's work (_PageCache.claim)
except ImportError:  # Windows: each build renders what it does not find in the cache
    fcntl = None  # type: ignore[assignment]

sys.path.insert(0, str(Path(__file__).resolve().parent))
import room  # noqa: E402  # tools/room.py: the room server's precompression and kept-back solutions

ROOT = Path(__file__).resolve().parent.parent
EDITION = ROOT / "build" / "lite"  # where `python tools/lite.py build` puts the browser edition
ASSETS = ROOT / "tools" / "site_assets"
MARKER = ".agent-core-site"  # marks a folder this script built, so a rebuild may empty it
LINK = re.compile(r'(href|src)="([^"]*)"')
MARKDOWN_LINK = re.compile(r"\]\(<?([^)\s>#]+\.md)(?:#[^)\s]*)?>?(?:\s[^)]*)?\)|href=\"([^\"#]+\.md)")
# a markdown file's own language switch ("**English** · [Español](X.es.md)"): the site's menu has one
SWITCH_LINE = re.compile(
    r"\A(\*\*English\*\* · \[Español\]\([^)\s]+\)|\[English\]\([^)\s]+\) · \*\*Español\*\*)\n+"
)


class BuildError(Exception):
    """a course file the site cannot be built from; the message names it, in one line"""


# --- outputs and markdown are untrusted: sanitised as JupyterLab sanitises an untrusted notebook ----

ALLOWED_TAGS = {
    *bleach.ALLOWED_TAGS,
    *"div span pre code p br hr details summary table thead tbody tr th td img sub sup kbd".split(),
    *"h1 h2 h3 h4 h5 h6 dl dt dd del ins s u small mark figure figcaption caption colgroup col".split(),
}
ALLOWED_ATTRIBUTES = {
    "*": ["class", "id", "style", "title", "lang", "dir", "align"],
    "a": ["href", "title", "rel"],
    "img": ["src", "alt", "width", "height"],
    "th": ["colspan", "rowspan", "scope"],
    "td": ["colspan", "rowspan"],
    "ol": ["start"],
    "details": ["open"],
}
ALLOWED_PROTOCOLS = ["http", "https", "mailto"]  # and relative URLs; never javascript: or data:
CSS_PROPERTIES = {
    *ALLOWED_CSS_PROPERTIES,
    *"margin margin-top margin-bottom margin-left margin-right padding padding-top padding-bottom".split(),
    *"padding-left padding-right border border-top border-bottom border-left border-right".split(),
    *"border-radius background opacity word-break overflow-wrap overflow-x overflow-y max-height".split(),
    *"max-width min-width min-height flex flex-direction flex-wrap gap align-items justify-content".split(),
    *"grid-template-columns text-transform box-sizing".split(),
}


class _CSS(CSSSanitizer):
    """bleach's CSS sanitiser, also dropping any declaration that would fetch a URL"""

    def sanitize_css(self, style: str) -> str:
        kept = super().sanitize_css(style).split(";")
        return ";".join(
            d for d in kept if d.strip() and not re.search(r"url\(|@import|expression\(", d, re.I)
        )


_CLEANER = bleach.Cleaner(
    tags=ALLOWED_TAGS,
    attributes=ALLOWED_ATTRIBUTES,
    protocols=ALLOWED_PROTOCOLS,
    strip=True,
    strip_comments=True,
    css_sanitizer=_CSS(allowed_css_properties=CSS_PROPERTIES),
)


_CODE_ELEMENT = re.compile(r"<(script|style|iframe|object|embed|noscript|template)\b.*?</\1\s*>", re.I | re.S)


def clean_html(text: str | bytes) -> str:
    """HTML from a notebook with everything that could run or load code taken out"""
    text = text.decode() if isinstance(text, bytes) else str(text)
    return _CLEANER.clean(_CODE_ELEMENT.sub("", text))  # the code's text goes too, not only its tags


WIDGET_MODULES = {"@jupyter-widgets/base", "@jupyter-widgets/controls", "@jupyter-widgets/output"}
SAFE_OUTPUT_TYPES = {"text/plain", "text/html", "text/markdown", "text/latex", "image/png", "image/jpeg"}
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
BASE64 = re.compile(r"[A-Za-z0-9+/=\s]*")


def _safe_output(output: dict) -> None:
    """keep only what the page can show without running anything from the notebook"""
    data = output.get("data")
    if isinstance(data, dict):
        for mime in list(data):
            value = data[mime]
            if mime == WIDGET_VIEW:
                if not (isinstance(value, dict) and isinstance(value.get("model_id"), str)):
                    del data[mime]
                else:
                    data[mime] = {"version_major": 2, "version_minor": 0, "model_id": value["model_id"]}
            elif mime not in SAFE_OUTPUT_TYPES:
                del data[mime]  # JavaScript, SVG (it can hold scripts) and types the page cannot show
            elif mime.startswith("image/") and not (isinstance(value, str) and BASE64.fullmatch(value)):
                del data[mime]
            elif not isinstance(value, str):
                data[mime] = "".join(value) if isinstance(value, list) else str(value)
        if not data:
            data["text/plain"] = "(an output this page does not show)"
    metadata = output.get("metadata")
    if isinstance(metadata, dict):
        metadata.pop("filenames", None)  # images come from the notebook, never from a path it names


def _safe_widgets(nb) -> None:
    """the saved widget state, limited to the standard widgets, their HTML sanitised"""
    widgets = nb.metadata.get("widgets")
    if widgets is None:
        return
    state = widgets.get(WIDGET_STATE) if isinstance(widgets, dict) else None
    if not (isinstance(state, dict) and isinstance(state.get("state"), dict)):
        del nb.metadata["widgets"]
        return
    models = state["state"]
    kept = {}
    for model_id, model in models.items():
        if not (isinstance(model, dict) and model.get("model_module") in WIDGET_MODULES):
            continue  # a custom widget would make the widget manager load its code from a CDN
        values = model.get("state")
        if isinstance(values, dict):
            for key in ("value", "description", "placeholder"):
                if isinstance(values.get(key), str):
                    values[key] = clean_html(values[key])
            for output in values.get("outputs") or []:
                if isinstance(output, dict):
                    _safe_output(output)
        kept[model_id] = model
    nb.metadata["widgets"] = {WIDGET_STATE: {**state, "state": kept}}


def _read_notebook(path: Path, root: Path, widgets: bool = True):
    """a notebook, its outputs made safe to publish; BuildError names a file that is not one

    widgets=False: its saved widget state left out (what reading its title needs, without the cost
    of sanitising that state's HTML)"""
    name = _shown(path, root)
    try:
        with open(path, encoding="utf-8") as file:
            raw = json.load(file)
        nb = nbformat.from_dict(raw)
        if not isinstance(raw, dict) or not isinstance(nb.get("cells"), list):
            raise BuildError(f"{name} is not a notebook: it has no list of cells")
        nb = nbformat.convert(nb, 4) if nb.get("nbformat") != 4 else nb
    except UnicodeDecodeError:
        raise BuildError(f"{name} is not a notebook: it is not UTF-8 text") from None
    except json.JSONDecodeError as error:
        raise BuildError(f"{name} is not a notebook: it is not valid JSON ({error})") from None
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as error:
        raise BuildError(
            f"{name} is not a notebook nbformat can read ({type(error).__name__}: {error})"
        ) from None
    for cell in nb.cells:
        if not isinstance(cell, dict) or not isinstance(cell.get("source", ""), (str, list)):
            raise BuildError(f"{name} is not a notebook: a cell is not an object with a source")
        if isinstance(cell.get("source"), list):
            cell["source"] = "".join(map(str, cell["source"]))
        cell.setdefault("source", "")
        cell.setdefault("metadata", nbformat.NotebookNode())
        for output in cell.get("outputs") or []:
            if isinstance(output, dict):
                _safe_output(output)
        if cell.get("cell_type") == "code":
            cell["outputs"] = [o for o in cell.get("outputs") or [] if isinstance(o, dict)]
    if not isinstance(nb.get("metadata"), dict):
        nb["metadata"] = nbformat.NotebookNode()
    if not widgets:
        nb.metadata.pop("widgets", None)
    _safe_widgets(nb)
    saved = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    for cell in nb.cells:
        for output in cell.get("outputs") or []:
            data = output.get("data")
            if isinstance(data, dict) and WIDGET_VIEW in data and data[WIDGET_VIEW]["model_id"] not in saved:
                del data[WIDGET_VIEW]  # a view of a widget whose state was not saved shows nothing
                data.setdefault("text/plain", "(a widget whose state was not saved)")
    return nb


def _shown(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def _tracked(root: Path) -> set[str] | None:
    """the files git tracks in the course (None when it is not a git checkout)"""
    if not (root / ".git").exists():
        return None
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "ls-files", "-z"], capture_output=True, timeout=60, check=True
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return set(done.stdout.decode("utf-8", "replace").split("\0"))


def course_file(path: Path, root: Path, tracked: set[str] | None = None) -> bool:
    """a file of the course that may be published: inside it, not hidden, reached through no
    symbolic link, and tracked by git when the course is a git checkout"""
    path = Path(os.path.normpath(path))
    try:
        relative = path.relative_to(root)
    except ValueError:
        return False
    if any(part.startswith(".") for part in relative.parts) or not path.is_file():
        return False
    if path.resolve() != root.resolve() / relative:  # a symbolic link somewhere on the way
        return False
    return tracked is None or relative.as_posix() in tracked


LANGUAGES = ("en", "es")  # English first: the English home page is the site's index.html
KINDS = ("home", "lesson", "solution", "doc", "reference")  # the order of the pages in each language
# what the site's own parts say in each language (the pages' text comes from the course's files)
WORDS = {
    "en": {
        "name": "English",
        "menu": "Menu",
        "lessons": "Lessons",
        "guides": "Guides",
        "reference": "Reference",
        "solution": "solution",
        "pager": "lessons",
        "course": "course",
        "lesson banner": "This page shows the notebook as it ran, outputs and all. To run it and do the "
        'exercises, install the course (<a href="{home}">home page</a>) and open it in JupyterLab.',
        "solved": ' Every exercise solved: <a href="{solution}">the solution</a>.',
        "in browser": ' Or <a class="in-browser" href="{url}">run it in your browser</a>, with nothing to '
        "install.",
        "solution banner": "The solved twin of this lesson: every exercise done.",
        "back": ' <a href="{lesson}">Back to the lesson</a>.',
    },
    "es": {
        "name": "Español",
        "menu": "Menú",
        "lessons": "Lecciones",
        "guides": "Guías",
        "reference": "Referencia",
        "solution": "solución",
        "pager": "lecciones",
        "course": "curso",
        "in english": "en inglés",
        "lesson banner": "Esta página muestra el cuaderno tal como se ejecutó, con todas sus salidas. Para "
        'ejecutarlo y hacer los ejercicios, instala el curso (<a href="{home}">página de inicio</a>) y '
        "ábrelo en JupyterLab.",
        "solved": ' Todos los ejercicios resueltos: <a href="{solution}">la solución</a>.',
        "in browser": ' O <a class="in-browser" href="{url}">ejecútalo en tu navegador</a>, sin instalar '
        "nada.",
        "solution banner": "La versión resuelta de esta lección: todos los ejercicios hechos.",
        "back": ' <a href="{lesson}">Volver a la lección</a>.',
    },
}


@dataclass
class Page:
    """one page of the site: where it comes from, where it goes, what the menu calls it"""

    source: Path
    target: str  # path inside the site, with / separators
    title: str
    kind: str  # one of KINDS
    language: str = "en"  # "es": a page of the Spanish edition, in the site's es/ folder

    @property
    def root(self) -> str:
        """the way back from this page to the site's top folder"""
        return "../" * self.target.count("/")

    def link(self, other: Page) -> str:
        """a URL from this page to the other, %-encoded: safe in an HTML attribute as it is"""
        return quote(self.root + other.target)


def _title(path: Path, root: Path = ROOT) -> str:
    """the first heading of a notebook or markdown file, without the 'Lesson NN ·' prefix"""
    if path.suffix == ".ipynb":
        cells = _read_notebook(path, root, widgets=False).cells
        text = next((c.source for c in cells if c.get("cell_type") == "markdown"), "")
    else:
        text = _read_markdown(path, root)
    heading = next((line[2:].strip() for line in text.splitlines() if line.startswith("# ")), path.stem)
    return re.sub(r"^(Lesson|Lección) \d+\s*[·:.-]\s*", "", heading).replace("`", "")  # code marks


def _read_markdown(path: Path, root: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise BuildError(f"{_shown(path, root)} is not UTF-8 text") from None


def pages(solutions: bool = True, root: Path = ROOT) -> list[Page]:
    """every page, found by glob (a new lesson or translation needs no change here): in English, then
    in Spanish, home, lessons, solutions, docs; then every other markdown file of the course that one
    of them links to. Spanish pages go into es/, made from README.es.md, lessons/es/, solutions/es/
    and the *.es.md files."""
    root = root.resolve()
    tracked = _tracked(root)
    found = [Page(root / "README.md", "index.html", _title(root / "README.md", root), "home")]
    if course_file(root / "README.es.md", root):
        found.append(
            Page(root / "README.es.md", "es/index.html", _title(root / "README.es.md", root), "home", "es")
        )
    for language, prefix, folder_in in (("en", "", ""), ("es", "es/", "/es")):
        for folder, kind in (("lessons", "lesson"), ("solutions", "solution"))[: 2 if solutions else 1]:
            for path in sorted((root / (folder + folder_in)).glob("[0-9][0-9]_*.ipynb")):
                if course_file(path, root):
                    title = f"{path.stem[:2]} {_title(path, root)}"
                    found.append(Page(path, f"{prefix}{folder}/{path.stem}.html", title, kind, language))
    for path in sorted((root / "docs").glob("*.md")):
        if course_file(path, root):
            found.append(Page(path, _target(path, root), _title(path, root), "doc", _language(path)))
    known = {page.source for page in found}
    for page in found:  # grows while it runs: a linked page's own links are followed too
        text = page.source.read_text(encoding="utf-8", errors="replace")
        for match in MARKDOWN_LINK.finditer(text):
            linked = Path(os.path.normpath(page.source.parent / (match.group(1) or match.group(2))))
            if linked not in known and course_file(linked, root, tracked):
                known.add(linked)
                found.append(
                    Page(linked, _target(linked, root), _title(linked, root), "reference", _language(linked))
                )
    return sorted(
        found, key=lambda page: (LANGUAGES.index(page.language), KINDS.index(page.kind))
    )  # stable: globbed order kept


def _language(path: Path) -> str:
    return "es" if path.name.endswith(".es.md") else "en"


def _target(path: Path, root: Path) -> str:
    """a markdown file's page: docs/teaching.md -> docs/teaching.html, docs/teaching.es.md ->
    es/docs/teaching.html"""
    relative = path.relative_to(root).as_posix()
    if _language(path) == "es":
        return "es/" + relative.removesuffix(".es.md") + ".html"
    return relative.removesuffix(".md") + ".html"


def _translation(page: Page, all_pages: list[Page]) -> Page | None:
    """the same page in the other language, when the course has it"""
    if page.language == "en":
        spanish = Path(spanish_path(str(page.source)))
        return next((p for p in all_pages if p.language == "es" and p.source == spanish), None)
    return next(
        (p for p in all_pages if p.language == "en" and Path(spanish_path(str(p.source))) == page.source),
        None,
    )


def _home(language: str, all_pages: list[Page]) -> Page | None:
    return next((p for p in all_pages if p.kind == "home" and p.language == language), None)


def _twin(page: Page, all_pages: list[Page]) -> Page | None:
    """a lesson's solution, or a solution's lesson, in the same language"""
    other = {"lesson": "solutions/", "solution": "lessons/"}.get(page.kind)
    folder = "es/" if page.language == "es" else ""
    name = page.target.split("/")[-1]
    return next((p for p in all_pages if other and p.target == folder + other + name), None)


def _shown_in(language: str, kind: str, all_pages: list[Page]) -> list[Page]:
    """the pages of a kind as the menu in `language` lists them: the English ones, each replaced by its
    translation where there is one, then the pages that exist only in that language"""
    english = [p for p in all_pages if p.kind == kind and p.language == "en"]
    if language == "en":
        return english
    shown = [_translation(p, all_pages) or p for p in english]
    return shown + [p for p in all_pages if p.kind == kind and p.language == language and p not in shown]


def _switch(page: Page, all_pages: list[Page]) -> str:
    """the language switch: to the same page in the other language, else to that language's home page"""
    other = "es" if page.language == "en" else "en"
    target = _translation(page, all_pages) or _home(other, all_pages)
    if target is None:
        return ""  # a course in one language
    return (
        '<span class="course-language">'
        f"{WORDS[page.language]['name']} · "
        f'<a href="{page.link(target)}" hreflang="{other}" lang="{other}">{WORDS[other]["name"]}</a></span>'
    )


def _menu(page: Page, all_pages: list[Page]) -> str:
    words = WORDS[page.language]

    def item(other: Page, label: str, extra: str = "") -> str:
        current = ' class="current"' if other is page or _twin(other, all_pages) is page else ""
        foreign = other.language != page.language  # no translation yet: the English page
        lang = f' lang="{other.language}"' if foreign else ""
        note = f' <small class="course-untranslated">({words["in english"]})</small>' if foreign else ""
        return f'<li{current}><a{lang} href="{page.link(other)}">{html.escape(label)}</a>{note}{extra}</li>'

    home = _home(page.language, all_pages) or all_pages[0]
    lessons = []
    for lesson in _shown_in(page.language, "lesson", all_pages):
        twin = _twin(lesson, all_pages)
        solved = f' <a class="solution" href="{page.link(twin)}">{words["solution"]}</a>' if twin else ""
        lessons.append(item(lesson, lesson.title, solved))
    docs = [item(p, p.title) for p in _shown_in(page.language, "doc", all_pages)]
    reference = [item(p, p.title) for p in _shown_in(page.language, "reference", all_pages)]
    more = f"<h2>{words['reference']}</h2><ul>{''.join(reference)}</ul>" if reference else ""
    return (
        f'<a class="course-title" href="{page.link(home)}">{html.escape(home.title.split(":")[0])}</a>'
        f"{_switch(page, all_pages)}"
        # on a narrow screen the list folds away behind a button: a checkbox and its label, no script
        '<input type="checkbox" id="course-menu-open" class="course-menu-switch">'
        f'<label for="course-menu-open" class="course-menu-button">{words["menu"]}</label>'
        f'<div class="course-menu-items"><h2>{words["lessons"]}</h2><ol>{"".join(lessons)}</ol>'
        f"<h2>{words['guides']}</h2><ul>{''.join(docs)}</ul>{more}</div>"
    )


def _in_browser(page: Page, edition: bool) -> str:
    """a link into the browser edition in the site's lite/, when it is there and runs the lesson"""
    if not edition or page.source.name[:2] in LOCAL_INSTALL_LESSONS:
        return ""
    folder = "lessons/es/" if page.language == "es" else "lessons/"
    url = f"{page.root}lite/notebooks/index.html?path={quote(folder + page.source.name)}"
    return WORDS[page.language]["in browser"].format(url=html.escape(url))


def _banner(page: Page, all_pages: list[Page], edition: bool = False) -> str:
    twin, words = _twin(page, all_pages), WORDS[page.language]
    if page.kind == "lesson":
        home = _home(page.language, all_pages) or all_pages[0]
        solved = words["solved"].format(solution=page.link(twin)) if twin else ""
        text = words["lesson banner"].format(home=page.link(home)) + solved + _in_browser(page, edition)
        return f'<div class="course-banner">{text}</div>'
    if page.kind == "solution":
        lesson = words["back"].format(lesson=page.link(twin)) if twin else ""
        return f'<div class="course-banner">{words["solution banner"]}{lesson}</div>'
    return ""


def _pager(page: Page, all_pages: list[Page]) -> str:
    """links to the previous and next page of the same kind (lesson to lesson, solution to solution),
    in the order of the page's menu"""
    if page.kind not in ("lesson", "solution"):
        return ""
    same = _shown_in(page.language, page.kind, all_pages)
    at = same.index(page)
    before = (
        f'<a rel="prev" href="{page.link(same[at - 1])}">← {html.escape(same[at - 1].title)}</a>'
        if at
        else "<span></span>"
    )
    after = (
        f'<a rel="next" href="{page.link(same[at + 1])}">{html.escape(same[at + 1].title)} →</a>'
        if at + 1 < len(same)
        else "<span></span>"
    )
    return f'<nav class="course-pager" aria-label="{WORDS[page.language]["pager"]}">{before}{after}</nav>'


def _links(text: str, page: Page, site: _Site) -> str:
    """links to notebooks and markdown files point at their pages (from a Spanish page, at the Spanish
    page where there is one); other course files are copied"""

    def fix(match: re.Match) -> str:
        attribute, url = match.groups()
        path, hash_, fragment = html.unescape(url).partition("#")
        if not path or re.match(r"[a-zA-Z][a-zA-Z0-9+.-]*:|/", path):  # an anchor, a URL, data:
            return match.group(0)
        target = Path(os.path.normpath(page.source.parent / path))
        if target.resolve() in site.by_source:
            linked = site.by_source[target.resolve()]
            if page.language == "es" and linked.language == "en":
                linked = _translation(linked, site.pages) or linked
            new = page.link(linked)
        elif course_file(target, site.root, site.tracked):
            site.copies.add(target)
            new = page.root + quote(target.relative_to(site.root).as_posix())
        elif target.is_dir() and target.resolve().is_relative_to(site.root):
            new = page.link(_home(page.language, site.pages) or site.pages[0])
        else:
            return match.group(0)  # not the course's: never copied, left as written
        return f'{attribute}="{html.escape(new + hash_ + fragment)}"'

    return LINK.sub(fix, text)


def _slug(heading_id: str) -> str:
    """the anchor GitHub gives a heading, from the id nbconvert gives it ("The-version": "the-version")"""
    return re.sub(r"[^\w\- ]", "", heading_id.lower()).replace(" ", "-")


def _anchors_as_written(out: Path, all_pages: list[Page]) -> None:
    """a link to a heading, written as GitHub names it (docs/maintaining.md#the-version), led to the
    id nbconvert gives that heading on its page ("The-version"), where the two differ"""
    ids = {}
    for page in all_pages:
        text = (out / page.target).read_text(encoding="utf-8")
        ids[(out / page.target).resolve()] = set(re.findall(r'\sid="([^"]+)"', text))

    def fix(match: re.Match, path: Path) -> str:
        target, _, fragment = html.unescape(match.group(1)).partition("#")
        found = ids.get((path.parent / target).resolve() if target else path.resolve(), set())
        if not fragment or fragment in found:
            return match.group(0)
        same = [name for name in sorted(found) if _slug(name) == fragment]
        return f'href="{html.escape(target + "#" + same[0])}"' if same else match.group(0)

    for page in all_pages:
        path = out / page.target
        text = path.read_text(encoding="utf-8")
        path.write_text(
            re.sub(r'href="([^"#]*#[^"]+)"', functools.partial(fix, path=path), text), encoding="utf-8"
        )


@dataclass
class _Site:
    """what building one site needs to know across its pages"""

    root: Path
    pages: list[Page]
    tracked: set[str] | None
    copies: set[Path]

    def __post_init__(self) -> None:
        self.by_source = {page.source.resolve(): page for page in self.pages}


def _exporter(kind: type | None = None):
    """the exporter every page goes through (kind: another HTMLExporter class with the same settings,
    such as nbconvert's own, which tests/test_website.py compares it with)"""
    from nbconvert import HTMLExporter
    from nbconvert.exporters.templateexporter import TemplateExporter
    from nbconvert.filters.highlight import Highlight2HTML
    from nbconvert.filters.widgetsdatatypefilter import WidgetsDataTypeFilter

    class CourseExporter(HTMLExporter):
        """nbconvert's HTMLExporter, with its last step done on the page's text: nbconvert parses the
        whole page again with BeautifulSoup to make cells and outputs focusable and give images an alt
        text, which is more than half of a page's rendering time. The page is the same once parsed
        (tests/test_website.py compares the two on the course's notebooks)."""

        def from_notebook_node(self, nb, resources=None, **kw):
            # HTMLExporter.from_notebook_node (nbconvert 7.17) up to its BeautifulSoup step
            info = nb.metadata.get("language_info", {})
            lexer = info.get("pygments_lexer", info.get("name", None))
            highlight_code = self.filters.get(
                "highlight_code", Highlight2HTML(pygments_lexer=lexer, parent=self)
            )
            resources = self._init_resources(resources)
            filter_data_type = WidgetsDataTypeFilter(
                notebook_metadata=self._nb_metadata, parent=self, resources=resources
            )
            self.register_filter("highlight_code", highlight_code)
            self.register_filter("filter_data_type", filter_data_type)
            page, resources = TemplateExporter.from_notebook_node(self, nb, resources, **kw)
            return _focusable(page), resources

    exporter = (kind or CourseExporter)(
        template_name="lab",
        template_file="course.html.j2",
        extra_template_paths=[str(ASSETS)],
        sanitize_html=True,  # markdown, HTML outputs and raw cells go through clean_html
    )
    exporter.register_filter("clean_html", clean_html)
    return exporter


NO_ALT = "No description has been provided for this image"  # nbconvert's words for an image with none
_SCRIPT = re.compile(r"(<script\b[^>]*>.*?</script>)", re.S)  # data (widget state), never markup
_START_TAG = re.compile(r"<(div|img)\b[^>]*>")
_FOCUSABLE = re.compile(r'\sclass="(?:[^"]*\s)?(?:jp-Cell-inputWrapper|jp-OutputArea-output)(?:\s[^"]*)?"')


def _focusable(page: str) -> str:
    """what nbconvert's HTMLExporter does last: every cell's input and every output focusable by the
    keyboard (tabindex="0"), every image without an alt text given nbconvert's; inside a script
    element (the saved widget state) nothing is markup"""

    def tag(match: re.Match[str]) -> str:
        text = match.group(0)
        end = len(text) - (2 if text.endswith("/>") else 1)
        if match.group(1) == "img" and not re.search(r"\salt=", text):
            return f'{text[:end]} alt="{NO_ALT}"{text[end:]}'
        if match.group(1) == "div" and _FOCUSABLE.search(text) and not re.search(r"\stabindex=", text):
            return f'{text[:end]} tabindex="0"{text[end:]}'
        return text

    parts = _SCRIPT.split(page)  # markup, script, markup, script, ...
    return "".join(part if number % 2 else _START_TAG.sub(tag, part) for number, part in enumerate(parts))


# --- a page rendered once: kept by its content, so a rebuild renders only what changed ----------------

CACHE = ROOT / "build" / "website-pages"  # git-ignored, as all of build/; safe to delete at any time
CACHE_KEEP = 600  # pages kept, the most recently used: two full sites in both languages, and more
# where the course's own parts of a page go; an HTML comment cannot come from a notebook or markdown file
# (the sanitiser strips comments, and code, text outputs and titles are escaped)
SLOTS = ("menu", "banner", "pager")


def _slot(name: str) -> str:
    return f"<!--agent-core-site:{name}-->"


@functools.cache
def _renderer_key() -> bytes:
    """what the rendering depends on besides the page: this script, the template, the libraries"""
    import mistune
    import pygments  # type: ignore[import-untyped]  # its stubs (types-Pygments) are not in the lock

    parts = [Path(__file__).read_bytes()]
    parts += [path.read_bytes() for path in sorted(ASSETS.glob("*.j2"))]
    parts += [
        f"{module.__name__} {module.__version__}".encode()
        for module in (bleach, mistune, nbconvert, nbformat, pygments)
    ]
    return hashlib.sha256(b"\0".join(parts)).digest()


def _page_key(page: Page, label: str) -> str:
    """the cache's name for a page: its file's bytes, and what the template is given besides"""
    digest = hashlib.sha256(_renderer_key())
    for part in (page.source.suffix, page.title, page.language, page.root, label):
        digest.update(b"\0" + part.encode())
    digest.update(b"\0" + page.source.read_bytes())
    return digest.hexdigest()


class _PageCache:
    """rendered pages in CACHE, written atomically; builds running side by side (a test suite's
    workers) share the work: a page another build is rendering is left for later, then read"""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        try:
            folder.mkdir(parents=True, exist_ok=True)
            self.usable = os.access(folder, os.W_OK)
        except OSError:
            self.usable = False

    def get(self, key: str) -> str | None:
        path = self.folder / f"{key}.html"
        try:
            text = path.read_text(encoding="utf-8")
            os.utime(path)  # recently used: kept when the cache is trimmed
            return text
        except (OSError, UnicodeDecodeError):
            return None

    def put(self, key: str, text: str) -> None:
        if not self.usable:
            return
        try:
            handle, temporary = tempfile.mkstemp(dir=self.folder, prefix=f".{key}.", suffix=".tmp")
        except OSError:
            return
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                file.write(text)
            os.replace(temporary, self.folder / f"{key}.html")  # whole or not at all, for every reader
        except OSError:
            Path(temporary).unlink(missing_ok=True)

    def claim(self, key: str, wait: bool):
        """a lock on rendering the page (an open file, closed to release it); None when another build
        holds it and wait is False. Where there is no fcntl (Windows) nothing is shared: always a lock"""
        if fcntl is None or not self.usable:
            return open(os.devnull, "w")  # noqa: SIM115  # closed by the caller
        try:
            lock = open(self.folder / f".{key}.lock", "a")  # noqa: SIM115  # closed by the caller
        except OSError:
            return open(os.devnull, "w")  # noqa: SIM115
        try:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except OSError:
            lock.close()
            return None
        return lock

    def trim(self) -> None:
        """only the CACHE_KEEP most recently used pages kept, and no stale lock or temporary file"""
        try:
            found = sorted(self.folder.glob("*.html"), key=lambda path: path.stat().st_mtime, reverse=True)
            for path in found[CACHE_KEEP:]:
                path.unlink(missing_ok=True)
                (self.folder / f".{path.stem}.lock").unlink(missing_ok=True)
        except OSError:
            pass


def _render(exporter, page: Page, root: Path, label: str) -> str:
    """the page's HTML, its menu, banner and pager left as slots"""
    if page.source.suffix == ".ipynb":
        nb = _read_notebook(page.source, root)
    else:
        markdown = SWITCH_LINE.sub("", _read_markdown(page.source, root), count=1)
        cell = nbformat.v4.new_markdown_cell(markdown, id="page")  # the same id in every build
        nb = nbformat.v4.new_notebook(cells=[cell])
    course = {"root": page.root, "label": label, **{name: _slot(name) for name in SLOTS}}
    exporter.language_code = page.language  # <html lang="...">
    body, _ = exporter.from_notebook_node(nb, resources={"metadata": {"name": page.title}, "course": course})
    return body


def _fill(body: str, parts: dict[str, str]) -> str:
    """the slots filled: the menu and banner come before the page's content, the pager after it;
    each part written as nbconvert's HTMLExporter writes a page (parsed and written by BeautifulSoup)"""
    from bs4 import BeautifulSoup

    written = {name: str(BeautifulSoup(part, features="html.parser")) for name, part in parts.items()}
    for name in ("menu", "banner"):
        at = body.find(_slot(name))
        if at >= 0:
            body = body[:at] + _part(written[name], body[at + len(_slot(name)) :])
    before, slot, after = body.rpartition(_slot("pager"))
    return before + _part(written["pager"], after) if slot else body


def _part(written: str, after: str) -> str:
    """a part, and what follows its slot: an empty part takes the slot's line break with it, as the
    template's whitespace control does for an empty value"""
    return written + after if written or not after.startswith("\n") else after[1:]


def _rendered(exporter, pages_: list[Page], root: Path, cache: _PageCache, log) -> dict[int, str]:
    """every page's HTML with slots: from the cache, else rendered (and kept); logged in order"""
    bodies: dict[int, str] = {}
    later: list[tuple[int, str]] = []

    def one(number: int, key: str, wait: bool) -> bool:
        body = cache.get(key)
        if body is None:
            lock = cache.claim(key, wait)
            if lock is None:
                return False  # another build is rendering it: read it from the cache later
            with lock:
                body = cache.get(key)
                if body is None:
                    body = _render(exporter, pages_[number], root, WORDS[pages_[number].language]["course"])
                    cache.put(key, body)
        bodies[number] = body
        return True

    for number, page in enumerate(pages_):
        log(f"[{number + 1:2}/{len(pages_)}] {page.target}")
        key = _page_key(page, WORDS[page.language]["course"])
        if not one(number, key, wait=False):
            later.append((number, key))
    for number, key in later:
        one(number, key, wait=True)
    return bodies


def build(
    out: Path,
    solutions: bool = True,
    root: Path = ROOT,
    log: Callable[[str], None] = print,
    edition_from: Path | None = None,
) -> list[Page]:
    """write every page and the static files into `out`; returns the pages

    root: the course's folder. log: told about each page as it is written. edition_from: a built
    browser edition to copy into out/lite (default: the course's build/lite); the newer of it and the
    one already in out/lite is kept, and the lesson pages link to it only when there is one.
    """
    root = root.resolve()
    if out.exists() and not (out / MARKER).exists() and [p.name for p in out.iterdir()] != ["lite"]:
        raise SystemExit(f"{out} exists and was not built by this script: choose another folder")
    kept = _keep_edition(out)
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    built = root / "build" / "lite" if edition_from is None else edition_from
    edition = _place_edition(out / "lite", kept, built)
    if edition and solutions:  # the edition's solutions as the website's: there, or kept back
        room.release(out / "lite")
    elif edition:
        room.keep_back(out / "lite")
    all_pages = pages(solutions, root)
    site = _Site(root, all_pages, _tracked(root), set())
    exporter = _exporter()
    cache = _PageCache(CACHE)
    bodies = _rendered(exporter, all_pages, root, cache, log)
    for number, page in enumerate(all_pages):
        parts = {
            "menu": _menu(page, all_pages),
            "banner": _banner(page, all_pages, edition),
            "pager": _pager(page, all_pages),
        }
        target = out / page.target
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(_links(_fill(bodies[number], parts), page, site), encoding="utf-8")
    cache.trim()
    _anchors_as_written(out, all_pages)
    for path in sorted(site.copies):
        destination = out / path.relative_to(root)
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, destination)
    shutil.copytree(ASSETS / "html-manager", out / "static" / "html-manager")
    shutil.copyfile(ASSETS / "course.css", out / "static" / "course.css")
    shutil.copyfile(ASSETS / "course.js", out / "static" / "course.js")
    (out / "static" / "jupyterlab").mkdir()
    for name in (
        "index.css",
        "theme-light.css",
        "theme-dark.css",
    ):  # from nbconvert's lab template, as it would inline them
        text = exporter.environment.loader.get_source(exporter.environment, f"static/{name}")[0]
        (out / "static" / "jupyterlab" / name).write_text(text, encoding="utf-8")
    room.precompress(out, skip="lite/")  # the edition's own files were precompressed when it was built
    (out / MARKER).write_text(
        "built by tools/website.py; deleted and rebuilt by it\n"
        f"solutions: {'yes' if solutions else 'no'}\n",  # read by built_with_solutions()
        encoding="utf-8",
    )
    log(
        "the lesson pages link to the browser edition in lite/"
        if edition
        else "no browser edition in build/lite, so no 'run it in your browser' links: "
        "`python tools/lite.py build` builds one and adds them"
    )
    return all_pages


def built_with_solutions(out: Path) -> bool:
    """whether the website in `out` was built with the solutions (tools/lite.py rebuilds it as it was)"""
    return "solutions: no" not in (out / MARKER).read_text(encoding="utf-8")


def _edition(folder: Path) -> float | None:
    """when the browser edition in `folder` was built, or None when there is none"""
    config = folder / "jupyter-lite.json"
    return config.stat().st_mtime if config.is_file() else None


def _keep_edition(out: Path) -> Path | None:
    """the browser edition in out/lite moved aside, so that rebuilding the website never deletes it"""
    if _edition(out / "lite") is None:
        return None
    aside = out.parent / f".{out.name}-lite-kept"
    shutil.rmtree(aside, ignore_errors=True)
    (out / "lite").rename(aside)
    return aside


def _place_edition(lite: Path, kept: Path | None, built: Path) -> bool:
    """out/lite: the newer of the edition kept from the last site and the one in build/lite"""
    newest = max(
        (folder for folder in (kept, built) if folder is not None and _edition(folder) is not None),
        key=lambda folder: _edition(folder) or 0.0,
        default=None,
    )
    if newest is kept and kept is not None:
        kept.rename(lite)
    elif newest is not None:
        shutil.copytree(newest, lite)
    if kept is not None and kept.exists():
        shutil.rmtree(kept)
    return newest is not None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("command", choices=["build"])
    parser.add_argument(
        "--out", type=Path, default=ROOT / "site", help="the folder to build into (default: site/)"
    )
    parser.add_argument("--open", action="store_true", help="open the home page in the web browser")
    parser.add_argument(
        "--solutions", action="store_true", help="include the solved notebooks (default: kept back)"
    )
    parser.add_argument("--no-solutions", action="store_true", help=argparse.SUPPRESS)  # the default now
    parser.add_argument(
        "--course", type=Path, default=ROOT, help="the course folder (default: this repository)"
    )
    args = parser.parse_args(argv)
    out = args.out.resolve()
    try:
        built = build(
            out,
            args.solutions and not args.no_solutions,
            args.course,
            log=lambda line: print(line, flush=True),
        )
    except BuildError as error:
        print(f"website.py: {error}", file=sys.stderr)
        return 1
    index = out / "index.html"
    print(f"built {len(built)} pages; open {index}")
    shown = out.relative_to(Path.cwd()) if out.is_relative_to(Path.cwd()) else out
    print(f"or serve it to a room, the browser edition with it: python tools/lite.py serve --dir {shown}")
    if args.open and not _open_in_browser(index):
        print(f"could not start a web browser here: open {index.as_uri()} in one yourself")
    return 0


def _open_in_browser(index: Path) -> bool:
    try:
        return webbrowser.open(index.as_uri())
    except webbrowser.Error:
        return False


if __name__ == "__main__":
    sys.exit(main())
