"""Checks for lesson 05's exercises: guardrails."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import mock
from ..coding.tiny_project import DISCOUNT_TASK, TinyProject
from ..dispatch import ToolRegistry
from ..guardrails import VerifyBeforeDone
from ..loop import AgentRun, Guardrail, run_agent
from ..mock.misbehaving import (
    Runaway,
    discount_versions,
    skips_the_tests,
)
from . import Verdict, verdict

__all__ = ["check_max_uses", "check_tests_pass"]


def _add(a: float, b: float) -> float:
    """Add two numbers."""
    return a + b


def _divide(a: float, b: float) -> float:
    """Divide a by b."""
    return a / b


def _tools() -> ToolRegistry:
    registry = ToolRegistry()
    registry.add(_add, name="add")
    registry.add(_divide, name="divide")
    return registry


def _ran(run: AgentRun, name: str) -> int:
    """how many times the tool really ran (refused calls do not count)"""
    return sum(o.name == name and o.error_type != "refused" for o in run.observations)


def _count(times: int) -> str:
    return f"{times} time{'' if times == 1 else 's'}"


def check_max_uses(max_uses_class: type) -> Verdict:
    """Exercise 5.1: MaxUses(name, limit) refuses a tool once it has run `limit` times in a run"""
    try:
        guard = max_uses_class("add", 3)
    except Exception as error:  # the learner's code: report, don't crash the notebook
        return verdict("5.1", [f"MaxUses('add', 3) raised {type(error).__name__}: {error}"], "")
    if not isinstance(guard, Guardrail):
        return verdict("5.1", ["MaxUses should be a subclass of Guardrail: class MaxUses(Guardrail)"], "")
    problems: list[str] = []
    try:
        first = run_agent(mock.client(Runaway(heeds_errors=True)), "count", _tools(), guardrails=[guard])
        second = run_agent(mock.client(Runaway(heeds_errors=True)), "count", _tools(), guardrails=[guard])
        other = run_agent(
            mock.client(Runaway()),
            "count",
            _tools(),
            max_turns=5,
            guardrails=[max_uses_class("divide", 1)],
        )
        calculator = run_agent(
            mock.client(mock.Calculator()),
            "5 + 8/12",
            _tools(),
            guardrails=[max_uses_class("add", 1)],
        )
    except Exception as error:
        return verdict("5.1", [f"a run with MaxUses raised {type(error).__name__}: {error}"], "")

    refusals = [o for o in first.observations if o.error_type == "refused"]
    if first.stop_reason not in ("answered", "max_turns"):
        problems.append(
            f"the run ended with stop_reason {first.stop_reason!r}: don't raise StopRun, return the "
            "refusal text from before_tool, so the model reads it and the loop goes on"
        )
    elif _ran(first, "add") != 3:
        problems.append(
            f"with MaxUses('add', 3), add ran {_count(_ran(first, 'add'))} before the run ended; it "
            "should run 3 times, then be refused"
        )
    elif not refusals or "add" not in refusals[0].content:
        problems.append(
            "the refusal should name the tool ('add'), so the model knows which tool it may not use"
        )
    elif _ran(second, "add") != 3:
        problems.append(
            f"used for a second run, the same MaxUses let add run {_count(_ran(second, 'add'))} instead of "
            "3: count the uses in the current run only (run.observations holds this run's results)"
        )
    if any(o.error_type == "refused" for o in other.observations):
        problems.append("MaxUses('divide', 1) refused a call of add: only refuse the tool it was given")
    if calculator.stop_reason != "answered" or [o.name for o in calculator.observations] != [
        "divide",
        "add",
    ]:
        problems.append("MaxUses('add', 1) got in the way of '5 + 8/12', which uses add only once")
    return verdict("5.1", problems, "add runs 3 times, then the model reads a refusal and answers.")


def check_tests_pass(tests_pass: Callable[[], Any], project: TinyProject) -> Verdict:
    """Exercise 5.2: tests_pass() -> (ok, report), ok only when the tests pass and no test file changed"""
    if not isinstance(project, TinyProject):
        return verdict(
            "5.2",
            ["pass the lesson's TinyProject as the second argument: check_tests_pass(tests_pass, project)"],
            "",
        )
    versions = discount_versions()
    cases = [
        ("the original code (one test fails)", {}, False),
        ("the code fixed, the tests untouched", {"discount.py": versions["right_fix"]}, True),
        (
            "the failing test edited so that it passes",
            {"test_discount.py": versions["edited_test"]},
            False,
        ),
    ]
    problems: list[str] = []
    try:
        for situation, changes, expected in cases:
            project.reset()
            project.files.update(changes)
            result = tests_pass()
            if not (isinstance(result, tuple) and len(result) == 2 and isinstance(result[1], str)):
                problems.append(
                    f"tests_pass() should return a pair (ok, report) with report a str; it returned {result!r:.120}"
                )
                break
            ok, report = result
            if bool(ok) != expected:
                problems.append(
                    f"with {situation}, tests_pass() said ok={bool(ok)}; it should say ok={expected}"
                )
            elif not expected and not report.strip():
                problems.append(
                    f"with {situation}, the report is empty: say what is wrong, the model reads it"
                )
        if not problems:
            project.reset()
            verify = VerifyBeforeDone(tests_pass)
            run = run_agent(mock.client(skips_the_tests()), DISCOUNT_TASK, project.tools, guardrails=[verify])
            if run.stop_reason != "answered" or verify.rejections != 1:
                problems.append(
                    f"in a run of the model that skips the tests, expected one rejection and then an answer; got "
                    f"{verify.rejections} rejection(s) and stop_reason {run.stop_reason!r}"
                )
    except Exception as error:
        problems.append(f"tests_pass() raised {type(error).__name__}: {error}")
    finally:
        project.reset()
    return verdict("5.2", problems, "'done' now needs green tests that nobody edited.")
