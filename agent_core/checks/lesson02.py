"""Checks for lesson 02's exercises: tool calls."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import openai

from .. import mock
from ..calls import assistant_message
from ..schema import tool
from . import Verdict, verdict

__all__ = ["check_ask_once", "check_answer_calls"]

WEATHER_QUESTION = "Do I need an umbrella in Paris?"
READINGS = {"Paris": {"sky": "light rain", "celsius": 18}, "Tokyo": {"sky": "clear", "celsius": 27}}


def get_weather(city: str) -> dict:
    """Current weather in a city: the sky and the temperature in degrees Celsius."""
    reading = READINGS.get(city, {"sky": "unknown", "celsius": None})
    return {"city": city, **reading}


def add(a: float, b: float) -> float:
    """Add two numbers."""
    return a + b


def _weather_model(request: dict[str, Any]) -> Any:
    """asks for Paris's weather, then answers from the JSON result it reads"""
    results = mock.tool_results(request)
    if not results:
        return mock.call("get_weather", city="Paris")
    report = list(results.values())[-1]
    try:
        data = json.loads(report)
        return f"Yes: {data['sky']} and {data['celsius']}°C in {data['city']}. Take an umbrella."
    except (ValueError, KeyError, TypeError):
        return f"I received a weather report I could not read as JSON: {report}"


def _refusal(error: openai.APIStatusError) -> str:
    body = error.body if isinstance(error.body, dict) else {}
    return " ".join(str(body.get("message", error)).split())


def check_ask_once(ask_once: Callable[..., Any]) -> Verdict:
    """Exercise 2.1: one round trip, with the assistant message and a tool message tied to it"""
    client = mock.client(_weather_model, reject_unknown_fields=True)
    tools = [tool(get_weather).definition]
    problems: list[str] = []
    try:
        answer = ask_once(client, WEATHER_QUESTION, tools, {"get_weather": get_weather})
    except openai.BadRequestError as error:
        return verdict(
            "2.1", [f"the server refused the second call (HTTP 400): {_refusal(error)}"], ""
        )
    except Exception as error:  # the learner's code: report, don't crash the notebook
        return verdict("2.1", [f"ask_once() raised {type(error).__name__}: {error}"], "")
    trace = client.trace
    if len(trace) == 0:
        return verdict("2.1", ["ask_once() never called the model"], "")
    if not trace[0].request.get("tools"):
        problems.append("offer the tools in the first call: tools=tools")
    if len(trace) == 1:
        problems.append(
            "ask_once() called the model once; call it a second time, with the assistant message "
            "and the tool message appended, to get the answer"
        )
    elif len(trace) > 2:
        problems.append(
            f"ask_once() called the model {len(trace)} times; one round trip is 2 calls"
        )
    else:
        problems += _round_trip_problems(trace[0].reply, trace[1].messages)
    final_text = (trace[-1].reply or {}).get("content")
    if not problems and answer != final_text:
        problems.append(
            f"return the final answer's text ({final_text!r}); ask_once() returned {answer!r}"
        )
    return verdict("2.1", problems, "one round trip: request, your function's result, the answer.")


def _round_trip_problems(reply: dict[str, Any], sent: list[dict[str, Any]]) -> list[str]:
    """what is wrong with the messages of the second call"""
    roles = [m.get("role") for m in sent]
    if roles != ["user", "assistant", "tool"]:
        return [f"the second call should send user, assistant, tool messages; it sent {roles}"]
    assistant, result = sent[1], sent[2]
    call = reply["tool_calls"][0]
    problems = []
    if assistant.get("tool_calls") != reply["tool_calls"]:
        problems.append(
            "the assistant message should carry the model's tool_calls exactly as they came "
            "(id, type, function name, arguments as the JSON string)"
        )
    if result.get("tool_call_id") != call["id"]:
        problems.append(
            f"the tool message's tool_call_id is {result.get('tool_call_id')!r}; it should be "
            f"the call's id, {call['id']!r}"
        )
    expected = get_weather(**json.loads(call["function"]["arguments"]))
    content = result.get("content")
    if content == str(expected):
        problems.append(
            "the tool message's content is Python's str() of the dict; send it as JSON "
            "(json.dumps(result), or tool_message(call, result))"
        )
    elif not _is_json_of(content, expected):
        problems.append(
            f"the tool message's content should be the result as JSON text; it is {content!r}"
        )
    return problems


def _is_json_of(content: Any, expected: Any) -> bool:
    try:
        return isinstance(content, str) and json.loads(content) == expected
    except ValueError:
        return False


def check_answer_calls(answer_calls: Callable[..., Any]) -> Verdict:
    """Exercise 2.2: one tool message per call, in order, so the API accepts the conversation"""
    client = mock.client(mock.Calculator(), reject_unknown_fields=True)
    tools = [tool(add).definition]
    messages: list[dict[str, Any]] = [{"role": "user", "content": "What are 4+2 and 7+8?"}]
    response = client.chat.completions.create(model="mock-model", messages=messages, tools=tools)
    calls = response.choices[0].message.tool_calls
    try:
        answers = answer_calls(response, {"add": add})
    except Exception as error:  # the learner's code: report, don't crash the notebook
        return verdict("2.2", [f"answer_calls() raised {type(error).__name__}: {error}"], "")
    if not isinstance(answers, list):
        return verdict(
            "2.2",
            [f"answer_calls() should return a list of messages, not {type(answers).__name__}"],
            "",
        )
    problems = []
    if len(answers) != len(calls):
        problems.append(
            f"the model made {len(calls)} calls and answer_calls() returned {len(answers)} tool message(s)"
        )
    if any(not isinstance(m, dict) or m.get("role") != "tool" for m in answers):
        problems.append(
            "every item should be a tool message: {'role': 'tool', 'tool_call_id': ..., 'content': ...}"
        )
    ids = [m.get("tool_call_id") if isinstance(m, dict) else None for m in answers]
    expected_ids = [c.id for c in calls]
    if sorted(map(str, ids)) == sorted(expected_ids) and ids != expected_ids:
        problems.append(
            "answer the calls in the order they came: the first tool message answers the first call"
        )
    messages += [assistant_message(response), *answers]
    try:
        final = client.chat.completions.create(model="mock-model", messages=messages, tools=tools)
    except openai.BadRequestError as error:
        problems.append(f"the API refuses the conversation: {_refusal(error)}")
        return verdict("2.2", problems, "")
    answer = final.choices[0].message.content
    if answer != "4 + 2 = 6\n7 + 8 = 15":
        problems.append(f"the model's answer is {answer!r}; check each result is the right call's")
    return verdict("2.2", problems, "every call answered, each result tied to its own call.")
