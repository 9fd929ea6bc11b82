"""Planning and subagents: a plan the model keeps, and a tool that hands a sub-task to a fresh agent
(lesson 12).

Beneath it: `_agent_turns.py`, a `Child`'s record, and a parent's model calls with its children's where
they ran (whole_trace, turn_labels).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Literal

import openai

from ._agent_turns import Child, turn_labels, turns_of, whole_trace
from ._shared import DEFAULT_MODEL, failure
from .dispatch import ToolRegistry
from .loop import AgentRun, Guardrail, run_agent
from .schema import Tool
from .trace import Trace

__all__ = [
    "MARKS",
    "show_plan",
    "plan_update",
    "plan_refusal",
    "Plan",
    "PlanReminder",
    "EXPLORER_SYSTEM",
    "Child",
    "Delegate",
    "whole_trace",
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
    """apply one change to the plan, in place: the plan as text, or a refusal (a failure(...), which the
    dispatcher marks as a failed call) that changes nothing

    items: {"text", "status"} dicts, status "pending", "in_progress" or "done". "add" appends a new
    pending item; "start" a pending one while none is in progress; "done" the one in progress.
    """
    refusal = plan_refusal(items, action, text)
    if refusal is not None:
        return failure(refusal)
    if action == "add":
        items.append({"text": text, "status": "pending"})
    else:
        found = next(item for item in items if item["text"] == text)
        found["status"] = "in_progress" if action == "start" else "done"
    return show_plan(items)


def plan_refusal(items: list[dict[str, str]], action: str, text: str) -> str | None:
    """why `action` on the item `text` is not allowed (None when it is): an item is added once, with
    some text; only a pending item starts, while none is in progress; only the one in progress is done"""
    found = next((item for item in items if item["text"] == text), None)
    if action == "add":
        if not text.strip():
            return "an item needs some text, e.g. 'read app/roles.py'."
        if found is not None:
            return f"{text!r} is already in the plan ({found['status']}); add a different item."
        return None
    if action not in ("start", "done"):
        return f"unknown action {action!r}: use 'add', 'start' or 'done'."
    if found is None:
        return f"there is no item {text!r} in the plan. Add it first, or use its exact text."
    status = found["status"].replace("_", " ")
    busy = next((item for item in items if item["status"] == "in_progress"), None)
    if action == "start" and found["status"] != "pending":
        return f"{text!r} is {status}; only a pending item can start."
    if action == "start" and busy is not None:
        return f"{busy['text']!r} is in progress: mark it done before you start another item."
    if action == "done" and found["status"] != "in_progress":
        return f"{text!r} is {status}; start it before you mark it done."
    return None


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

    def __init__(self, plan: Plan, stale_after: int = 3, tool_name: str = "update_plan") -> None:
        if stale_after < 1:
            raise ValueError(f"stale_after must be at least 1, got {stale_after}")
        self.plan, self.stale_after, self.tool_name = plan, stale_after, tool_name
        self.reminders = 0  # reminders sent in this run
        self.reminded_after = 0  # the run's model calls when the last reminder was sent
        self.turned_back = False  # whether this run's answer was turned back once already

    def start(self, run: AgentRun) -> None:
        self.reminders, self.reminded_after, self.turned_back = 0, 0, False

    def before_model(self, run: AgentRun) -> None:
        if not self.plan.open_items:
            return
        turns = self.turns_since_update(run)
        if turns >= self.stale_after:
            # a user message after the tool results is valid, and the model reads it next
            run.messages.append({"role": "user", "content": REMINDER.format(turns=turns, plan=self.plan)})
            self.reminders, self.reminded_after = self.reminders + 1, run.model_calls

    def check_answer(self, run: AgentRun, answer: str) -> str | None:
        if not self.plan.open_items or self.turned_back:
            return None
        self.turned_back = True
        return OPEN_ITEMS.format(plan=self.plan)

    def turns_since_update(self, run: AgentRun) -> int:
        """model calls since the plan last changed (or since the last reminder, or this run's start)"""
        turns = 0
        for message in reversed(run.messages):
            if message["role"] == "assistant":
                if any(c["function"]["name"] == self.tool_name for c in message.get("tool_calls") or []):
                    break
                turns += 1
        return min(turns, run.model_calls - self.reminded_after)


# --- subagents: a tool that runs a fresh agent on a sub-task -----------------------------------

EXPLORER_SYSTEM = (
    "You are an explorer: a read-only helper agent. Use your tools to read and search, change "
    "nothing, and answer the task in at most two lines."
)
TOO_DEEP = (
    "a subagent may not hand its task on again (max_depth={max_depth}). Do the task with your own tools."
)


class Delegate:
    """hands a sub-task to a fresh agent: its own conversation, the tools given here, its own
    max_turns and the guardrails it inherits; the parent reads only its final answer

    Each child records its own model calls (Child.turns); whole_trace(run, delegate) shows them in
    the parent's, where they ran. `max_depth` bounds how many children may run one inside another.
    The parent's dispatcher times a child run like any tool (30 s by default): for a real model,
    give it longer, ToolRegistry([delegate.tool], timeout=300)."""

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
    ) -> None:
        self.client = client
        self.tools = tools if isinstance(tools, ToolRegistry | list) else list(tools)  # read at each call
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
            return failure(TOO_DEEP.format(max_depth=self.max_depth))
        child = Child(f"{self.name} {len(self.children) + 1}", self.depth + 1, Trace(), None, "", task)
        self.children.append(child)
        self.depth += 1
        try:
            child.observation = self._run(child)
        finally:
            self.depth -= 1
        return child.observation

    def _run(self, child: Child) -> str:
        """run the child on its task; what the parent reads: its answer, or why it has none"""
        tools = self.tools if isinstance(self.tools, ToolRegistry) else ToolRegistry(self.tools)
        try:
            run = run_agent(
                self.client,
                child.task,
                tools,
                model=self.model,
                system=self.system,
                max_turns=self.max_turns,
                guardrails=self.guardrails,
                trace=child.turns,
            )
        except Exception as error:  # its model call failed (an HTTP error): the parent reads why
            why = (str(error).splitlines() or [""])[0]
            return failure(f"the {self.name} failed before it could answer: {type(error).__name__}: {why}")
        child.run = run
        if run.stop_reason == "answered":
            return run.answer or ""
        return failure(
            f"the {self.name} stopped without an answer (stop_reason {run.stop_reason!r}, "
            f"after {run.model_calls} model calls): {run.answer}"
        )

    @property
    def tool(self) -> Tool:
        return Tool(self.delegate, name="delegate")

    def __repr__(self) -> str:
        return f"Delegate({self.name!r}, {len(self.children)} children, max_depth={self.max_depth})"
