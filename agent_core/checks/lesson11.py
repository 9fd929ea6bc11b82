"""Checks for lesson 11's exercises: evaluating an agent."""

from __future__ import annotations

import copy
import functools
import math
import random
import re
from collections.abc import Callable, Iterator
from typing import Any

from .. import mock
from .._i18n import N_, _
from ..dispatch import ToolRegistry
from ..evaluation import add, divide, final_number, multiply, numbers_in, subtract, tool_sequence, wilson
from ..guardrails import Approval, Limits, LoopDetector, VerifyBeforeDone
from ..loop import AgentRun, run_agent
from . import Verdict
from ._scenarios import Dimension, judge_scenarios, scenarios, smaller_ints, smaller_lists

__all__ = [
    "INTERVAL_SPACE",
    "ANSWER_SPACE",
    "check_grade_answer",
    "answer_scenarios",
    "ANSWER_SHAPES",
    "check_grade_calls",
    "calls_scenarios",
    "CALLS_SHAPES",
    "GRADE_CALLS_SPACE",
    "check_wilson_interval",
    "interval_scenarios",
    "INTERVAL_SHAPES",
]


def _run(*replies: Any, task: str, max_turns: int = 10, guardrails: tuple[Any, ...] = ()) -> AgentRun:
    tools = ToolRegistry([add, subtract, multiply, divide])
    return run_agent(
        mock.client(mock.Script(*replies)), task, tools, max_turns=max_turns, guardrails=guardrails
    )


def _verdict_problem(result: Any, expected: str | None, if_passed: str, if_failed: str) -> str | None:
    """compare a grader's verdict with the reference's: None passes, a sentence fails"""
    if result is not None and not (isinstance(result, str) and result.strip()):
        return _(
            "return None for a pass, or a sentence saying what is wrong; you returned a {type}: {result}",
            type=type(result).__name__,
            result=f"{result!r:.80}",
        )
    if expected is None and result is not None:
        return _(
            "your grader failed it ({result}), but it is right{hint}",
            result=f"{result!r:.100}",
            hint=if_failed,
        )
    if expected is not None and result is None:
        return _("your grader passed it, but {expected}{hint}", expected=expected, hint=if_passed)
    return None


# --- Exercise 11.1 --------------------------------------------------------------------------

# how a run ends: answered, or stopped by the loop's cap or a guardrail, each with its note as run.answer
STOPS = (
    "answered",
    "max_turns",
    "limit_turns",
    "limit_tools",
    "max_tokens",
    "loop",
    "approval",
    "not_verified",
)

Answer = tuple[
    str, str, float, int
]  # how the run ends, the model's answer text, the expected number, a limit


def _answer_run(case: Answer) -> AgentRun:
    """the run, a copy each time: a grader may change what it is given"""
    stop, text, _, limit = case
    if stop != "answered":
        return copy.deepcopy(_stopped_run(stop, limit))
    run = copy.deepcopy(_answered_run())
    run.messages[-1]["content"] = run.answer = text
    return run


@functools.cache
def _answered_run() -> AgentRun:
    """a run that answered: its last message and run.answer are then set to each scenario's text"""
    return _run(mock.call("add", a=1, b=2), "3", task="What is the result?")


@functools.cache
def _stopped_run(stop: str, limit: int) -> AgentRun:
    """a real run that ended without an answer, its note in run.answer"""
    task, text = "What is the result?", "The answer is 6."
    step = mock.call("add", a=1, b=limit)
    if stop == "max_turns":
        return _run(*[step] * limit, task=task, max_turns=limit)
    if stop == "limit_turns":
        return _run(*[step] * (limit + 1), task=task, guardrails=(Limits(max_turns=limit),))
    if stop == "limit_tools":
        return _run(
            mock.calls(*[step] * (limit + 1)), text, task=task, guardrails=(Limits(max_tool_calls=limit),)
        )
    if stop == "max_tokens":
        return _run(*[step] * 4, text, task=task, guardrails=(Limits(max_tokens=limit * 10),))
    if stop == "loop":
        return _run(*[step] * 5, text, task=task, guardrails=(LoopDetector(max_repeats=2),))
    if stop == "approval":
        return _run(step, text, task=task, guardrails=(Approval(lambda call: None),))
    report = f"{limit} failed, 0 passed"  # not_verified: the check keeps failing
    return _run(
        *[text] * 5, task=task, guardrails=(VerifyBeforeDone(lambda: (False, report), max_rejections=1),)
    )


_EXPECTED = [6, 2, -4, 0, 12, 1048576, 5 + 8 / 12, 0.1 + 0.2, 2.5, -0.75, 100]


def _written(value: float, rng: random.Random) -> str:
    """the same number as a model might write it"""
    if float(value).is_integer():
        grouped = [f"{int(value):,}"] * 2 if abs(value) >= 1000 else []  # 1,048,576: as models write it
        return rng.choice([str(int(value)), f"{value:.1f}", str(int(value)), *grouped])
    return rng.choice([repr(value), f"{value:.15g}", repr(value)])


def _answer_case(rng: random.Random) -> Answer:
    """a right answer written several ways, or a tempting wrong one, or a run that stopped"""
    stop = rng.choice([*["answered"] * 6, *STOPS[1:]])
    expected = rng.choice(_EXPECTED)
    right = _written(expected, rng)
    wrong = rng.choice(
        [
            f"{right}1",  # '61' holds the text '6'
            f"1{right}" if expected >= 0 else f"{right}0",
            _written(expected + 1, rng),
            _written(expected + 0.004, rng),
            _written(-expected, rng) if expected else "1",
        ]
    )
    text = rng.choice(
        [
            f"The answer is {right}.",
            f"{right}",
            f"Not {wrong}: the result is {right}",
            f"x = {right}; so the answer is {right}.",
            f"The answer is {wrong}.",
            f"{right} was my first guess, but it is {wrong}.",
            "I could not work it out.",
            f"Résultat : {right} 🙂",
        ]
    )
    limit = rng.randint(1, 4)
    case = (stop, text, expected, limit)
    if stop != "answered":  # the tempting case: the note's last number is the expected one
        numbers = numbers_in(_answer_run(case).answer or "")
        case = (stop, text, numbers[-1] if numbers and rng.random() < 0.8 else expected, limit)
    return case


def _describe_answer(case: Answer) -> str:
    stop, text, expected, limit = case
    if stop == "answered":
        return _("a run that answered {text}, expected {expected}", text=repr(text), expected=repr(expected))
    run = _answer_run(case)
    return _(
        "a run stopped with stop_reason {reason} (run.answer {answer}), expected {expected}",
        reason=repr(run.stop_reason),
        answer=f"{run.answer!r:.90}",
        expected=repr(expected),
    )


_ANSWER_FIXED: list[Answer] = [
    ("answered", "4 + 2 = 6", 6, 1),
    ("answered", "4 + 2 = 16", 6, 1),
    ("answered", "4 - 2 = 3", 2, 1),
    ("max_turns", "", 3, 3),
    ("answered", "The answer is 6.0.", 6, 1),
    ("answered", "5 + 8/12 = 5.666666666666667", 5 + 8 / 12, 1),
    ("answered", "0.1 + 0.2 = 0.3", 0.1 + 0.2, 1),
    ("answered", "2 - 6 = -4", -4, 1),
    ("answered", "4 + 2 = 6.004", 6, 1),
    ("answered", "I could not work it out.", 6, 1),
]


def answer_scenarios() -> list[Answer]:
    """check 11.1's runs: ten readable ones, then 100 generated"""
    return scenarios(_ANSWER_FIXED, _answer_case, count=100, seed=1101)


def _answered(test: Callable[[str, float, list[float]], bool]) -> Callable[[Answer], bool]:
    """a run that answered, whose text, expected number and numbers pass the test"""
    return lambda case: case[0] == "answered" and test(case[1], case[2], numbers_in(case[1]))


def _stopped_by(stop: str) -> Callable[[Answer], bool]:
    return lambda case: case[0] == stop


def _same(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


# the shapes lesson 11 names for grading an answer, each reached by answer_scenarios() (test_check_shapes.py)
ANSWER_SHAPES: dict[str, Callable[[Answer], bool]] = {
    **{f"a run stopped by {stop}": _stopped_by(stop) for stop in STOPS[1:]},
    "a stopped run whose note ends with the expected number": lambda case: (
        case[0] != "answered"
        and (lambda numbers: bool(numbers) and _same(numbers[-1], case[2]))(
            numbers_in(_answer_run(case).answer or "")
        )
    ),
    "the expected number last": _answered(lambda text, x, numbers: bool(numbers) and _same(numbers[-1], x)),
    "a whole number written as a float (6.0)": _answered(
        lambda text, x, numbers: float(x).is_integer() and bool(numbers) and f"{x:.1f}" in text
    ),
    "the number's text inside a longer number ('6' in '16')": _answered(
        lambda text, x, numbers: (
            bool(numbers) and not _same(numbers[-1], x) and (f"{x:g}" in text or str(x) in text)
        )
    ),
    "a near miss (off by 0.004)": _answered(
        lambda text, x, numbers: bool(numbers) and 0 < abs(numbers[-1] - x) < 0.01
    ),
    "the sign flipped": _answered(
        lambda text, x, numbers: bool(numbers) and x != 0 and _same(numbers[-1], -x)
    ),
    "right, then corrected to wrong": _answered(
        lambda text, x, numbers: any(_same(n, x) for n in numbers[:-1]) and not _same(numbers[-1], x)
    ),
    "no number at all": _answered(lambda text, x, numbers: not numbers),
    "thousands separators (1,048,576)": _answered(
        lambda text, x, numbers: bool(re.search(r"\d,\d{3}\b", text)) and _same(numbers[-1], x)
    ),
    "a negative number expected": lambda case: case[2] < 0,
    "a float expected that text cannot match (0.1 + 0.2)": lambda case: case[2] == 0.1 + 0.2,
    "zero expected": lambda case: case[2] == 0,
    "non-ASCII words": lambda case: not case[1].isascii(),
}


# what exercise 11.1's words say varies, each form reached by answer_scenarios() (test_input_space.py)
ANSWER_SPACE: dict[str, Dimension[Answer]] = {
    "answered": Dimension(
        "the run must have **answered**",
        {
            "answered": lambda case: case[0] == "answered",
            **{f"stopped by {stop}": _stopped_by(stop) for stop in STOPS[1:]},
            "stopped, its note ending with the number": ANSWER_SHAPES[
                "a stopped run whose note ends with the expected number"
            ],
        },
    ),
    "the last number": Dimension(
        "the **last number** in `run.answer` must equal `expected`",
        {
            "last": ANSWER_SHAPES["the expected number last"],
            "right, then corrected to wrong": ANSWER_SHAPES["right, then corrected to wrong"],
            "no number": ANSWER_SHAPES["no number at all"],
            "negative": ANSWER_SHAPES["a negative number expected"],
            "zero": ANSWER_SHAPES["zero expected"],
        },
    ),
    "numbers, not text": Dimension(
        "Read numbers as whole numbers, not text",
        {
            "6 inside 16": ANSWER_SHAPES["the number's text inside a longer number ('6' in '16')"],
            "thousands separators": ANSWER_SHAPES["thousands separators (1,048,576)"],
            "the sign flipped": ANSWER_SHAPES["the sign flipped"],
            "non-ASCII words": ANSWER_SHAPES["non-ASCII words"],
        },
    ),
    "isclose": Dimension(
        "compare them with `math.isclose` (`6.0` is 6)",
        {
            "6.0 for 6": ANSWER_SHAPES["a whole number written as a float (6.0)"],
            "a near miss": ANSWER_SHAPES["a near miss (off by 0.004)"],
            "0.1 + 0.2": ANSWER_SHAPES["a float expected that text cannot match (0.1 + 0.2)"],
        },
    ),
}


def check_grade_answer(grade_answer: Callable[[AgentRun, float], str | None]) -> Verdict:
    """Exercise 11.1: grade_answer(run, expected) -> None when the run answered and its last number is
    expected

    Scenarios: ten readable runs, then 100 generated ones: answers that write the expected number
    as an int, a float or its full repr, after other numbers or among words and unicode; tempting
    wrong ones (the number inside a longer one, off by one or by 0.004, the sign flipped, right
    then corrected to wrong, no number); and runs stopped by max_turns or a guardrail (a limit, the
    loop detector, an approval, verify-before-done) whose note ends with the expected number.
    """

    def judge(case: Answer) -> str | None:
        run = _answer_run(case)
        expected = final_number(case[2])(run)
        return _verdict_problem(grade_answer(run, case[2]), expected, *_answer_hints(case, run))

    return judge_scenarios(
        "11.1",
        answer_scenarios(),
        judge,
        _describe_answer,
        _("you judge the last number of a real answer, as a number."),
    )


def _answer_hints(case: Answer, run: AgentRun) -> tuple[str, str]:
    """what to add when a grader passes this wrong run, and when it fails this right one"""
    _stop, text, expected, _limit = case
    if run.stop_reason != "answered":
        return _(" (run.answer holds the loop's note, not an answer: check run.stop_reason first)"), ""
    numbers = numbers_in(text)
    if not numbers:
        if_passed = _(" (the answer has no number at all)")
    elif any(math.isclose(n, expected, rel_tol=1e-9, abs_tol=1e-9) for n in numbers[:-1]):
        if_passed = _(" (judge the last number of the answer, not any number in it)")
    elif abs(numbers[-1] - expected) < 0.01:
        if_passed = _(
            " (a near miss: rounding, or a tolerance such as abs(a - b) < 0.01, passes it; math.isclose with "
            "its default tolerance does not)"
        )
    elif f"{expected:g}" in text or str(expected) in text:
        if_passed = _(" (compare whole numbers, not text: '6' in '16' is True)")
    elif math.isclose(numbers[-1], -expected):
        if_passed = _(" (read the minus sign with the number)")
    else:
        if_passed = ""
    if re.search(r"\d,\d{3}\b", text):
        if_failed = _(
            " (a model writes 1,048,576 for 1048576: read the thousands separators as part of the number, "
            "as in {pattern})",
            pattern="r'-?\\d+(?:,\\d{3})*(?:\\.\\d+)?'",
        )
    elif expected < 0:
        if_failed = _(" (read the minus sign with the number, as in r'-?\\d+(?:\\.\\d+)?')")
    elif not float(expected).is_integer():
        if_failed = _(" (compare floats with math.isclose, not with == or as text)")
    else:
        if_failed = _(" (read the whole last number as a float, and compare with math.isclose: 6.0 is 6)")
    return if_passed, if_failed


# --- Exercise 11.2 --------------------------------------------------------------------------

Calls = tuple[
    tuple[str, int], ...
]  # the model's tool-call turns: each a tuple of tool names called in parallel
Trajectory = tuple[
    tuple[tuple[str, ...], ...], tuple[str, ...], int
]  # the turns, the expected names, max_calls

_TOOLS = ("add", "subtract", "multiply", "divide")
# calls that failed, as the loop answers them: a division by zero (the tool raised), a tool that does not
# exist; each is still a call the model asked for
_FAILED = {
    "divide(b=0)": ('{"a": 8, "b": 0}', "ERROR: divide raised ZeroDivisionError: division by zero"),
    "power": (
        '{"a": 8, "b": 2}',
        "ERROR: unknown tool 'power'; the tools are add, subtract, multiply, divide",
    ),
}


def _tool_name(call: str) -> str:
    """the name the model called: 'divide(b=0)' is a call of divide that failed"""
    return call.split("(")[0]


def _trajectory_run(case: Trajectory) -> AgentRun:
    """the run's messages as the loop writes them: each turn's calls, their results, then the answer"""
    turns, _, _ = case
    messages: list[dict[str, Any]] = [{"role": "user", "content": "What is it?"}]
    for number, turn in enumerate(turns):
        calls: list[dict[str, Any]] = [
            {
                "id": f"call_{number}_{k}",
                "type": "function",
                "function": {
                    "name": _tool_name(name),
                    "arguments": _FAILED.get(name, ('{"a": 8, "b": 2}',))[0],
                },
            }
            for k, name in enumerate(turn)
        ]
        messages.append({"role": "assistant", "content": "", "tool_calls": calls})
        messages += [
            {
                "role": "tool",
                "tool_call_id": call["id"],
                "content": _FAILED[name][1] if name in _FAILED else str(_RESULTS[name]),
            }
            for call, name in zip(calls, turn, strict=True)
        ]
    messages.append({"role": "assistant", "content": "done"})
    run = AgentRun(
        task="What is it?", messages=messages, tools=ToolRegistry([add, subtract, multiply, divide])
    )
    run.model_calls, run.answer, run.stop_reason = len(turns) + 1, "done", "answered"
    run.tool_calls_made = sum(len(turn) for turn in turns)
    return run


_RESULTS = {"add": 10, "subtract": 6, "multiply": 16, "divide": 4.0}


def _trajectory(rng: random.Random) -> Trajectory:
    """0 to 5 turns of 1 to 3 parallel calls; expected names in order, out of order, repeated or missing;
    max_calls at the count, one under it, or above"""
    turns = tuple(
        tuple(rng.choice((*_TOOLS, *_TOOLS, *_FAILED)) for _ in range(rng.choice([1, 1, 2, 3])))
        for _ in range(rng.choice([0, 1, 2, 3, 4, 5]))
    )
    names = [_tool_name(name) for turn in turns for name in turn]
    kind = rng.random()
    if names and kind < 0.5:  # a subsequence of the calls: right if within max_calls
        expected = [name for name in names if rng.random() < 0.6] or names[:1]
    elif names and kind < 0.7:  # the same names, another order
        expected = rng.sample(names, len(names))
    elif names and kind < 0.85:  # a name once more than it was called
        expected = [*names, rng.choice(names)]
    else:
        expected = [rng.choice(_TOOLS) for _ in range(rng.randint(1, 3))]
    max_calls = max(1, len(names) + rng.choice([-1, 0, 0, 1, 3]))
    return turns, tuple(expected), max_calls


def _smaller_trajectories(case: Trajectory) -> Iterator[Trajectory]:
    turns, expected, max_calls = case
    for fewer in smaller_lists(turns):
        yield tuple(fewer), expected, max_calls
    for index, turn in enumerate(turns):
        for fewer_calls in smaller_lists(turn):
            if fewer_calls:
                yield (*turns[:index], tuple(fewer_calls), *turns[index + 1 :]), expected, max_calls
    for fewer_names in smaller_lists(expected):
        if fewer_names:
            yield turns, tuple(fewer_names), max_calls
    for smaller in smaller_ints(max_calls, floor=1):
        yield turns, expected, smaller


def _describe_trajectory(case: Trajectory) -> str:
    turns, expected, max_calls = case
    said = _("; then ").join(_(" and ").join(map(_said, turn)) for turn in turns) or _("no tool at all")
    return _(
        "a run that called {said}, expected {expected}, max_calls={max_calls}",
        said=said,
        expected=list(expected),
        max_calls=max_calls,
    )


def _said(call: str) -> str:
    said = {
        "divide(b=0)": N_("divide (which failed: b=0)"),
        "power": N_("power (which failed: no such tool)"),
    }
    return _(said[call]) if call in said else call


_DIVIDE_ADD = ("divide",), ("add",)
_CALLS_FIXED: list[Trajectory] = [
    (_DIVIDE_ADD, ("divide", "add"), 3),
    ((("add",), ("divide",)), ("divide", "add"), 3),
    ((("divide",),) * 3 + (("add",),), ("divide", "add"), 3),
    ((("divide", "add"),), ("divide", "add"), 3),
    ((("divide", "add"), ("divide", "add")), ("divide", "add"), 3),
    ((("divide",), ("multiply",), ("add",)), ("divide", "add"), 3),
    ((("divide",),), ("divide", "add"), 3),
    ((("add",), ("divide",), ("add",)), ("add", "divide", "add"), 3),
    ((("add",), ("divide",)), ("add", "divide", "add"), 3),
    ((("divide(b=0)",), ("divide",), ("add",)), ("divide", "add"), 2),
    ((("power",), ("divide(b=0)",), ("add",)), ("divide", "add"), 3),
]


def calls_scenarios() -> list[Trajectory]:
    """check 11.2's runs: eleven readable ones, then 120 generated"""
    return scenarios(_CALLS_FIXED, _trajectory, count=120, seed=1102)


def _names(case: Trajectory) -> list[str]:
    return [_tool_name(name) for turn in case[0] for name in turn]


def _in_order(expected: tuple[str, ...], names: list[str]) -> bool:
    remaining = iter(names)
    return all(name in remaining for name in expected)


# the shapes lesson 11 names for grading calls, each reached by calls_scenarios() (test_check_shapes.py)
CALLS_SHAPES: dict[str, Callable[[Trajectory], bool]] = {
    "no tool call at all": lambda case: not case[0],
    "parallel calls in one message": lambda case: any(len(turn) > 1 for turn in case[0]),
    "the expected calls with others between": lambda case: (
        _in_order(case[1], _names(case)) and len(_names(case)) > len(case[1])
    ),
    "the expected names in another order": lambda case: (
        sorted(case[1]) == sorted(_names(case)) and not _in_order(case[1], _names(case))
    ),
    "a name expected twice": lambda case: len(set(case[1])) < len(case[1]),
    "a name expected once more than it was called": lambda case: any(
        case[1].count(name) > _names(case).count(name) > 0 for name in case[1]
    ),
    "a tool called again (repeats count)": lambda case: len(set(_names(case))) < len(_names(case)),
    "calls exactly at max_calls": lambda case: len(_names(case)) == case[2],
    "one call over max_calls": lambda case: len(_names(case)) == case[2] + 1,
    "calls under max_calls": lambda case: len(_names(case)) < case[2],
    "a name never called": lambda case: bool(set(case[1]) - set(_names(case))),
}


def _failed_calls(case: Trajectory) -> int:
    return sum(call in _FAILED for turn in case[0] for call in turn)


# what exercise 11.2's words say varies, each form reached by calls_scenarios() (test_input_space.py)
GRADE_CALLS_SPACE: dict[str, Dimension[Trajectory]] = {
    "the calls": Dimension(
        "take every tool call the model asked for",
        {
            "no call at all": CALLS_SHAPES["no tool call at all"],
            "calls that worked": lambda case: any(call in _TOOLS for turn in case[0] for call in turn),
            "a call whose tool raised": lambda case: any("divide(b=0)" in turn for turn in case[0]),
            "a call of a tool that does not exist": lambda case: any("power" in turn for turn in case[0]),
        },
    ),
    "per message": Dimension(
        "may hold several (parallel calls)",
        {
            "one call per message": lambda case: bool(case[0]) and all(len(turn) == 1 for turn in case[0]),
            "several calls in one message": CALLS_SHAPES["parallel calls in one message"],
        },
    ),
    "the budget": Dimension(
        "more than `max_calls` calls fails, repeats included",
        {
            "under max_calls": CALLS_SHAPES["calls under max_calls"],
            "exactly max_calls": CALLS_SHAPES["calls exactly at max_calls"],
            "one over": CALLS_SHAPES["one call over max_calls"],
            "over only with the failed calls": lambda case: (
                len(_names(case)) > case[2] >= len(_names(case)) - _failed_calls(case)
            ),
            "over only with the repeats": lambda case: len(_names(case)) > case[2] >= len(set(_names(case))),
        },
    ),
    "the order": Dimension(
        "the names in `expected` must appear in that order",
        {
            "in order, nothing between": lambda case: _names(case) == list(case[1]),
            "in order, others between": CALLS_SHAPES["the expected calls with others between"],
            "in another order": CALLS_SHAPES["the expected names in another order"],
            "a name never called": CALLS_SHAPES["a name never called"],
            "an expected name whose call failed": lambda case: (
                "divide" in case[1] and any("divide(b=0)" in turn for turn in case[0])
            ),
        },
    ),
    "twice": Dimension(
        "a name expected twice must be called twice",
        {
            "called twice": lambda case: any(
                case[1].count(name) == 2 <= _names(case).count(name) for name in case[1]
            ),
            "called once": CALLS_SHAPES["a name expected once more than it was called"],
        },
    ),
}


def check_grade_calls(grade_calls: Callable[[AgentRun, list[str], int], str | None]) -> Verdict:
    """Exercise 11.2: grade_calls(run, expected, max_calls) -> None when the expected tools were
    called in that order and there were at most max_calls tool calls

    Scenarios: nine readable runs, then 120 generated ones: 0 to 5 turns of 1 to 3 parallel calls,
    with expected names that are the calls in order with others between, in another order, one
    more than called, or unrelated, and max_calls at the number of calls, one under it, or above.
    """

    def judge(case: Trajectory) -> str | None:
        run = _trajectory_run(case)
        _turns, expected, max_calls = case
        wanted = tool_sequence(list(expected), max_calls)(run)
        if_passed, if_failed = _calls_hints(case)
        result = grade_calls(run, list(expected), max_calls)
        calls = sum(len(turn) for turn in case[0])
        if wanted is None and result is not None and calls == max_calls:
            if (
                grade_calls(_trajectory_run(case), list(expected), max_calls + 1) is None
            ):  # the limit was the fault
                if_failed = _(
                    " ({calls} calls is within max_calls={max_calls}: at most, not fewer than)",
                    calls=calls,
                    max_calls=max_calls,
                )
        return _verdict_problem(result, wanted, if_passed, if_failed)

    return judge_scenarios(
        "11.2",
        calls_scenarios(),
        judge,
        _describe_trajectory,
        _("which tools, in what order, and how many calls: all judged."),
        _smaller_trajectories,
    )


def _calls_hints(case: Trajectory) -> tuple[str, str]:
    """what to add when a grader passes this wrong run, and when it fails this right one"""
    turns, expected, max_calls = case
    names = _names(case)
    failed = sum(name in _FAILED for turn in turns for name in turn)
    if len(names) > max_calls:
        if len(names) == 1:
            hint = (
                N_(
                    " ({count} call in {messages} message(s) is more than max_calls={max_calls}: "
                    "count every call, repeats and failed calls included)"
                )
                if failed
                else N_(
                    " ({count} call in {messages} message(s) is more than max_calls={max_calls}: "
                    "count every call, repeats included"
                    ")"
                )
            )
        else:
            hint = (
                N_(
                    " ({count} calls in {messages} message(s) is more than max_calls={max_calls}: "
                    "count every call, repeats and failed calls included)"
                )
                if failed
                else N_(
                    " ({count} calls in {messages} message(s) is more than max_calls={max_calls}: "
                    "count every call, repeats included"
                    ")"
                )
            )
        if_passed = _(hint, count=len(names), messages=len(turns), max_calls=max_calls)
    elif all(names.count(name) >= expected.count(name) for name in expected):
        if_passed = _(" (the order counts: comparing sets, or looking each name up, ignores it)")
    elif set(expected) <= set(names):
        if_passed = _(" (a name expected twice must be called twice)")
    else:
        if_passed = ""
    if any(len(turn) > 1 for turn in turns):
        if_failed = _(" (parallel calls sit in one assistant message's tool_calls: take every one)")
    elif failed:
        if_failed = _(
            " (a call that failed is a call the model asked for: it may come between the expected ones,"
            " and it counts in the order)"
        )
    elif len(names) > len(expected):
        if_failed = _(" (other calls may come between the expected ones)")
    else:
        if_failed = ""
    return if_passed, if_failed


# --- Exercise 11.3 --------------------------------------------------------------------------

Interval = tuple[int, int, float | None]  # passed, n, z (None: the default)


def _interval_case(rng: random.Random) -> Interval:
    """n from 1 to 1,000; passed at 0, n, or between; z the default or 1.645, 1.96, 2.576"""
    n = rng.choice([1, 2, rng.randint(3, 20), rng.randint(21, 1000)])
    passed = rng.choice([0, n, rng.randint(0, n), rng.randint(0, n)])
    return passed, n, rng.choice([None, None, 1.645, 1.96, 2.576])


def _smaller_intervals(case: Interval) -> Iterator[Interval]:
    passed, n, z = case
    if z is not None:
        yield passed, n, None
    for smaller in smaller_ints(n, floor=1):
        yield min(passed, smaller), smaller, z
    for smaller in smaller_ints(passed):
        yield smaller, n, z


def _call(case: Interval) -> str:
    passed, n, z = case
    return f"wilson_interval({passed}, {n}{'' if z is None else f', z={z}'})"


_INTERVAL_FIXED: list[Interval] = [
    (0, 10, None),
    (10, 10, None),
    (8, 10, None),
    (3, 7, None),
    (1, 1, None),
    (40, 50, None),
    (8, 10, 2.576),
]


def interval_scenarios() -> list[Interval]:
    """check 11.3's calls: seven readable ones, then 150 generated"""
    return scenarios(_INTERVAL_FIXED, _interval_case, count=150, seed=1103)


# the shapes lesson 11 names for the Wilson interval, each reached by interval_scenarios()
INTERVAL_SHAPES: dict[str, Callable[[Interval], bool]] = {
    "0 passes (where the textbook interval shrinks to nothing)": lambda case: case[0] == 0,
    "every run passes": lambda case: case[0] == case[1],
    "some pass": lambda case: 0 < case[0] < case[1],
    "one run": lambda case: case[1] == 1,
    "hundreds of runs": lambda case: case[1] >= 100,
    "the default z": lambda case: case[2] is None,
    "z given as 1.96": lambda case: case[2] == 1.96,
    "another z given (1.645 or 2.576)": lambda case: case[2] in (1.645, 2.576),
    "an end that rounding takes past 0 or 1": lambda case: (lambda ends: ends[0] < 0 or ends[1] > 1)(
        _unclamped(*case)
    ),
    "ends that round to 0 and 1 (as a wrong formula kept within [0, 1] gives)": lambda case: (
        lambda ends: (round(ends[0]), round(ends[1])) == (0, 1)
    )(wilson(case[0], case[1], case[2] or 1.96)),
}


# what exercise 11.3's words say varies, each form reached by interval_scenarios() (test_input_space.py)
INTERVAL_SPACE: dict[str, Dimension[Interval]] = {
    "z": Dimension(
        "Write `wilson_interval(passed, n, z=1.96)`",
        {
            "the default": INTERVAL_SHAPES["the default z"],
            "1.96 given": INTERVAL_SHAPES["z given as 1.96"],
            "another z": INTERVAL_SHAPES["another z given (1.645 or 2.576)"],
        },
    ),
    "p": Dimension(
        "with p = passed / n",
        {
            "0 passes": INTERVAL_SHAPES["0 passes (where the textbook interval shrinks to nothing)"],
            "every run passes": INTERVAL_SHAPES["every run passes"],
            "some pass": INTERVAL_SHAPES["some pass"],
            "one run": INTERVAL_SHAPES["one run"],
            "hundreds of runs": INTERVAL_SHAPES["hundreds of runs"],
        },
    ),
    "kept within": Dimension(
        "kept within [0, 1]",
        {
            "an end rounding takes past 0 or 1": INTERVAL_SHAPES["an end that rounding takes past 0 or 1"],
            "ends inside": lambda case: not INTERVAL_SHAPES["an end that rounding takes past 0 or 1"](case),
        },
    ),
}


def _unclamped(passed: int, n: int, z: float | None) -> tuple[float, float]:
    """Wilson's ends as the formula gives them, before they are kept within [0, 1]"""
    z = 1.96 if z is None else z
    p = passed / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


def check_wilson_interval(wilson_interval: Callable[..., tuple[float, float]]) -> Verdict:
    """Exercise 11.3: the Wilson score interval of passed/n, as (low, high)

    Scenarios: seven readable ones (0, n and some passes; z=2.576), then 150 generated: n from 1 to
    1,000, passed at 0, at n or between, z the default or given.
    """

    def call(case: Interval) -> Any:
        passed, n, z = case
        return wilson_interval(passed, n) if z is None else wilson_interval(passed, n, z=z)

    def judge(case: Interval) -> str | None:
        passed, n, z = case
        expected = wilson(passed, n) if z is None else wilson(passed, n, z)
        got = call(case)
        if not isinstance(got, (tuple, list)) or len(got) != 2:
            return _(
                "return the pair (low, high), a tuple or a list of two numbers; you returned {got}",
                got=f"{got!r:.80}",
            )
        for name, end in zip(("low", "high"), got, strict=True):
            if isinstance(end, bool) or not isinstance(end, (int, float)):
                return _(
                    "{name} is a {type} ({end}): return numbers (float), not text",
                    name=name,
                    type=type(end).__name__,
                    end=f"{end!r:.40}",
                )
        low, high = (float(end) for end in got)
        return _interval_problem(case, (low, high), expected, functools.partial(_rounds_to, call))

    return judge_scenarios(
        "11.3",
        interval_scenarios(),
        judge,
        _call,
        _("an interval that stays honest at 0 and at n passes."),
        _smaller_intervals,
    )


def _rounds_to(call: Callable[[Interval], Any]) -> int | None:
    """the decimals the learner's ends are rounded to on every readable call, if they are: a wrong
    formula kept within [0, 1] can give (0.0, 1.0), which rounding to 0 decimals gives too"""
    for decimals in range(7):
        try:
            if all(
                tuple(call(case))
                == tuple(round(end, decimals) for end in wilson(case[0], case[1], case[2] or 1.96))
                for case in _INTERVAL_FIXED
            ):
                return decimals
        except Exception:  # the learner's code: the judge reports what it raises
            return None
    return None


def _interval_problem(
    case: Interval,
    got: tuple[float, float],
    expected: tuple[float, float],
    rounds_to: Callable[[], int | None],
) -> str | None:
    passed, n, given_z = case
    low, high = got

    def same(pair: tuple[float, float]) -> bool:
        return math.isclose(low, pair[0], abs_tol=1e-6) and math.isclose(high, pair[1], abs_tol=1e-6)

    if same(expected):
        if low < 0 or high > 1:  # exactly, not within a tolerance: rounding leaves [0, 1] by 1e-16
            return _(
                "you gave ({low}, {high}), outside [0, 1]: a proportion is never below 0 or above 1, "
                "and rounding takes the formula just past them; keep each end within [0, 1]",
                low=repr(low),
                high=repr(high),
            )
        return None
    if same(expected[::-1]):
        return _("you gave {yours}: return (low, high), the smaller first", yours=f"{low:.3f}-{high:.3f}")
    decimals = rounds_to()
    if decimals is not None and (round(expected[0], decimals), round(expected[1], decimals)) == (low, high):
        return _(
            "you gave {yours}; Wilson's interval is {wilson}: yours is rounded to {decimals} "
            "decimals. Return "
            "the ends unrounded (round only to print)",
            yours=f"({low!r}, {high!r})",
            wilson=f"({expected[0]!r}, {expected[1]!r})",
            decimals=decimals,
        )
    if given_z is not None and same(wilson(passed, n)):
        return _(
            "you gave {yours}, the interval for z=1.96: use the z you are given ({wilson} for z={z})",
            yours=f"{low:.3f}-{high:.3f}",
            wilson=f"{expected[0]:.3f}-{expected[1]:.3f}",
            z=given_z,
        )
    z = 1.96 if given_z is None else given_z
    p = passed / n
    wald = p - z * math.sqrt(p * (1 - p) / n), p + z * math.sqrt(p * (1 - p) / n)
    if same(wald) or same((max(0.0, wald[0]), min(1.0, wald[1]))):
        return _(
            "you gave {yours}: that is the textbook p ± z·sqrt(p(1-p)/n) (Wald) interval, "
            "which shrinks to nothing at 0 or n passes. Use Wilson's centre and half-width",
            yours=f"{low:.3f}-{high:.3f}",
        )
    digits = 3 if f"{low:.3f}-{high:.3f}" != f"{expected[0]:.3f}-{expected[1]:.3f}" else 9
    return _(
        "you gave {yours}; Wilson's interval is {wilson}. {part}",
        yours=f"{low:.{digits}f}-{high:.{digits}f}",
        wilson=f"{expected[0]:.{digits}f}-{expected[1]:.{digits}f}",
        part=_which_part((low, high), p, n, z),
    )


def _which_part(got: tuple[float, float], p: float, n: int, z: float) -> str:
    """which of Wilson's two parts is off, when the ends were not clamped and so show both"""
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    low, high = got
    if 0 < low and high < 1:
        centre_right = math.isclose((low + high) / 2, centre, abs_tol=1e-6)
        half_right = math.isclose((high - low) / 2, half, abs_tol=1e-6)
        if centre_right and not half_right:
            return _("Your centre is right; check the half-width z / (1 + z²/n) · sqrt(p(1-p)/n + z²/4n²)")
        if half_right and not centre_right:
            return _("Your half-width is right; check the centre (p + z²/2n) / (1 + z²/n)")
    return _(
        "Check the centre (p + z²/2n) / (1 + z²/n) and the half-width z / (1 + z²/n) · sqrt(p(1-p)/n "
        "+ z²/4n²)"
    )
