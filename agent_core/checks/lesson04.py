"""Checks for lesson 04's exercises: the loop."""

from __future__ import annotations

import functools
import json
import random
import re
import traceback
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

import openai

from .. import mock
from .._i18n import N_, _
from ..dispatch import ToolRegistry
from ..loop import AgentRun, run_agent
from ..schema import tool
from . import Verdict, _trace_of, verdict
from ._scenarios import Dimension, forms_of, joined, judge_scenarios, scenarios, smaller_ints

__all__ = ["check_predictions", "check_my_run", "PREDICTION_CASES"]


@tool
def add(a: float, b: float) -> float:
    """Add two numbers: a + b."""
    return a + b


@tool
def subtract(a: float, b: float) -> float:
    """Subtract b from a: a - b."""
    return a - b


@tool
def multiply(a: float, b: float) -> float:
    """Multiply two numbers: a * b."""
    return a * b


@tool
def divide(a: float, b: float) -> float:
    """Divide a by b: a / b."""
    return a / b


_ARITHMETIC_TOOLS = {t.name: t for t in (add, subtract, multiply, divide)}

# (expression, tools offered): the cases Exercise 4.2 asks about
PREDICTION_CASES = (
    ("2*3 + 4", ("add", "multiply")),
    ("(1 + 2) * (3 + 4)", ("add", "multiply")),
    ("(1 + 2) * (3 + 4)", ("multiply",)),
    ("10 - 4 and 6/3", ("subtract", "divide")),
    ("1 + 2 + 3 + 4", ("add",)),
    ("1 + 2 + 3 + 4", ()),
)


def prediction_scenarios() -> list[tuple[str, tuple[str, ...]]]:
    """check 4.2's cases: the lesson's six (an answer, not code: nothing generated)"""
    return list(PREDICTION_CASES)


# the shapes lesson 04 names for predictions, each in prediction_scenarios() (tests/test_check_shapes.py)
PREDICTION_SHAPES: dict[str, Callable[[tuple[str, tuple[str, ...]]], bool]] = {
    "independent operations in one call": lambda c: " and " in c[0] or c[0] == "(1 + 2) * (3 + 4)",
    "a step that waits for another's result": lambda c: "(" in c[0] or "*" in c[0],
    "a chain where nothing is independent": lambda c: c[0] == "1 + 2 + 3 + 4" and bool(c[1]),
    "an operation with no tool offered": lambda c: (
        bool(c[1]) and c[0] == "(1 + 2) * (3 + 4)" and "add" not in c[1]
    ),
    "no tools at all": lambda c: not c[1],
}

_MORE = N_(
    "too few. An operation that needs another tool's result waits for the next model call, "
    "and the final answer takes a call of its own"
)
_FEWER = N_(
    "too many. Independent operations are asked for in the same model call, and an operation "
    "with no tool is done in the model's head"
)


# --- Exercise 4.2 ---------------------------------------------------------------------------


def check_predictions(predictions: Any) -> Verdict:
    """Exercise 4.2: predicted model calls per (expression, tools), compared with real runs

    An answer, not code: the learner's numbers cover the cases they were asked about, so there is
    nothing to generate. Each case of the dict (the lesson's six, which tell apart the tempting
    wrong rules: counting operations, tool calls, or forgetting the answer's own call or the tools
    not offered; and any case the learner adds) is run on the reference loop with the calculator
    model, and every wrong prediction is named with its direction, never its number. A case's
    tools may be written in any order.
    """
    if not isinstance(predictions, dict):
        return verdict(
            "4.2",
            [
                _(
                    "predictions should be a dict {{(expression, tools): calls}}, not {kind}",
                    kind=type(predictions).__name__,
                )
            ],
            "",
        )
    problems = []
    given = {_same_case(case) for case in predictions}
    missing = [case for case in PREDICTION_CASES if _same_case(case) not in given]
    problems += [
        _("keep the case {case} in predictions and give it a number", case=repr(case)) for case in missing
    ]
    unanswered = [case for case in predictions if predictions[case] is None]
    if unanswered:
        problems.append(
            _(
                "{count} case(s) still say None: replace each None with the number of model calls you expect",
                count=len(unanswered),
            )
        )
    ran = 0
    for case, predicted in predictions.items():
        if predicted is None:
            continue
        where = _describe_case(case)
        if where is None:
            problems.append(
                _(
                    "{case} is not a case: use (expression, (tool names...)) with tool names from {tools}",
                    case=repr(case),
                    tools=", ".join(_ARITHMETIC_TOOLS),
                )
            )
            continue
        if isinstance(predicted, bool) or not isinstance(predicted, int):
            problems.append(
                _(
                    "{where}: predict a whole number of model calls, not {predicted}",
                    where=where,
                    predicted=repr(predicted),
                )
            )
            continue
        actual = _model_calls(case[0], tuple(case[1]))
        ran += 1
        if predicted < actual:
            problems.append(
                _("{where}: you predicted {predicted}; {why}", where=where, predicted=predicted, why=_(_MORE))
            )
        elif predicted > actual:
            why = _too_many(case[0], tuple(case[1]), actual)
            problems.append(
                _("{where}: you predicted {predicted}; {why}", where=where, predicted=predicted, why=why)
            )
    result = verdict(
        "4.2",
        problems,
        _(
            "all {count} predictions match the runs: model calls = depth of the dependency tree over the "
            "offered tools + 1.",
            count=len(predictions),
        ),
    )
    result.scenarios = ran
    return result


def _too_many(expression: str, names: tuple[str, ...], actual: int) -> str:
    """why a prediction is too high, for the shape of this case: no tools, a chain, or independent parts"""
    if not names:
        return _("too many. With no tools offered, the model answers in its head, in the first call")
    operations = len(re.findall(r"[-+*/]", expression))
    if actual == operations + 1:  # every operation waits for the one before it: nothing runs side by side
        return _(
            "too many. Here each operation needs the result of the one before it, so each takes one "
            "model call, and the answer one more: count the calls that wait for a result, nothing else"
        )
    return _(_FEWER)


def _same_case(case: Any) -> Any:
    """a case as the check compares it: the tools in any order"""
    if isinstance(case, tuple) and len(case) == 2 and isinstance(case[1], tuple):
        return case[0], tuple(sorted(map(str, case[1])))
    return case


def _describe_case(case: Any) -> str | None:
    """'2*3 + 4' with add, multiply - or None when the case is not (expression, tool names)"""
    if not (isinstance(case, tuple) and len(case) == 2 and isinstance(case[0], str)):
        return None
    expression, names = case
    if isinstance(names, str) or not all(name in _ARITHMETIC_TOOLS for name in names):
        return None
    if not names:
        return _("{expression} with no tools", expression=repr(expression))
    # a case's tools are a value, "with" too short a message to tell in a notebook's other lines
    return f"{expression!r} with {', '.join(names)}"


@functools.cache
def _model_calls(expression: str, names: tuple[str, ...]) -> int:
    registry = ToolRegistry(_ARITHMETIC_TOOLS[name] for name in names)
    return run_agent(mock.client(mock.Calculator()), expression, registry).model_calls


# --- Exercise 4.1 ---------------------------------------------------------------------------


class _Limited(mock.Policy):
    """another policy, until `limit` model calls; then a server error ends a loop that never stops"""

    def __init__(self, policy: mock.Policy, limit: int):
        self.policy, self.limit, self.calls = policy, limit, 0

    def reply(self, request: dict[str, Any]) -> Any:
        self.calls += 1
        if self.calls > self.limit:
            raise RuntimeError(f"called {self.calls} times; the check stops here")
        return self.policy.reply(request)


class _CountForever(mock.Policy):
    """a model that never answers: it keeps asking to count on, two additions at a time"""

    def reply(self, request: dict[str, Any]) -> mock.Reply:
        results = list(mock.tool_results(request).values())
        last = int(results[-1]) if results else 0
        return mock.calls(mock.call("add", a=last, b=1), mock.call("add", a=last + 1, b=1))


class _Reworded(mock.Policy):
    """another policy, whose replies that ask for tools also carry a finish_reason or some text"""

    def __init__(self, policy: mock.Policy, *, finish_reason: str | None = None, content: str | None = None):
        self.policy, self.finish_reason, self.content = policy, finish_reason, content

    def reply(self, request: dict[str, Any]) -> mock.Reply:
        reply = mock.policy.as_reply(self.policy.reply(request))
        if not reply.tool_calls:
            return reply
        return replace(reply, finish_reason=self.finish_reason or reply.finish_reason, content=self.content)


_CALCULATOR_TURNS = 10  # max_turns in the fixed calculator scenarios: room to spare
_RUNAWAY_TURNS = 4  # max_turns passed in the runaway scenario
_EXTRA_CALLS = 6  # calls the check allows past max_turns before it stops a loop itself


_TASKS = (
    ("5 + 8/12", ("add", "divide")),
    ("(1 + 2) * (3 + 4)", ("add", "multiply")),
    ("(1 + 2) * (3 + 4)", ("multiply",)),
    ("2*3 + 4", ("multiply", "add")),
    ("1 + 2 + 3 + 4", ("add",)),
    ("4+2 and 4+2", ("add",)),
    ("10 - 4 and 6/3 and 10 - 4", ("subtract", "divide")),
    ("Suma 4+2 y 7+8", ("add", "subtract")),
    ("(12 - 3) / (1 + 2) * 2", ("divide", "subtract", "add", "multiply")),
    ("1 + 7/0", ("add", "divide")),  # a tool that raises: the dispatcher answers with its error
    ("8/0 and 4+2", ("divide", "add")),
    ("count for ever", ("add",)),
)
_POLICIES: dict[str, Callable[[], mock.Policy]] = {
    "calculator": mock.Calculator,
    "finish_reason stop": lambda: _Reworded(mock.Calculator(), finish_reason="stop"),
    "text beside calls": lambda: _Reworded(mock.Calculator(), content="Let me work that out."),
}
_HOW = {  # how the model words its replies, said after the tools (nothing for the plain calculator)
    "calculator": "",
    "finish_reason stop": N_(
        'its replies with tool calls say finish_reason "stop", as a forced tool_choice does'
    ),
    "text beside calls": N_("its replies with tool calls also carry text"),
}


def _scenario(rng: random.Random) -> tuple[str, tuple[str, ...], str, int]:
    """a task, its tools, how the model words its replies, and max_turns: from 1 to past what it takes"""
    task, names = rng.choice(_TASKS)
    policy = "runaway" if task == "count for ever" else rng.choice(list(_POLICIES))
    return task, names, policy, rng.randint(1, 6)


def _smaller(
    scenario: tuple[str, tuple[str, ...], str, int],
) -> Iterator[tuple[str, tuple[str, ...], str, int]]:
    task, names, policy, turns = scenario
    if policy not in ("calculator", "runaway"):
        yield task, names, "calculator", turns
    # a run that answered stays one that answers: max_turns no lower than the calls it takes
    needed = _calls_needed(task, names, policy)
    floor = needed if turns >= needed else 1
    yield from ((task, names, policy, fewer) for fewer in smaller_ints(turns, floor=floor))


@functools.cache
def _calls_needed(task: str, names: tuple[str, ...], policy: str) -> int:
    if policy == "runaway":
        return 10**6
    registry = ToolRegistry(_ARITHMETIC_TOOLS[name] for name in names)
    return run_agent(mock.client(_policy(policy)), task, registry, max_turns=20).model_calls


def _describe(scenario: tuple[str, tuple[str, ...], str, int]) -> str:
    task, names, policy, turns = scenario
    if policy == "runaway":
        return _("with a model that never stops asking for tools and max_turns={turns}", turns=turns)
    if _HOW[policy]:
        return _(
            "for {task} with {tools} ({how}) and max_turns={turns}",
            task=repr(task),
            tools=", ".join(names),
            how=_(_HOW[policy]),
            turns=turns,
        )
    return _(
        "for {task} with {tools} and max_turns={turns}", task=repr(task), tools=", ".join(names), turns=turns
    )


def _policy(name: str) -> mock.Policy:
    return _CountForever() if name == "runaway" else _POLICIES[name]()


def check_my_run(my_run: Callable[..., Any]) -> Verdict:
    """Exercise 4.1: my_run(client, task, registry, max_turns) -> (answer, messages, stop_reason)

    Scenarios: the lesson's calculator tasks (one with replies that say finish_reason "stop", one
    with text beside the calls), a model that never stops, max_turns exactly the calls a task takes,
    a division by zero (a tool that raises); then 12 seeded ones: tasks with parallel, repeated and
    dependent steps, failing tools, tools missing, the three
    kinds of reply, max_turns from 1 to past what the task takes. The mock refuses unknown fields.
    Each is compared with run_agent on the same model: the messages of every request, the number of
    model calls, the stop reason, and the answer.
    """
    cases = run_scenarios()
    return judge_scenarios(
        "4.1",
        cases,
        lambda scenario: _judge_run(my_run, *scenario),
        _describe,
        _(
            "my_run answers with the model's final text, answers every tool call, and stops at "
            "max_turns with an honest message."
        ),
        _smaller,
    )


RunScenario = tuple[str, tuple[str, ...], str, int]


def run_scenarios() -> list[RunScenario]:
    """check 4.1's scenarios: the fixed ones, then 12 seeded"""
    fixed: list[RunScenario] = [
        (task, names, policy, _CALCULATOR_TURNS)
        for task, names, policy in (
            ("5 + 8/12", ("add", "divide"), "calculator"),
            ("Suma 4+2 y suma 7+8", ("add",), "calculator"),
            ("5 + 8/12", ("add", "divide"), "finish_reason stop"),
            ("5 + 8/12", ("add", "divide"), "text beside calls"),
        )
    ]
    fixed += [
        ("count for ever", ("add",), "runaway", _RUNAWAY_TURNS),
        ("5 + 8/12", ("add", "divide"), "calculator", 3),
        ("1 + 7/0", ("add", "divide"), "calculator", _CALCULATOR_TURNS),
        ("5 + 8/12", ("add", "divide"), "calculator", 0),  # no model call allowed at all
    ]
    return scenarios(fixed, _scenario, count=12, seed=5)


# the shapes lesson 04 names, each reached by run_scenarios() (tests/test_check_shapes.py)
RUN_SHAPES: dict[str, Callable[[RunScenario], bool]] = {
    "a tool that raises": lambda s: "/0" in s[0],
    "replies that say finish_reason stop": lambda s: s[2] == "finish_reason stop",
    "text beside the calls": lambda s: s[2] == "text beside calls",
    "a model that never stops": lambda s: s[2] == "runaway",
    "stopped by max_turns": lambda s: s[3] < _calls_needed(s[0], s[1], s[2]),
    "max_turns exactly the calls it takes": lambda s: s[3] == _calls_needed(s[0], s[1], s[2]),
    "parallel calls": lambda s: " and " in s[0] or "y" in s[0].split(),
    "dependent steps": lambda s: "(" in s[0],
    "max_turns=0: no model call at all": lambda s: s[3] == 0,
}


def _judge_run(
    my_run: Callable[..., Any], task: str, names: tuple[str, ...], policy: str, turns: int
) -> str | None:
    registry = ToolRegistry(_ARITHMETIC_TOOLS[name] for name in names)
    reference = run_agent(mock.client(_policy(policy)), task, registry, max_turns=turns)
    if reference.stop_reason == "max_turns":
        problems = _check_cap(my_run, _policy(policy), task, names, turns)
    else:
        problems = _check_answers(
            my_run,
            task,
            names,
            _policy(policy),
            reference.model_calls,
            reference.answer or "",
            "",
            turns,
            reference=reference,
        )
    return joined(problems)


def _attempt(
    my_run: Callable[..., Any], policy: mock.Policy, task: str, names: tuple[str, ...], turns: int
) -> tuple[openai.OpenAI, Any, list[str]]:
    """run my_run on a fresh mock client: (client, what it returned, problems)"""
    limited = _Limited(policy, turns + _EXTRA_CALLS)
    client = mock.client(limited, reject_unknown_fields=True)
    registry = ToolRegistry(_ARITHMETIC_TOOLS[name] for name in names)
    where = "my_run"
    try:
        result = my_run(client, task, registry, max_turns=turns)
    except openai.APIStatusError as error:
        if limited.calls > limited.limit:
            return (
                client,
                None,
                [
                    _(
                        "{where} kept calling the model: it made {calls} calls and would have gone on. Stop "
                        "when a reply has no tool calls, and never make more than max_turns model calls",
                        where=where,
                        calls=limited.limit,
                    )
                ],
            )
        return client, None, [_refused(where, error, len(_trace_of(client)))]
    except ZeroDivisionError as error:
        if not _raised_by_a_tool(error):
            return client, None, [_("{where} raised ZeroDivisionError: {error}", where=where, error=error)]
        return (
            client,
            None,
            [
                _(
                    "{where} raised ZeroDivisionError ({error}) from the divide tool: run each call through "
                    "registry.dispatch(call), which turns a tool's exception into an 'ERROR: ...' tool "
                    "message the model reads, instead of calling the function yourself",
                    where=where,
                    error=error,
                )
            ],
        )
    except Exception as error:  # the learner's code: report, don't crash the notebook
        raised = _(
            "{where} raised {error_type}: {error}", where=where, error_type=type(error).__name__, error=error
        )
        return client, None, [raised]
    if not (isinstance(result, (tuple, list)) and len(result) == 3):
        return (
            client,
            None,
            [
                _(
                    "{where} should return (answer, messages, stop_reason); it returned {result}",
                    where=where,
                    result=f"{result!r:.120}",
                )
            ],
        )
    return client, result, []


def _raised_by_a_tool(error: BaseException) -> bool:
    """whether the exception came out of one of this check's tools (run outside the dispatcher)"""
    innermost = traceback.extract_tb(error.__traceback__)[-1]
    return innermost.filename == __file__ and innermost.name in _ARITHMETIC_TOOLS


def _refused(where: str, error: openai.APIStatusError, calls: int) -> str:
    body = error.body if isinstance(error.body, dict) else {}
    message = str(body.get("message") or error).splitlines()[0]
    advice = _("Send a valid history.")
    if "must be followed by tool messages" in message:
        advice = _(
            "Every tool call needs its own tool message (with its tool_call_id) before the next "
            "model call: run all the calls of a reply, not only the first."
        )
    elif "must be a response to a preceeding message" in message:
        advice = _(
            "Append the assistant message, with its tool_calls, to messages before the tool "
            "messages that answer it."
        )
    return _(
        "{where}: the API refused model call {calls} (HTTP {status}): {error} {advice}",
        where=where,
        calls=calls,
        status=error.status_code,
        error=message,
        advice=advice,
    )


def _unanswered_calls(trace: Any) -> tuple[int, int, int] | None:
    """(model call, calls it asked for, calls answered in the next request) for the first reply whose
    parallel calls were not all answered"""
    for index, turn in enumerate(trace.turns[:-1]):
        ids = [call.get("id") for call in (turn.reply or {}).get("tool_calls") or []]
        sent = trace.turns[index + 1].request.get("messages") or []
        answered = {m.get("tool_call_id") for m in sent if m.get("role") == "tool"} & set(ids)
        if len(ids) > 1 and len(answered) < len(ids):
            return index + 1, len(ids), len(answered)
    return None


def _check_answers(
    my_run: Callable[..., Any],
    task: str,
    names: tuple[str, ...],
    policy: mock.Policy,
    calls: int,
    answer: str,
    how: str,
    turns: int = _CALCULATOR_TURNS,
    reference: AgentRun | None = None,
) -> list[str]:
    client, result, problems = _attempt(my_run, policy, task, names, turns)
    if problems:
        return problems
    got_answer, messages, stop_reason = result
    trace = _trace_of(client)
    where = "my_run"
    if not len(trace):
        return [_("my_run never called the model")]
    toolless = [turn.index + 1 for turn in trace if not turn.request.get("tools")]
    if len(toolless) == len(trace):
        problems.append(
            _(
                "the requests offered no tools, so the model did everything in its head. "
                "Pass tools=registry.definitions to every model call"
            )
        )
    elif toolless:
        problems.append(
            _(
                "model call {number} was sent without tools. The model only knows the tools of the request "
                "it is reading, so it did the rest in its head: pass tools=registry.definitions to every "
                "model call, not only the first",
                number=toolless[0],
            )
        )
    early_text = [
        i + 1 for i, turn in enumerate(trace.turns[:-1]) if not (turn.reply or {}).get("tool_calls")
    ]
    unanswered = _unanswered_calls(trace)
    if unanswered:
        turn, asked, answered = unanswered
        problems.append(
            _(
                "model call {number} asked for {asked} tools at once, and my_run answered {answered} of them "
                "before calling the model again: every call needs its answer. Keep the assistant message "
                "with all its tool_calls, and append one tool message per call",
                number=turn,
                asked=asked,
                answered=answered,
            )
        )
    elif early_text:
        problems.append(
            _(
                "model call {number} answered in text (no tool calls), but my_run called the model again. "
                "Stop there and return that text as the answer",
                number=early_text[0],
            )
        )
    elif len(trace) < calls and (trace[-1].reply or {}).get("tool_calls"):
        why = _still_asking(trace[-1])
        problems.append(
            _(
                "my_run stopped after {count} model call(s) while the model was still asking for tools. "
                "{why} Run them, append the results and call the model again, until a reply has no tool "
                "calls",
                count=len(trace),
                why=why,
            )
            if why
            else _(
                "my_run stopped after {count} model call(s) while the model was still asking for tools. "
                "Run them, append the results and call the model again, until a reply has no tool calls",
                count=len(trace),
            )
        )
    elif len(trace) != calls and not problems:
        problems.append(
            _("my_run made {made} model calls; this task takes {calls}", made=len(trace), calls=calls)
        )
    if problems:
        return problems
    if got_answer != answer:
        problems.append(
            _(
                "the answer should be the text of the model's last reply, {answer}; my_run returned {got}",
                answer=repr(answer),
                got=repr(got_answer),
            )
        )
    if stop_reason != "answered":
        problems.append(
            _(
                "stop_reason should be 'answered' when the model answered; got {got}. It answered on the "
                "last model call max_turns allows: a reply without tool calls is the answer, even on the "
                "last turn, so look for the answer before you check the cap",
                got=repr(stop_reason),
            )
            if len(trace) == turns
            else _(
                "stop_reason should be 'answered' when the model answered; got {got}.", got=repr(stop_reason)
            )
        )
    problems += _answer_order(where, trace[-1].messages)
    if not problems and reference is not None:
        problems += _same_requests(where, trace, reference.trace)
    if not isinstance(messages, list):
        problems.append(
            _("messages should be the list of messages; got {kind}", kind=type(messages).__name__)
        )
    elif not all(isinstance(m, dict) for m in messages):
        kind = type(next(m for m in messages if not isinstance(m, dict))).__name__
        problems.append(
            _(
                "messages holds a {kind}: append plain dicts (role, content, tool_calls), as lesson 02 "
                "does, so the history can be printed, saved and sent to any server",
                kind=kind,
            )
        )
    elif len(messages) != len(trace[-1].messages) + 1 or _role(messages[-1]) != "assistant":
        problems.append(
            _(
                "messages should hold the whole conversation: the {sent} messages of the last request plus "
                "the model's final reply; it has {count} message(s)",
                sent=len(trace[-1].messages),
                count=len(messages),
            )
        )
    return problems


def _answer_order(where: str, sent: list[dict[str, Any]]) -> list[str]:
    """the tool messages after each assistant message answer its calls in the order they came"""
    for position, message in enumerate(sent):
        asked = [call["id"] for call in message.get("tool_calls") or []]
        answered = [m.get("tool_call_id") for m in sent[position + 1 : position + 1 + len(asked)]]
        if asked and answered != asked:
            return [
                _(
                    "the calls {asked} were answered in the order {answered}. Run the calls "
                    "of a reply in the order they came and append each result in that order",
                    asked=asked,
                    answered=answered,
                )
            ]
    return []


def _still_asking(turn: Any) -> str:
    """why a loop might have taken this reply for an answer"""
    reply = turn.reply or {}
    if turn.finish_reason != "tool_calls":
        return _(
            "Its reply had tool_calls and finish_reason {reason}: a reply asks for "
            "tools when it has tool_calls, whatever finish_reason says.",
            reason=repr(turn.finish_reason),
        )
    if reply.get("content"):
        return _(
            "Its reply had text beside its tool_calls: a reply asks for tools when it has "
            "tool_calls, even with text."
        )
    return ""


def _check_cap(
    my_run: Callable[..., Any], policy: mock.Policy, task: str, names: tuple[str, ...], turns: int
) -> list[str]:
    client, result, problems = _attempt(my_run, policy, task, names, turns)
    if problems:
        return problems
    answer, messages, stop_reason = result
    made = len(_trace_of(client))
    if made > turns:
        problems.append(_("my_run made {made} model calls: stop after max_turns model calls", made=made))
    elif made < turns:
        problems.append(
            _(
                "my_run gave up after {made} model call(s): max_turns={turns} allows {turns} model calls "
                "(count model calls, not loop steps or tool calls)",
                made=made,
                turns=turns,
            )
        )
    if stop_reason != "max_turns":
        problems.append(_("stop_reason should be 'max_turns'; got {got}", got=repr(stop_reason)))
    if isinstance(answer, str) and _quotes_a_result(answer, messages):
        problems.append(
            _(
                "the answer at max_turns should say the run stopped without a final answer; {answer} "
                "presents a tool's result as the answer, but the model never answered: say that it "
                "stopped at max_turns={turns}",
                answer=repr(answer),
                turns=turns,
            )
        )
    elif not (isinstance(answer, str) and answer.strip()) or _not_a_message(answer, messages):
        problems.append(
            _(
                "the answer should be an honest message saying the run stopped at max_turns without a "
                "final answer; got {answer}, which is not a message of your own: it reads like a result of "
                "the run, but the model never answered",
                answer=repr(answer),
            )
            if isinstance(answer, str) and answer.strip()
            else _(
                "the answer should be an honest message saying the run stopped at max_turns without a "
                "final answer; got {answer}",
                answer=repr(answer),
            )
        )
    if turns > 0 and isinstance(messages, list) and messages and _role(messages[-1]) != "tool":
        problems.append(
            _(
                "the last message should be the tool result answering the last call; it is a {role} "
                "message. Answer every call, even on the last turn",
                role=repr(_role(messages[-1])),
            )
        )
    return problems


def _same_requests(where: str, trace: Any, expected: Any) -> list[str]:
    """every request's messages as run_agent sends them on the same model"""
    for turn, reference in zip(trace, expected, strict=False):
        sent, wanted = _wire_all(turn.messages), _wire_all(reference.messages)
        if sent == wanted:
            continue
        if len(sent) != len(wanted):
            return [
                _(
                    "model call {number} sent {sent} message(s); run_agent sends {wanted}",
                    number=turn.index + 1,
                    sent=len(sent),
                    wanted=len(wanted),
                )
            ]
        index = next(i for i, (a, b) in enumerate(zip(sent, wanted, strict=True)) if a != b)
        return [
            _(
                "model call {number}: message [{index}] {difference}",
                number=turn.index + 1,
                index=index,
                difference=_difference(sent[index], wanted[index]),
            )
        ]
    return []


def _wire_all(messages: list[Any]) -> list[Any]:
    """the messages without their null fields (an assistant's missing text may go as null or ""), each
    call id replaced by its place (the mock's ids hash the request)"""
    text = json.dumps(
        [{k: v for k, v in m.items() if v is not None and (k, v) != ("content", "")} for m in messages]
    )
    for number, call_id in enumerate(dict.fromkeys(re.findall(r'"(call_[0-9a-f]+)"', text))):
        text = text.replace(f'"{call_id}"', f'"call {number + 1}"')
    wired: list[Any] = json.loads(text)
    return wired


def _difference(yours: Any, expected: dict[str, Any]) -> str:
    """how one message differs from run_agent's: its fields, or the first value that differs"""
    if not isinstance(yours, dict):
        return _("is a {kind}, not a dict", kind=type(yours).__name__)
    extra, missing = sorted(set(yours) - set(expected)), sorted(set(expected) - set(yours))
    if extra or missing:
        return _(
            "has the fields {yours}; run_agent's has {expected}",
            yours=sorted(yours),
            expected=sorted(expected),
        )
    key = next(k for k in expected if yours[k] != expected[k])
    return _(
        "differs in {key}: yours is {yours}, run_agent's {expected}",
        key=repr(key),
        yours=f"{yours[key]!r:.80}",
        expected=f"{expected[key]!r:.80}",
    )


def _not_a_message(answer: str, messages: Any) -> bool:
    """an 'answer' at the cap that is a number, 'None', or a content copied from the history"""
    text = answer.strip()
    try:
        float(text)
        return True
    except ValueError:
        pass
    if text in ("None", "null"):
        return True
    contents = [
        m.get("content") if isinstance(m, dict) else getattr(m, "content", None) for m in messages or []
    ]
    return any(isinstance(c, str) and c.strip() == text for c in contents)


_STOP_WORDS = (
    *("stop", "turn", "limit", "max", "cap", "without", "no final", "no answer", "gave up", "give up"),
    *("budget", "unfinished", "incomplete", "not finish", "n't finish", "ran out"),
    # the same in Spanish: the learner writes the honest message in either language
    *("detuv", "detengo", "paré", "parar", "límite", "tope", "máximo", "sin respuesta", "sin terminar"),
    *("no terminé", "incomplet", "agoté", "se acab", "turnos", "presupuesto"),
)


def _quotes_a_result(answer: str, messages: Any) -> bool:
    """an answer at the cap that quotes the last tool result and says nothing of stopping"""
    results = [m.get("content") for m in messages or [] if isinstance(m, dict) and m.get("role") == "tool"]
    last = str(results[-1]).strip() if results else ""
    quoted = bool(last) and re.search(rf"(?<![\w.]){re.escape(last)}(?!\w|\.\d)", answer) is not None
    return quoted and answer.strip() != last and not any(word in answer.lower() for word in _STOP_WORDS)


def _role(message: Any) -> Any:
    return message.get("role") if isinstance(message, dict) else getattr(message, "role", None)


# --- the input space the exercises' words name (tests/test_input_space.py) ---------------------------

RUN_SPACE: dict[str, Dimension[RunScenario]] = {
    "replies": Dimension(
        "replies whose `finish_reason` or text could fool a loop",
        {
            **forms_of(RUN_SHAPES, "replies that say finish_reason stop", "text beside the calls"),
            "plain replies": lambda s: s[2] == "calculator",
        },
    ),
    "caps": Dimension(
        "never make more than `max_turns` model calls",
        forms_of(
            RUN_SHAPES,
            "stopped by max_turns",
            "max_turns exactly the calls it takes",
            "a model that never stops",
            "max_turns=0: no model call at all",
        ),
    ),
    "calls": Dimension(
        "answer **every** call",
        forms_of(RUN_SHAPES, "parallel calls", "dependent steps", "a tool that raises"),
    ),
}

PREDICTION_SPACE: dict[str, Dimension[tuple[str, tuple[str, ...]]]] = {
    "expressions": Dimension(
        "For each expression and set of tools below",
        forms_of(
            PREDICTION_SHAPES,
            "independent operations in one call",
            "a step that waits for another's result",
            "a chain where nothing is independent",
        ),
    ),
    "tools": Dimension(
        "set of tools",
        {
            **forms_of(PREDICTION_SHAPES, "an operation with no tool offered", "no tools at all"),
            "every tool the expression needs": lambda c: set(c[1]) >= {"add", "multiply"},
        },
    ),
}
