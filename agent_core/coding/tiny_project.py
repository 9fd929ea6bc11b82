"""A practice project kept in a dict, with four tools for a model and its tests run by pytest (lesson 05)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from .._browser import IN_BROWSER
from ..formats import ERROR_PREFIX
from ._pytest_here import run_pytest_here
from .agent import TASKS, steady_timings
from .sandbox import run_sandboxed
from .workspace import project_files

__all__ = ["TinyProject", "DISCOUNT_TASK"]

DISCOUNT_TASK = TASKS["discount"]

# one line per test, the failed assert's line, no header, no timing: short and the same on every run
_PYTEST = "python -m pytest -v --no-header --tb=line -rN -o console_output_style=classic"


class TinyProject:
    """a practice project kept in a dict: file tools for the model, and its tests run in a subprocess

    The tests run with real pytest in the sandbox of lesson 07: a fresh temporary folder, a clean
    environment, a time limit.
    """

    def __init__(self, name: str = "discount"):
        self.name = name
        self.original = {path: data.decode() for path, data in project_files(name).items()}
        self.files = dict(self.original)

    def reset(self) -> None:
        """every file back as it was at the start"""
        self.files = dict(self.original)

    def changed(self) -> list[str]:
        """the paths created, changed or deleted since the start"""
        paths = set(self.files) | set(self.original)
        return sorted(p for p in paths if self.files.get(p) != self.original.get(p))

    @property
    def tools(self) -> list[Any]:
        """the four tools, bound to this project: read_file, write_file, delete_file, run_tests"""
        return [self.read_file, self.write_file, self.delete_file, self.run_tests]

    def read_file(self, path: str) -> str:
        """Return the whole text of a project file.

        Args:
            path: File path in the project, e.g. "discount.py".
        """
        if path not in self.files:
            return self._missing(path)
        return self.files[path]

    def write_file(self, path: str, content: str) -> str:
        """Replace the whole text of a file with `content` (or create it).

        Args:
            path: File path in the project, e.g. "discount.py".
            content: The complete new text of the file.
        """
        existed = path in self.files
        self.files[path] = content
        return f"{'wrote' if existed else 'created'} {path} ({len(content.splitlines())} lines)"

    def delete_file(self, path: str) -> str:
        """Delete a file from the project.

        Args:
            path: File path in the project, e.g. "notes.txt".
        """
        if path not in self.files:
            return self._missing(path)
        del self.files[path]
        return f"deleted {path}"

    def run_tests(self) -> str:
        """Run the project's tests. The report lists each test as PASSED or FAILED."""
        with tempfile.TemporaryDirectory(prefix="tiny-project-") as folder:
            root = Path(folder)
            for path, text in self.files.items():
                (root / path).parent.mkdir(parents=True, exist_ok=True)
                (root / path).write_text(text, encoding="utf-8")
            if IN_BROWSER:  # no subprocesses: pytest runs in the kernel, without the time limit
                code, output = run_pytest_here(root, _PYTEST.split()[3:])
                report = f"exit code: {code}\n{output.rstrip() or '(no output)'}"
            else:
                report = run_sandboxed(_PYTEST, root, timeout=30).observation()
            report = report.replace(str(root.resolve()), ".").replace(str(root), ".")
            return steady_timings(report).rstrip()

    def _missing(self, path: str) -> str:
        return f"{ERROR_PREFIX}there is no file {path!r}. The files are: {', '.join(sorted(self.files))}."

    def __repr__(self) -> str:
        return f"TinyProject({self.name!r}: {', '.join(sorted(self.files))})"
