"""Checks for lesson 02's exercise: one round trip of tool calls."""

from __future__ import annotations

import functools
import json
import random
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import openai

from .. import mock
from .._i18n import N_, _
from ..schema import tool
from . import Verdict, _trace_of
from ._scenarios import Dimension, forms_of, joined, judge_scenarios, scenarios, smaller_lists

__all__ = ["check_ask_once"]

READINGS = {"Paris": {"sky": "light rain", "celsius": 18}, "Tokyo": {"sky": "clear", "celsius": 27}}


def get_weather(city: str, with_wind: bool = True) -> dict[str, Any]:
    """Current weather in a city: the sky and the temperature in degrees Celsius, and the wind if asked."""
    reading = READINGS.get(city, {"sky": "unknown", "celsius": None})
    return {"city": city, **reading, **({"wind_kmh": 12} if with_wind else {})}


def get_sky(city: str) -> str:
    """The sky over a city, in words."""
    return f"light snow over {city}"


def _sky_model(request: dict[str, Any]) -> Any:
    """asks for the sky over Zürich, its arguments sent as a real model sends them (ü as it is, not
    \\u00fc), then quotes the text result it reads"""
    results = mock.tool_results(request)
    if not results:
        return mock.call("get_sky", '{"city": "Zürich"}')
    return f"The sky: {list(results.values())[-1]}"


def add(a: float, b: float) -> float:
    """Add two numbers."""
    return a + b


def divide(a: float, b: float) -> float:
    """Divide a by b."""
    return a / b


def subtract(a: float, b: float) -> float:
    """Subtract b from a."""
    return a - b


def multiply(a: float, b: float) -> float:
    """Multiply two numbers."""
    return a * b


_ARITHMETIC = {"+": add, "-": subtract, "*": multiply, "/": divide}


def _weather_model(request: dict[str, Any]) -> Any:
    """asks for Tokyo's weather (its arguments hold a JSON `false`), then answers from the JSON result it
    reads"""
    results = mock.tool_results(request)
    if not results:
        return mock.call("get_weather", city="Tokyo", with_wind=False)
    report = list(results.values())[-1]
    try:
        data = json.loads(report)
        return f"No umbrella: {data['sky']} and {data['celsius']}°C in {data['city']}."
    except (ValueError, KeyError, TypeError):
        return f"I received a weather report I could not read as JSON: {report}"


def _divide_model(content: str | None, finish_reason: str | None) -> Callable[[dict[str, Any]], Any]:
    """asks for 9/12, with text beside the call or a finish_reason of its own, then quotes the result

    Its arguments name b before a: a JSON object's keys need not follow the signature's order.
    """

    def reply(request: dict[str, Any]) -> Any:
        results = mock.tool_results(request)
        if not results:
            return mock.Reply(
                content=content, tool_calls=(mock.call("divide", b=12, a=9),), finish_reason=finish_reason
            )
        return f"9/12 = {list(results.values())[-1]}"

    return reply


@dataclass(frozen=True)
class Case:
    """one question the check asks ask_once(), the model that answers it, and what to say if it stops early"""

    question: str
    policy: Any
    functions: dict[str, Callable[..., Any]]
    stopped_early: str
    operations: tuple[tuple[str, float, float], ...] = ()  # a generated question's arithmetic
    phrase: str = ""  # and the sentence it was put in


_ROUND_TRIP_CASES = [
    Case(
        "Do I need an umbrella in Tokyo?",
        _weather_model,
        {"get_weather": get_weather},
        N_("the model asked for a tool: run it and call the model again with the result"),
    ),
    Case(
        # divide is offered first: the function to run is the one the call names
        "What are 4+2 and 7+8?",
        mock.Calculator(),
        {"divide": divide, "add": add},
        N_("the model asked for two calls at once: run them and call the model again with both results"),
    ),
    Case(
        "What is 9 divided by 12?",
        _divide_model("Let me divide that first.", None),
        {"divide": divide},
        N_(
            "the model's reply had text AND a tool call; a reply asks for tools whenever "
            "message.tool_calls is not empty, whatever its text says"
        ),
    ),
    Case(
        "What is 9 divided by 12?",
        _divide_model(None, "stop"),
        {"divide": divide},
        N_(
            "the model's reply said finish_reason 'stop' and carried a tool call (the API answers a forced "
            "tool_choice that way): recognise a call by message.tool_calls, not by finish_reason"
        ),
    ),
    Case(
        "Is it snowing in Zürich?",
        _sky_model,
        {"get_sky": get_sky},
        N_("the model asked for a tool: run it and call the model again with the result"),
    ),
]


def _refusal(error: openai.APIStatusError) -> str:
    body = error.body if isinstance(error.body, dict) else {}
    return " ".join(str(body.get("message", error)).splitlines()[0].split())


_PHRASES = ("What are {}?", "Compute {}.", "¿Cuánto es {}?", "Was ist {}?")


def _arithmetic_case(
    operations: tuple[tuple[str, float, float], ...], offered: tuple[str, ...], phrase: str
) -> Case:
    """independent operations in one question, the calculator's tools offered in this order"""
    listed = [f"{a}{op}{b}" for op, a, b in operations]
    joined = listed[0] if len(listed) == 1 else ", ".join(listed[:-1]) + " and " + listed[-1]
    functions = {name: f for name in offered for f in _ARITHMETIC.values() if f.__name__ == name}
    return Case(
        phrase.format(joined),
        mock.Calculator(),
        functions,
        N_("the model asked for tools: run every call and call the model again with the results"),
        operations,
        phrase,
    )


def _arithmetic(rng: random.Random) -> Case:
    """1 to 4 operations, often the same one twice (each call is run and answered on its own)"""
    numbers = (0, 1, 2, 3, 4, 7, 8, 12, -3, 2.5, 0.1)
    operations = [(rng.choice("+-*/"), rng.choice(numbers), rng.choice((1, 2, 3, 4, 7, 12, -3, 2.5)))]
    for _extra in range(rng.randint(0, 3)):
        operations.append(
            rng.choice(operations)
            if rng.random() < 0.4
            else (rng.choice("+-*/"), rng.choice(numbers), rng.choice((1, 2, 4, 7, 2.5)))
        )
    names = [_ARITHMETIC[op].__name__ for op, _, _ in operations]
    offered = {names[0], *(n for n in ("add", "subtract", "multiply", "divide") if rng.random() < 0.5)}
    order = sorted(offered, key=lambda _: rng.random())
    return _arithmetic_case(tuple(operations), tuple(order), rng.choice(_PHRASES))


def _fewer_operations(case: Case) -> Iterator[Case]:
    """the same question with fewer operations or fewer tools, still asking for at least one tool"""
    for fewer in smaller_lists(case.operations):
        if any(_ARITHMETIC[op].__name__ in case.functions for op, _, _ in fewer):
            yield _arithmetic_case(tuple(fewer), tuple(case.functions), case.phrase)
    for name in case.functions if case.operations else ():
        fewer_tools = tuple(n for n in case.functions if n != name)
        if any(_ARITHMETIC[op].__name__ in fewer_tools for op, _, _ in case.operations):
            yield _arithmetic_case(case.operations, fewer_tools, case.phrase)


def _describe(case: Case) -> str:
    return _(
        "on {question} with the tools {tools}", question=repr(case.question), tools=", ".join(case.functions)
    )


def check_ask_once(ask_once: Callable[..., Any]) -> Verdict:
    """Exercise 2.1: one round trip: every call run, answered in order and tied by id; the answer returned

    Scenarios: five fixed questions (a dict result, two parallel calls, text beside a call, a call with
    finish_reason "stop", a text result for non-ASCII arguments), then 30 seeded ones of 1 to 4
    independent operations, often the same one twice, with the four arithmetic tools offered in any
    order, some missing, in English, Spanish and German. The mock refuses unknown fields. Compared with
    the reference: the second request's messages, how many times each function ran, and the answer
    returned.
    """
    cases = round_trip_scenarios()
    return judge_scenarios(
        "2.1",
        cases,
        lambda case: joined(_case_problems(ask_once, case)),
        _describe,
        _("one round trip: every call run and answered by id, in order; then the model's answer."),
        _fewer_operations,
    )


def round_trip_scenarios() -> list[Case]:
    """check 2.1's scenarios: the fixed ones, then 30 seeded"""
    return scenarios(_ROUND_TRIP_CASES, _arithmetic, count=30, seed=2)


def _names_called(case: Case) -> list[str]:
    return [_ARITHMETIC[op].__name__ for op, _, _ in case.operations]


# the shapes lesson 02 names, each reached by round_trip_scenarios() (tests/test_check_shapes.py)
ROUND_TRIP_SHAPES: dict[str, Callable[[Case], bool]] = {
    "a dict result": lambda case: "get_weather" in case.functions,
    "a text result": lambda case: any(f is get_sky for f in case.functions.values()),
    "non-ASCII arguments": lambda case: not case.question.isascii() and not case.operations,
    "two calls in one reply": lambda case: len(case.operations) >= 2 or " and " in case.question,
    "the same call twice": lambda case: len(set(case.operations)) < len(case.operations),
    "a tool offered but not called": lambda case: (
        bool(case.operations) and bool(set(case.functions) - set(_names_called(case)))
    ),
    "a question not in English": lambda case: case.phrase.startswith(("¿", "Was")),
    "a float result": lambda case: any(op == "/" for op, _, _ in case.operations),
}


def _case_problems(ask_once: Callable[..., Any], case: Case) -> list[str]:
    client = mock.client(case.policy, reject_unknown_fields=True)
    tools = [tool(f).definition for f in case.functions.values()]
    refused = ""
    ran: Counter[str] = Counter()
    try:
        answer = ask_once(
            client, case.question, tools, {name: _counted(f, ran) for name, f in case.functions.items()}
        )
    except openai.BadRequestError as error:
        refused = _(
            "the server refused call {number} (HTTP 400): {error}",
            number=len(_trace_of(client)),
            error=_refusal(error),
        )
    except NameError as error:
        if getattr(error, "name", None) in {"true", "false", "null"}:
            return [
                _(
                    "ask_once() raised NameError: {error}. The arguments are JSON, not Python (JSON writes "
                    "true, false and null): read them with json.loads(call.function.arguments)",
                    error=error,
                )
            ]
        return [_("ask_once() raised NameError: {error}", error=error)]
    trace = _trace_of(client)
    if not trace:
        return [_("ask_once() never called the model")]
    problems = [
        _(
            "call {number} was sent without tools: send tools=tools on every call (the model knows only "
            "the tools of the request it is reading)",
            number=i + 1,
        )
        for i, turn in enumerate(trace)
        if not turn.request.get("tools")
    ][:1]
    if len(trace) == 1 and not refused:
        stopped = _("ask_once() called the model once and stopped: {why}", why=_(case.stopped_early))
        return [*problems, stopped]
    if len(trace) > 2:
        return [
            *problems,
            _("ask_once() called the model {count} times; one round trip is 2 calls", count=len(trace)),
        ]
    problems += _second_call_problems(trace[0].reply or {}, trace[1].messages, case)
    if problems:
        return problems
    if refused:
        return [refused]
    asked = Counter(c["function"]["name"] for c in (trace[0].reply or {}).get("tool_calls") or [])
    for name in sorted(asked):
        if ran[name] != asked[name]:
            return [
                _(
                    "the model asked for {name} {asked}; yours ran it {ran}",
                    name=name,
                    asked=_times(asked[name]),
                    ran=_times(ran[name]),
                )
            ]
    final_text = (trace[-1].reply or {}).get("content")
    if answer != final_text:
        return [
            _(
                "return the final answer's text ({expected}); ask_once() returned {answer}",
                expected=repr(final_text),
                answer=repr(answer),
            )
        ]
    return []


def _second_call_problems(reply: dict[str, Any], sent: list[dict[str, Any]], case: Case) -> list[str]:
    """what is wrong with the messages of the second call"""
    calls = reply.get("tool_calls") or []
    expected_roles = ["user", "assistant"] + ["tool"] * len(calls)
    roles = [m.get("role") if isinstance(m, dict) else type(m).__name__ for m in sent]
    if roles.count("tool") < len(calls) and roles[:2] == ["user", "assistant"]:
        return [
            _(
                "the model asked for {calls} call(s) and the second request answered {answered}: every "
                "call needs its own tool message",
                calls=len(calls),
                answered=roles.count("tool"),
            )
        ]
    if roles != expected_roles:
        return [
            _(
                "the second call should send the roles {expected}; it sent {roles}",
                expected=expected_roles,
                roles=roles,
            )
        ]
    assistant, answers = sent[1], sent[2:]
    if set(assistant) - {"role", "content", "tool_calls"}:
        extra = sorted(set(assistant) - {"role", "content", "tool_calls"})
        return [
            _(
                "the assistant message carries {extra}: send a plain dict with role, content and "
                "tool_calls only (a dumped SDK object carries "
                "fields a server that rejects unknown fields refuses)",
                extra=extra,
            )
        ]
    if assistant.get("tool_calls") != calls:
        if _reencoded(assistant.get("tool_calls"), calls):
            return [
                _(
                    "the assistant message's tool_calls hold the arguments re-encoded (json.dumps writes 'ü' "
                    "as '\\u00fc'): copy call.function.arguments as the model sent it, text for text"
                )
            ]
        return [
            _(
                "the assistant message should carry the model's tool_calls exactly as they came "
                "(id, type, function name, arguments as the JSON string)"
            )
        ]
    text = reply.get("content")
    if text and assistant.get("content") != text:
        return [
            _(
                "the assistant message you appended holds the content {content}; the model's reply said "
                "{text} beside its call: append the assistant message with its text as well as its "
                "tool_calls",
                content=repr(assistant.get("content")),
                text=repr(text),
            )
        ]
    ids, wanted = [m.get("tool_call_id") for m in answers], [c["id"] for c in calls]
    if sorted(map(str, ids)) == sorted(wanted) and ids != wanted:
        return [_("answer the calls in the order they came: the first tool message answers the first call")]
    problems = []
    for position, (message, call) in enumerate(zip(answers, calls, strict=True)):
        if message.get("tool_call_id") != call["id"]:
            problems.append(
                _(
                    "tool message {number} has tool_call_id {given}; it should be its call's id, {wanted}",
                    number=position + 1,
                    given=repr(message.get("tool_call_id")),
                    wanted=repr(call["id"]),
                )
            )
            continue
        function = case.functions[call["function"]["name"]]
        expected = function(**json.loads(call["function"]["arguments"]))
        content = message.get("content")
        called = f"{call['function']['name']}({call['function']['arguments']})"
        if isinstance(expected, str) and content != expected:
            problems.append(
                _(
                    "{name} returned the text {expected}; its tool message holds {content}. Send a string "
                    "result as it is: json.dumps() of a string adds quotes the model would read",
                    name=call["function"]["name"],
                    expected=repr(expected),
                    content=repr(content),
                )
                if _is_json_of(content, expected)
                else _(
                    "the tool message for {call} should hold that call's result, {expected}; it holds "
                    "{content}",
                    call=called,
                    expected=repr(expected),
                    content=repr(content),
                )
            )
        elif (
            not isinstance(expected, str) and content == str(expected) and not _is_json_of(content, expected)
        ):
            problems.append(
                _(
                    "the tool message's content is Python's str() of the result; send it as JSON "
                    "(json.dumps(result), or tool_message(call, result))"
                )
            )
        elif not (content == expected or _is_json_of(content, expected)):
            problems.append(
                _(
                    "the tool message for {call} should hold that call's result, {expected}; it holds "
                    "{content} (run the function the call names, with its arguments by name: "
                    "functions[name](**arguments))",
                    call=called,
                    expected=json.dumps(expected),
                    content=repr(content),
                )
            )
    return problems


def _reencoded(sent: Any, calls: list[dict[str, Any]]) -> bool:
    """the same calls, but some arguments written as other JSON text for the same values"""
    try:
        return len(sent) == len(calls) and all(
            json.loads(a["function"]["arguments"]) == json.loads(b["function"]["arguments"])
            for a, b in zip(sent, calls, strict=True)
        )
    except (TypeError, KeyError, ValueError):
        return False


def _counted(function: Callable[..., Any], ran: Counter[str]) -> Callable[..., Any]:
    """the function, counting its runs; it keeps its name, signature and docstring"""

    @functools.wraps(function)
    def counted(*args: Any, **kwargs: Any) -> Any:
        ran[function.__name__] += 1
        return function(*args, **kwargs)

    return counted


def _times(count: int) -> str:
    return _("{count} time", count=count) if count == 1 else _("{count} times", count=count)


def _is_json_of(content: Any, expected: Any) -> bool:
    try:
        return isinstance(content, str) and json.loads(content) == expected
    except ValueError:
        return False


# --- the input space the exercise's words name (tests/test_input_space.py) ----------------------------

ROUND_TRIP_SPACE: dict[str, Dimension[Case]] = {
    "results": Dimension(
        "a weather tool whose result is a dict",
        forms_of(ROUND_TRIP_SHAPES, "a dict result", "a text result", "a float result"),
    ),
    "calls": Dimension(
        "runs **every** call the model asks for",
        {
            **forms_of(ROUND_TRIP_SHAPES, "two calls in one reply", "a tool offered but not called"),
            "one call": lambda case: len(case.operations) == 1,
        },
    ),
    "the same call": Dimension(
        "some asking for the same call twice",
        {
            **forms_of(ROUND_TRIP_SHAPES, "the same call twice"),
            "different calls": lambda case: len(set(case.operations)) == len(case.operations) > 1,
        },
    ),
    "languages": Dimension(
        "thirty arithmetic questions",
        {
            **forms_of(ROUND_TRIP_SHAPES, "a question not in English", "non-ASCII arguments"),
            "an English question": lambda case: case.phrase.startswith(("What", "Compute")),
        },
    ),
}
