"""Lesson 06's exercise checks: right answers pass, however written; tempting wrong ones are named."""

import itertools
from typing import NamedTuple

import pytest
from hash_seeds import under_two_hash_seeds

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
    """a ledger whose third column is totals_of(prompts, completions, cached)"""

    def attempt(trace):
        prompts = [t.usage["prompt_tokens"] for t in trace]
        completions = [t.usage["completion_tokens"] for t in trace]
        cached = [(t.usage.get("prompt_tokens_details") or {}).get("cached_tokens", 0) for t in trace]
        return list(zip(prompts, completions, totals_of(prompts, completions, cached), strict=True))

    return attempt


def sorted_by_prompt(trace):
    rows = sorted((t.usage["prompt_tokens"], t.usage["completion_tokens"]) for t in trace)
    return [(p, c, t) for (p, c), t in zip(rows, itertools.accumulate(p for p, _ in rows), strict=True)]


def one_row_per_usage(trace):
    """keeps one row per distinct usage: two identical calls become one"""
    seen = {}
    for turn in trace:
        seen.setdefault((turn.usage["prompt_tokens"], turn.usage["completion_tokens"]), None)
    return [(p, c, t) for (p, c), t in zip(seen, itertools.accumulate(p for p, _ in seen), strict=True)]


WRONG_TOKEN_ROWS = [  # the most tempting first
    (with_totals(lambda p, c, k: p), "the third number is each call's own prompt_tokens"),
    (
        with_totals(lambda p, c, k: list(itertools.accumulate(a + b for a, b in zip(p, c, strict=True)))),
        "you counted completion tokens too",
    ),
    (
        with_totals(lambda p, c, k: list(itertools.accumulate(a - b for a, b in zip(p, k, strict=True)))),
        "you left out the cached tokens",
    ),
    (with_totals(lambda p, c, k: [sum(p[:i]) for i in range(len(p))]), "each total leaves out its own call"),
    (sorted_by_prompt, "in the trace's order"),
    (one_row_per_usage, "return one row per model call"),
    (lambda trace: [(c, p, t) for p, c, t in token_rows(trace)], "prompt and completion are swapped"),
    (
        lambda trace: [(t.usage["total_tokens"], t.usage["completion_tokens"], 0) for t in trace],
        "the first number is usage['total_tokens']",
    ),
    (lambda trace: token_rows(trace)[1:], "return one row per model call"),
    (
        lambda trace: [[p, c, t] for p, c, t in token_rows(trace)],
        "each row should be a tuple (prompt, completion, cumulative_input), as the exercise says, not the "
        "list [",
    ),
    (lambda trace: 1 / 0, "your code raised ZeroDivisionError"),
]


class Row(NamedTuple):
    prompt: int
    completion: int
    cumulative_input: int


def rows_with_accumulate(trace):
    usage = [turn.response["usage"] for turn in trace]
    totals = itertools.accumulate(u["prompt_tokens"] for u in usage)
    return [Row(u["prompt_tokens"], u["completion_tokens"], t) for u, t in zip(usage, totals, strict=True)]


def rows_by_index(trace):
    turns = list(trace)
    return [
        (
            turns[i].usage["prompt_tokens"],
            turns[i].usage["completion_tokens"],
            sum(turn.usage["prompt_tokens"] for turn in turns[: i + 1]),
        )
        for i in range(len(turns))
    ]


@pytest.mark.parametrize("attempt", [token_rows, rows_with_accumulate, rows_by_index])
def test_check_token_rows_passes_right_answers_however_written(attempt, capsys):
    assert check_token_rows(attempt)
    assert "✓ Exercise 6.1" in capsys.readouterr().out


@pytest.mark.parametrize("attempt, problem", WRONG_TOKEN_ROWS)
def test_check_token_rows_names_what_is_wrong(attempt, problem, capsys):
    assert not check_token_rows(attempt)
    out = capsys.readouterr().out
    assert "✗ Exercise 6.1: not yet." in out and problem in out and "model call(s)" in out


def test_check_token_rows_shows_the_smallest_trace_that_fails(capsys):
    check_token_rows(with_totals(lambda p, c, k: p))
    assert "a trace of 2 model call(s)" in capsys.readouterr().out


def test_check_token_rows_is_deterministic_and_counts_its_scenarios(capsys):
    first, second = check_token_rows(sorted_by_prompt), check_token_rows(sorted_by_prompt)
    out = capsys.readouterr().out.split("✗")
    assert first.scenarios == second.scenarios == 152 and out[1] == out[2]


# --- 6.2 ----------------------------------------------------------------------------------------


def keep_lines(text, max_tokens):
    """the solution"""
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


def head_then_tail(text, max_tokens):
    """another right answer: fill half the budget from the start, then the rest from the end"""
    if count_text(text) <= max_tokens:
        return text
    lines = text.splitlines()
    room = max_tokens - 30
    head = []
    while count_text("\n".join(head + lines[len(head) : len(head) + 1])) <= room // 2:
        head.append(lines[len(head)])
    tail = []
    while len(head) + len(tail) < len(lines) - 1:
        candidate = [lines[len(lines) - 1 - len(tail)], *tail]
        if count_text("\n".join(head + candidate)) > room:
            break
        tail = candidate
    if not tail:
        tail = [lines[-1]]
    head = head or [lines[0]]
    return "\n".join([*head, f"<<{len(lines) - len(head) - len(tail):,} lines removed>>", *tail])


def cuts_at_the_budget(text, max_tokens):
    if count_text(text) < max_tokens:
        return text
    return (
        keep_lines(text, max_tokens - 1) if count_text(text) == max_tokens else keep_lines(text, max_tokens)
    )


def with_marker(marker):
    def attempt(text, max_tokens):
        right = keep_lines(text, max_tokens)
        if right == text:
            return text
        lines = right.splitlines()
        at = next(i for i, line in enumerate(lines) if line.startswith("[... "))
        return "\n".join([*lines[:at], marker.format(cut=lines[at].split()[1]), *lines[at + 1 :]])

    return attempt


def too_little(text, budget):
    lines = text.splitlines()
    if count_text(text) <= budget:
        return text
    return f"{lines[0]}\n[... {len(lines) - 2} lines cut ...]\n{lines[-1]}"


def head_only(text, budget):
    right = keep_lines(text, budget)
    if right == text:
        return text
    lines = right.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("[... "))
    return "\n".join(lines[: at + 1])


def keep_lines_by_measuring(text, max_tokens):
    """right, written differently: grow the kept ends one line at a time, measuring the whole result"""

    def shown(head, tail):
        cut = len(lines) - head - tail
        return "\n".join([*lines[:head], f"-- {cut} lines omitted --", *lines[len(lines) - tail :]])

    if count_text(text) <= max_tokens:
        return text
    lines = text.splitlines()
    head, tail = 1, 1
    while head + tail < len(lines):
        grown = (head + 1, tail) if head <= tail else (head, tail + 1)
        if count_text(shown(*grown)) > max_tokens:
            break
        head, tail = grown
    return shown(head, tail)


def marker_joined_to_a_line(text, max_tokens):
    """the marker written at the end of the last line kept from the start, not on a line of its own"""
    right = keep_lines(text, max_tokens)
    return right if right == text else right.replace("\n[... ", " [... ", 1)


def first_tail_line_cut_inside(text, max_tokens):
    """the first line kept from the end cut to its second half, as a cut by characters leaves it"""
    right = keep_lines(text, max_tokens)
    if right == text:
        return text
    lines = right.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("[... ")) + 1
    if at < len(lines) - 1 and len(lines[at]) > 8:
        lines[at] = lines[at][len(lines[at]) // 2 :]
    return "\n".join(lines)


def without_a_marker(text, max_tokens):
    right = keep_lines(text, max_tokens)
    if right == text:
        return text
    return "\n".join(line for line in right.splitlines() if not line.startswith("[... "))


def strips_each_line(text, max_tokens):
    right = keep_lines(text, max_tokens)
    return right if right == text else "\n".join(line.strip() for line in right.splitlines())


WRONG_KEEP_LINES = [
    (strips_each_line, "came back as"),
    (marker_joined_to_a_line, "came back joined to other text"),
    (first_tail_line_cut_inside, "keep whole lines (cut between lines, never inside one)"),
    (without_a_marker, "add one marker line that says how many lines were cut (every line of the result is"),
    (cuts_at_the_budget, "fits means <=, not <"),
    (
        lambda text, budget: keep_lines(text, budget + 20) if count_text(text) > budget else text,
        "over the budget of",
    ),
    (with_marker("[... {cut}1 lines cut ...]"), "the marker should say how many lines were cut"),
    (with_marker("[... lines cut ...]"), "the marker should say how many lines were cut"),
    (too_little, "keep more lines from both ends"),
    (head_only, "should end with the text's last line"),
    (
        lambda text, budget: text if count_text(text) <= budget else text[: budget * 2],
        "should end with the text's last line",
    ),
    (lambda text, budget: text.rstrip("\n"), "must come back unchanged"),
]


@pytest.mark.parametrize("attempt", [keep_lines, head_then_tail, keep_lines_by_measuring])
def test_check_keep_lines_passes_right_answers_however_written(attempt, capsys):
    assert check_keep_lines(attempt)
    assert "✓ Exercise 6.2" in capsys.readouterr().out


@pytest.mark.parametrize("attempt, problem", WRONG_KEEP_LINES)
def test_check_keep_lines_names_what_is_wrong(attempt, problem, capsys):
    assert not check_keep_lines(attempt)
    out = capsys.readouterr().out
    assert "✗ Exercise 6.2: not yet." in out and problem in out and "keep_lines(text, " in out


def test_check_keep_lines_is_deterministic_and_counts_its_scenarios(capsys):
    first, second = check_keep_lines(too_little), check_keep_lines(too_little)
    out = capsys.readouterr().out.split("✗")
    assert first.scenarios == second.scenarios == 104 and out[1] == out[2]


# --- 6.3 ----------------------------------------------------------------------------------------


def choose_split(messages, keep_last):
    """the solution"""
    start = max(len(messages) - keep_last, 1)
    while start < len(messages) and messages[start]["role"] == "tool":
        start -= 1
    return start


def back_to_the_caller(messages, keep_last):
    """another right answer: find the assistant message that asked for the first kept result"""
    start = max(len(messages) - keep_last, 1)
    if start < len(messages) and messages[start]["role"] == "tool":
        wanted = messages[start]["tool_call_id"]
        start = next(
            i
            for i in range(start - 1, 0, -1)
            if any(call["id"] == wanted for call in messages[i].get("tool_calls") or [])
        )
    return start


def split_by_scanning_back(messages, keep_last):
    """right, written differently: a for loop down from the naive split to the first message that is no
    tool result"""
    first = max(len(messages) - keep_last, 1)
    if first >= len(messages):
        return first
    for start in range(first, 0, -1):
        if messages[start]["role"] != "tool":
            return start
    return 1


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


def no_floor(messages, keep_last):
    start = len(messages) - keep_last
    while start > 0 and messages[start]["role"] == "tool":
        start -= 1
    return start


def nearest_safe_index(messages, keep_last):
    """the safe index nearest len - keep_last, which may keep fewer than keep_last: the spec asks for the
    largest safe index that keeps at least keep_last"""
    safe = [k for k in range(1, len(messages)) if messages[k]["role"] != "tool"]
    target = len(messages) - keep_last
    return min(safe, key=lambda k: (abs(k - target), k))


def trims(messages, keep_last):
    start = split_point(messages, keep_last)
    del messages[:start]
    return start


def reads_past_the_end_at_keep_last_0(messages, keep_last):
    """tests messages[start] before asking whether start is still inside the list"""
    start = max(len(messages) - keep_last, 1)
    while start <= len(messages) and messages[start]["role"] == "tool":
        start -= 1
    return start


WRONG_SPLITS = [
    (
        reads_past_the_end_at_keep_last_0,
        "keep_last=0 on 2 messages [system, user]: your code raised IndexError",
    ),
    (
        lambda messages, keep_last: max(len(messages) - keep_last, 1),
        "a tool result whose call would be summarised",
    ),
    (moves_forward, "keep at least the last"),
    (nearest_safe_index, "keep at least the last 4"),
    (moves_back_once, "a tool result whose call would be summarised"),
    (no_floor, "would summarise the system prompt away"),
    (lambda messages, keep_last: 1, "split later"),
    (trims, "choose_split changed the messages it was given"),
    (lambda messages, keep_last: str(choose_split(messages, keep_last)), "return an index (an int)"),
]


@pytest.mark.parametrize("attempt", [choose_split, back_to_the_caller, split_by_scanning_back, split_point])
def test_check_split_passes_right_answers_however_written(attempt, capsys):
    assert check_split(attempt)
    assert "✓ Exercise 6.3" in capsys.readouterr().out


@pytest.mark.parametrize("attempt, problem", WRONG_SPLITS)
def test_check_split_names_what_is_wrong(attempt, problem, capsys):
    assert not check_split(attempt)
    out = capsys.readouterr().out
    assert "✗ Exercise 6.3: not yet." in out and problem in out and "keep_last=" in out


def test_check_split_shows_the_smallest_history_that_fails(capsys):
    check_split(moves_back_once)
    out = capsys.readouterr().out
    assert "keep_last=4 on 8 messages [system, user, assistant(2 calls), tool, tool, assistant(1 call)" in out


def test_check_split_is_deterministic_and_counts_its_scenarios(capsys):
    first, second = check_split(moves_back_once), check_split(moves_back_once)
    out = capsys.readouterr().out.split("✗")
    assert first.scenarios == second.scenarios == 157 and out[1] == out[2]


def test_the_lesson_06_checks_give_the_same_verdicts_under_another_hash_seed():
    """each check on a wrong answer: the same words whatever the order of a set"""
    outputs = under_two_hash_seeds(
        "test_checks_lesson06",
        "c.check_token_rows(t.WRONG_TOKEN_ROWS[0][0]); "
        "c.check_keep_lines(t.WRONG_KEEP_LINES[0][0]); "
        "c.check_split(t.WRONG_SPLITS[0][0])",
    )
    assert len(outputs) == 1 and outputs.pop().count("✗ Exercise 6.") == 3
