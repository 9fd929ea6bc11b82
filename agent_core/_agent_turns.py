"""lesson 12: what a subagent did (`Child`), and a parent's model calls with its children's where they ran:
inside the delegate call that started each child."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from .calls import parse_arguments, tool_calls_of
from .loop import AgentRun
from .trace import Trace, Turn

__all__ = ["Child", "HasChildren", "whole_trace", "turn_labels", "turns_of", "interleaved"]


@dataclass(repr=False)
class Child:
    """one subagent that ran: its label, how deep it was, its turns on the wire, and how it ended"""

    label: str  # e.g. "explorer 1"
    depth: int  # 1 for a child of the top agent
    turns: Trace  # its model calls (its run's trace; a failed call's too)
    run: AgentRun | None  # None when it failed before its run could end
    observation: str  # what the parent read
    task: str = ""  # what the parent asked of it
    started: float = field(default_factory=time.perf_counter)

    def __repr__(self) -> str:
        ended = self.run.stop_reason if self.run is not None else "failed"
        return f"Child({self.label!r}, depth={self.depth}, {len(self.turns)} model calls, {ended})"


class HasChildren(Protocol):
    """what is read of a planning.Delegate here: the children it ran, in the order they started"""

    children: list[Child]


def whole_trace(run: AgentRun, *delegates: HasChildren) -> Trace:
    """the run's model calls with its children's (of these delegates) where they ran, for its ledger"""
    return Trace([turn for _, turn in interleaved(run.trace, _children(delegates))])


def turn_labels(run: AgentRun, *delegates: HasChildren, top: str = "parent") -> list[str]:
    """which agent made each turn of whole_trace(run, *delegates): `top`, or the child's label"""
    return [label for label, _ in interleaved(run.trace, _children(delegates), top)]


def turns_of(run: AgentRun, label: str, *delegates: HasChildren, top: str = "parent") -> Trace:
    """the turns of one agent only, as a Trace (for its own token ledger)"""
    turns = interleaved(run.trace, _children(delegates), top)
    return Trace([turn for owner, turn in turns if owner == label])


def _children(delegates: Sequence[HasChildren]) -> list[Child]:
    """every child of these delegates, in the order they started"""
    return sorted((child for delegate in delegates for child in delegate.children), key=lambda c: c.started)


def interleaved(
    turns: Iterable[Turn], children: Sequence[Child], top: str = "parent"
) -> list[tuple[str, Turn]]:
    """(label, turn) for each turn of the parent and of its children, in the order they were made

    `children` in the order they started. A child ran inside the tool call that asked a delegate
    for its task: so it follows the turn whose reply asked for it, before the calls after it.
    """
    return list(_walk(turns, top, 0, deque(children)))


def _walk(turns: Iterable[Turn], label: str, depth: int, waiting: deque[Child]) -> Iterator[tuple[str, Turn]]:
    for turn in turns:
        yield label, turn
        for call in tool_calls_of(turn.reply or {}):
            if waiting and waiting[0].depth == depth + 1 and _task_of(call) == waiting[0].task:
                child = waiting.popleft()
                yield from _walk(child.turns, child.label, depth + 1, waiting)


def _task_of(call: dict[str, object]) -> object:
    """the task a delegate call asked for (None when its arguments are not a JSON object)"""
    try:
        return parse_arguments(call).get("task")
    except (ValueError, TypeError):
        return None
