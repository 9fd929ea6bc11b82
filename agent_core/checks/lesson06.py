"""Checks for lesson 06's exercises: context and cost."""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import accumulate
from typing import Any

from .. import mock
from ..context import split_point, token_ledger
from ..dispatch import ToolRegistry
from ..loop import run_agent
from ..mock.context_policies import LogReader, log_tools, sample_logs
from ..tokens import count_text
from ..trace import Trace
from . import Verdict, verdict

__all__ = ["check_token_rows", "check_keep_lines", "check_split"]


def _sample_traces() -> list[Trace]:
    logs = sample_logs()
    tools = ToolRegistry(log_tools(logs, "read_file"), max_chars=None)
    long_run = run_agent(mock.client(LogReader()), "Count 'ERROR' in api.log, auth.log, cron.log.", tools)
    short = mock.client(mock.Script("Hello."))
    short.chat.completions.create(model="mock-model", messages=[{"role": "user", "content": "Hi"}])
    return [long_run.trace, short.trace]


def check_token_rows(token_rows: Callable[[Trace], Any]) -> Verdict:
    """Exercise 6.1: the token ledger, one (prompt, completion, cumulative input) row per model call"""
    problems: list[str] = []
    for trace in _sample_traces():
        expected = [(row.prompt, row.completion, row.cumulative_input) for row in token_ledger(trace).rows]
        try:
            got = token_rows(trace)
        except Exception as error:  # the learner's code: report, don't crash the notebook
            return verdict("6.1", [f"token_rows() raised {type(error).__name__}: {error}"], "")
        if not isinstance(got, list) or not all(
            isinstance(row, tuple) and len(row) == 3 and all(isinstance(n, int) for n in row) for row in got
        ):
            problems.append(
                f"return a list of (prompt, completion, cumulative_input) tuples of ints; got {got!r:.80}"
            )
            break
        if len(got) != len(expected):
            problems.append(
                f"a trace with {len(expected)} model calls needs {len(expected)} rows; you returned {len(got)}"
            )
            break
        if got == expected:
            continue
        usage = [turn.usage or {} for turn in trace]  # the mock reports usage on every call
        prompts = [u["prompt_tokens"] for u in usage]
        completions = [u["completion_tokens"] for u in usage]
        totals = [row[2] for row in got]
        if [row[0] for row in got] == [u["total_tokens"] for u in usage]:
            problems.append(
                "the first number is usage['total_tokens']; a call's prompt is usage['prompt_tokens']"
            )
        elif [row[:2] for row in got] == list(zip(completions, prompts, strict=True)):
            problems.append(
                "prompt and completion are swapped: a row is (prompt_tokens, completion_tokens, total)"
            )
        elif [row[:2] for row in got] != list(zip(prompts, completions, strict=True)):
            problems.append("read each call's prompt and completion from turn.usage, in the trace's order")
        elif totals == prompts:
            problems.append(
                "the third number is each call's own prompt_tokens; it should be the running total: "
                "call 2's is call 1's prompt_tokens plus call 2's"
            )
        elif totals == [sum(prompts[: i + 1]) + sum(completions[: i + 1]) for i in range(len(got))]:
            problems.append("you counted completion tokens too: cumulative input adds up prompt_tokens only")
        elif totals == list(accumulate(p - c for p, c in zip(prompts, _cached(usage), strict=True))):
            problems.append(
                "you left out the cached tokens: they are part of prompt_tokens, and the running "
                "input total adds up every call's prompt_tokens, cached or not (what caching saves "
                "comes later in the lesson)"
            )
        elif totals == [sum(prompts[:i]) for i in range(len(got))]:
            problems.append(
                "each total leaves out its own call: the total after call 1 is call 1's prompt_tokens, not 0"
            )
        else:
            wrong = next(
                i for i, (a, b) in enumerate(zip(totals, [e[2] for e in expected], strict=True)) if a != b
            )
            problems.append(
                f"after call {wrong + 1} the running input total should be {expected[wrong][2]:,}, not {totals[wrong]:,}"
            )
        break
    return verdict(
        "6.1",
        problems,
        "your ledger matches, call by call: what each call read, wrote, and the running total.",
    )


def _cached(usage: list[dict[str, Any]]) -> list[int]:
    return [((u.get("prompt_tokens_details") or {}).get("cached_tokens") or 0) for u in usage]


def check_keep_lines(keep_lines: Callable[[str, int], str]) -> Verdict:
    """Exercise 6.2: whole first and last lines within a token budget, with a marker line"""
    problems: list[str] = []
    short = "2026-03-02 09:00:00 INFO  api ok\n"
    cases = [(sample_logs(big_billing=True)["billing.log"], 300), (sample_logs()["mail.log"], 500)]
    try:
        if keep_lines(short, 100) != short:
            problems.append("a text that fits the budget must come back unchanged")
        elif keep_lines(short, count_text(short)) != short:
            problems.append(
                f"a text of exactly max_tokens tokens fits: keep_lines(text, {count_text(short)}) on a "
                f"{count_text(short)}-token text must return it unchanged (fits means <=, not <)"
            )
        results = [(text, budget, keep_lines(text, budget)) for text, budget in cases]
    except Exception as error:
        return verdict("6.2", [f"keep_lines() raised {type(error).__name__}: {error}"], "")
    for text, budget, result in results:
        problems += _keep_lines_problems(text, budget, result)
        if problems:
            break
    return verdict("6.2", problems, "whole lines from both ends, within the budget, and the cut is marked.")


def _keep_lines_problems(text: str, budget: int, result: Any) -> list[str]:
    if not isinstance(result, str):
        return [f"return the pruned text as a str, not {type(result).__name__}"]
    size = count_text(result)
    if size > budget:
        return [
            f"the result is {size:,} tokens, over the budget of {budget:,} (the text was {count_text(text):,})"
        ]
    lines, kept = text.splitlines(), result.splitlines()
    if not kept or kept[0] != lines[0]:
        return ["the result should start with the text's first line, whole"]
    if kept[-1] != lines[-1]:
        return ["the result should end with the text's last line, whole"]
    extra = [line for line in kept if line not in lines]
    if len(extra) != 1:
        return [
            f"add exactly one marker line that says how many lines were cut (found {len(extra)} lines not in the text)"
        ]
    marker = kept.index(extra[0])
    head, tail = kept[:marker], kept[marker + 1 :]
    if head != lines[: len(head)] or tail != lines[len(lines) - len(tail) :]:
        return ["keep whole lines, in order: some from the start, the marker, some from the end"]
    cut = len(lines) - len(head) - len(tail)
    if str(cut) not in re.findall(r"\d+", extra[0].replace(",", "")):
        return [f"the marker should say how many lines were cut ({cut}); it says {extra[0]!r}"]
    if size < budget // 2:
        return [f"the result uses only {size} of {budget} tokens: keep more lines from both ends"]
    return []


def _history() -> list[dict[str, Any]]:
    def call(call_id: str) -> dict[str, Any]:
        return {
            "id": call_id,
            "type": "function",
            "function": {"name": "read_file", "arguments": "{}"},
        }

    return [
        {"role": "system", "content": "You check logs."},
        {"role": "user", "content": "Count 'ERROR' in three logs."},
        {"role": "assistant", "content": None, "tool_calls": [call("call_a"), call("call_b")]},
        {"role": "tool", "tool_call_id": "call_a", "content": "log a"},
        {"role": "tool", "tool_call_id": "call_b", "content": "log b"},
        {"role": "assistant", "content": None, "tool_calls": [call("call_c")]},
        {"role": "tool", "tool_call_id": "call_c", "content": "log c"},
        {"role": "assistant", "content": "a: 1, b: 0, c: 2"},
    ]


def check_split(choose_split: Callable[[list[dict[str, Any]], int], int]) -> Verdict:
    """Exercise 6.3: a split point that keeps the system prompt and every call with its results"""
    history = _history()
    problems: list[str] = []
    for keep_last in (1, 2, 3, 4, 7, 20):
        expected = split_point(history, keep_last)
        given = [dict(message) for message in history]
        try:
            start = choose_split(given, keep_last)
        except Exception as error:
            return verdict("6.3", [f"choose_split() raised {type(error).__name__}: {error}"], "")
        if given != history:
            problems.append(
                f"keep_last={keep_last}: choose_split changed the messages it was given; the caller "
                "still needs them to summarise the old part: only return the index"
            )
            break
        problem = _split_problem(history, keep_last, start, expected)
        if problem:
            problems.append(f"keep_last={keep_last}: {problem}")
            break
    return verdict("6.3", problems, "every call stays with its results, and the system prompt stays first.")


def _split_problem(history: list[dict[str, Any]], keep_last: int, start: Any, expected: int) -> str | None:
    if not isinstance(start, int) or isinstance(start, bool):
        return f"return an index (an int), not {start!r}"
    if start < 1:
        return f"index {start} would summarise the system prompt away; the split is at 1 or later"
    if start > len(history):
        return f"index {start} is past the end of the {len(history)} messages"
    compacted = [
        history[0],
        {"role": "user", "content": "[Summary of the earlier messages]"},
        *history[start:],
    ]
    try:
        mock.check_request({"model": "mock-model", "messages": compacted})
    except mock.ProtocolError as error:
        first_line = str(error).splitlines()[0]
        return (
            f"the kept part starts at messages[{start}], a tool result whose call would be summarised "
            f"away; the API refuses the compacted history: {first_line}"
        )
    kept = len(history) - start
    if kept < min(keep_last, len(history) - 1):
        return f"it keeps {kept} message(s); keep at least the last {keep_last}"
    if start < expected:
        return f"it keeps {kept} messages, but keeping {len(history) - expected} is enough: split later"
    return None
