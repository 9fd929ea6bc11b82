"""Lesson 07's exercise checks: they pass the solutions and say what is wrong with the stubs."""

import re

from agent_core.checks.lesson07 import check_failing_tests, check_tests_after_change
from agent_core.loop import Guardrail


class TestsAfterLastChange(Guardrail):
    """the solution of Exercise 7.1"""

    __test__ = False

    def check_answer(self, run, answer):
        last_change = last_test_run = -1
        for position, observation in enumerate(run.observations):
            if observation.name in ("write_file", "edit_file") and not observation.is_error:
                last_change = position
            command = (observation.arguments or {}).get("command", "")
            if observation.name == "run_command" and "pytest" in command:
                last_test_run = position
        if last_change > last_test_run:
            return "You changed files after the last test run: run the tests before you answer."
        return None


class AcceptEverything(Guardrail):
    """the stub of Exercise 7.1"""


class RejectEverything(Guardrail):
    def check_answer(self, run, answer):
        return "Run the tests again."


class Broken(Guardrail):
    def check_answer(self, run, answer):
        raise KeyError("observations")


def failing_tests(observation):
    """the solution of Exercise 7.2"""
    return re.findall(r"^FAILED \S+::(\S+)", observation, flags=re.MULTILINE)


def test_tests_after_change_passes_the_solution(capsys):
    assert check_tests_after_change(TestsAfterLastChange)
    assert capsys.readouterr().out.startswith("✓ Exercise 7.1:")


def test_tests_after_change_explains_the_stub(capsys):
    assert not check_tests_after_change(AcceptEverything)
    out = capsys.readouterr().out
    assert out.startswith("✗ Exercise 7.1: not yet.")
    assert "it accepted the final answer of the comment deleter" in out


def test_tests_after_change_catches_false_alarms_and_crashes(capsys):
    assert not check_tests_after_change(RejectEverything)
    assert "it rejected the answer of a model that writes a file, then runs" in capsys.readouterr().out
    assert not check_tests_after_change(Broken)
    assert "your guardrail raised KeyError" in capsys.readouterr().out


def test_failing_tests_passes_the_solution(capsys):
    assert check_failing_tests(failing_tests)
    assert capsys.readouterr().out.startswith("✓ Exercise 7.2:")


def test_failing_tests_explains_what_is_wrong(capsys):
    assert not check_failing_tests(lambda observation: [])
    out = capsys.readouterr().out
    assert "for the discount project's first run it should return" in out
    assert not check_failing_tests(lambda observation: None)
    assert "should return a list, not NoneType" in capsys.readouterr().out
