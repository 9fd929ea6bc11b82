"""Lesson 06's exercise checks: they pass the solutions and say what is wrong with the stubs."""

import pytest

from agent_core.checks.lesson06 import check_keep_lines, check_split, check_token_rows
from agent_core.context import split_point
from agent_core.tokens import count_text

# --- 6.1 ----------------------------------------------------------------------------------------


def token_rows(trace):
    """the solution"""
    rows, total = [], 0
    for turn in trace:
        total += turn.usage["prompt_tokens"]
        rows.append((turn.usage["prompt_tokens"], turn.usage["completion_tokens"], total))
    return rows


def with_totals(totals_of):
    """a ledger whose third column is totals_of(prompts, completions)"""

    def attempt(trace):
        prompts = [t.usage["prompt_tokens"] for t in trace]
        completions = [t.usage["completion_tokens"] for t in trace]
        return list(zip(prompts, completions, totals_of(prompts, completions), strict=True))

    return attempt


def cached_tokens(turn):
    return (turn.usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0


def test_check_token_rows_passes_the_solution(capsys):
    assert check_token_rows(token_rows)
    assert "✓ Exercise 6.1" in capsys.readouterr().out


@pytest.mark.parametrize(
    "attempt, problem",
    [
        (
            with_totals(lambda p, c: p),
            "the third number is each call's own prompt_tokens; it should be the running total",
        ),
        (
            with_totals(lambda p, c: [sum(p[: i + 1]) + sum(c[: i + 1]) for i in range(len(p))]),
            "you counted completion tokens too",
        ),
        (with_totals(lambda p, c: [sum(p[:i]) for i in range(len(p))]), "each total leaves out its own call"),
        (
            lambda trace: [(c, p, t) for p, c, t in token_rows(trace)],
            "prompt and completion are swapped",
        ),
        (
            lambda trace: [(t.usage["total_tokens"], t.usage["completion_tokens"], 0) for t in trace],
            "the first number is usage['total_tokens']",
        ),
        (lambda trace: token_rows(trace)[1:], "a trace with 4 model calls needs 4 rows; you returned 3"),
        (
            lambda trace: [(1200, 20, 1200)] * len(list(trace)),
            "read each call's prompt and completion from turn.usage",
        ),
        (
            lambda trace: [[p, c, t] for p, c, t in token_rows(trace)],
            "return a list of (prompt, completion, cumulative_input) tuples",
        ),
        (
            lambda trace: [
                (p, c, t - sum(cached_tokens(turn) for turn in list(trace)[: i + 1]))
                for i, ((p, c, t), turn) in enumerate(zip(token_rows(trace), trace, strict=True))
            ],
            "you left out the cached tokens: they are part of prompt_tokens",
        ),
        (lambda trace: 1 / 0, "token_rows() raised ZeroDivisionError"),
    ],
)
def test_check_token_rows_explains_what_is_wrong(attempt, problem, capsys):
    assert not check_token_rows(attempt)
    out = capsys.readouterr().out
    assert "✗ Exercise 6.1: not yet." in out and problem in out


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


def moves_forward(messages, keep_last):
    """the most tempting shortcut: skip the tool results instead of keeping their call"""
    start = max(len(messages) - keep_last, 1)
    while start < len(messages) and messages[start]["role"] == "tool":
        start += 1
    return start


def moves_back_once(messages, keep_last):
    """forgets that parallel calls leave several tool results in a row"""
    start = max(len(messages) - keep_last, 1)
    if messages[start]["role"] == "tool":
        start -= 1
    return start


def test_check_split_explains_the_tempting_shortcuts(capsys):
    assert not check_split(moves_forward)
    assert not check_split(moves_back_once)
    out = capsys.readouterr().out
    assert "keep_last=2: it keeps 1 message(s); keep at least the last 2" in out
    assert (
        "keep_last=4: the kept part starts at messages[3], a tool result whose call would be summarised"
        in out
    )


@pytest.mark.parametrize(
    ("marker", "problem"),
    [
        (
            "[... {cut}1 lines cut ...]",
            "the marker should say how many lines were cut (372); it says '[... 3721 lines",
        ),
        ("[... {cut}0 characters cut ...]", "it says '[... 3720 characters cut ...]'"),
    ],
)
def test_a_marker_whose_number_only_contains_the_count_is_named(capsys, marker, problem):
    def wrong_marker(text, max_tokens):
        right = keep_lines(text, max_tokens)
        lines = right.splitlines()
        if right == text:
            return text
        at = next(i for i, line in enumerate(lines) if line.startswith("[... "))
        cut = lines[at].split()[1]
        return "\n".join([*lines[:at], marker.format(cut=cut), *lines[at + 1 :]])

    assert not check_keep_lines(wrong_marker)
    assert problem in capsys.readouterr().out


def test_a_text_of_exactly_the_budget_must_come_back_unchanged(capsys):
    def cuts_at_the_budget(text, max_tokens):
        return (
            keep_lines(text, max_tokens)
            if count_text(text) < max_tokens
            else keep_lines(text, max_tokens - 1)
        )

    assert not check_keep_lines(cuts_at_the_budget)
    assert "fits means <=, not <" in capsys.readouterr().out


def test_a_split_that_trims_the_callers_messages_is_named(capsys):
    def trims(messages, keep_last):
        start = split_point(messages, keep_last)
        del messages[:start]
        return start

    assert not check_split(trims)
    assert "choose_split changed the messages it was given" in capsys.readouterr().out
