"""A practice project kept in a dict, with four tools for a model and its tests run by pytest (lesson 05)."""

from __future__ import annotations

import contextlib
import io
import os
import posixpath
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

from .._browser import IN_BROWSER
from .._shared import failure
from ._observations import ReportCache, steady_timings
from ._projects import project_files
from .sandbox import run_sandboxed

__all__ = ["TinyProject", "DISCOUNT_TASK"]

DISCOUNT_TASK = "The tests of discount.py fail. Fix the code so that they pass."

# one line per test, the failed assert's line, no header, no timing: short and the same on every run
_PYTEST = "python -m pytest -v --no-header --tb=line -rN -o console_output_style=classic"
TEST_TIMEOUT = 30  # seconds a test run may take


class TinyProject:
    """a practice project kept in a dict: file tools for the model, and its tests run in a subprocess

    The tests run with real pytest in the sandbox of lesson 07: a fresh temporary folder, a clean
    environment, a time limit. Paths stay inside the project, as the Workspace of lesson 07 keeps
    them: absolute paths and '..' above the project are refused, './a/../b.py' is 'b.py'. The files
    live in a dict, so there is no symbolic link to follow; each test run writes them into a new
    empty folder. The tests themselves are code, run as you (see coding/SANDBOX.md).
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
        path, problem = _project_path(path)
        if problem:
            return problem
        if path not in self.files:
            return self._missing(path)
        return self.files[path]

    def write_file(self, path: str, content: str) -> str:
        """Replace the whole text of a file with `content` (or create it).

        Args:
            path: File path in the project, e.g. "discount.py".
            content: The complete new text of the file.
        """
        path, problem = _project_path(path)
        if problem:
            return problem
        if not isinstance(content, str):
            return failure(f"content must be a string (the whole file), not {type(content).__name__}")
        clash = next((f for f in self.files if f.startswith(path + "/") or path.startswith(f + "/")), None)
        if clash is not None:
            folder, file = (path, clash) if clash.startswith(path + "/") else (clash, path)
            return failure(f"{folder!r} is a file, so {file!r} cannot be inside it; choose another path.")
        existed = path in self.files
        self.files[path] = content
        return f"{'wrote' if existed else 'created'} {path} ({len(content.splitlines())} lines)"

    def delete_file(self, path: str) -> str:
        """Delete a file from the project.

        Args:
            path: File path in the project, e.g. "notes.txt".
        """
        path, problem = _project_path(path)
        if problem:
            return problem
        if path not in self.files:
            return self._missing(path)
        del self.files[path]
        return f"deleted {path}"

    def run_tests(self) -> str:
        """Run the project's tests. The report lists each test as PASSED or FAILED."""
        for path in self.files:  # the dict is public: a notebook may have put any key in it
            clean, problem = _project_path(path)
            if problem or clean != path:
                return problem or failure(f"the project holds the path {path!r}; write it as {clean!r}.")
        files = tuple(sorted(self.files.items()))
        return _REPORTS.report((files, IN_BROWSER), lambda: _run_pytest(files, IN_BROWSER))

    def _missing(self, path: str) -> str:
        return failure(f"there is no file {path!r}. The files are: {', '.join(sorted(self.files))}.")

    def __repr__(self) -> str:
        return f"TinyProject({self.name!r}: {', '.join(sorted(self.files))})"


def _project_path(path: object) -> tuple[str, str | None]:
    """(the path as the project keeps it, None), or ("", the ERROR observation saying why not)"""
    if not isinstance(path, str) or not path.strip():
        return "", failure(f"path must be a file path in the project, like 'discount.py'; got {path!r}")
    if "\0" in path:
        return "", failure("path contains a NUL character; give a plain path like 'discount.py'")
    posix = path.replace("\\", "/")
    if posix.startswith("/") or re.match(r"[A-Za-z]:", posix):
        return (
            "",
            failure(f"{path!r} is an absolute path; paths are relative to the project, like 'discount.py'"),
        )
    clean = posixpath.normpath(posix)
    if clean == ".." or clean.startswith("../"):
        return "", failure(f"{path!r} is outside the project: '..' cannot go above it")
    if clean == ".":
        return (
            "",
            failure(f"{path!r} is the project itself, not a file in it; give a file path like 'discount.py'"),
        )
    return clean, None


_REPORTS = ReportCache()  # the same files give the same report: see ReportCache


def _run_pytest(files: tuple[tuple[str, str], ...], in_browser: bool) -> tuple[str, bool]:
    """(the report of one pytest run on these files in a new folder, whether pytest ran to its end)"""
    with tempfile.TemporaryDirectory(prefix="tiny-project-") as folder:
        root = Path(folder)
        for path, text in files:
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(text, encoding="utf-8")
        if in_browser:  # no subprocesses: pytest runs in the kernel, without the time limit
            code, output = _run_pytest_here(root, _PYTEST.split()[3:])
            report, finished = f"exit code: {code}\n{output.rstrip() or '(no output)'}", True
        else:
            result = run_sandboxed(_PYTEST, root, timeout=TEST_TIMEOUT)
            report, finished = result.observation(), result.exit_code is not None and result.exit_code >= 0
        report = report.replace(str(root.resolve()), ".").replace(str(root), ".")
        return steady_timings(report).rstrip(), finished


def _run_pytest_here(root: Path, args: list[str]) -> tuple[int, str]:
    """(exit code, output) of `pytest args` run in root, as the subprocess would report them

    The project's modules are forgotten afterwards, so the next run imports the files as they
    are then, never a stale copy. What the subprocess gave and this cannot: a time limit, and
    a clean interpreter (a test that changes a global changes it in the kernel too).
    """
    import pytest

    modules, path, cwd = set(sys.modules), list(sys.path), os.getcwd()
    autoload = os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD")
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # only pytest's own plugins, as in a clean venv
    output = io.StringIO()
    try:
        os.chdir(root)
        with contextlib.redirect_stdout(output), contextlib.redirect_stderr(output):
            code = pytest.main([*args, "--capture=sys", "-p", "no:cacheprovider"])
    finally:
        os.chdir(cwd)
        if autoload is None:
            del os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"]
        else:
            os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = autoload
        sys.path[:] = path
        for name in set(sys.modules) - modules:
            del sys.modules[name]
    return int(code), output.getvalue()
