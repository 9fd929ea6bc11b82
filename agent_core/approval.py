"""Human in the loop: a person approves or denies a risky call, and a paused run resumes (lesson 05)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

import openai

from ._guard_calls import describe_call, escape_for_terminal
from .loop import AgentRun, Guardrail, StopRun, run_agent

__all__ = ["Decision", "Decider", "Approval", "TerminalApproval", "resume"]


@dataclass(frozen=True)
class Decision:
    """a person's answer to "may this call run?"; the reason goes back to the model on a denial"""

    approved: bool
    reason: str = ""


# decide(call) -> Decision (a bool also works); None means "nobody has decided yet": pause the run
Decider = Callable[[dict[str, Any]], Decision | bool | None]


class Approval(Guardrail):
    """before a risky tool runs, ask a decider; a denial is the observation and the run goes on

    If the decider has no answer yet (returns None, as widgets.ApprovalPanel does until a button is
    clicked), the run stops with stop_reason "needs_approval"; resume() continues it later.
    """

    def __init__(self, decide: Decider, tool_names: Collection[str] | None = None):
        self.decide = decide
        self.tool_names = tool_names  # the risky tools' names; None: every tool
        self.pending: dict[str, Any] | None = None  # the call a paused run waits on

    def start(self, run: AgentRun) -> None:
        self.pending = None  # a new run (a resumed one too) waits on nothing yet

    def before_tool(self, run: AgentRun, call: dict[str, Any]) -> str | None:
        if self.tool_names is not None and call["function"]["name"] not in self.tool_names:
            return None
        try:
            decision = self.decide(call)
        except Exception as error:  # nobody could say yes, so the call does not run; the run goes on
            return (
                f"the approval could not be asked ({type(error).__name__}: {error}), so this call was "
                "not run. Do not try it again; tell the user what you would have done."
            )
        if decision is None:
            self.pending = call
            raise StopRun(
                "needs_approval",
                f"Paused: {describe_call(call)} needs a person's approval before it runs.",
            )
        self.pending = None
        if isinstance(decision, bool):
            decision = Decision(decision)
        if decision.approved:
            return None
        return (
            f"a person denied this call: {decision.reason or 'no reason given'}. Do not try it "
            "again; tell the user what you would have done instead."
        )


class TerminalApproval:
    """a decider that asks in the terminal: "y" approves; anything else denies, and its text is the reason"""

    def __init__(self, input: Callable[[str], str] = input, print: Callable[..., None] = print):
        self.input, self.print = input, print

    def __call__(self, call: dict[str, Any]) -> Decision:
        self.print(f"The agent wants to run: {escape_for_terminal(describe_call(call))}")
        try:
            answer = self.input("Approve? [y/N, or type why not] ").strip()
        except EOFError:  # no terminal to ask (input closed)
            return Decision(False, "nobody was there to approve it")
        if answer.lower() in ("y", "yes"):
            return Decision(True)
        if answer.lower() in ("", "n", "no"):
            return Decision(False, "the user said no")
        return Decision(False, answer)


def resume(
    client: openai.OpenAI,
    run: AgentRun,
    *,
    guardrails: Sequence[Guardrail] = (),
    **options: Any,
) -> AgentRun:
    """continue a run that stopped with "needs_approval": the paused calls run (or are refused) now

    Give the same guardrails (the decider now has its decision) and run_agent's options (model,
    max_turns...). Returns a new AgentRun whose messages continue the old ones.
    """
    if run.stop_reason != "needs_approval":
        raise ValueError(
            f"only a run that stopped with 'needs_approval' can be resumed; this one stopped with "
            f"{run.stop_reason!r}"
        )
    # the loop answered the paused call (and any after it) with "not run": they run again now
    paused = {call["id"] for call in run.paused_calls}
    history = [m for m in run.messages if not (m["role"] == "tool" and m.get("tool_call_id") in paused)]
    return run_agent(client, history, run.tools, guardrails=guardrails, **options)
