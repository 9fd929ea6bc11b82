"""The ReAct loop: call the model, run the tools it asks for, show it the results, until it answers
(lesson 04).

Beneath it: `_model_call.py`, one model call recorded as a Turn from the SDK's raw HTTP exchange.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import openai

from ._model_call import call_model
from ._shared import DEFAULT_MAX_TOKENS, DEFAULT_MODEL
from ._stop_reasons import StopReason
from .calls import assistant_message, sendable_message, tool_calls_of, tool_message, unanswered_calls
from .dispatch import ERROR_PREFIX, Observation, ToolRegistry
from .trace import Trace, escape_surrogates

__all__ = ["run_agent", "AgentRun", "Guardrail", "StopRun", "capped"]


def run_agent(
    client: openai.OpenAI,
    task: str | Sequence[dict[str, Any]],
    tools: ToolRegistry | Iterable[Callable[..., Any]] = (),
    *,
    model: str = DEFAULT_MODEL,
    system: str | None = None,
    max_turns: int = 10,
    guardrails: Sequence[Guardrail] = (),
    trace: Trace | None = None,
    **create_options: Any,
) -> AgentRun:
    """run the loop until the model answers without asking for a tool, or max_turns model calls

    `task` is the user's request, or a conversation to continue (a list of messages). Each reply is
    capped at `max_tokens` (DEFAULT_MAX_TOKENS unless given; None: no cap). Returns the AgentRun:
    answer, messages, stop_reason, counters, and `trace`, this run's model calls (given one, they are
    appended to it: a call the server refused is there too, though run_agent raised)."""
    _refuse_a_stream(create_options)
    run = _new_run(task, tools, system, trace if trace is not None else Trace())
    try:
        _start(run, guardrails)
        while run.model_calls < max_turns:
            response, message = _ask_model(client, run, model, create_options, guardrails)
            if calls := tool_calls_of(message):
                _run_tools(run, calls, guardrails)
                continue
            if _no_answer_in(run, response, message):  # cut off by the output cap, or nothing said
                return run
            feedback = _first_said(g.check_answer(run, message["content"] or "") for g in guardrails)
            if feedback is None:
                run.answer, run.stop_reason = message["content"], "answered"
                return run
            run.messages.append({"role": "user", "content": escape_surrogates(feedback)})
        run.stop_reason, run.answer = "max_turns", _gave_up(max_turns)
    except StopRun as stop:
        _stopped(run, stop)
    return run


class StopRun(Exception):
    """raised by a guardrail to end the run; `reason` becomes the run's stop_reason"""

    def __init__(self, reason: StopReason, message: str) -> None:
        super().__init__(message)
        self.reason: StopReason = reason
        self.message = message


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
    stop_reason: StopReason | None = None  # "answered", "max_turns", or a guardrail's reason
    trace: Trace = field(default_factory=Trace)  # this run's model calls, as they crossed the wire
    observations: list[Observation] = field(default_factory=list)
    refusals: list[tuple[Observation, Guardrail]] = field(default_factory=list)
    """each refused call's observation, with the guardrail that refused it"""
    paused_calls: list[dict[str, Any]] = field(default_factory=list)
    """the calls a guardrail's stop left unrun (answered "not run"); guardrails.resume() runs them"""

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.started


class Guardrail:
    """a hook into run_agent (lesson 05): override any method; raise StopRun in one to end the run"""

    def start(self, run: AgentRun) -> None:
        """called once as each run starts: every field kept per run starts again here"""

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


# --- the loop's steps ---------------------------------------------------------------------------


def _new_run(
    task: str | Sequence[dict[str, Any]],
    tools: ToolRegistry | Iterable[Callable[..., Any]],
    system: str | None,
    trace: Trace,
) -> AgentRun:
    """the run's first messages (the task checked) and its dispatcher"""
    registry = tools if isinstance(tools, ToolRegistry) else ToolRegistry(tools)
    messages = _first_messages(task, system)
    return AgentRun(task=_last_user_text(messages), messages=messages, tools=registry, trace=trace)


def _start(run: AgentRun, guardrails: Sequence[Guardrail]) -> None:
    """every guardrail told that the run starts; the calls a continued conversation ends with, run"""
    for guardrail in guardrails:
        guardrail.start(run)
    _run_tools(run, unanswered_calls(run.messages), guardrails)


def _first_messages(task: str | Sequence[dict[str, Any]], system: str | None) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = (
        [{"role": "system", "content": escape_surrogates(system)}] if system else []
    )
    if isinstance(task, str):
        return [*messages, {"role": "user", "content": escape_surrogates(task)}]
    if isinstance(task, Sequence) and task and all(isinstance(message, dict) for message in task):
        # mypy keeps str in task's type after isinstance(task, Sequence), though the branch above took it
        return [*messages, *(sendable_message(message) for message in task)]  # type: ignore[arg-type]
    raise ValueError(
        f"task is the user's request (a str) or the messages to continue (a list of dicts), not {task!r:.60}"
    )


def _ask_model(
    client: openai.OpenAI, run: AgentRun, model: str, options: dict[str, Any], guardrails: Sequence[Guardrail]
) -> tuple[Any, dict[str, Any]]:
    """one model call with the run's messages (and its tools), recorded in run.trace; its reply appended"""
    for guardrail in guardrails:
        guardrail.before_model(run)
    run.model_calls += 1
    tools: dict[str, Any] = {"tools": run.tools.definitions} if len(run.tools) else {}
    response = call_model(client, run.trace, model=model, messages=run.messages, **tools, **capped(options))
    message = sendable_message(assistant_message(response))  # it goes back in every later request
    run.messages.append(message)
    for guardrail in guardrails:
        guardrail.after_model(run, message, response.usage)
    return response, message


def _refuse_a_stream(options: dict[str, Any]) -> None:
    """the loop reads each reply whole: stream=True is refused before any call, saying what to do"""
    if options.get("stream"):
        raise ValueError(
            "run_agent reads each reply whole, so it does not take stream=True: leave it out. "
            "To watch a reply arrive piece by piece, call client.chat.completions.create(..., "
            "stream=True) yourself and read its chunks; the run's trace shows every reply either way."
        )


def capped(options: dict[str, Any]) -> dict[str, Any]:
    """create options with the default output cap, unless they set one (max_tokens=None: no cap)"""
    if "max_completion_tokens" in options:
        return options
    with_cap = {"max_tokens": DEFAULT_MAX_TOKENS, **options}
    return (
        with_cap
        if with_cap["max_tokens"] is not None
        else {k: v for k, v in options.items() if k != "max_tokens"}
    )


def _no_answer_in(run: AgentRun, response: Any, message: dict[str, Any]) -> bool:
    """a reply cut by the output cap, or one with neither text nor a tool call, ends the run as what it is"""
    if response.choices[0].finish_reason == "length":
        run.stop_reason, run.answer = "output_cap", message["content"] or ""
    elif not (message["content"] or "").strip():
        run.stop_reason = "empty_answer"
        run.answer = "The model answered with no text and no tool call (small local models often do)."
    return run.stop_reason is not None


def _run_tools(run: AgentRun, calls: list[dict[str, Any]], guardrails: Sequence[Guardrail]) -> None:
    for call in calls:  # every call gets an answer, in order, before the next model call
        run.tool_calls_made += 1
        refused = _first_refusal(run, call, guardrails)
        if refused is None:
            observation = run.tools.run(call)
        else:
            refusal, refuser = refused
            if not refusal.startswith(ERROR_PREFIX):
                refusal = ERROR_PREFIX + refusal
            observation = Observation(
                call["id"],
                call["function"]["name"],
                escape_surrogates(refusal),
                is_error=True,
                error_type="refused",
            )
            run.refusals.append((observation, refuser))
        run.observations.append(observation)
        run.messages.append(observation.to_message())
        for guardrail in guardrails:
            guardrail.after_tool(run, call, observation)


def _stopped(run: AgentRun, stop: StopRun) -> None:
    """a guardrail ended the run: its reason and message, and every call left unrun answered"""
    run.stop_reason, run.answer = stop.reason, stop.message
    run.paused_calls = unanswered_calls(run.messages)
    for call in run.paused_calls:  # stopped between parallel calls: answer the rest
        run.messages.append(tool_message(call, escape_surrogates(f"{ERROR_PREFIX}not run: {stop.message}")))


def _gave_up(max_turns: int) -> str:
    return (
        f"I stopped after {max_turns} model calls (max_turns={max_turns}) without reaching "
        "a final answer. The work so far is in the messages."
    )


def _first_said(answers: Iterable[str | None]) -> str | None:
    """the first guardrail's answer that is not None; the guardrails after it are not asked"""
    return next((answer for answer in answers if answer is not None), None)


def _first_refusal(
    run: AgentRun, call: dict[str, Any], guardrails: Sequence[Guardrail]
) -> tuple[str, Guardrail] | None:
    """the first guardrail that refuses the call, and what it said; the guardrails after it are not asked"""
    for guardrail in guardrails:
        said = guardrail.before_tool(run, call)
        if said is not None:
            return said, guardrail
    return None


def _last_user_text(messages: list[dict[str, Any]]) -> str:
    return next((str(m.get("content")) for m in reversed(messages) if m["role"] == "user"), "")
