"""lesson 07: the verdict on a coding run: the project's ORIGINAL tests and settings run on the agent's code
in a scratch copy, so nothing the agent added or changed can fool them."""

from __future__ import annotations

import fnmatch
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ._observations import TEST_COMMAND, steady_timings
from ._projects import project_files, snapshot
from .sandbox import run_sandboxed
from .workspace import Workspace

__all__ = ["TEST_FILES", "SETTINGS_FILES", "TestRun", "project_tests"]

TEST_FILES = ("test_*.py", "tests/*", "conftest.py", "pytest.ini")
"""the tests and their settings: they decide "done", so the agent may not change them"""
SETTINGS_FILES = ("conftest.py", "pytest.ini", ".pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini")
"""files that change how pytest runs, wherever they are: the verdict uses the original ones"""
VERDICT_OPTIONS = "-p no:cacheprovider -c pytest.ini --rootdir ."
"""pytest's options for the verdict: no cache, and the original settings only (no search upwards)"""
_PASSED = re.compile(r"^(?:\d+ \w+, )*\d+ passed\b", re.MULTILINE)


@dataclass(frozen=True)
class TestRun:
    """the project's own tests, run on the workspace's code: did they pass, and what they said"""

    __test__ = False  # not a test class for pytest

    passed: bool
    output: str
    ignored: tuple[str, ...] = ()
    """what the agent added or changed that the verdict left out, e.g. "conftest.py (added)" """


def project_tests(workspace: Workspace, project: str | None = None) -> TestRun:
    """run the project's ORIGINAL tests against the workspace's code, in a scratch copy

    The copy holds the original project's files and no others: the tests and pytest's settings
    as the package has them, every other file as the agent left it. Files the agent added
    (a conftest.py that turns failures into passes, a module named like a pytest plugin) and
    its edits to the tests are left out, listed in `ignored` and named in the output. pytest
    loads no plugin but its own (PYTEST_DISABLE_PLUGIN_AUTOLOAD, see sandbox_env) and reads only
    the original pytest.ini. The code under test still runs inside pytest: read the diff too.
    """
    project = project or workspace.root.name
    files, ignored = _verdict_files(project_files(project), snapshot(workspace.root))
    options = VERDICT_OPTIONS + ("" if any(p.endswith("conftest.py") for p in files) else " --noconftest")
    with tempfile.TemporaryDirectory(prefix="verdict-") as scratch:
        root = Path(scratch) / project
        for path, data in files.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_bytes(data)
        result = run_sandboxed(f"{TEST_COMMAND} {options}", root, 60, workspace.sandbox)
        output = steady_timings(result.observation().replace(str(root), "."))
    # exit code 0 alone is not enough: code that calls os._exit(0) on import also gives it
    passed = result.exit_code == 0 and _PASSED.search(output) is not None
    if ignored:
        output = (
            "The verdict ran the original tests and settings, without these files the agent "
            f"added or changed: {', '.join(ignored)}\n{output}"
        )
    return TestRun(passed, output, tuple(ignored))


def _verdict_files(
    original: dict[str, bytes], current: dict[str, bytes]
) -> tuple[dict[str, bytes], list[str]]:
    """(the files the verdict runs on, what it left out of the agent's work)"""
    files, ignored = {}, []
    for path, data in original.items():
        if _is_kept_original(path):
            files[path] = data
            if current.get(path) != data:
                ignored.append(f"{path} ({'changed' if path in current else 'deleted'})")
        elif path in current:
            files[path] = current[path]  # the agent's version; if it deleted the file, it stays deleted
    ignored += [f"{path} (added)" for path in sorted(current.keys() - original.keys())]
    if "pytest.ini" not in files:
        files["pytest.ini"] = b"[pytest]\n"  # pins the settings here: no search in folders above
    return files, ignored


def _is_test_file(path: str) -> bool:
    """a pattern of TEST_FILES with a "/" matches the path from the root; one without, the file name"""
    name = path.rsplit("/", 1)[-1]
    return any(fnmatch.fnmatchcase(path if "/" in p else name, p) for p in TEST_FILES)


def _is_kept_original(path: str) -> bool:
    """a test, or a file that changes how pytest runs: the verdict takes it from the package"""
    return _is_test_file(path) or path.rsplit("/", 1)[-1] in SETTINGS_FILES
