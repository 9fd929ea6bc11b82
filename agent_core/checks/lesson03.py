"""Checks for lesson 03's exercises: the dispatcher."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ..dispatch import ToolRegistry, is_error
from . import Verdict, verdict

__all__ = ["check_safe_dispatch", "check_honest_tool"]


def add(a: int, b: int) -> int:
    """Add two whole numbers."""
    return a + b


def divide(a: float, b: float) -> float:
    """Divide a by b."""
    return a / b


def get_weather(city: str) -> str:
    """Current weather in a city, as a short text."""
    return {"Paris": "light rain, 18°C", "Tokyo": "clear, 27°C"}.get(city, f"no reading for {city}")


def get_forecast(city: str, days: int) -> list:
    """The forecast for the next few days in a city."""
    return [{"day": day + 1, "city": city, "sky": "clear"} for day in range(days)]


FUNCTIONS = {"add": add, "divide": divide, "get_weather": get_weather, "get_forecast": get_forecast}


def _call(number: int, name: str, arguments: str) -> dict[str, Any]:
    return {
        "id": f"call_{number}",
        "type": "function",
        "function": {"name": name, "arguments": arguments},
    }


def _expect_text(expected: str) -> Callable[[str], str | None]:
    def judge(content: str) -> str | None:
        if content == expected:
            return None
        if content == json.dumps(expected) or content == json.dumps(expected, ensure_ascii=False):
            return f"a string result goes back as it is, not as JSON: send {expected!r}, not {content!r}"
        return f"the content should be {expected!r}, not {content!r}"

    return judge


def _expect_json(expected: Any) -> Callable[[str], str | None]:
    def judge(content: str) -> str | None:
        try:
            if json.loads(content) == expected:
                return None
        except ValueError:
            pass
        return f"a result that is not a string goes back as JSON ({json.dumps(expected)}), not {content!r}"

    return judge


def _expect_error(*needed: str, why: str) -> Callable[[str], str | None]:
    def judge(content: str) -> str | None:
        if not content.startswith("ERROR: "):
            return f"the content should start with 'ERROR: ' and {why}; it is {content!r}"
        missing = [text for text in needed if text.lower() not in content.lower()]
        if missing:
            return (
                f"the error should {why}; {', '.join(map(repr, missing))} missing from {content!r}"
            )
        return None

    return judge


CASES = [
    (_call(1, "add", '{"a": 4, "b": 2}'), _expect_json(6)),
    (_call(2, "get_weather", '{"city": "Paris"}'), _expect_text("light rain, 18°C")),
    (
        _call(3, "get_forecast", '{"city": "Tokyo", "days": 2}'),
        _expect_json(get_forecast("Tokyo", 2)),
    ),
    (
        _call(4, "sum", '{"a": 4, "b": 2}'),
        _expect_error(
            *FUNCTIONS, why="name every tool that exists (add, divide, get_weather, get_forecast)"
        ),
    ),
    (
        _call(5, "add", '{"a": 4, "b": 2'),
        _expect_error("JSON", why="say the arguments are not valid JSON"),
    ),
    (
        _call(6, "divide", '{"a": 1, "b": 0}'),
        _expect_error(
            "ZeroDivisionError", "division by zero", why="give the exception's type and message"
        ),
    ),
    (
        _call(7, "add", '{"a": 4}'),
        _expect_error("TypeError", why="give the exception's type and message"),
    ),
]


def check_safe_dispatch(safe_dispatch: Callable[[dict, dict], Any]) -> Verdict:
    """Exercise 3.1: every call, good or bad, is answered with a tool message; errors say what happened"""
    problems = []
    for call, judge in CASES:
        shown = f"{call['function']['name']}({call['function']['arguments']})"
        try:
            message = safe_dispatch(dict(FUNCTIONS), call)
        except Exception as error:  # the learner's code: report, don't crash the notebook
            problems.append(
                f"{shown}: safe_dispatch raised {type(error).__name__}: {error}; "
                "return an error observation instead"
            )
            continue
        if not isinstance(message, dict) or message.get("role") != "tool":
            problems.append(
                f"{shown}: return a tool message {{'role': 'tool', ...}}, not {message!r}"
            )
            continue
        if message.get("tool_call_id") != call["id"]:
            problems.append(f"{shown}: tool_call_id should be the call's id {call['id']!r}")
        content = message.get("content")
        if not isinstance(content, str):
            problems.append(f"{shown}: content must be a string, not {type(content).__name__}")
            continue
        problem = judge(content)
        if problem:
            problems.append(f"{shown}: {problem}")
    return verdict("3.1", problems, "every call gets an answer the model can act on.")


def check_honest_tool(book_table: Callable[..., Any]) -> Verdict:
    """Exercise 3.2: a tool that refuses what it cannot do, with a message the model can act on"""
    try:
        registry = ToolRegistry([book_table])
    except Exception as error:  # e.g. a missing type hint or docstring
        return verdict("3.2", [f"the registry cannot take book_table: {error}"], "")
    name = registry.names[0]
    properties = registry[name].parameters.get("properties", {})
    problems = []
    for parameter, json_type in (("day", "string"), ("people", "integer")):
        if properties.get(parameter, {}).get("type") != json_type:
            python_type = "str" if json_type == "string" else "int"
            problems.append(
                f"give `{parameter}` the type hint {python_type}, so its schema says {json_type!r}"
            )
    if problems:
        return verdict("3.2", problems, "")

    def dispatch(day: Any, people: Any) -> str:
        arguments = json.dumps({"day": day, "people": people})
        call = {
            "id": "call_1",
            "type": "function",
            "function": {"name": name, "arguments": arguments},
        }
        return registry.dispatch(call)["content"]

    booked = dispatch("Friday", 4)
    if is_error(booked):
        problems.append(f"a table for 4 on Friday should be booked; the tool answered {booked!r}")
    for day in ("Monday", "monday"):
        content = dispatch(day, 2)
        if not is_error(content):
            problems.append(
                f"a booking on {day!r} was accepted ({content!r}); the restaurant is closed on "
                "Mondays: raise ValueError saying so"
            )
            break
        if "monday" not in content.lower():
            problems.append(f"the error for {day!r} should say the problem is Monday: {content!r}")
            break
    content = dispatch("Friday", 12)
    if not is_error(content):
        problems.append(
            f"12 people were booked ({content!r}); a table seats at most 8: raise ValueError saying so"
        )
    elif "8" not in content:
        problems.append(
            f"the error for 12 people should give the limit, 8, so the model can adjust: {content!r}"
        )
    content = dispatch("Friday", "four")
    if not is_error(content):
        problems.append(
            f"people='four' was accepted ({content!r}); with `people: int` the registry refuses it"
        )
    return verdict("3.2", problems, "the tool refuses what it cannot do, and says what would work.")
