"""lesson 05: a project's tests run by pytest inside this Python, for the browser edition (no processes)."""

from __future__ import annotations

import contextlib
import io
import os
import sys
from pathlib import Path

__all__ = ["run_pytest_here"]


def run_pytest_here(root: Path, args: list[str]) -> tuple[int, str]:
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
