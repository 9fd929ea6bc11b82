"""Lesson 06's exercise checks: they pass the solutions and say what is wrong with the stubs."""

from agent_core.checks.lesson06 import check_cumulative_input, check_keep_lines, check_split
from agent_core.context import split_point
from agent_core.mock.tokens import count_text

# --- 6.1 ----------------------------------------------------------------------------------------


def running_total(trace):
    totals, total = [], 0
    for turn in trace:
        total += turn.usage["prompt_tokens"]
        totals.append(total)
    return totals


def test_check_cumulative_input_passes_a_running_total(capsys):
    assert check_cumulative_input(running_total)
    assert "✓ Exercise 6.1" in capsys.readouterr().out


def test_check_cumulative_input_explains_per_call_numbers(capsys):
    assert not check_cumulative_input(lambda trace: [t.usage["prompt_tokens"] for t in trace])
    assert "these are each call's own prompt_tokens; return the running total" in capsys.readouterr().out


def test_check_cumulative_input_explains_counting_completion_tokens(capsys):
    def with_completion(trace):
        totals, total = [], 0
        for turn in trace:
            total += turn.usage["total_tokens"]
            totals.append(total)
        return totals

    assert not check_cumulative_input(with_completion)
    assert "you counted completion tokens too" in capsys.readouterr().out


def test_check_cumulative_input_reports_wrong_shapes_and_exceptions(capsys):
    assert not check_cumulative_input(lambda trace: [])
    assert not check_cumulative_input(lambda trace: None)
    assert not check_cumulative_input(lambda trace: 1 / 0)
    out = capsys.readouterr().out
    assert "needs 4 numbers; you returned 0" in out
    assert "return a list of ints" in out
    assert "cumulative_input() raised ZeroDivisionError" in out


# --- 6.2 ----------------------------------------------------------------------------------------


def keep_lines(text, max_tokens):
    lines = text.splitlines()
    if count_text(text) <= max_tokens:
        return text
    room = max_tokens - 20  # for the marker line and the newlines around it
    head, tail, used = [], [], 0
    while len(head) + len(tail) < len(lines):
        take_head = len(head) <= len(tail)
        line = lines[len(head)] if take_head else lines[len(lines) - 1 - len(tail)]
        size = count_text(line + "\n")
        if used + size > room:
            break
        (head if take_head else tail).append(line)
        used += size
    cut = len(lines) - len(head) - len(tail)
    return "\n".join([*head, f"[... {cut} lines cut ...]", *reversed(tail)])


def test_check_keep_lines_passes_a_solution(capsys):
    assert check_keep_lines(keep_lines)
    assert "✓ Exercise 6.2" in capsys.readouterr().out


def test_check_keep_lines_explains_the_stub_and_common_mistakes(capsys):
    assert not check_keep_lines(lambda text, budget: text)
    assert not check_keep_lines(
        lambda text, budget: text.splitlines()[0] + "\n[cut]\n" + text.splitlines()[-1]
    )
    assert not check_keep_lines(lambda text, budget: text[: budget * 2])
    out = capsys.readouterr().out
    assert "tokens, over the budget of 300" in out
    assert "the marker should say how many lines were cut" in out
    assert "should end with the text's last line" in out


def test_check_keep_lines_wants_the_budget_used(capsys):
    def too_little(text, budget):
        lines = text.splitlines()
        if count_text(text) <= budget:
            return text
        return f"{lines[0]}\n[... {len(lines) - 2} lines cut ...]\n{lines[-1]}"

    assert not check_keep_lines(too_little)
    assert "keep more lines from both ends" in capsys.readouterr().out


# --- 6.3 ----------------------------------------------------------------------------------------


def test_check_split_passes_the_reference_and_a_hand_written_solution(capsys):
    def choose_split(messages, keep_last):
        start = max(len(messages) - keep_last, 1)
        while messages[start]["role"] == "tool":
            start -= 1
        return start

    assert check_split(split_point)
    assert check_split(choose_split)
    assert capsys.readouterr().out.count("✓ Exercise 6.3") == 2


def test_check_split_explains_a_split_that_orphans_a_tool_result(capsys):
    assert not check_split(lambda messages, keep_last: len(messages) - keep_last)
    out = capsys.readouterr().out
    assert "keep_last=2: the kept part starts at messages[6], a tool result" in out
    assert "must be a response to a preceeding message with 'tool_calls'" in out


def test_check_split_explains_other_mistakes(capsys):
    assert not check_split(lambda messages, keep_last: 0)
    assert not check_split(lambda messages, keep_last: 1)
    assert not check_split(lambda messages, keep_last: len(messages))
    assert not check_split(lambda messages, keep_last: "3")
    out = capsys.readouterr().out
    assert "would summarise the system prompt away" in out
    assert "keep_last=1: it keeps 7 messages, but keeping 1 is enough: split later" in out
    assert "it keeps 0 message(s); keep at least the last 1" in out
    assert "return an index (an int)" in out
