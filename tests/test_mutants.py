"""The mutation command as a guard: every mutant of an official solution that its check passes is listed,
with a kind and a reason, in agent_core/checks/survivors/ (tools/mutants.py; .ci/run runs it whole).

Within the suite's time budget this file runs one lesson whole, the same on every day and machine: lesson
13, whose cells start no process (about 6 s of processor time); CI runs every lesson."""

import ast
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tools import mutants

ROOT = Path(__file__).resolve().parent.parent


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


def test_mutants_judged_together_keep_their_order_and_one_that_hangs_times_out():
    namespace = {"__name__": "__main__"}
    exec("def check_it(value):\n    return value == 1\n", namespace)
    check = ast.parse("check_it(value)").body[0]
    cells = ["value = 1", "value = 2", "while True:\n    pass", "raise ValueError", "value = 1"]
    verdicts = mutants._judged_together(namespace, [ast.parse(c) for c in cells], check, limit=1.5, jobs=2)
    assert [verdict for verdict, _ in verdicts] == ["solved", "not yet", "timeout", "raised", "solved"]


def test_lesson_13_has_every_survivor_listed_and_every_listed_one_surviving():
    run = subprocess.run(
        [sys.executable, "tools/mutants.py", "13"], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, f"python tools/mutants.py 13:\n{run.stdout[-3000:]}{run.stderr[-2000:]}"
    checks = re.findall(r"^check (13\.\d) \(.*\): killed (\d+) of (\d+) in ", run.stdout, flags=re.MULTILINE)
    assert [exercise for exercise, _, _ in checks] == ["13.1", "13.2", "13.3", "13.4"], run.stdout
    killed, total = (sum(int(row[i]) for row in checks) for i in (1, 2))
    assert f"\nkilled {killed} of {total} in " in run.stdout
