"""Lesson 11's exercise checks: they pass the solutions and name the fault of each tempting wrong answer."""

import json
import math
import re

import pytest
from hash_seeds import under_two_hash_seeds

from agent_core import mock
from agent_core.checks._scenarios import scenarios
from agent_core.checks.lesson11 import (
    _answer_case,
    _answer_run,
    _trajectory_run,
    check_grade_answer,
    check_grade_calls,
    check_wilson_interval,
)
from agent_core.evaluation import add, divide, multiply, subtract
from agent_core.loop import run_agent

NUMBER = re.compile(r"-?\d+(?:,\d{3})*(?:\.\d+)?")

# --- 11.1 ----------------------------------------------------------------------------------------


def grade_answer(run, expected):
    """the solution"""
    if run.stop_reason != "answered":
        return f"the run stopped with {run.stop_reason!r} instead of answering"
    numbers = NUMBER.findall(run.answer or "")
    if not numbers:
        return "the answer has no number"
    if not math.isclose(float(numbers[-1].replace(",", "")), expected):
        return f"the answer ends with {numbers[-1]}, expected {expected}"
    return None


def ungrouped(run, expected):
    """reads 1,048,576 as 1, 048 and 576: the thousands separators split the number"""
    if run.stop_reason != "answered":
        return f"the run stopped with {run.stop_reason!r} instead of answering"
    numbers = re.findall(r"(?<![\w.])-?\d+(?:\.\d+)?(?!\w)", run.answer or "")
    if not numbers:
        return "the answer has no number"
    if not math.isclose(float(numbers[-1]), expected):
        return f"the answer ends with {numbers[-1]}, expected {expected}"
    return None


def contains_text(run, expected):
    """the most tempting: is the number's text in the answer?"""
    return None if str(expected) in (run.answer or "") else "not there"


def any_number(run, expected):
    numbers = [float(n) for n in NUMBER.findall(run.answer or "")]
    return None if any(math.isclose(n, expected) for n in numbers) else "not there"


def ignores_stop_reason(run, expected):
    numbers = NUMBER.findall(run.answer or "")
    return None if numbers and math.isclose(float(numbers[-1]), expected) else "wrong"


def last_message(run, expected):
    text = run.messages[-1].get("content") or ""
    numbers = NUMBER.findall(text)
    return None if numbers and math.isclose(float(numbers[-1]), expected) else "wrong"


def integers_only(run, expected):
    if run.stop_reason != "answered":
        return "stopped"
    numbers = re.findall(r"\d+", run.answer or "")
    return None if numbers and int(numbers[-1]) == expected else "wrong"


def exact_text(run, expected):
    if run.stop_reason != "answered":
        return "stopped"
    numbers = NUMBER.findall(run.answer or "")
    return None if numbers and numbers[-1] == str(expected) else "wrong"


def equal_floats(run, expected):
    if run.stop_reason != "answered":
        return "stopped"
    numbers = NUMBER.findall(run.answer or "")
    return None if numbers and float(numbers[-1]) == expected else "wrong"


def no_minus_sign(run, expected):
    if run.stop_reason != "answered":
        return "stopped"
    numbers = re.findall(r"\d+(?:\.\d+)?", run.answer or "")
    return None if numbers and math.isclose(float(numbers[-1]), expected) else "wrong"


def rounded(run, expected):
    if run.stop_reason != "answered":
        return "stopped"
    numbers = NUMBER.findall(run.answer or "")
    return None if numbers and round(float(numbers[-1]), 2) == round(expected, 2) else "wrong"


def crashes_without_number(run, expected):
    if run.stop_reason != "answered":
        return "stopped"
    return None if math.isclose(float(NUMBER.findall(run.answer)[-1]), expected) else "wrong"


def says_true(run, expected):
    return True


def grade_answer_with_library_numbers(run, expected):
    """right, written differently: numbers read by a stricter pattern, compared with a relative tolerance"""
    if run.stop_reason != "answered":
        return "no answer: " + run.stop_reason
    found = re.findall(r"(?<![\w.])-?\d+(?:,\d{3})*(?:\.\d+)?(?!\w)", run.answer)
    if not found:
        return "no number"
    last = float(found[-1].replace(",", ""))
    return None if abs(last - expected) <= 1e-9 * max(1.0, abs(expected)) else f"{last} is not {expected}"


def grade_answer_from_the_end(run, expected):
    """right, written differently: the last number found by walking the words backwards"""
    if run.stop_reason == "answered":
        for word in reversed((run.answer or "").replace(":", " ").split()):
            try:
                number = float(word.strip(".;,!?").replace(",", ""))
                return None if math.isclose(number, expected) else "wrong number"
            except ValueError:
                continue
        return "no number in the answer"
    return "the run did not answer"


WRONG_ANSWER_GRADERS = [  # the most tempting first
    (ignores_stop_reason, "check run.stop_reason first"),
    (
        lambda run, expected: run.stop_reason == "answered",
        "return None for a pass, or a sentence saying what is wrong; you returned a bool: True",
    ),
    (contains_text, "your grader passed it"),
    (any_number, "judge the last number of the answer, not any number in it"),
    (last_message, "check run.stop_reason first"),
    (integers_only, "your grader failed it"),
    (ungrouped, "a model writes 1,048,576 for 1048576: read the thousands separators"),
    (exact_text, "6.0 is 6"),
    (equal_floats, "compare floats with math.isclose"),
    (no_minus_sign, "read the minus sign with the number"),
    (rounded, "a near miss"),
    (crashes_without_number, "your code raised IndexError"),
    (says_true, "return None for a pass, or a sentence"),
]


@pytest.mark.parametrize(
    "grader", [grade_answer, grade_answer_with_library_numbers, grade_answer_from_the_end]
)
def test_check_grade_answer_passes_right_answers_however_written(grader, capsys):
    assert check_grade_answer(grader)
    assert "✓ Exercise 11.1" in capsys.readouterr().out


@pytest.mark.parametrize("grader, problem", WRONG_ANSWER_GRADERS)
def test_check_grade_answer_names_what_is_wrong(grader, problem, capsys):
    assert not check_grade_answer(grader)
    out = capsys.readouterr().out
    assert "✗ Exercise 11.1: not yet." in out and problem in out and "expected" in out


def test_every_stop_reason_is_tried():
    cases = scenarios([], _answer_case, count=100, seed=1101)
    stopped = {_answer_run(case).stop_reason for case in cases}
    assert stopped == {
        "answered",
        "max_turns",
        "max_tool_calls",
        "max_tokens",
        "repeated_call",
        "needs_approval",
        "not_verified",
    }


def test_check_grade_answer_is_deterministic_and_counts_its_scenarios(capsys):
    first, second = check_grade_answer(rounded), check_grade_answer(rounded)
    out = capsys.readouterr().out.split("✗")
    assert first.scenarios == second.scenarios == 110 and out[1] == out[2]


# --- 11.2 ----------------------------------------------------------------------------------------


def names_of(run):
    return [
        c["function"]["name"]
        for m in run.messages
        if m["role"] == "assistant"
        for c in m.get("tool_calls") or []
    ]


def grade_calls(run, expected, max_calls):
    """the solution"""
    names = names_of(run)
    if len(names) > max_calls:
        return f"{len(names)} tool calls, more than {max_calls}"
    remaining = iter(names)
    if not all(name in remaining for name in expected):
        return f"called {names}, expected {expected} in that order"
    return None


def as_sets(run, expected, max_calls):
    """the most tempting: the right tools, in any order"""
    names = names_of(run)
    return None if set(expected) <= set(names) and len(names) <= max_calls else "wrong"


def no_budget(run, expected, max_calls):
    remaining = iter(names_of(run))
    return None if all(name in remaining for name in expected) else "wrong"


def distinct_calls(run, expected, max_calls):
    names = list(dict.fromkeys(names_of(run)))
    remaining = iter(names)
    return None if len(names) <= max_calls and all(n in remaining for n in expected) else "wrong"


def first_call_per_message(run, expected, max_calls):
    names = [m["tool_calls"][0]["function"]["name"] for m in run.messages if m.get("tool_calls")]
    remaining = iter(names)
    return None if len(names) <= max_calls and all(n in remaining for n in expected) else "wrong"


def counts_messages(run, expected, max_calls):
    turns = [m for m in run.messages if m.get("tool_calls")]
    remaining = iter(names_of(run))
    return None if len(turns) <= max_calls and all(n in remaining for n in expected) else "wrong"


def exactly(run, expected, max_calls):
    return None if names_of(run) == list(expected) else "wrong"


def membership(run, expected, max_calls):
    names = names_of(run)
    ordered = [n for n in names if n in expected]
    return (
        None
        if len(names) <= max_calls and list(dict.fromkeys(ordered)) == list(dict.fromkeys(expected))
        else "no"
    )


def grade_calls_by_position(run, expected, max_calls):
    """right, written differently: a position that moves forward through the calls"""
    names = [
        call["function"]["name"]
        for message in run.messages
        if message["role"] == "assistant" and message.get("tool_calls")
        for call in message["tool_calls"]
    ]
    if len(names) > max_calls:
        return "too many calls"
    position = 0
    for name in expected:
        while position < len(names) and names[position] != name:
            position += 1
        if position == len(names):
            return f"{name} was not called where expected"
        position += 1
    return None


def grade_calls_recursive(run, expected, max_calls):
    """right, written differently: a recursive subsequence test"""

    def within(wanted, called):
        if not wanted:
            return True
        if not called:
            return False
        return within(wanted[1:], called[1:]) if wanted[0] == called[0] else within(wanted, called[1:])

    names = names_of(run)
    return None if len(names) <= max_calls and within(list(expected), names) else "wrong tools or too many"


def limit_reached_fails(run, expected, max_calls):
    names = names_of(run)
    remaining = iter(names)
    return None if len(names) < max_calls and all(n in remaining for n in expected) else "wrong"


def calls_that_worked(run, expected, max_calls):
    """counts only the calls whose result is not an error: a failed call was still asked for"""
    failed = {
        m["tool_call_id"] for m in run.messages if m["role"] == "tool" and m["content"].startswith("ERROR")
    }
    names = [
        c["function"]["name"]
        for m in run.messages
        if m["role"] == "assistant"
        for c in m.get("tool_calls") or []
        if c["id"] not in failed
    ]
    remaining = iter(names)
    return None if len(names) <= max_calls and all(n in remaining for n in expected) else "wrong"


def budget_without_failures(run, expected, max_calls):
    """every call in the order, but only the calls that worked against max_calls"""
    failed = sum(m["role"] == "tool" and m["content"].startswith("ERROR") for m in run.messages)
    names = names_of(run)
    remaining = iter(names)
    return None if len(names) - failed <= max_calls and all(n in remaining for n in expected) else "wrong"


def known_tools_only(run, expected, max_calls):
    """counts only calls of tools the run had: a call of a tool that does not exist was still asked for"""
    names = [name for name in names_of(run) if name in run.tools.names]
    remaining = iter(names)
    return None if len(names) <= max_calls and all(n in remaining for n in expected) else "wrong"


WRONG_CALL_GRADERS = [  # the most tempting first
    (as_sets, "the order counts"),
    (first_call_per_message, "parallel calls sit in one assistant message's tool_calls"),
    (counts_messages, "count every call"),
    (no_budget, "count every call"),
    (distinct_calls, "count every call"),
    (exactly, "other calls may come between the expected ones"),
    (membership, "a name expected twice must be called twice"),
    (limit_reached_fails, "is within max_calls"),
    (
        calls_that_worked,
        "a run that called divide (which failed: b=0), expected ['divide'], max_calls=1: your grader failed "
        "it ('wrong'), but it is right (a call that failed is a call the model asked for",
    ),
    (known_tools_only, "power (which failed: no such tool)"),
    (
        budget_without_failures,
        "a run that called divide (which failed: b=0); then divide; then add, expected ['add'], max_calls=2: "
        "your grader passed it",
    ),
]


@pytest.mark.parametrize("grader", [grade_calls, grade_calls_by_position, grade_calls_recursive])
def test_check_grade_calls_passes_right_answers_however_written(grader, capsys):
    assert check_grade_calls(grader)
    assert "✓ Exercise 11.2" in capsys.readouterr().out


@pytest.mark.parametrize("grader, problem", WRONG_CALL_GRADERS)
def test_check_grade_calls_names_what_is_wrong(grader, problem, capsys):
    assert not check_grade_calls(grader)
    out = capsys.readouterr().out
    assert "✗ Exercise 11.2: not yet." in out and problem in out and "a run that called" in out


def test_the_runs_11_2_builds_are_the_runs_the_loop_writes():
    turns = (("divide", "add"), ("multiply",))
    built = _trajectory_run((turns, ("divide",), 3))
    replies = [mock.calls(*(mock.call(name, a=8, b=2) for name in turn)) for turn in turns]
    looped = run_agent(
        mock.client(mock.Script(*replies, "done")), "What is it?", [add, subtract, multiply, divide]
    )

    def without_ids(messages):
        return json.loads(re.sub(r'"(call_[^"]*)"', '"id"', json.dumps(messages)))

    assert without_ids(built.messages) == without_ids(looped.messages)
    assert (built.answer, built.stop_reason, built.model_calls) == (
        looped.answer,
        looped.stop_reason,
        looped.model_calls,
    )


def test_check_grade_calls_is_deterministic_and_counts_its_scenarios(capsys):
    first, second = check_grade_calls(as_sets), check_grade_calls(as_sets)
    out = capsys.readouterr().out.split("✗")
    assert first.scenarios == second.scenarios == 131 and out[1] == out[2]


# --- 11.3 ----------------------------------------------------------------------------------------


def wilson_interval(passed, n, z=1.96):
    """the solution"""
    p = passed / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def wald(passed, n, z=1.96):
    """the most tempting: the textbook interval"""
    p = passed / n
    half = z * math.sqrt(p * (1 - p) / n)
    return p - half, p + half


def wald_clipped(passed, n, z=1.96):
    low, high = wald(passed, n, z)
    return max(0.0, low), min(1.0, high)


def centred_on_p(passed, n, z=1.96):
    p = passed / n
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, p - half), min(1.0, p + half)


def ninety_percent(passed, n):
    return wilson_interval(passed, n, z=1.645)


def ignores_z(passed, n, z=1.96):
    return wilson_interval(passed, n)


def high_first(passed, n, z=1.96):
    low, high = wilson_interval(passed, n, z)
    return high, low


def unclamped(passed, n, z=1.96):
    """Wilson's formula, its ends not kept within [0, 1]: rounding gives -5.6e-17 for (0, 1)"""
    p = passed / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


def half_width_without_its_last_term(passed, n, z=1.96):
    p = passed / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def precedence_error(passed, n, z=1.96):
    """z**2 / 2 * n for z²/2n (and z**2 / 4 * n**2 for z²/4n²): kept within [0, 1], often (0.0, 1.0)"""
    p = passed / n
    centre = (p + z**2 / 2 * n) / (1 + z**2 / n)
    half = z / (1 + z**2 / n) * math.sqrt(p * (1 - p) / n + z**2 / 4 * n**2)
    return max(0.0, centre - half), min(1.0, centre + half)


def wilson_from_the_quadratic(passed, n, z=1.96):
    """right, written differently: the roots of the quadratic the interval solves"""
    p = passed / n
    a = 1 + z * z / n
    b = -(2 * p + z * z / n)
    c = p * p
    root = math.sqrt(max(0.0, b * b - 4 * a * c))
    return max(0.0, (-b - root) / (2 * a)), min(1.0, (-b + root) / (2 * a))


def wilson_with_named_parts(passed, n, z=1.96):
    """right, written differently: the usual textbook layout"""
    z2 = z**2
    denominator = n + z2
    centre = (passed + z2 / 2) / denominator
    spread = z * math.sqrt(passed * (n - passed) / n + z2 / 4) / denominator
    low, high = centre - spread, centre + spread
    return (low if low > 0 else 0.0), (high if high < 1 else 1.0)


WRONG_INTERVALS = [  # the most tempting first
    (wald, "(Wald) interval, which shrinks to nothing"),
    (wald_clipped, "(Wald) interval"),
    (centred_on_p, "Check the centre (p + z²/2n) / (1 + z²/n)"),
    (unclamped, "outside [0, 1]: a proportion is never below 0 or above 1"),
    (
        half_width_without_its_last_term,
        "you gave 0.397-0.397; Wilson's interval is 0.000-0.793. Your centre is right; check the half-width",
    ),
    (ninety_percent, "Wilson's interval is"),
    (  # (0.0, 1.0) is (0.0, 0.658) rounded to 0 decimals, but the formula is what is wrong
        precedence_error,
        "wilson_interval(0, 2): you gave 0.000-1.000; Wilson's interval is 0.000-0.658. Check the centre "
        "(p + z²/2n) / (1 + z²/n) and the half-width",
    ),
    (ignores_z, "the interval for z=1.96: use the z you are given"),
    (high_first, "return (low, high), the smaller first"),
    (lambda passed, n, z=1.96: 1 / 0, "your code raised ZeroDivisionError"),
    (
        lambda passed, n, z=1.96: f"{passed}/{n}",
        "return the pair (low, high), a tuple or a list of two numbers",
    ),
    (
        lambda passed, n, z=1.96: tuple(round(end, 3) for end in wilson_interval(passed, n, z)),
        "you gave (0.0, 0.793); Wilson's interval is (0.0, 0.7934567085261071): yours is rounded to 3 "
        "decimals",
    ),
    (
        lambda passed, n, z=1.96: tuple(f"{end:.4f}" for end in wilson_interval(passed, n, z)),
        "low is a str ('0.0000'): return numbers (float), not text",
    ),
    (
        lambda passed, n, z=1.96: set(wilson_interval(passed, n, z)),
        "return the pair (low, high), a tuple or a list of two numbers; you returned {",
    ),
]


def wilson_as_a_list(passed, n, z=1.96):
    """right, written differently: the pair as a list, which unpacks the same as a tuple"""
    return list(wilson_interval(passed, n, z))


@pytest.mark.parametrize(
    "attempt", [wilson_interval, wilson_from_the_quadratic, wilson_with_named_parts, wilson_as_a_list]
)
def test_check_wilson_interval_passes_right_answers_however_written(attempt, capsys):
    assert check_wilson_interval(attempt)
    assert "✓ Exercise 11.3" in capsys.readouterr().out


@pytest.mark.parametrize("attempt, problem", WRONG_INTERVALS)
def test_check_wilson_interval_names_what_is_wrong(attempt, problem, capsys):
    assert not check_wilson_interval(attempt)
    out = capsys.readouterr().out
    assert "✗ Exercise 11.3: not yet." in out and problem in out and "wilson_interval(" in out


def test_check_wilson_interval_shows_the_smallest_case(capsys):
    check_wilson_interval(wald)
    assert "wilson_interval(0, 1): you gave 0.000-0.000" in capsys.readouterr().out


def test_check_wilson_interval_is_deterministic_and_counts_its_scenarios(capsys):
    first, second = check_wilson_interval(centred_on_p), check_wilson_interval(centred_on_p)
    out = capsys.readouterr().out.split("✗")
    assert first.scenarios == second.scenarios == 157 and out[1] == out[2]


def test_the_lesson_11_checks_give_the_same_verdicts_under_another_hash_seed():
    """each check on a wrong answer: the same words whatever the order of a set"""
    outputs = under_two_hash_seeds(
        "test_checks_lesson11",
        "c.check_grade_answer(t.WRONG_ANSWER_GRADERS[0][0]); "
        "c.check_grade_calls(t.WRONG_CALL_GRADERS[0][0]); "
        "c.check_wilson_interval(t.WRONG_INTERVALS[0][0])",
    )
    assert len(outputs) == 1 and outputs.pop().count("✗ Exercise 11.") == 3
