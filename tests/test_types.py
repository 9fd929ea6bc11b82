"""The annotations are checked: mypy, with pyproject.toml's [tool.mypy] settings, finds no error in
agent_core/ and tools/."""

import hashlib
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# outside the repository, one per checkout, kept between runs: a first run takes about a minute of
# CPU (mypy reads the openai, pydantic and mcp packages too), a later one a few seconds
CACHE = Path(tempfile.gettempdir()) / f"agent-core-mypy-{hashlib.sha256(str(ROOT).encode()).hexdigest()[:12]}"


def test_mypy_finds_no_error_in_agent_core_and_tools():
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(CACHE), "agent_core", "tools"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, (
        "mypy found errors; fix them (pyproject.toml's [tool.mypy] says how strict it is, and why):\n"
        + result.stdout
        + result.stderr
    )
    assert result.stdout.startswith("Success: no issues found")
