"""Lesson 11's exercise checks: they pass the solutions and name the fault of each tempting wrong answer."""

import math
import re

from agent_core.checks.lesson11 import check_grade_answer, check_grade_calls, check_wilson_interval

NUMBER = re.compile(r"-?\d+(?:\.\d+)?")

# --- 11.1 ----------------------------------------------------------------------------------------


def grade_answer(run, expected):
    """the solution"""
    if run.stop_reason != "answered":
        return f"the run stopped with {run.stop_reason!r} instead of answering"
    numbers = NUMBER.findall(run.answer or "")
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


def test_check_grade_answer_passes_the_solution(capsys):
    assert check_grade_answer(grade_answer)
    assert "✓ Exercise 11.1" in capsys.readouterr().out


def test_check_grade_answer_rejects_a_text_search(capsys):
    assert not check_grade_answer(contains_text)
    assert "'6' in '16' is True" in capsys.readouterr().out


def test_check_grade_answer_rejects_any_number_in_the_answer(capsys):
    assert not check_grade_answer(any_number)
    assert "the 2 is in the question, the result is 3" in capsys.readouterr().out


def test_check_grade_answer_rejects_ignoring_the_stop_reason(capsys):
    assert not check_grade_answer(ignores_stop_reason)
    assert "Check run.stop_reason == 'answered' first" in capsys.readouterr().out


def test_check_grade_answer_rejects_reading_the_last_message(capsys):
    assert not check_grade_answer(last_message)
    assert "it never answered" in capsys.readouterr().out


def test_check_grade_answer_rejects_integers_only(capsys):
    assert not check_grade_answer(integers_only)
    assert "6.0 is 6" in capsys.readouterr().out


def test_check_grade_answer_rejects_comparing_text(capsys):
    assert not check_grade_answer(exact_text)
    assert "6.0 is 6" in capsys.readouterr().out


def test_check_grade_answer_rejects_comparing_floats_with_equals(capsys):
    assert not check_grade_answer(equal_floats)
    assert "0.3 == 0.1 + 0.2 is False. Compare with math.isclose" in capsys.readouterr().out


def test_check_grade_answer_rejects_dropping_the_minus_sign(capsys):
    assert not check_grade_answer(no_minus_sign)
    assert "the answer is -4, not 4. Read the minus sign" in capsys.readouterr().out


def test_check_grade_answer_rejects_rounding(capsys):
    assert not check_grade_answer(rounded)
    assert "6.004 is not 6. Rounding, or a tolerance" in capsys.readouterr().out


def test_check_grade_answer_reports_a_crash_and_a_wrong_return(capsys):
    assert not check_grade_answer(crashes_without_number)
    assert "your grader raised IndexError" in capsys.readouterr().out
    assert not check_grade_answer(says_true)
    assert "return None for a pass, or a sentence" in capsys.readouterr().out


# --- 11.2 ----------------------------------------------------------------------------------------


def names_of(run):
    return [c["function"]["name"] for m in run.messages if m["role"] == "assistant" for c in m.get("tool_calls") or []]


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
    return None if len(names) <= max_calls and list(dict.fromkeys(ordered)) == list(dict.fromkeys(expected)) else "no"


def test_check_grade_calls_passes_the_solution(capsys):
    assert check_grade_calls(grade_calls)
    assert "✓ Exercise 11.2" in capsys.readouterr().out


def test_check_grade_calls_rejects_sets(capsys):
    assert not check_grade_calls(as_sets)
    assert "Comparing sets ignores order" in capsys.readouterr().out


def test_check_grade_calls_rejects_no_budget(capsys):
    assert not check_grade_calls(no_budget)
    assert "more than max_calls=3. Count every call" in capsys.readouterr().out


def test_check_grade_calls_rejects_counting_distinct_tools(capsys):
    assert not check_grade_calls(distinct_calls)
    assert "Count every call, repeats included" in capsys.readouterr().out


def test_check_grade_calls_rejects_one_call_per_message(capsys):
    assert not check_grade_calls(first_call_per_message)
    assert "parallel calls sit in one assistant message" in capsys.readouterr().out


def test_check_grade_calls_rejects_counting_messages_instead_of_calls(capsys):
    assert not check_grade_calls(counts_messages)
    assert "Count the calls, not the messages" in capsys.readouterr().out


def test_check_grade_calls_rejects_an_exact_match(capsys):
    assert not check_grade_calls(exactly)
    assert "other calls may come between the expected ones" in capsys.readouterr().out


def test_check_grade_calls_rejects_dropping_repeated_expectations(capsys):
    assert not check_grade_calls(membership)
    assert "add was expected twice and called once" in capsys.readouterr().out


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


def test_check_wilson_interval_passes_the_solution(capsys):
    assert check_wilson_interval(wilson_interval)
    assert "✓ Exercise 11.3" in capsys.readouterr().out


def test_check_wilson_interval_rejects_wald(capsys):
    assert not check_wilson_interval(wald)
    assert "(Wald) interval, which shrinks to nothing" in capsys.readouterr().out


def test_check_wilson_interval_rejects_wald_clipped(capsys):
    assert not check_wilson_interval(wald_clipped)
    assert "(Wald) interval" in capsys.readouterr().out


def test_check_wilson_interval_rejects_the_wrong_centre(capsys):
    assert not check_wilson_interval(centred_on_p)
    assert "Check the centre (p + z²/2n) / (1 + z²/n)" in capsys.readouterr().out


def test_check_wilson_interval_rejects_a_90_percent_interval_and_a_crash(capsys):
    assert not check_wilson_interval(ninety_percent)
    assert "Wilson's interval is 0.000-0.278" in capsys.readouterr().out
    assert not check_wilson_interval(lambda passed, n: 1 / 0)
    assert "it gave ZeroDivisionError" in capsys.readouterr().out


def test_check_wilson_interval_rejects_ignoring_z(capsys):
    assert not check_wilson_interval(ignores_z)
    assert "the interval for z=1.96: use the z you are given" in capsys.readouterr().out


def test_check_wilson_interval_rejects_high_before_low(capsys):
    assert not check_wilson_interval(high_first)
    assert "return (low, high), the smaller first" in capsys.readouterr().out
