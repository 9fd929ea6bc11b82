"""lesson 00: the browser edition (JupyterLite): what needs a process, server or thread says so;
packages load late."""

from __future__ import annotations

import html
import importlib
import importlib.abc
import importlib.machinery
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any
from urllib.parse import urljoin

from ._i18n import N_, _

__all__ = [
    "IN_BROWSER",
    "LOCAL_INSTALL_LESSONS",
    "NeedsLocalInstall",
    "needs_local_install",
    "stop_line",
    "local_install_only",
    "STOP_COMMENTS",
    "stop_marked",
    "PlainTable",
    "LoadOnImport",
    "load_ipython_extension",
]

IN_BROWSER = sys.platform == "emscripten"  # Pyodide's Python reports this platform

# the lessons the browser edition cannot run, each with why: the website offers no "run it in your
# browser" link for them, the edition stops them at their first cell, and the README and
# docs/teaching.md name exactly these (tests/test_browser.py)
LOCAL_INSTALL_LESSONS = {
    "07": N_("Lesson 07 runs commands in processes and limits each search's time"),
    "08": N_("Lesson 08 starts servers and talks to them over the network"),
    "10": N_("Lesson 10 runs MCP servers as processes"),
    "12": N_("Lesson 12 runs lesson 07's workspaces, which start processes"),
}


class NeedsLocalInstall(RuntimeError):
    """raised where the browser cannot do what a local Python can (a process, a server, a thread)"""

    def _render_traceback_(self) -> list[str]:  # IPython shows this one line instead of a traceback
        return [f"{type(self).__name__}: {self}"]


def needs_local_install(what: str, lesson: str) -> None:
    """in the browser, stop with one clear line: `what` needs the course installed on a computer (in the
    learner's language: `what` and a lesson such as "06 or 08" are catalogue entries, tools/translate.py)"""
    if IN_BROWSER:
        raise NeedsLocalInstall(stop_line(what, lesson))


def stop_line(what: str, lesson: str) -> str:
    """what needs_local_install says in the browser, pointing to the README's quick start"""
    return _(
        "{what}, which the browser edition cannot do: run lesson {lesson} from a local install "
        "(README, quick start).",
        what=_(what),
        lesson=_(lesson),
    )


def _nothing(lines: list[str]) -> list[str]:
    """an IPython input transformer: the cell, whatever it holds, becomes an empty one"""
    return []


def local_install_only(lesson: str) -> None:
    """the cell the browser edition puts first in a lesson of LOCAL_INSTALL_LESSONS: in the browser it
    says so in one line, and every later cell of this kernel then does nothing, so that running the
    lesson cell by cell shows no error from names that were never defined. Outside, it does nothing."""
    if not IN_BROWSER:
        return
    from IPython import get_ipython

    ipython = get_ipython()
    if ipython is not None and _nothing not in ipython.input_transformers_cleanup:
        ipython.input_transformers_cleanup.append(_nothing)
    needs_local_install(LOCAL_INSTALL_LESSONS[lesson], lesson)


# the first line the browser edition gives every code cell of a lesson of LOCAL_INSTALL_LESSONS
# (tools/lite.py), in English or in Spanish: whichever of its cells a learner runs first says the one
# line that its first cell says, instead of a NameError for a name that cell never defined
STOP_COMMENTS = {
    "en": "# Added by the browser edition: lesson {lesson} needs a local install (README)",
    "es": "# Añadida por la edición para el navegador: la lección {lesson} necesita una instalación local "
    "(README.es.md)",
}
_STOP_LINES = {
    comment.format(lesson=lesson): lesson
    for comment in STOP_COMMENTS.values()
    for lesson in LOCAL_INSTALL_LESSONS
}


def stop_marked(lines: list[str]) -> list[str]:
    """an IPython input transformer: a cell whose first line is a STOP_COMMENTS line becomes the call
    that stops its lesson (local_install_only); any other cell is left as it is"""
    lesson = _STOP_LINES.get(lines[0].rstrip("\n")) if lines else None
    if lesson is None:
        return lines
    return [f'from agent_core._browser import local_install_only; local_install_only("{lesson}")\n']


# --- packages loaded on first import ---------------------------------------------------------------


def _installed(package: str) -> bool:
    import importlib.metadata

    try:
        importlib.metadata.distribution(package)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


def _fetch(url: str) -> bytes:
    """a file of the edition, fetched synchronously: a kernel's worker may (a page may not)"""
    from js import Uint8Array, XMLHttpRequest  # type: ignore[import-not-found]  # Pyodide's

    request = XMLHttpRequest.new()
    request.open("GET", url, False)
    request.responseType = "arraybuffer"
    request.send(None)
    if request.status != 200:
        raise ImportError(f"the browser edition could not fetch {url}: HTTP {request.status}")
    return bytes(Uint8Array.new(request.response).to_bytes())


class LoadOnImport(importlib.abc.MetaPathFinder):
    """finds a top-level module that a package of the edition's pyodide-lock.json holds but the kernel
    has not loaded: installs that package and its dependencies from the edition, then finds it"""

    def __init__(self, packages: dict[str, dict[str, Any]], base_url: str) -> None:
        self.packages, self.base_url = packages, base_url
        self.by_module = {module: name for name, p in packages.items() for module in p["imports"]}

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        package = self.by_module.get(fullname)
        if path is not None or package is None or _installed(package):
            return None
        self.install(package)
        importlib.invalidate_caches()
        return importlib.machinery.PathFinder.find_spec(fullname)

    def install(self, package: str) -> None:
        import hashlib
        import io
        import site
        import zipfile

        wanted = self.packages[package]
        for dependency in wanted["depends"]:
            if not _installed(dependency):
                self.install(dependency)
        data = _fetch(urljoin(self.base_url, wanted["file_name"]))
        if hashlib.sha256(data).hexdigest() != wanted["sha256"]:
            raise ImportError(f"{wanted['file_name']} is not the file the browser edition was built with")
        with zipfile.ZipFile(io.BytesIO(data)) as wheel:
            wheel.extractall(site.getsitepackages()[0])


class _PublishUnlessEmpty:
    """the kernel's execute_result sender, sending only a result that shows something: a value whose
    display is empty (a check's Verdict) gets no empty result saved into the notebook, as ipykernel
    sends none (its displayhook publishes only when the data is not empty)"""

    def __init__(self, publish: Any) -> None:
        self.publish = publish

    def __call__(self, count: int, data: dict[str, Any], metadata: dict[str, Any]) -> None:
        if data:
            self.publish(count, data, metadata)


def _publish_only_what_shows(ipython: Any) -> None:
    """before each cell: the Pyodide kernel's displayhook gets its sender (set once the kernel's worker
    is ready, after this extension loads) through _PublishUnlessEmpty"""
    hook = ipython.displayhook
    publish = getattr(hook, "publish_execution_result", None)
    if publish is not None and not isinstance(publish, _PublishUnlessEmpty):
        hook.publish_execution_result = _PublishUnlessEmpty(publish)


def load_ipython_extension(ipython: Any) -> None:
    """the edition's kernel loads this extension at start (tools/lite.py): a package loads when a
    lesson first imports it, not before, and a cell marked by STOP_COMMENTS stops its lesson"""
    if IN_BROWSER and stop_marked not in ipython.input_transformers_cleanup:
        ipython.input_transformers_cleanup.insert(0, stop_marked)  # before local_install_only's _nothing
        ipython.events.register("pre_run_cell", lambda info: _publish_only_what_shows(ipython))
    if IN_BROWSER and not any(isinstance(finder, LoadOnImport) for finder in sys.meta_path):
        import pyodide_js  # type: ignore[import-not-found]  # Pyodide's

        # a URL relative to the kernel's worker, as XMLHttpRequest reads it
        base = str(pyodide_js.lockfileBaseUrl)
        sys.meta_path.append(LoadOnImport(pyodide_js.lockfile.to_py()["packages"], base))


class PlainTable:
    """the numbers a plot would draw, as a table: what the browser edition shows without matplotlib"""

    def __init__(self, title: str, columns: list[str], rows: list[tuple[Any, ...]]) -> None:
        self.title, self.columns, self.rows = (
            title,
            columns,
            [tuple(str(cell) for cell in row) for row in rows],
        )

    def __repr__(self) -> str:
        widths = [max(len(cell) for cell in column) for column in zip(self.columns, *self.rows, strict=True)]
        lines = [self.title, "  ".join(c.ljust(w) for c, w in zip(self.columns, widths, strict=True))]
        lines += ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) for row in self.rows]
        return "\n".join(line.rstrip() for line in lines)

    def _repr_html_(self) -> str:
        head = "".join(f"<th>{html.escape(c)}</th>" for c in self.columns)
        body = "".join(
            "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in self.rows
        )
        return f"<table><caption>{html.escape(self.title)}</caption><tr>{head}</tr>{body}</table>"
