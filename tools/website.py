"""Build the course website: the lessons, their solutions and the docs as static pages that work offline.

    python tools/website.py build           # -> site/index.html (site/ is git-ignored)
    python tools/website.py build --open    # ... and open it in the web browser
    python tools/website.py build --no-solutions   # for learners before a workshop

The pages are made from the notebooks as stored, with their outputs: nothing is re-executed. Each
notebook goes through nbconvert's JupyterLab template (the look of JupyterLab, code highlighted by
Pygments), extended in tools/site_assets/course.html.j2 with a course menu and without anything
that the stock template loads from a CDN (RequireJS, MathJax, Mermaid, the widget manager). Saved
widget state, such as the step-through viewer of lesson 04, is rendered by the vendored
@jupyter-widgets/html-manager (tools/site_assets/html-manager), so its buttons work with no kernel
and no network, from file:// or any static host. README.md becomes the home page and docs/*.md
become pages; links between them and to notebooks point at the pages; a link to any other file of
the repository gets a copy of that file.
"""

from __future__ import annotations

import argparse
import html
import re
import shutil
import sys
import webbrowser
from dataclasses import dataclass
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
ASSETS = ROOT / "tools" / "site_assets"
MARKER = ".agent-core-site"  # marks a folder this script built, so a rebuild may empty it
LINK = re.compile(r'(href|src)="([^"]*)"')


@dataclass
class Page:
    """one page of the site: where it comes from, where it goes, what the menu calls it"""

    source: Path
    target: str  # path inside the site, with / separators
    title: str
    kind: str  # "home", "lesson", "solution" or "doc"

    @property
    def root(self) -> str:
        """the way back from this page to the site's top folder"""
        return "../" * self.target.count("/")

    def link(self, other: Page) -> str:
        return self.root + other.target


def _title(path: Path) -> str:
    """the first heading of a notebook or markdown file, without the 'Lesson NN ·' prefix"""
    if path.suffix == ".ipynb":
        cells = nbformat.read(path, as_version=4).cells
        text = next((c.source for c in cells if c.cell_type == "markdown"), "")
    else:
        text = path.read_text(encoding="utf-8")
    heading = next((line[2:].strip() for line in text.splitlines() if line.startswith("# ")), path.stem)
    return re.sub(r"^Lesson \d+\s*[·:.-]\s*", "", heading)


def pages(solutions: bool = True) -> list[Page]:
    """every page, found by glob (a new lesson needs no change here): home, lessons, solutions, docs"""
    found = [Page(ROOT / "README.md", "index.html", _title(ROOT / "README.md"), "home")]
    for folder, kind in (("lessons", "lesson"), ("solutions", "solution"))[: 2 if solutions else 1]:
        for path in sorted((ROOT / folder).glob("[0-9][0-9]_*.ipynb")):
            found.append(Page(path, f"{folder}/{path.stem}.html", f"{path.stem[:2]} {_title(path)}", kind))
    for path in sorted((ROOT / "docs").glob("*.md")):
        found.append(Page(path, f"docs/{path.stem}.html", _title(path), "doc"))
    return found


def _twin(page: Page, all_pages: list[Page]) -> Page | None:
    """a lesson's solution, or a solution's lesson"""
    other = {"lesson": "solutions/", "solution": "lessons/"}.get(page.kind)
    name = page.target.split("/")[-1]
    return next((p for p in all_pages if other and p.target == other + name), None)


def _menu(page: Page, all_pages: list[Page]) -> str:
    def item(other: Page, label: str, extra: str = "") -> str:
        current = ' class="current"' if other is page or _twin(other, all_pages) is page else ""
        return f'<li{current}><a href="{page.link(other)}">{html.escape(label)}</a>{extra}</li>'

    home = all_pages[0]
    lessons = []
    for lesson in (p for p in all_pages if p.kind == "lesson"):
        twin = _twin(lesson, all_pages)
        solved = f' <a class="solution" href="{page.link(twin)}">solution</a>' if twin else ""
        lessons.append(item(lesson, lesson.title, solved))
    docs = [item(p, p.title) for p in all_pages if p.kind == "doc"]
    return (
        f'<a class="course-title" href="{page.link(home)}">{html.escape(home.title.split(":")[0])}</a>'
        f'<h2>Lessons</h2><ol>{"".join(lessons)}</ol><h2>Guides</h2><ul>{"".join(docs)}</ul>'
    )


NEEDS_LOCAL_INSTALL = ("07_", "08_", "10_")  # they start processes or servers, which a browser cannot


def _in_browser(page: Page, all_pages: list[Page]) -> str:
    """a link into the browser edition, built beside the site by `tools/lite.py build --out site/lite`"""
    if page.source.name.startswith(NEEDS_LOCAL_INSTALL):
        return ""
    root = page.link(all_pages[0]).rpartition("/")[0]
    url = f"{root + '/' if root else ''}lite/notebooks/index.html?path=lessons/{page.source.name}"
    return f' Or <a class="in-browser" href="{url}">run it in your browser</a>, with nothing to install.'


def _banner(page: Page, all_pages: list[Page]) -> str:
    twin = _twin(page, all_pages)
    if page.kind == "lesson":
        solved = f' Every exercise solved: <a href="{page.link(twin)}">the solution</a>.' if twin else ""
        return (
            '<div class="course-banner">This page shows the notebook as it ran, outputs and all. To run '
            f'it and do the exercises, install the course (<a href="{page.link(all_pages[0])}">home '
            f"page</a>) and open it in JupyterLab.{solved}{_in_browser(page, all_pages)}</div>"
        )
    if page.kind == "solution":
        lesson = f' <a href="{page.link(twin)}">Back to the lesson</a>.' if twin else ""
        return f'<div class="course-banner">The solved twin of this lesson: every exercise done.{lesson}</div>'
    return ""


def _pager(page: Page, all_pages: list[Page]) -> str:
    """links to the previous and next page of the same kind (lesson to lesson, solution to solution)"""
    same = [p for p in all_pages if p.kind == page.kind]
    if page.kind not in ("lesson", "solution"):
        return ""
    at = same.index(page)
    before = f'<a rel="prev" href="{page.link(same[at - 1])}">← {html.escape(same[at - 1].title)}</a>' if at else "<span></span>"
    after = (
        f'<a rel="next" href="{page.link(same[at + 1])}">{html.escape(same[at + 1].title)} →</a>'
        if at + 1 < len(same)
        else "<span></span>"
    )
    return f'<nav class="course-pager" aria-label="lessons">{before}{after}</nav>'


def _links(text: str, page: Page, by_source: dict[Path, Page], copies: set[Path]) -> str:
    """links to notebooks and markdown files point at their pages; other repository files are copied"""

    def fix(match: re.Match) -> str:
        attribute, url = match.groups()
        path, hash_, fragment = html.unescape(url).partition("#")
        if not path or re.match(r"[a-zA-Z][a-zA-Z0-9+.-]*:|/", path):  # an anchor, a URL, data:
            return match.group(0)
        target = (page.source.parent / path).resolve()
        if target in by_source:
            new = page.link(by_source[target])
        elif target.is_file() and target.is_relative_to(ROOT):
            copies.add(target)
            new = page.root + target.relative_to(ROOT).as_posix()
        elif target.is_dir() and target.is_relative_to(ROOT):
            new = page.link(by_source[ROOT / "README.md"])
        else:
            return match.group(0)  # a link to nothing: left as written, the tests find it
        return f'{attribute}="{html.escape(new + hash_ + fragment)}"'

    return LINK.sub(fix, text)


def _exporter():
    from nbconvert import HTMLExporter

    return HTMLExporter(
        template_name="lab", template_file="course.html.j2", extra_template_paths=[str(ASSETS)]
    )


def build(out: Path, solutions: bool = True) -> list[Page]:
    """write every page and the static files into `out`; returns the pages"""
    if out.exists():
        if not (out / MARKER).exists():
            raise SystemExit(f"{out} exists and was not built by this script: choose another folder")
        shutil.rmtree(out)
    all_pages = pages(solutions)
    by_source = {page.source.resolve(): page for page in all_pages}
    exporter, copies = _exporter(), set()
    for page in all_pages:
        if page.source.suffix == ".ipynb":
            nb = nbformat.read(page.source, as_version=4)
        else:
            nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(page.source.read_text("utf-8"))])
        course = {
            "root": page.root,
            "menu": _menu(page, all_pages),
            "banner": _banner(page, all_pages),
            "pager": _pager(page, all_pages),
        }
        body, _ = exporter.from_notebook_node(nb, resources={"metadata": {"name": page.title}, "course": course})
        target = out / page.target
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(_links(body, page, by_source, copies), encoding="utf-8")
    for path in sorted(copies):
        destination = out / path.relative_to(ROOT)
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, destination)
    shutil.copytree(ASSETS / "html-manager", out / "static" / "html-manager")
    shutil.copyfile(ASSETS / "course.css", out / "static" / "course.css")
    (out / "static" / "jupyterlab").mkdir()
    for name in ("index.css", "theme-light.css"):  # from nbconvert's lab template, as it would inline them
        text = exporter.environment.loader.get_source(exporter.environment, f"static/{name}")[0]
        (out / "static" / "jupyterlab" / name).write_text(text, encoding="utf-8")
    (out / MARKER).write_text("built by tools/website.py; deleted and rebuilt by it\n", encoding="utf-8")
    return all_pages


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["build"])
    parser.add_argument("--out", type=Path, default=ROOT / "site", help="the folder to build into (default: site/)")
    parser.add_argument("--open", action="store_true", help="open the home page in the web browser")
    parser.add_argument("--no-solutions", action="store_true", help="leave out the solved notebooks")
    args = parser.parse_args(argv)
    out = args.out.resolve()
    built = build(out, solutions=not args.no_solutions)
    index = out / "index.html"
    print(f"built {len(built)} pages; open {index}")
    if args.open:
        webbrowser.open(index.as_uri())
    return 0


if __name__ == "__main__":
    sys.exit(main())
