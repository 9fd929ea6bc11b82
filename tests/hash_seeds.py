"""Runs checks under two hash seeds, for the tests that a verdict never depends on the order of a set:
`from hash_seeds import under_two_hash_seeds`."""

# The test files import this module by its own name: tests/ has no __init__.py, so pytest's default
# import mode (prepend) puts this folder on sys.path before it imports a test file from it.

import contextlib
import importlib
import io
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def under_two_hash_seeds(test_module: str, calls: str) -> set[str]:
    """what `calls` prints here and in a fresh interpreter under another hash seed, with `t` the test
    module and `c` its lesson's checks

    This process hashes strings with a seed of its own (random, unless PYTHONHASHSEED is set), so the
    fresh interpreter takes a fixed seed that differs from it: one new interpreter, not two.
    """
    lesson = test_module.removeprefix("test_checks_")
    here = io.StringIO()
    names = {
        "t": importlib.import_module(test_module),
        "c": importlib.import_module(f"agent_core.checks.{lesson}"),
    }
    with contextlib.redirect_stdout(here):
        exec(calls, names)
    seed = "2" if os.environ.get("PYTHONHASHSEED") == "1" else "1"
    code = (
        f"import sys; sys.path.insert(0, 'tests'); import {test_module} as t; "
        f"from agent_core.checks import {lesson} as c; {calls}"
    )
    there = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONHASHSEED": seed},
        cwd=ROOT,
    ).stdout
    return {here.getvalue(), there}
