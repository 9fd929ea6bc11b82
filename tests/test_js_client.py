"""The mock's claims tested outside Python: the `openai` npm package (exact version in
tests/js/package-lock.json)."""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from agent_core import mock
from agent_core.mock.server import serve

JS = Path(__file__).parent / "js"


def node_or_skip() -> str:
    """the node executable; without it (or without `npm ci --prefix tests/js`), a skip, but a failure in CI"""
    node = shutil.which("node")
    missing = (
        "node is not installed"
        if node is None
        else None
        if (JS / "node_modules" / "openai").is_dir()
        else "tests/js/node_modules is missing: run `npm ci --prefix tests/js`"
    )
    if missing and os.environ.get("CI") == "true":
        pytest.fail(f"{missing} (CI=true: .ci/run installs both)")
    if missing:
        pytest.skip(missing)
    return node


def test_the_openai_npm_package_finishes_a_calculator_task_on_both_openai_apis():
    node = node_or_skip()
    with serve(mock.Calculator()) as server:
        finished = subprocess.run(
            [node, str(JS / "calculator.mjs"), server.base_url, "What is (2 + 3) * 4?"],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert finished.returncode == 0, finished.stderr
    result = json.loads(finished.stdout)
    assert "20" in result["chat"] and "20" in result["responses"]
    assert result["calls"] == ["add", "multiply"] * 2  # a dependent step waits for its operand, on both APIs
