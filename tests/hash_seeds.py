"""Runs checks in fresh interpreters under two hash seeds, for the tests that a verdict never depends on
the order of a set: `from hash_seeds import under_two_hash_seeds`."""

# The test files import this module by its own name: tests/ has no __init__.py, so pytest's default
# import mode (prepend) puts this folder on sys.path before it imports a test file from it.

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def under_two_hash_seeds(test_module: str, calls: str) -> set[str]:
    """what `calls` prints under PYTHONHASHSEED 1 and 2, with `t` the test module and `c` its checks"""
    lesson = test_module.removeprefix("test_checks_")
    code = (
        f"import sys; sys.path.insert(0, 'tests'); import {test_module} as t; "
        f"from agent_core.checks import {lesson} as c; {calls}"
    )
    return {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
            cwd=ROOT,
        ).stdout
        for seed in ("1", "2")
    }
