"""Checks for lesson 06's exercises: context and cost."""

from __future__ import annotations

import functools
import itertools
import random
import re
from collections.abc import Callable, Iterator
from itertools import accumulate
from typing import Any, cast

from .. import mock
from .._i18n import _
from ..context import split_point, token_ledger
from ..dispatch import ToolRegistry
from ..loop import run_agent
from ..mock.context_policies import LogReader, log_tools, sample_logs
from ..tokens import count_text
from ..trace import Trace, Turn
from . import Verdict, _trace_of
from ._scenarios import Dimension, forms_of, judge_scenarios, scenarios, smaller_lists

__all__ = [
    "usage_scenarios",
    "USAGE_SHAPES",
    "keep_scenarios",
    "KEEP_SHAPES",
    "split_scenarios",
    "SPLIT_SHAPES",
    "check_token_rows",
    "check_keep_lines",
    "check_split",
]

# --- Exercise 6.1 ---------------------------------------------------------------------------

Usage = tuple[int, int, int]  # prompt_tokens, completion_tokens, cached_tokens of one model call


@functools.cache
def _sample_usages() -> tuple[tuple[Usage, ...], ...]:
    """the usage of two real runs on the mock: the log reader's long run and a one-call chat"""
    logs = sample_logs()
    tools = ToolRegistry(log_tools(logs, "read_file"), max_chars=None)
    long_run = run_agent(mock.client(LogReader()), "Count 'ERROR' in api.log, auth.log, cron.log.", tools)
    short = mock.client(mock.Script("Hello."))
    short.chat.completions.create(model="mock-model", messages=[{"role": "user", "content": "Hi"}])
    return tuple(  # the mock reports usage on every call, so no turn's usage is None
        tuple(
            (u["prompt_tokens"], u["completion_tokens"], _cached(u))
            for u in (cast(dict[str, Any], turn.usage) for turn in trace)
        )
        for trace in (long_run.trace, _trace_of(short))
    )


def _cached(usage: dict[str, Any]) -> int:
    return (usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0


def _usage_rows(rng: random.Random) -> list[Usage]:
    """1-12 calls; prompts that grow, drop (after a compaction) and repeat; some calls cached"""
    rows: list[Usage] = []
    prompt = rng.randint(10, 400)
    for _call in range(rng.choice([1, 2, 3, rng.randint(4, 12)])):
        if rows and rng.random() < 0.2:
            rows.append(rows[-1])  # the same call again: same usage
            continue
        prompt = rng.randint(10, prompt) if rng.random() < 0.2 else prompt + rng.randint(0, 900)
        cached = (
            1024 + 128 * rng.randint(0, (prompt - 1024) // 128)
            if prompt >= 1024 and rng.random() < 0.5
            else 0
        )
        rows.append((prompt, rng.randint(1, 300), cached))
    return rows


def _trace(rows: list[Usage]) -> Trace:
    turns = []
    for index, (prompt, completion, cached) in enumerate(rows):
        usage: dict[str, Any] = {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        }
        if cached:
            usage["prompt_tokens_details"] = {"cached_tokens": cached}
        response = {
            "id": f"chatcmpl-{index + 1}",
            "object": "chat.completion",
            "model": "mock-model",
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}
            ],
            "usage": usage,
        }
        request = {"model": "mock-model", "messages": [{"role": "user", "content": "Count the errors."}]}
        turns.append(
            Turn(index, "POST", "http://mock.agent-core.invalid/v1/chat/completions", request, 200, response)
        )
    return Trace(turns)


def _describe_usage(rows: list[Usage]) -> str:
    calls = ", ".join(f"({p}, {c}{f', {k} cached' if k else ''})" for p, c, k in rows)
    return _(
        "a trace of {count} model call(s) with (prompt_tokens, completion_tokens): {calls}",
        count=len(rows),
        calls=calls,
    )


def _smaller_usage(rows: list[Usage]) -> Iterator[list[Usage]]:
    yield from (smaller for smaller in smaller_lists(rows) if smaller)
    for index, (prompt, completion, cached) in enumerate(rows):
        if cached:
            yield [*rows[:index], (prompt, completion, 0), *rows[index + 1 :]]


def check_token_rows(token_rows: Callable[[Trace], Any]) -> Verdict:
    """Exercise 6.1: the token ledger, one (prompt, completion, cumulative input) row per model call

    Scenarios: the usage of two real runs on the mock, then 150 generated traces of 1 to 12 calls
    whose prompts grow, drop (as after a compaction) and repeat, some with cached tokens.
    """

    def judge(rows: list[Usage]) -> str | None:
        trace = _trace(rows)
        expected = [(row.prompt, row.completion, row.cumulative_input) for row in token_ledger(trace).rows]
        return _ledger_problem(rows, expected, token_rows(trace))

    cases = usage_scenarios()
    return judge_scenarios(
        "6.1",
        cases,
        judge,
        _describe_usage,
        _("your ledger matches, call by call: what each call read, wrote, and the running total."),
        _smaller_usage,
    )


def usage_scenarios() -> list[list[Usage]]:
    """check 6.1's traces: two real runs' usage, then 150 generated"""
    return scenarios([list(rows) for rows in _sample_usages()], _usage_rows, count=150, seed=601)


# the shapes lesson 06 names for the ledger, each reached by usage_scenarios() (tests/test_check_shapes.py)
USAGE_SHAPES: dict[str, Callable[[list[Usage]], bool]] = {
    "one call": lambda rows: len(rows) == 1,
    "prompts that grow": lambda rows: any(b[0] > a[0] for a, b in itertools.pairwise(rows)),
    "a prompt that drops, as after a compaction": lambda rows: any(
        b[0] < a[0] for a, b in itertools.pairwise(rows)
    ),
    "the same call twice": lambda rows: any(a == b for a, b in itertools.pairwise(rows)),
    "cached tokens": lambda rows: any(cached for _, _, cached in rows),
    "a run past ten calls": lambda rows: len(rows) > 10,
}


def _ledger_problem(rows: list[Usage], expected: list[tuple[int, int, int]], got: Any) -> str | None:
    listed = [row for row in got if isinstance(row, list)] if isinstance(got, list) else []
    if listed and len(listed[0]) == 3:
        return (
            f"each row should be a tuple (prompt, completion, cumulative_input), as the exercise says, not "
            f"the list {listed[0]}: rows are compared with tuples, and [1, 2, 3] == (1, 2, 3) is False"
        )
    if not isinstance(got, list) or not all(
        isinstance(row, tuple) and len(row) == 3 and all(isinstance(n, int) for n in row) for row in got
    ):
        return _(
            "return a list of (prompt, completion, cumulative_input) tuples of ints; got {got}",
            got=f"{got!r:.80}",
        )
    if len(got) != len(expected):
        return _(
            "return one row per model call: {expected} here; you returned {got}",
            expected=len(expected),
            got=len(got),
        )
    if got == expected:
        return None
    prompts = [p for p, _, _ in rows]
    completions = [c for _, c, _ in rows]
    totals = [row[2] for row in got]
    if [row[0] for row in got] == [p + c for p, c in zip(prompts, completions, strict=True)] != prompts:
        return _("the first number is usage['total_tokens']; a call's prompt is usage['prompt_tokens']")
    if (
        [row[:2] for row in got]
        == list(zip(completions, prompts, strict=True))
        != list(zip(prompts, completions, strict=True))
    ):
        return _("prompt and completion are swapped: a row is (prompt_tokens, completion_tokens, total)")
    if [row[:2] for row in got] != list(zip(prompts, completions, strict=True)):
        wrong = next(i for i, (a, b) in enumerate(zip(got, expected, strict=True)) if a[:2] != b[:2])
        return _(
            "row {number} starts with {got}, but call {number} read {prompt} and wrote {completion}: read "
            "each call's usage, one row per call, in the trace's order",
            number=wrong + 1,
            got=got[wrong][:2],
            prompt=prompts[wrong],
            completion=completions[wrong],
        )
    if totals == prompts:
        return _(
            "the third number is each call's own prompt_tokens; it should be the running total: "
            "call 2's is call 1's prompt_tokens plus call 2's"
        )
    if totals == list(accumulate(p + c for p, c in zip(prompts, completions, strict=True))):
        return _("you counted completion tokens too: cumulative input adds up prompt_tokens only")
    if totals == list(accumulate(p - k for p, _, k in rows)):
        return _(
            "you left out the cached tokens: they are part of prompt_tokens, and the running "
            "input total adds up every call's prompt_tokens, cached or not (what caching saves "
            "comes later in the lesson)"
        )
    if totals == [sum(prompts[:i]) for i in range(len(got))]:
        return _(
            "each total leaves out its own call: the total after call 1 is call 1's prompt_tokens, not 0"
        )
    wrong = next(i for i, (a, b) in enumerate(zip(totals, [e[2] for e in expected], strict=True)) if a != b)
    return _(
        "after call {number} the running input total should be {expected}, not {got}",
        number=wrong + 1,
        expected=f"{expected[wrong][2]:,}",
        got=f"{totals[wrong]:,}",
    )


# --- Exercise 6.2 ---------------------------------------------------------------------------

_WORDS = [
    "ok",
    "timeout",
    "retry",
    "ERROR",
    "payment",
    "café",
    "naïve",
    "—",
    "日本語",
    "🙂",
    "user=ana",
    "id=42",
]


def _log_text(rng: random.Random) -> str:
    """a log of 1 to 80 lines, some with non-ASCII words, ending with or without a newline"""
    lines = [
        f"2026-03-02 09:{i // 60 % 60:02d}:{i % 60:02d} {rng.choice(['INFO ', 'WARN ', 'ERROR'])} "
        + " ".join(rng.choice(_WORDS) for _ in range(rng.randint(1, 8)))
        for i in range(rng.choice([1, 2, rng.randint(3, 80), rng.randint(20, 80), rng.randint(20, 80)]))
    ]
    # some lines indented, some with a space at the end (a stack trace's lines, a padded column): a
    # keep_lines that strips its lines changes them
    lines = [
        "  " + line if i % 9 == 4 else line + " " if i % 13 == 6 else line for i, line in enumerate(lines)
    ]
    return "\n".join(lines) + ("\n" if rng.random() < 0.5 else "")


def _room(text: str) -> int:
    """the smallest budget the exercise can be asked with: both end lines, a marker, some slack"""
    lines = text.splitlines()
    return 2 * (count_text(lines[0]) + count_text(lines[-1]) + 30) if lines else 0


def _keep_case(rng: random.Random) -> tuple[str, int]:
    """a budget the text fits exactly, fits with room, misses by one token, or misses by far"""
    text = _log_text(rng)
    size = count_text(text)
    roll = rng.random()
    if roll < 0.15:
        budget = size
    elif roll < 0.3:
        budget = size + rng.randint(1, 50)
    elif roll < 0.45:
        budget = size - 1
    else:
        budget = rng.randint(_room(text), max(_room(text), size))
    return (text, budget) if budget >= size or budget >= _room(text) else (text, size)


def _smaller_keep_cases(case: tuple[str, int]) -> Iterator[tuple[str, int]]:
    text, budget = case
    lines = text.splitlines()
    for fewer in smaller_lists(lines):
        if fewer:
            smaller = "\n".join(fewer) + ("\n" if text.endswith("\n") else "")
            if count_text(smaller) <= budget or budget >= _room(smaller):
                yield smaller, budget


def _describe_keep(case: tuple[str, int]) -> str:
    text, budget = case
    lines = text.splitlines()
    shown = (
        repr(text)
        if len(text) <= 160
        else _("{count} lines starting {first}", count=len(lines), first=repr(lines[0]))
    )
    return _(
        "keep_lines(text, {budget}) with a {tokens}-token text of {shown}",
        budget=budget,
        tokens=count_text(text),
        shown=shown,
    )


def check_keep_lines(keep_lines: Callable[[str, int], str]) -> Verdict:
    """Exercise 6.2: whole first and last lines within a token budget, with a marker line

    Scenarios: a short text, the big billing.log at 300 tokens and mail.log at 500, then 100
    generated logs of 1 to 80 lines (some non-ASCII), with budgets they fit exactly, fit with room,
    miss by one token, or miss by far. There is no single right cut, so each result is judged by
    what every right one has: it fits, it is at least half the budget, it keeps whole lines from
    both ends in order, and one marker line says how many lines were cut.
    """

    def judge(case: tuple[str, int]) -> str | None:
        text, budget = case
        result = keep_lines(text, budget)
        if count_text(text) <= budget:
            if result == text:
                return None
            if count_text(text) == budget:
                return _(
                    "a text of exactly max_tokens tokens fits (fits means <=, not <): return it unchanged"
                )
            return _("a text that fits the budget must come back unchanged")
        problems = _keep_lines_problems(text, budget, result)
        return problems[0] if problems else None

    return judge_scenarios(
        "6.2",
        keep_scenarios(),
        judge,
        _describe_keep,
        _("whole lines from both ends, within the budget, and the cut is marked."),
        _smaller_keep_cases,
    )


def keep_scenarios() -> list[tuple[str, int]]:
    """check 6.2's cases: a short text, two of the lesson's logs, then 100 generated"""
    short = "2026-03-02 09:00:00 INFO  api ok\n"
    fixed = [
        (short, 100),
        (short, count_text(short)),
        (sample_logs(big_billing=True)["billing.log"], 300),
        (sample_logs()["mail.log"], 500),
    ]
    return scenarios(fixed, _keep_case, count=100, seed=602)


# the shapes lesson 06 names for keep_lines, each reached by keep_scenarios() (tests/test_check_shapes.py)
KEEP_SHAPES: dict[str, Callable[[tuple[str, int]], bool]] = {
    "a text that fits with room": lambda c: count_text(c[0]) < c[1],
    "a text of exactly the budget": lambda c: count_text(c[0]) == c[1],
    "one token over the budget": lambda c: count_text(c[0]) == c[1] + 1,
    "far over the budget": lambda c: count_text(c[0]) > 2 * c[1],
    "a single line": lambda c: len(c[0].splitlines()) == 1,
    "an indented line": lambda c: any(line.startswith(" ") for line in c[0].splitlines()),
    "a line ending with a space": lambda c: any(line.endswith(" ") for line in c[0].splitlines()),
    "no final newline": lambda c: not c[0].endswith("\n"),
    "non-ASCII lines": lambda c: not c[0].isascii(),
    "more than 50 lines": lambda c: len(c[0].splitlines()) > 50,
}


def _keep_lines_problems(text: str, budget: int, result: Any) -> list[str]:
    if not isinstance(result, str):
        return [_("return the pruned text as a str, not {kind}", kind=type(result).__name__)]
    size = count_text(result)
    if size > budget:
        return [
            _(
                "the result is {size} tokens, over the budget of {budget} (the text was {tokens})",
                size=f"{size:,}",
                budget=f"{budget:,}",
                tokens=f"{count_text(text):,}",
            )
        ]
    lines, kept = text.splitlines(), result.splitlines()
    changed = _changed_line([line for line in kept if line not in lines], lines)
    if changed:  # a kept line not as it was: named before what it breaks (the first line, the marker...)
        return [changed]
    if not kept or kept[0] != lines[0]:
        return [_("the result should start with the text's first line, whole")]
    if kept[-1] != lines[-1]:
        return [_("the result should end with the text's last line, whole")]
    extra = [line for line in kept if line not in lines]
    if not extra:
        return [
            _(
                "add one marker line that says how many lines were cut (every line of the result is the "
                "text's)"
            )
        ]
    if len(extra) != 1:
        return [
            _(
                "add exactly one marker line that says how many lines were cut (found {count} lines that "
                "are not the text's: {lines})",
                count=len(extra),
                lines=", ".join(repr(line) for line in extra[:3]),
            )
        ]
    marker = kept.index(extra[0])
    head, tail = kept[:marker], kept[marker + 1 :]
    if head != lines[: len(head)] or tail != lines[len(lines) - len(tail) :]:
        return [_("keep whole lines, in order: some from the start, the marker, some from the end")]
    cut = len(lines) - len(head) - len(tail)
    if str(cut) not in re.findall(r"\d+", extra[0].replace(",", "")):
        return [
            _(
                "the marker should say how many lines were cut ({cut}); it says {marker}",
                cut=cut,
                marker=repr(extra[0]),
            )
        ]
    if size < budget // 2:
        return [
            _(
                "the result uses only {size} of {budget} tokens: keep more lines from both ends",
                size=size,
                budget=budget,
            )
        ]
    return []


def _changed_line(extra: list[str], lines: list[str]) -> str | None:
    """a kept line that is not the text's line as it was (spaces changed, cut inside, or joined to the
    marker), named before any count of marker lines: that is the first thing that differs"""
    for line in extra:
        same = [original for original in lines if original.strip() == line.strip() and original.strip()]
        if same:
            return _(
                "the line {original} came back as {line}: keep each line exactly as it is (its spaces too)",
                original=repr(same[0]),
                line=repr(line),
            )
        holding = [
            original
            for original in lines
            if len(original.strip()) > 3
            and original != line
            and (line.startswith(original) or line.endswith(original))
        ]
        if holding:
            return _(
                "the line {original} came back joined to other text ({line}): put the marker on a line of "
                "its own",
                original=repr(holding[0]),
                line=repr(line),
            )
        pieces = [original for original in lines if line and line in original and line != original]
        if pieces and (len(extra) > 1 or not re.search(r"\d", line)):
            return _(
                "{line} is part of the line {original}: keep whole lines (cut between lines, never inside "
                "one)",
                line=repr(line),
                original=repr(pieces[0]),
            )
    return None


# --- Exercise 6.3 ---------------------------------------------------------------------------

Block = list[
    dict[str, Any]
]  # a user message, an assistant answer, or an assistant's calls with their results


def _history(blocks: list[Block]) -> list[dict[str, Any]]:
    return [{"role": "system", "content": "You check logs."}, *(m for block in blocks for m in block)]


def _fixed_blocks() -> list[Block]:
    return [
        [{"role": "user", "content": "Count 'ERROR' in three logs."}],
        _calls_block(["call_a", "call_b"], ["log a", "log b"]),
        _calls_block(["call_c"], ["log c"]),
        [{"role": "assistant", "content": "a: 1, b: 0, c: 2"}],
    ]


def _calls_block(ids: list[str], results: list[str]) -> Block:
    calls = [{"id": i, "type": "function", "function": {"name": "read_file", "arguments": "{}"}} for i in ids]
    return [
        {"role": "assistant", "content": None, "tool_calls": calls},
        *({"role": "tool", "tool_call_id": i, "content": r} for i, r in zip(ids, results, strict=True)),
    ]


def _blocks(rng: random.Random) -> list[Block]:
    """a conversation of 1 to 30 steps: questions, answers, and 1 to 4 parallel calls with results"""
    blocks: list[Block] = [[{"role": "user", "content": "Compte les « ERROR » 🙂"}]]
    for step in range(rng.choice([1, 2, rng.randint(3, 30)])):
        kind = rng.random()
        if kind < 0.6:
            ids = [f"call_{step}_{k}" for k in range(rng.choice([1, 1, 2, 3, 4]))]
            blocks.append(_calls_block(ids, [f"{rng.randint(0, 9)} lines" for _ in ids]))
        elif kind < 0.8:
            blocks.append([{"role": "assistant", "content": f"{rng.randint(0, 99)} errors so far."}])
        else:
            blocks.append([{"role": "user", "content": "And in cron.log?"}])
    return blocks


def _smaller_splits(case: tuple[list[Block], int]) -> Iterator[tuple[list[Block], int]]:
    blocks, keep_last = case
    for fewer in smaller_lists(blocks[1:]):
        yield [blocks[0], *fewer], keep_last
    for smaller in (1, keep_last // 2, keep_last - 1):
        if 1 <= smaller < keep_last:
            yield blocks, smaller


def _describe_split(case: tuple[list[Block], int]) -> str:
    blocks, keep_last = case
    history = _history(blocks)
    roles = ", ".join(
        f"{m['role']}({len(m['tool_calls'])} call{'s' if len(m['tool_calls']) > 1 else ''})"
        if m.get("tool_calls")
        else m["role"]
        for m in history
    )
    return _(
        "keep_last={keep_last} on {count} messages [{roles}]",
        keep_last=keep_last,
        count=len(history),
        roles=roles,
    )


def check_split(choose_split: Callable[[list[dict[str, Any]], int], int]) -> Verdict:
    """Exercise 6.3: a split point that keeps the system prompt and every call with its results

    Scenarios: a history with parallel calls at keep_last 1, 2, 3, 4, 7, 20 and 0, then 150 generated
    histories (a system prompt, then up to 30 questions, answers and groups of 1 to 4 parallel calls
    with their results) with keep_last from 1 to past the end. Each compacted history is sent to the
    strict mock, which refuses an orphaned tool result.
    """

    def judge(case: tuple[list[Block], int]) -> str | None:
        blocks, keep_last = case
        history = _history(blocks)
        given = [dict(message) for message in history]
        start = choose_split(given, keep_last)
        if given != history:
            return _(
                "choose_split changed the messages it was given; the caller still needs them to "
                "summarise the old part: only return the index"
            )
        return _split_problem(history, keep_last, start, split_point(history, keep_last))

    return judge_scenarios(
        "6.3",
        split_scenarios(),
        judge,
        _describe_split,
        _("every call stays with its results, and the system prompt stays first."),
        _smaller_splits,
    )


def _split_case(rng: random.Random) -> tuple[list[Block], int]:
    blocks = _blocks(rng)
    return blocks, rng.randint(1, len(_history(blocks)) + 2)


def split_scenarios() -> list[tuple[list[Block], int]]:
    """check 6.3's cases: a history with parallel calls at seven keep_last (0 keeps none), then 150
    generated"""
    fixed = [(_fixed_blocks(), keep_last) for keep_last in (1, 2, 3, 4, 7, 20, 0)]
    return scenarios(fixed, _split_case, count=150, seed=603)


def _naive_start(case: tuple[list[Block], int]) -> dict[str, Any]:
    """the message a split at len - keep_last would keep first"""
    history = _history(case[0])
    start = max(1, len(history) - case[1])
    return history[start] if start < len(history) else {"role": None}  # keep_last 0: none kept


# the shapes lesson 06 names for a split, each reached by split_scenarios() (tests/test_check_shapes.py)
SPLIT_SHAPES: dict[str, Callable[[tuple[list[Block], int]], bool]] = {
    "parallel calls": lambda c: any(len(m.get("tool_calls") or ()) > 1 for b in c[0] for m in b),
    "keep_last 1": lambda c: c[1] == 1,
    "keep_last 0 (keeps none)": lambda c: c[1] == 0,
    "keep_last past the end": lambda c: c[1] >= len(_history(c[0])),
    "a naive cut between a call and its results": lambda c: _naive_start(c)["role"] == "tool",
    "a naive cut at an answer": lambda c: (
        _naive_start(c)["role"] == "assistant" and not _naive_start(c).get("tool_calls")
    ),
    "a naive cut at a question": lambda c: (
        c[1] < len(_history(c[0])) - 1 and _naive_start(c)["role"] == "user"
    ),
    "a history past 30 messages": lambda c: len(_history(c[0])) > 30,
}


def _split_problem(history: list[dict[str, Any]], keep_last: int, start: Any, expected: int) -> str | None:
    if not isinstance(start, int) or isinstance(start, bool):
        return _("return an index (an int), not {start}", start=repr(start))
    if start < 1:
        return _(
            "index {start} would summarise the system prompt away; the split is at 1 or later", start=start
        )
    if start > len(history):
        return _("index {start} is past the end of the {count} messages", start=start, count=len(history))
    compacted = [
        history[0],
        {"role": "user", "content": "[Summary of the earlier messages]"},
        *history[start:],
    ]
    try:
        mock.check_request({"model": "mock-model", "messages": compacted})
    except mock.ProtocolError as error:
        first_line = str(error).splitlines()[0]
        return _(
            "the kept part starts at messages[{start}], a tool result whose call would be summarised "
            "away; the API refuses the compacted history: {error}",
            start=start,
            error=first_line,
        )
    kept = len(history) - start
    if kept < min(keep_last, len(history) - 1):
        return _(
            "it keeps {kept} message(s); keep at least the last {keep_last}", kept=kept, keep_last=keep_last
        )
    if start < expected:
        return _(
            "it keeps {kept} messages, but keeping {enough} is enough: split later",
            kept=kept,
            enough=len(history) - expected,
        )
    return None


# --- the input space the exercises' words name (tests/test_input_space.py) ---------------------------

USAGE_SPACE: dict[str, Dimension[list[Usage]]] = {
    "calls": Dimension(
        "for each model call of the trace, in order",
        forms_of(
            USAGE_SHAPES,
            "one call",
            "a run past ten calls",
            "prompts that grow",
            "a prompt that drops, as after a compaction",
            "the same call twice",
        ),
    ),
    "cached": Dimension(
        "cached tokens count too",
        {
            **forms_of(USAGE_SHAPES, "cached tokens"),
            "no cached tokens": lambda rows: not any(c for _, _, c in rows),
        },
    ),
}

KEEP_SPACE: dict[str, Dimension[tuple[str, int]]] = {
    "budget": Dimension(
        "a text that fits in `max_tokens`",
        forms_of(
            KEEP_SHAPES,
            "a text that fits with room",
            "a text of exactly the budget",
            "one token over the budget",
            "far over the budget",
        ),
    ),
    "lines": Dimension(
        "keep whole lines from the start and from the end",
        {
            **forms_of(
                KEEP_SHAPES, "a single line", "more than 50 lines", "non-ASCII lines", "no final newline"
            ),
            "a final newline": lambda c: c[0].endswith("\n"),
            **forms_of(KEEP_SHAPES, "an indented line", "a line ending with a space"),
        },
    ),
}

SPLIT_SPACE: dict[str, Dimension[tuple[list[Block], int]]] = {
    "keep_last": Dimension(
        "`keep_last=0` keeps none",
        forms_of(SPLIT_SHAPES, "keep_last 0 (keeps none)", "keep_last 1", "keep_last past the end"),
    ),
    "where a naive cut falls": Dimension(
        "the kept part must not start with a `tool` message",
        forms_of(
            SPLIT_SHAPES,
            "a naive cut between a call and its results",
            "a naive cut at an answer",
            "a naive cut at a question",
        ),
    ),
    "histories": Dimension(
        "a history with parallel calls",
        {
            **forms_of(SPLIT_SHAPES, "parallel calls", "a history past 30 messages"),
            "one call at a time": lambda c: all(len(m.get("tool_calls") or ()) <= 1 for b in c[0] for m in b),
        },
    ),
}
