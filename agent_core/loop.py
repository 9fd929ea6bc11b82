"""The ReAct loop: call the model, run the tools it asks for, show it the results, until it answers
(lesson 04)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import openai

from ._defaults import DEFAULT_MODEL
from .calls import assistant_message, sendable_message, tool_calls_of, tool_message, unanswered_calls
from .dispatch import ERROR_PREFIX, Observation, ToolRegistry
from .trace import Trace, escape_surrogates, recorded, trace_of

__all__ = ["run_agent", "AgentRun", "Guardrail", "StopRun"]


class StopRun(Exception):
    """raised by a guardrail to end the run; `reason` becomes the run's stop_reason"""

    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason, self.message = reason, message


@dataclass
class AgentRun:
    """one run of the agent: its messages as they grow, its counters, and finally how it ended"""

    task: str
    messages: list[dict[str, Any]]
    tools: ToolRegistry
    model_calls: int = 0
    tool_calls_made: int = 0  # the tool calls the model asked for, refused ones included
    started: float = field(default_factory=time.monotonic)
    answer: str | None = None
    stop_reason: str | None = None  # "answered", "max_turns", or a guardrail's reason
    trace: Trace = field(default_factory=Trace)
    observations: list[Observation] = field(default_factory=list)
    paused_calls: list[dict[str, Any]] = field(default_factory=list)
    """the calls a guardrail's stop left unrun (answered "not run"); guardrails.resume() runs them"""

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.started


class Guardrail:
    """a hook into run_agent (lesson 05): override any method; raise StopRun in one to end the run"""

    def start(self, run: AgentRun) -> None:
        """called once as each run starts: counters kept per run start again here"""

    def before_model(self, run: AgentRun) -> None:
        """called before each model call"""

    def after_model(self, run: AgentRun, message: dict[str, Any], usage: Any) -> None:
        """called with the assistant message just appended and the call's token usage"""

    def before_tool(self, run: AgentRun, call: dict[str, Any]) -> str | None:
        """return text to answer the call without running it (a refusal the model reads as an error)"""

    def after_tool(self, run: AgentRun, call: dict[str, Any], observation: Observation) -> None:
        """called with what the tool produced"""

    def check_answer(self, run: AgentRun, answer: str) -> str | None:
        """return feedback to reject the model's final answer and keep the loop going"""


def run_agent(
    client: openai.OpenAI,
    task: str | Sequence[dict[str, Any]],
    tools: ToolRegistry | Iterable[Callable[..., Any]] = (),
    *,
    model: str = DEFAULT_MODEL,
    system: str | None = None,
    max_turns: int = 10,
    guardrails: Sequence[Guardrail] = (),
    **create_options: Any,
) -> AgentRun:
    """run the loop until the model answers without asking for a tool, or max_turns model calls

    `task` is the user's request, or a conversation to continue (a list of messages). Returns the
    AgentRun: answer, messages, stop_reason ("answered", "max_turns" or a guardrail's), counters,
    and the trace of this run's model calls.
    """
    registry = tools if isinstance(tools, ToolRegistry) else ToolRegistry(tools)
    messages: list[dict[str, Any]] = (
        [{"role": "system", "content": escape_surrogates(system)}] if system else []
    )
    if isinstance(task, str):
        messages.append({"role": "user", "content": escape_surrogates(task)})
    elif isinstance(task, Sequence) and task and all(isinstance(message, dict) for message in task):
        # mypy keeps str in task's type after isinstance(task, Sequence), though the branch above took it
        messages += [sendable_message(message) for message in task]  # type: ignore[arg-type]
    else:
        raise ValueError(
            f"task is the user's request (a str) or the messages to continue (a list of dicts), "
            f"not {task!r:.60}"
        )
    client = recorded(client)  # the same client if it records already, else a recording copy
    trace = trace_of(client)
    assert trace is not None  # recorded() made sure the client records
    first_turn = len(trace)
    run = AgentRun(task=_last_user_text(messages), messages=messages, tools=registry)
    tool_options: dict[str, Any] = {"tools": registry.definitions} if len(registry) else {}
    try:
        for guardrail in guardrails:
            guardrail.start(run)
        _run_tools(run, unanswered_calls(messages), guardrails)  # a conversation may end with calls
        while run.model_calls < max_turns:
            for guardrail in guardrails:
                guardrail.before_model(run)
            run.model_calls += 1
            # the SDK types messages as TypedDicts; ours are the same JSON objects as plain dicts
            response = client.chat.completions.create(
                model=model,
                messages=messages,  # type: ignore[arg-type]
                **tool_options,
                **create_options,
            )
            message = sendable_message(assistant_message(response))  # it goes back in every later request
            messages.append(message)
            for guardrail in guardrails:
                guardrail.after_model(run, message, response.usage)
            if calls := tool_calls_of(message):
                _run_tools(run, calls, guardrails)
                continue
            feedback = _first_said(g.check_answer(run, message["content"] or "") for g in guardrails)
            if feedback is None:
                run.answer, run.stop_reason = message["content"], "answered"
                break
            messages.append({"role": "user", "content": escape_surrogates(feedback)})
        else:  # no break: max_turns model calls and no accepted answer
            run.stop_reason = "max_turns"
            run.answer = (
                f"I stopped after {max_turns} model calls (max_turns={max_turns}) without reaching "
                "a final answer. The work so far is in the messages."
            )
    except StopRun as stop:
        run.stop_reason, run.answer = stop.reason, stop.message
        run.paused_calls = unanswered_calls(messages)
        for call in run.paused_calls:  # stopped between parallel calls: answer the rest
            messages.append(tool_message(call, escape_surrogates(f"{ERROR_PREFIX}not run: {stop.message}")))
    finally:
        run.trace = trace.since(first_turn)
    return run


def _run_tools(run: AgentRun, calls: list[dict[str, Any]], guardrails: Sequence[Guardrail]) -> None:
    for call in calls:  # every call gets an answer, in order, before the next model call
        run.tool_calls_made += 1
        refusal = _first_said(g.before_tool(run, call) for g in guardrails)
        if refusal is None:
            observation = run.tools.run(call)
        else:
            if not refusal.startswith(ERROR_PREFIX):
                refusal = ERROR_PREFIX + refusal
            observation = Observation(
                call["id"],
                call["function"]["name"],
                escape_surrogates(refusal),
                is_error=True,
                error_type="refused",
            )
        run.observations.append(observation)
        run.messages.append(observation.to_message())
        for guardrail in guardrails:
            guardrail.after_tool(run, call, observation)


def _first_said(answers: Iterable[str | None]) -> str | None:
    """the first guardrail's answer that is not None; the guardrails after it are not asked"""
    return next((answer for answer in answers if answer is not None), None)


def _last_user_text(messages: list[dict[str, Any]]) -> str:
    return next((str(m.get("content")) for m in reversed(messages) if m["role"] == "user"), "")
