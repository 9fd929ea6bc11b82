"""Checks for lesson 11's exercises: evaluating an agent."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from .. import mock
from ..dispatch import ToolRegistry
from ..evaluation import add, divide, multiply, subtract, wilson
from ..loop import AgentRun, run_agent
from . import Verdict, verdict

__all__ = ["check_grade_answer", "check_grade_calls", "check_wilson_interval"]


def _run(*replies: Any, task: str, max_turns: int = 10) -> AgentRun:
    tools = ToolRegistry([add, subtract, multiply, divide])
    return run_agent(mock.client(mock.Script(*replies)), task, tools, max_turns=max_turns)


def _judge(
    exercise: str, grade: Callable[..., Any], cases: list[tuple[str, tuple[Any, ...], bool, str]]
) -> list[str]:
    """run the learner's grader on each case: (situation, arguments, should pass, what it missed)"""
    for situation, arguments, should_pass, missed in cases:
        try:
            result = grade(*arguments)
        except Exception as error:  # the learner's code: report, don't crash the notebook
            return [f"with {situation}, your grader raised {type(error).__name__}: {error}"]
        if result is not None and not (isinstance(result, str) and result.strip()):
            return [f"return None for a pass, or a sentence saying what is wrong; with {situation} you returned {result!r:.80}"]
        if should_pass and result is not None:
            return [f"with {situation}, your grader failed the run ({result!r:.100}), but it is right{missed}"]
        if not should_pass and result is None:
            return [f"with {situation}, your grader passed the run: {missed}"]
    return []


def check_grade_answer(grade_answer: Callable[[AgentRun, float], str | None]) -> Verdict:
    """Exercise 11.1: grade_answer(run, expected) -> None when the run answered and its last number is expected"""
    stopped = _run(*[mock.call("add", a=1, b=2)] * 3, task="What is 1 + 2?", max_turns=3)
    cases = [
        ("'4 + 2 = 6' for 4 + 2", (_run("4 + 2 = 6", task="What is 4 + 2?"), 6), True, ""),
        (
            "'4 + 2 = 16' for 4 + 2",
            (_run("4 + 2 = 16", task="What is 4 + 2?"), 6),
            False,
            "'16' is not 6. Compare whole numbers, not text: '6' in '16' is True",
        ),
        (
            "'4 - 2 = 3' for 4 - 2",
            (_run("4 - 2 = 3", task="What is 4 - 2?"), 2),
            False,
            "the 2 is in the question, the result is 3. Judge the last number of the answer, "
            "not any number in it",
        ),
        (
            "a run stopped by max_turns=3 for 1 + 2",
            (stopped, 3),
            False,
            f"it never answered; its 'answer' is the loop's note ({(stopped.answer or '')[:40]!r}...), "
            "whose last number happens to be 3. Check run.stop_reason == 'answered' first",
        ),
        (
            "'The answer is 6.0.' for 4 + 2",
            (_run("The answer is 6.0.", task="What is 4 + 2?"), 6),
            True,
            ": 6.0 is 6. Read the numbers as floats (a regular expression such as r'-?\\d+(?:\\.\\d+)?' "
            "finds them), and compare with math.isclose",
        ),
        (
            "'5 + 8/12 = 5.666666666666667' for 5 + 8/12",
            (_run("5 + 8/12 = 5.666666666666667", task="What is 5 + 8/12?"), 5 + 8 / 12),
            True,
            ": compare floats with math.isclose, not ==, and not their text",
        ),
        (
            "'0.1 + 0.2 = 0.3' for 0.1 + 0.2",
            (_run("0.1 + 0.2 = 0.3", task="What is 0.1 + 0.2?"), 0.1 + 0.2),
            True,
            ": 0.1 + 0.2 is 0.30000000000000004 as a float, and 0.3 == 0.1 + 0.2 is False. "
            "Compare with math.isclose, not ==",
        ),
        (
            "'2 - 6 = -4' for 2 - 6",
            (_run("2 - 6 = -4", task="What is 2 - 6?"), -4),
            True,
            ": the answer is -4, not 4. Read the minus sign with the number (r'-?\\d+(?:\\.\\d+)?')",
        ),
        (
            "'4 + 2 = 6.004' for 4 + 2",
            (_run("4 + 2 = 6.004", task="What is 4 + 2?"), 6),
            False,
            "6.004 is not 6. Rounding, or a tolerance such as abs(a - b) < 0.01, passes near misses; "
            "math.isclose(a, b) with its default tolerance does not",
        ),
        (
            "'I could not work it out.' for 4 + 2",
            (_run("I could not work it out.", task="What is 4 + 2?"), 6),
            False,
            "the answer has no number at all",
        ),
    ]
    problems = _judge("11.1", grade_answer, cases)
    return verdict("11.1", problems, "you judge the last number of a real answer, as a number.")


def check_grade_calls(grade_calls: Callable[[AgentRun, list[str], int], str | None]) -> Verdict:
    """Exercise 11.2: grade_calls(run, expected, max_calls) -> None when the expected tools were
    called in that order and there were at most max_calls tool calls"""
    task = "What is 5 + 8/12?"
    expected = ["divide", "add"]
    divide_call, add_call = mock.call("divide", a=8, b=12), mock.call("add", a=5, b=0.6666666666666666)
    cases = [
        ("divide, then add, then the answer", (_run(divide_call, add_call, "5.67", task=task), expected, 3), True, ""),
        (
            "add, then divide",
            (_run(add_call, divide_call, "5.67", task=task), expected, 3),
            False,
            "the order is wrong (add used the result of 8/12 before it was computed). Comparing sets ignores order",
        ),
        (
            "divide three times, then add (max_calls=3)",
            (_run(divide_call, divide_call, divide_call, add_call, "5.67", task=task), expected, 3),
            False,
            "4 tool calls is more than max_calls=3. Count every call, repeats included",
        ),
        (
            "divide and add asked together in one message",
            (_run([divide_call, add_call], "5.67", task=task), expected, 3),
            True,
            ": parallel calls sit in one assistant message's tool_calls; take every call of every "
            "assistant message, not one per message",
        ),
        (
            "divide and add together, then divide and add together again (max_calls=3)",
            (_run([divide_call, add_call], [divide_call, add_call], "5.67", task=task), expected, 3),
            False,
            "4 tool calls is more than max_calls=3, though they came in 2 assistant messages. "
            "Count the calls, not the messages",
        ),
        (
            "divide, a wrong multiply, then add",
            (_run(divide_call, mock.call("multiply", a=5, b=1), add_call, "5.67", task=task), expected, 3),
            True,
            ": other calls may come between the expected ones, as long as the expected ones come in "
            "order and the total is within max_calls",
        ),
        (
            "divide only, then an answer",
            (_run(divide_call, "5.67", task=task), expected, 3),
            False,
            "add was never called. Every expected tool must appear",
        ),
        (
            "add, divide, add",
            (_run(add_call, divide_call, add_call, "5.67", task=task), ["add", "divide", "add"], 3),
            True,
            ": the same tool may be expected twice; match the expected names one after the other",
        ),
        (
            "add, divide, for expected add, divide, add",
            (_run(add_call, divide_call, "5.67", task=task), ["add", "divide", "add"], 3),
            False,
            "add was expected twice and called once. Match the expected names one after the other, "
            "each against a later call",
        ),
    ]
    problems = _judge("11.2", grade_calls, cases)
    return verdict("11.2", problems, "which tools, in what order, and how many calls: all judged.")


def check_wilson_interval(wilson_interval: Callable[..., tuple[float, float]]) -> Verdict:
    """Exercise 11.3: the Wilson score interval of passed/n, as (low, high)"""
    problems: list[str] = []
    cases = [(0, 10, None), (10, 10, None), (8, 10, None), (3, 7, None), (1, 1, None), (40, 50, None), (8, 10, 2.576)]
    for passed, n, z in cases:
        expected = wilson(passed, n) if z is None else wilson(passed, n, z)
        call = f"wilson_interval({passed}, {n}{'' if z is None else f', z={z}'})"
        try:
            got = wilson_interval(passed, n) if z is None else wilson_interval(passed, n, z=z)
            low, high = (float(v) for v in got)
        except Exception as error:
            problems.append(f"{call} should return (low, high); it gave {type(error).__name__}: {error}")
            break

        def same(pair: tuple[float, float], low: float = low, high: float = high) -> bool:
            return math.isclose(low, pair[0], abs_tol=1e-6) and math.isclose(high, pair[1], abs_tol=1e-6)

        if same(expected):
            continue
        if same(expected[::-1]):
            problems.append(f"{call} gave {low:.3f}-{high:.3f}: return (low, high), the smaller first")
            break
        if z is not None and same(wilson(passed, n)):
            problems.append(
                f"{call} gave {low:.3f}-{high:.3f}, the interval for z=1.96: use the z you are given "
                f"(z=2.576 is a 99% interval, {expected[0]:.3f}-{expected[1]:.3f})"
            )
            break
        z = 1.96 if z is None else z
        p = passed / n
        wald = p - z * math.sqrt(p * (1 - p) / n), p + z * math.sqrt(p * (1 - p) / n)
        clipped = max(0.0, wald[0]), min(1.0, wald[1])
        if same(wald) or same(clipped):
            problems.append(
                f"for {passed} of {n} you gave {low:.3f}-{high:.3f}: that is the textbook p ± z·sqrt(p(1-p)/n) "
                "(Wald) interval, which shrinks to nothing at 0 or n passes. Use Wilson's centre and half-width"
            )
        else:
            problems.append(
                f"for {passed} of {n} you gave {low:.3f}-{high:.3f}; Wilson's interval is "
                f"{expected[0]:.3f}-{expected[1]:.3f}. Check the centre (p + z²/2n) / (1 + z²/n)"
            )
        break
    return verdict("11.3", problems, "an interval that stays honest at 0 and at n passes.")
