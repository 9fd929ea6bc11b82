"""Planning and subagents: a plan the model keeps, and a tool that hands a sub-task to a fresh agent
(lesson 12)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import openai

from .dispatch import ERROR_PREFIX, ToolRegistry
from .loop import AgentRun, Guardrail, run_agent
from .mock.model import DEFAULT_MODEL
from .schema import Tool
from .trace import Trace, Turn, recorded, trace_of

__all__ = [
    "MARKS",
    "show_plan",
    "plan_update",
    "Plan",
    "PlanReminder",
    "EXPLORER_SYSTEM",
    "Child",
    "Delegate",
    "turn_labels",
    "turns_of",
]

# --- the plan: a short to-do list the model writes and updates through a tool ------------------

MARKS = {"pending": "[ ]", "in_progress": "[>]", "done": "[x]"}
"""how each status shows in the plan the model reads"""


def show_plan(items: Sequence[dict[str, str]]) -> str:
    """the plan as the model reads it: one line per item, its status as a mark"""
    if not items:
        return "The plan is empty."
    return "\n".join(f"{MARKS[item['status']]} {item['text']}" for item in items)


def plan_update(items: list[dict[str, str]], action: str, text: str) -> str:
    """apply one change to the plan, in place: the plan as text, or a refusal ("ERROR: ...") that
    changes nothing

    items: {"text", "status"} dicts, status "pending", "in_progress" or "done". "add" appends a new
    pending item; "start" a pending one while none is in progress; "done" the one in progress.
    """
    found = next((item for item in items if item["text"] == text), None)
    busy = next((item for item in items if item["status"] == "in_progress"), None)
    if action == "add":
        if not text.strip():
            return f"{ERROR_PREFIX}an item needs some text, e.g. 'read app/roles.py'."
        if found is not None:
            return f"{ERROR_PREFIX}{text!r} is already in the plan ({found['status']}); add a different item."
        items.append({"text": text, "status": "pending"})
        return show_plan(items)
    if action not in ("start", "done"):
        return f"{ERROR_PREFIX}unknown action {action!r}: use 'add', 'start' or 'done'."
    if found is None:
        return f"{ERROR_PREFIX}there is no item {text!r} in the plan. Add it first, or use its exact text."
    if action == "start":
        if found["status"] != "pending":
            return (
                f"{ERROR_PREFIX}{text!r} is {found['status'].replace('_', ' ')}; only a pending item can "
                "start."
            )
        if busy is not None:
            return (
                f"{ERROR_PREFIX}{busy['text']!r} is in progress: mark it done before you start another item."
            )
        found["status"] = "in_progress"
    else:
        if found["status"] != "in_progress":
            return (
                f"{ERROR_PREFIX}{text!r} is {found['status'].replace('_', ' ')}; start it before you mark it "
                "done."
            )
        found["status"] = "done"
    return show_plan(items)


class Plan:
    """the model's to-do list for one task, and `tool`, the update_plan tool that changes it"""

    def __init__(self) -> None:
        self.items: list[dict[str, str]] = []

    def update_plan(self, action: Literal["add", "start", "done"], item: str) -> str:
        """Keep a short plan for this task and update it as you work; the answer is the whole plan.

        Add the steps first. Start the step you work on (one at a time) and mark it done when it is
        finished, before you start the next one.

        Args:
            action: "add" a step, "start" working on it, or mark it "done".
            item: the step, e.g. "read app/roles.py"; to start or finish it, its exact text.
        """
        return plan_update(self.items, action, item)

    @property
    def tool(self) -> Tool:
        return Tool(self.update_plan, name="update_plan")

    @property
    def open_items(self) -> list[dict[str, str]]:
        """the items not done yet"""
        return [item for item in self.items if item["status"] != "done"]

    def __str__(self) -> str:
        return show_plan(self.items)

    def __repr__(self) -> str:
        return f"Plan({self.items!r})"


REMINDER = "Reminder: your plan has not changed in {turns} turns. Here it is:\n{plan}\nUpdate it as you work."
OPEN_ITEMS = (
    "Your plan still has open items:\n{plan}\nFinish them and mark them done, or say in your answer why not."
)


class PlanReminder(Guardrail):
    """shows the plan back when it has not changed for `stale_after` model calls, and turns back
    the first answer that leaves items open"""

    def __init__(self, plan: Plan, stale_after: int = 3, tool_name: str = "update_plan"):
        if stale_after < 1:
            raise ValueError(f"stale_after must be at least 1, got {stale_after}")
        self.plan, self.stale_after, self.tool_name = plan, stale_after, tool_name
        self.reminders = 0  # reminders sent, over every run
        self._answered: AgentRun | None = None  # the run whose answer was already turned back once

    def before_model(self, run: AgentRun) -> None:
        if not self.plan.open_items:
            return
        turns = self.turns_since_update(run)
        if turns >= self.stale_after:
            # a user message after the tool results is valid, and the model reads it next
            run.messages.append({"role": "user", "content": REMINDER.format(turns=turns, plan=self.plan)})
            self.reminders += 1

    def check_answer(self, run: AgentRun, answer: str) -> str | None:
        if not self.plan.open_items or self._answered is run:
            return None
        self._answered = run
        return OPEN_ITEMS.format(plan=self.plan)

    def turns_since_update(self, run: AgentRun) -> int:
        """model calls since the plan last changed (or since the last reminder, or the start)"""
        turns = 0
        for message in reversed(run.messages):
            if message["role"] == "user" and str(message.get("content")).startswith("Reminder: your plan"):
                break
            if message["role"] == "assistant":
                if any(c["function"]["name"] == self.tool_name for c in message.get("tool_calls") or []):
                    break
                turns += 1
        return turns


# --- subagents: a tool that runs a fresh agent on a sub-task -----------------------------------

EXPLORER_SYSTEM = (
    "You are an explorer: a read-only helper agent. Use your tools to read and search, change "
    "nothing, and answer the task in at most two lines."
)


@dataclass(repr=False)
class Child:
    """one subagent that ran: its label, how deep it was, its turns on the wire, and how it ended"""

    label: str  # e.g. "explorer 1"
    depth: int  # 1 for a child of the top agent
    turns: Trace  # its model calls, in the shared trace of the client
    run: AgentRun | None  # None when it failed before its run could end
    observation: str  # what the parent read

    def __repr__(self) -> str:
        ended = self.run.stop_reason if self.run is not None else "failed"
        return f"Child({self.label!r}, depth={self.depth}, {len(self.turns)} model calls, {ended})"


class Delegate:
    """hands a sub-task to a fresh agent: its own conversation, the tools given here, its own
    max_turns and the guardrails it inherits; the parent reads only its final answer

    The child calls the model through the same client, so its turns are recorded in the same
    trace, and the parent's run.trace (and token ledger) counts them. `max_depth` bounds how many
    children of this Delegate may run inside one another, if a child is given this tool too.
    The parent's dispatcher times the whole child run like any tool (30 s by default): for a real
    model, give the parent's registry a longer timeout, ToolRegistry([delegate.tool], timeout=300).
    """

    def __init__(
        self,
        client: openai.OpenAI,
        tools: ToolRegistry | Iterable[Callable[..., Any]] = (),
        *,
        name: str = "explorer",
        system: str | None = EXPLORER_SYSTEM,
        max_turns: int = 8,
        guardrails: Sequence[Guardrail] = (),
        max_depth: int = 1,
        model: str = DEFAULT_MODEL,
    ):
        self.client = recorded(client)  # the same client when it records already (mock.client does)
        self.tools = (
            tools if isinstance(tools, ToolRegistry | list) else list(tools)
        )  # a list is read at each call
        self.name, self.system, self.max_turns, self.model = name, system, max_turns, model
        self.guardrails, self.max_depth = list(guardrails), max_depth
        self.children: list[Child] = []
        self.depth = 0  # children of this Delegate running right now, one inside another

    def delegate(self, task: str) -> str:
        """Hand a sub-task to a helper agent that starts fresh, and get back its final answer.

        The helper sees only the task you write, not this conversation: say everything it needs,
        and what its answer should hold.

        Args:
            task: the sub-task, complete in itself, e.g. "In the project, find where X is checked."
        """
        if self.depth >= self.max_depth:
            return (
                f"{ERROR_PREFIX}a subagent may not hand its task on again (max_depth="
                f"{self.max_depth}). Do the task with your own tools."
            )
        self.depth += 1
        label, trace = f"{self.name} {len(self.children) + 1}", trace_of(self.client)
        assert trace is not None  # recorded() made sure the client records
        first = len(trace)
        tools = self.tools if isinstance(self.tools, ToolRegistry) else ToolRegistry(self.tools)
        child = Child(label, self.depth, trace, None, "")
        self.children.append(child)
        try:
            child.run = run_agent(
                self.client,
                task,
                tools,
                model=self.model,
                system=self.system,
                max_turns=self.max_turns,
                guardrails=self.guardrails,
            )
        except Exception as error:  # its model call failed (an HTTP error): the parent reads why
            child.observation = (
                f"{ERROR_PREFIX}the {self.name} failed before it could answer: "
                f"{type(error).__name__}: {str(error).splitlines()[0]}"
            )
        else:
            if child.run.stop_reason == "answered":
                child.observation = child.run.answer or ""
            else:
                child.observation = (
                    f"{ERROR_PREFIX}the {self.name} stopped without an answer (stop_reason "
                    f"{child.run.stop_reason!r}, after {child.run.model_calls} model calls): "
                    f"{child.run.answer}"
                )
        finally:
            self.depth -= 1
            child.turns = trace.since(first)
        return child.observation

    @property
    def tool(self) -> Tool:
        return Tool(self.delegate, name="delegate")

    def __repr__(self) -> str:
        return f"Delegate({self.name!r}, {len(self.children)} children, max_depth={self.max_depth})"


def turn_labels(trace: Trace | AgentRun, *delegates: Delegate, top: str = "parent") -> list[str]:
    """which agent made each turn of a trace: `top`, or the label of the (deepest) child that did"""
    turns = trace.trace if isinstance(trace, AgentRun) else trace
    owner: dict[int, str] = {}
    children = sorted((c for d in delegates for c in d.children), key=lambda child: child.depth)
    for child in children:  # deeper children last: a grandchild's turns are inside its parent's
        owner.update({id(turn): child.label for turn in child.turns})
    return [owner.get(id(turn), top) for turn in turns]


def turns_of(trace: Trace | AgentRun, label: str, *delegates: Delegate, top: str = "parent") -> Trace:
    """the turns of one agent only, as a Trace (for its own token ledger)"""
    turns = trace.trace if isinstance(trace, AgentRun) else trace
    labels = turn_labels(turns, *delegates, top=top)
    mine: list[Turn] = [turn for turn, owner in zip(turns, labels, strict=True) if owner == label]
    return Trace(mine)
