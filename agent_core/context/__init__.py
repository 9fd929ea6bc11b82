"""Context: the token ledger, pruning results, compaction (lesson 06); what the tokens cost is in costs.py.

Beneath it: `_summary.py`, the model call that writes a compaction's summary; `_plots.py`, a picture of
ledgers.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import openai

from .._shared import DEFAULT_MODEL, keep_ends
from ..loop import AgentRun, Guardrail, StopRun
from ..schema import Tool
from ..tokens import count_request, encoding
from ..trace import Trace, Turn
from ._plots import plot_ledgers
from ._summary import SUMMARY_REQUEST, summarize

__all__ = [
    "LedgerRow",
    "Ledger",
    "token_ledger",
    "count_tokens",
    "keep_head_and_tail",
    "pruned",
    "split_point",
    "summarize",
    "compact",
    "Compactor",
    "Compaction",
    "plot_ledgers",
    "SUMMARY_REQUEST",
]

# --- the ledger: what each call read and wrote, from the responses' usage ----------------------


@dataclass(frozen=True)
class LedgerRow:
    """one model call's tokens: what it read (prompt), wrote (completion), and the running totals"""

    call: int  # 1 for the first call
    messages: int  # how many messages the call sent
    prompt: int  # input tokens, from usage.prompt_tokens
    completion: int  # output tokens, from usage.completion_tokens
    resent: int  # input tokens that the previous call had already sent (its prefix)
    cumulative_input: int
    cumulative_output: int
    # input tokens the provider read from its cache: usage.prompt_tokens_details.cached_tokens
    cached: int = 0


@dataclass(frozen=True)
class Ledger:
    """the token ledger of a run: one row per model call"""

    rows: tuple[LedgerRow, ...]

    @property
    def total_input(self) -> int:
        return self.rows[-1].cumulative_input if self.rows else 0

    @property
    def total_output(self) -> int:
        return self.rows[-1].cumulative_output if self.rows else 0

    @property
    def final_history(self) -> int:
        """tokens of the history at the end: what the last call read plus what it wrote"""
        return self.rows[-1].prompt + self.rows[-1].completion if self.rows else 0

    @property
    def ratio(self) -> float:
        """input tokens paid over the run, divided by the size of the final history"""
        return self.total_input / self.final_history if self.final_history else 0.0

    def table(self) -> str:
        """one row per call, then the run's totals"""
        head = f"{'call':>4} {'messages':>8} {'prompt':>7} {'completion':>10} {'re-sent':>8} "
        head += f"{'cached':>7} {'cumulative in':>13} {'cumulative out':>14}"
        lines = [head]
        for row in self.rows:
            lines.append(
                f"{row.call:>4} {row.messages:>8} {row.prompt:>7,} {row.completion:>10,} "
                f"{row.resent:>8,} {row.cached:>7,} {row.cumulative_input:>13,} {row.cumulative_output:>14,}"
            )
        lines.append(
            f"final history {self.final_history:,} tokens · input paid {self.total_input:,} "
            f"tokens ({self.ratio:.2f}x) · output {self.total_output:,} tokens"
        )
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()


def token_ledger(source: Trace | AgentRun) -> Ledger:
    """the ledger of a Trace, or of a run's trace; calls without usage (a refused request) are left out"""
    trace = source.trace if isinstance(source, AgentRun) else source
    if not isinstance(trace, Trace):
        raise TypeError(
            f"token_ledger needs a Trace or an AgentRun (a mock client's: client.trace), not {source!r:.80}"
        )
    rows: list[LedgerRow] = []
    total_in = total_out = 0
    previous: Turn | None = None
    for turn in trace:
        usage = turn.usage
        if not usage:
            continue
        total_in += usage["prompt_tokens"]
        total_out += usage["completion_tokens"]
        rows.append(
            LedgerRow(
                call=len(rows) + 1,
                messages=len(turn.messages),
                prompt=usage["prompt_tokens"],
                completion=usage["completion_tokens"],
                resent=_resent_tokens(previous, turn) if previous else 0,
                cumulative_input=total_in,
                cumulative_output=total_out,
                cached=(usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0,
            )
        )
        previous = turn
    return Ledger(tuple(rows))


def _resent_tokens(previous: Turn, turn: Turn) -> int:
    """tokens of `turn`'s prompt that `previous` already sent: their shared prefix of messages,
    with the same tools (a different tool list changes the prompt from its start)"""
    old, new = previous.messages, turn.messages
    same = 0
    while same < min(len(old), len(new)) and old[same] == new[same]:
        same += 1
    if same == 0 or previous.request.get("tools") != turn.request.get("tools"):
        return 0
    if same == len(old) and previous.usage:  # the history only grew: all of the previous prompt again
        return int(previous.usage["prompt_tokens"])
    return count_request(new[:same], turn.request.get("tools"))


# --- prune the result, not the prompt ----------------------------------------------------------


def count_tokens(messages: Sequence[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> int:
    """prompt tokens of a request with these messages and tools (the mock's exact count; cl100k_base,
    so an estimate for other models)"""
    return count_request(list(messages), tools)


# tokens kept free for the cut marker, and for the cut edges, which may tokenise differently
MARKER_ROOM = 20


def keep_head_and_tail(text: str, max_tokens: int) -> str:
    """the text if it fits in max_tokens; else its first and last tokens around a marker saying
    how many were cut, all within max_tokens"""
    tokens = encoding().encode_ordinary(text)
    if len(tokens) <= max_tokens:
        return text
    if max_tokens < MARKER_ROOM + 2:
        raise ValueError(
            f"max_tokens={max_tokens} leaves no room beside the cut marker; give at least {MARKER_ROOM + 2}"
        )
    head, cut, tail = keep_ends(tokens, max_tokens - MARKER_ROOM)
    marker = f"\n[... {cut:,} tokens cut from the middle ...]\n"
    return encoding().decode(head) + marker + encoding().decode(tail)


def pruned(tool: Callable[..., Any], max_tokens: int) -> Callable[..., Any]:
    """the same tool (name, parameters, description; for a Tool, what it declares) whose text
    result is cut to max_tokens"""

    @functools.wraps(tool, updated=())  # its name, docstring and signature
    def pruned_tool(*args: Any, **kwargs: Any) -> Any:
        result = tool(*args, **kwargs)
        return keep_head_and_tail(result, max_tokens) if isinstance(result, str) else result

    if not isinstance(tool, Tool):
        return pruned_tool
    return Tool(pruned_tool, name=tool.name, description=tool.description, strict=tool.strict)


# --- compaction: old turns become a summary written by the model --------------------------------

SUMMARY_HEADER = "[Summary of {count} earlier messages, written to save space]"


def split_point(messages: Sequence[dict[str, Any]], keep_last: int) -> int:
    """where the kept tail starts: about the last keep_last messages, moved earlier so that no
    tool result is separated from the call that asked for it; never before the system prompt"""
    first = 1 if messages and messages[0].get("role") == "system" else 0
    start = max(len(messages) - keep_last, first)
    while first < start < len(messages) and messages[start].get("role") == "tool":
        start -= 1
    return start


def compact(
    messages: Sequence[dict[str, Any]],
    client: openai.OpenAI,
    *,
    keep_last: int = 4,
    model: str = DEFAULT_MODEL,
    tools: list[dict[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    """a shorter history: the system prompt, one user message with a summary of the old turns,
    and the latest turns as they were (see split_point); unchanged if nothing is old enough"""
    first = 1 if messages and messages[0].get("role") == "system" else 0
    start = split_point(messages, keep_last)
    if start - first < 2:
        return list(messages)
    summary = summarize(client, messages[first:start], model=model, tools=tools)
    header = SUMMARY_HEADER.format(count=start - first)
    return [
        *messages[:first],
        {"role": "user", "content": f"{header}\n{summary}"},
        *messages[start:],
    ]


@dataclass(frozen=True)
class Compaction:
    """one compaction during a run: before which model call, and the history's size around it"""

    before_call: int
    tokens_before: int
    tokens_after: int
    messages_before: int
    messages_after: int
    summary: str


class Compactor(Guardrail):
    """a guardrail that compacts the history before a model call when it is over max_tokens

    It replaces the contents of run.messages, the list run_agent sends, so the next call
    already sends the shorter history. The summaries come from `client` (the agent's own, or a
    cheaper model's; the run's trace holds the agent's calls only); `events`: this run's compactions.
    """

    def __init__(
        self,
        client: openai.OpenAI,
        *,
        max_tokens: int,
        keep_last: int = 4,
        model: str = DEFAULT_MODEL,
    ) -> None:
        self.client, self.max_tokens, self.keep_last, self.model = client, max_tokens, keep_last, model
        self.events: list[Compaction] = []  # this run's compactions

    def start(self, run: AgentRun) -> None:
        self.events = []

    def before_model(self, run: AgentRun) -> None:
        tools = run.tools.definitions or None
        before = count_tokens(run.messages, tools)
        if before <= self.max_tokens:
            return
        try:
            shorter = compact(
                run.messages, self.client, keep_last=self.keep_last, model=self.model, tools=tools
            )
        except openai.APIError as error:
            raise StopRun(
                "compaction_failed",
                f"The history grew past {self.max_tokens:,} tokens and the summary call failed "
                f"({type(error).__name__}: {error}), so the run stopped.",
            ) from None
        if len(shorter) == len(run.messages):
            return  # nothing old enough to summarise
        messages_before = len(run.messages)
        run.messages[:] = shorter
        self.events.append(
            Compaction(
                before_call=run.model_calls + 1,
                tokens_before=before,
                tokens_after=count_tokens(run.messages, tools),
                messages_before=messages_before,
                messages_after=len(run.messages),
                summary=shorter[1 if shorter[0].get("role") == "system" else 0]["content"],
            )
        )
