"""The mutation command as a guard: every mutant of an official solution that its check passes is listed,
with a kind and a reason, in agent_core/checks/survivors/ (tools/mutants.py; .ci/run runs it whole).

Within the suite's time budget this file runs one lesson a day, in turn (the day's number, so a failure
comes back the same all day and every lesson is met within 13 days): its listed survivors, each of
which must still survive, and one more mutant of each exercise, chosen by the same number."""

import ast
import datetime
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tools import mutants

ROOT = Path(__file__).resolve().parent.parent
LESSONS = sorted(path.name[:2] for path in (ROOT / "solutions").glob("[0-9][0-9]_*.ipynb"))


@pytest.mark.parametrize("path", sorted(mutants.SURVIVORS.glob("lesson*.toml")), ids=lambda p: p.name)
def test_every_listed_survivor_has_a_kind_and_a_reason(path):
    listed = tomllib.loads(path.read_text(encoding="utf-8"))
    assert listed, f"{path.name} lists nothing: delete it"
    for exercise, survivors in listed.items():
        assert exercise.split(".")[0] == str(int(path.stem[-2:])), (
            f"{path.name}: {exercise} is another lesson's"
        )
        assert mutants.badly_listed(survivors) == [], (
            f"{path.name} [{exercise}]: start each with a kind and why"
        )


def test_a_survivor_not_listed_is_reported_and_a_listed_one_that_died_too():
    outcome = mutants.Outcome(
        "9.9", "solutions/x.ipynb", 3, total=3, killed=1, survivors=["line 1: a", "line 2: b"]
    )
    known = {
        "line 1: a": "equivalent: the same value either way",
        "line 7: c": "allowed: the lesson allows it",
    }
    assert mutants.problems_of(outcome, known) == [
        "check 9.9: survivor not listed: line 2: b",
        "check 9.9: listed, but no longer a survivor (remove it): line 7: c",
    ]
    assert mutants.badly_listed({"line 1: a": "same value"}) == ["line 1: a"]


def test_the_mutants_are_single_changes_of_the_answer_only():
    source = 'import json\n\n\ndef f(a, b=2):\n    """doc"""\n    if a < b and not a:\n'
    source += "        return a + 1\n    return None\n"
    tree = ast.parse(source)
    keys = [m.key for m in mutants.mutants(source, tree)]
    assert "line 6: `a < b` -> `a >= b`" in keys and "line 6: `a < b` -> `a <= b`" in keys
    assert "line 6: `a < b and not a` -> `a < b or not a`" in keys
    assert "line 6: `not a` -> `a`" in keys
    assert "line 7: `return a + 1` -> `return`" in keys and "line 7: `a + 1` -> `a - 1`" in keys
    assert "line 4: `2` -> `3`" in keys and "line 7: `return a + 1` -> deleted" in keys
    assert not any("doc" in key or "import" in key for key in keys)  # docstrings and imports stay
    assert len(keys) == len(set(keys))


def test_todays_lesson_has_no_survivor_unlisted():
    day = datetime.date.today().toordinal()
    lesson = LESSONS[day % len(LESSONS)]
    run = subprocess.run(
        [sys.executable, "tools/mutants.py", lesson, "--sample", "1", "--seed", str(day)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, f"python tools/mutants.py {lesson}:\n{run.stdout[-3000:]}{run.stderr[-2000:]}"
    assert "killed " in run.stdout
