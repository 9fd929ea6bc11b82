"""The repository as a whole: lint-clean, notebooks clean and paired, the console script installed."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import notebooks  # noqa: E402


def test_ruff_finds_nothing():
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", str(ROOT)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_stored_notebooks_are_clean():
    assert notebooks.notebooks([]), "no notebooks found in lessons/ or solutions/"
    found = [p for path in notebooks.notebooks([]) for p in notebooks.problems(path)]
    assert not found, "\n".join(found) + "\nrun: python tools/notebooks.py run"


def test_every_lesson_has_a_solution_and_the_other_way_round():
    lessons = {p.name for p in (ROOT / "lessons").glob("[0-9][0-9]_*.ipynb")}
    solutions = {p.name for p in (ROOT / "solutions").glob("[0-9][0-9]_*.ipynb")}
    assert lessons == solutions


def test_the_agent_core_command_is_installed_and_answers_help():
    command = Path(sys.executable).parent / "agent-core"
    assert command.exists(), "install the project (pip install -e .) to get the agent-core command"
    result = subprocess.run([str(command), "--help"], capture_output=True, text=True)
    assert result.returncode == 0
    assert "demo" in result.stdout
