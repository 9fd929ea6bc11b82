"""The browser edition (JupyterLite): no threads, subprocesses or sockets; what needs them says so."""

from __future__ import annotations

import html
import sys
from typing import Any

__all__ = ["IN_BROWSER", "NeedsLocalInstall", "needs_local_install", "PlainTable"]

IN_BROWSER = sys.platform == "emscripten"  # Pyodide's Python reports this platform


class NeedsLocalInstall(RuntimeError):
    """raised where the browser cannot do what a local Python can (a process, a server, a thread)"""

    def _render_traceback_(self) -> list[str]:  # IPython shows this one line instead of a traceback
        return [f"{type(self).__name__}: {self}"]


def needs_local_install(what: str, lesson: str) -> None:
    """in the browser, stop with one clear line: `what` needs the course installed on a computer"""
    if IN_BROWSER:
        raise NeedsLocalInstall(
            f"{what}, which the browser edition cannot do: run lesson {lesson} from a local install "
            "(README, quick start)."
        )


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
