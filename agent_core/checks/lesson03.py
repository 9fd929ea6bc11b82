"""Checks for lesson 03's exercises: the dispatcher."""

# No `from __future__ import annotations` here: the tools below must carry real type hints
# (int, not "int"), since the learner's dispatcher reads them to validate arguments.

import json
import re
from collections.abc import Callable
from typing import Any

from ..dispatch import ToolRegistry, is_error
from . import Verdict, verdict

__all__ = ["check_safe_dispatch", "check_honest_tool"]

_ran: list[str] = []  # the tools that actually ran, so a check can see one ran with bad arguments


def add(a: int, b: int) -> int:
    """Add two whole numbers."""
    _ran.append("add")
    return a + b


def divide(a: float, b: float) -> float:
    """Divide a by b."""
    _ran.append("divide")
    return a / b


def get_weather(city: str) -> str:
    """Current weather in a city, as a short text."""
    _ran.append("get_weather")
    return {"Paris": "light rain, 18°C", "Tokyo": "clear, 27°C"}.get(city, f"no reading for {city}")


def get_forecast(city: str, days: int = 3) -> list:
    """The forecast for the next few days in a city."""
    _ran.append("get_forecast")
    return [{"day": day + 1, "city": city, "sky": "clear"} for day in range(days)]


FUNCTIONS = {"add": add, "divide": divide, "get_weather": get_weather, "get_forecast": get_forecast}


def _call(number: int, name: str, arguments: str) -> dict[str, Any]:
    return {
        "id": f"call_{number}",
        "type": "function",
        "function": {"name": name, "arguments": arguments},
    }


def _names(name: str, content: str) -> bool:
    """does the text name this parameter or tool as a word of its own (b, not the b in 'about')?"""
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", content) is not None


def _expect_text(expected: str) -> Callable[[str, bool], str | None]:
    def judge(content: str, ran: bool) -> str | None:
        if content == expected:
            return None
        if content in (json.dumps(expected), json.dumps(expected, ensure_ascii=False)):
            return f"a string result goes back as it is, not as JSON: send {expected!r}, not {content!r}"
        return f"the content should be {expected!r}, not {content!r}"

    return judge


def _expect_json(expected: Any, why: str = "") -> Callable[[str, bool], str | None]:
    def judge(content: str, ran: bool) -> str | None:
        try:
            if json.loads(content) == expected:
                return None
        except ValueError:
            pass
        return f"{why or 'a result that is not a string goes back as JSON'} ({json.dumps(expected)}), not {content!r}"

    return judge


def _expect_error(*needed: str, why: str, words: tuple[str, ...] = ()) -> Callable[[str, bool], str | None]:
    """an error whose text holds every `needed` piece, and names every `words` as a word"""

    def judge(content: str, ran: bool) -> str | None:
        if not content.startswith("ERROR: "):
            return f"the content should start with 'ERROR: ' and {why}; it is {content!r}"
        missing = [text for text in needed if text.lower() not in content.lower()]
        missing += [word for word in words if not _names(word, content)]
        if missing:
            return f"the error should {why}; {', '.join(map(repr, missing))} missing from {content!r}"
        return None

    return judge


def _expect_refused(
    parameter: str, json_type: str, python_type: str, hint: str = "", either: str = ""
) -> Callable[[str, bool], str | None]:
    """the arguments break the function's type hints: refused before the tool runs, naming a field"""
    names = f"{either!r} or {parameter!r}" if either else repr(parameter)
    why = f"name the argument {names} and the type it should be ({python_type})"

    def judge(content: str, ran: bool) -> str | None:
        if ran:
            return (
                f"the tool ran with arguments its type hints forbid{hint} (it answered {content!r}). "
                f"Check each argument against its parameter's type hint before calling, and refuse "
                f"the call with an error that should {why}"
            )
        if not content.startswith("ERROR: "):
            return f"the content should start with 'ERROR: ' and {why}; it is {content!r}"
        named = _names(parameter, content) or (either and _names(either, content))
        if not named or not re.search(rf"\b({python_type}|{json_type})\b", content, re.IGNORECASE):
            return f"the error should {why}; it is {content!r}"
        return None

    return judge


def _expect_missing(parameter: str) -> Callable[[str, bool], str | None]:
    """a required argument left out: the model's mistake, found before the call, not the tool's"""
    said = _expect_error("missing", why="say which argument is missing", words=(parameter,))

    def judge(content: str, ran: bool) -> str | None:
        problem = said(content, ran)
        if problem is None and "TypeError" in content:
            return (
                f"a missing argument is the model's mistake, not an exception in the tool: check "
                f"the required parameters before calling and say {parameter!r} is missing, instead "
                f"of passing on Python's TypeError ({content!r})"
            )
        return problem

    return judge


_INT = ("b", "integer", "int")
# (call, kind of answer, judge): kinds "result", "unknown", "json", "arguments", "raised"
CASES = [
    (_call(1, "add", '{"a": 4, "b": 2}'), "result", _expect_json(6)),
    (_call(2, "get_weather", '{"city": "Paris"}'), "result", _expect_text("light rain, 18°C")),
    (
        _call(3, "get_forecast", '{"city": "Tokyo", "days": 2}'),
        "result",
        _expect_json(get_forecast("Tokyo", 2)),
    ),
    (
        _call(4, "divide", '{"a": 8, "b": 2}'),
        "result",
        _expect_json(
            4.0,
            "a whole number is a fine value for a float parameter (JSON has one number type): run the tool",
        ),
    ),
    (
        _call(14, "get_forecast", '{"city": "Paris"}'),
        "result",
        _expect_json(
            get_forecast("Paris"),
            "days has a default (3), so leaving it out is fine: only a parameter without a default "
            "is required. Run the tool",
        ),
    ),
    (
        _call(5, "sum", '{"a": 4, "b": 2}'),
        "unknown",
        _expect_error(
            why="say the tool is unknown and name every tool that exists", words=("sum", *FUNCTIONS)
        ),
    ),
    (
        _call(6, "add", '{"a": 4, "b": 2'),
        "json",
        _expect_error("JSON", why="say the arguments are not valid JSON"),
    ),
    (
        _call(15, "add", "null"),
        "json",
        _expect_error(why="say the arguments must be a JSON object of named arguments"),
    ),
    (_call(7, "add", '{"a": 4, "b": "2"}'), "arguments", _expect_refused(*_INT)),
    (
        _call(8, "add", '{"a": "4", "b": "2"}'),
        "arguments",
        _expect_refused(*_INT, hint=' ("4" + "2" is "42" in Python)', either="a"),
    ),
    (_call(9, "get_weather", '{"city": 5}'), "arguments", _expect_refused("city", "string", "str")),
    (
        _call(10, "add", '{"a": 2, "b": true}'),
        "arguments",
        _expect_refused(
            *_INT,
            hint=" (JSON true is not a number, but in Python bool is a subclass of int: isinstance(True, int) is True)",
        ),
    ),
    (
        _call(11, "add", '{"a": 4}'),
        "arguments",
        _expect_missing("b"),
    ),
    (
        _call(12, "divide", '{"a": 1, "b": 0}'),
        "raised",
        _expect_error("ZeroDivisionError", "division by zero", why="give the exception's type and message"),
    ),
]

_KINDS = {
    "unknown": "an unknown tool",
    "json": "arguments that are not JSON",
    "arguments": "wrong arguments",
    "raised": "a tool that raised",
}


def _answer(
    safe_dispatch: Callable[[dict, dict], Any], functions: dict, call: dict
) -> tuple[str | None, bool, str | None]:
    """(content, whether a tool ran, problem) for one call, never raising"""
    del _ran[:]
    try:
        message = safe_dispatch(dict(functions), call)
    except Exception as error:  # the learner's code: report, don't crash the notebook
        return (
            None,
            bool(_ran),
            f"safe_dispatch raised {type(error).__name__}: {error}; return an error observation instead",
        )
    if not isinstance(message, dict) or message.get("role") != "tool":
        return None, bool(_ran), f"return a tool message {{'role': 'tool', ...}}, not {message!r:.80}"
    content = message.get("content")
    if not isinstance(content, str):
        return None, bool(_ran), f"content must be a string, not {type(content).__name__}"
    if message.get("tool_call_id") != call["id"]:
        return content, bool(_ran), f"tool_call_id should be the call's id {call['id']!r}"
    return content, bool(_ran), None


def check_safe_dispatch(safe_dispatch: Callable[[dict, dict], Any]) -> Verdict:
    """Exercise 3.1: every call, good or bad, is answered with a tool message; each failure says what happened"""
    problems = []
    errors: dict[str, list[tuple[str, str]]] = {}  # kind -> [(call shown, content)]
    for call, kind, judge in CASES:
        shown = f"{call['function']['name']}({call['function']['arguments']})"
        content, ran, problem = _answer(safe_dispatch, FUNCTIONS, call)
        if problem is None and content is not None:
            problem = judge(content, ran)
        if problem:
            problems.append(f"{shown}: {problem}")
        if content is not None and kind != "result":
            errors.setdefault(kind, []).append((shown, content))
    problems += _catch_all(errors)
    fewer = {"add": add, "get_weather": get_weather}
    content, _, problem = _answer(safe_dispatch, fewer, _call(13, "divide", '{"a": 8, "b": 2}'))
    if (
        content is not None
        and problem is None
        and (_names("get_forecast", content) or not _names("get_weather", content))
    ):
        problems.append(
            "with only add and get_weather registered, a call to divide got "
            f"{content!r}: list the tools in `functions`, not a list written in advance"
        )
    return verdict(
        "3.1", problems, "every call gets an answer, and each kind of failure says what went wrong."
    )


def _catch_all(errors: dict[str, list[tuple[str, str]]]) -> list[str]:
    """the failures must be told apart: one message for everything helps the model with nothing"""
    problems = []
    owner: dict[str, str] = {}
    for kind, answers in errors.items():
        for shown, content in answers:
            other = owner.setdefault(content, kind)
            if other != kind:
                problems.append(
                    f"{_KINDS[other]} and {_KINDS[kind]} ({shown}) got the same message {content!r}: "
                    "each kind of failure needs its own message, saying what went wrong"
                )
            lowered = content.lower()
            if kind != "unknown" and all(_names(name, content) for name in FUNCTIONS):
                problems.append(
                    f"{shown} ({_KINDS[kind]}) got {content!r}, which lists every tool as if the tool "
                    "were unknown: list the tools only when the name is unknown"
                )
            if kind not in ("json", "arguments") and "json" in lowered:
                problems.append(
                    f"{shown} ({_KINDS[kind]}) got {content!r}, which talks about JSON though the "
                    "JSON was fine: say what went wrong for this call, not every possible failure"
                )
    return list(dict.fromkeys(problems))


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

    for day, people in (("Friday", 4), ("Tuesday", 8), ("Sunday", 1)):
        booked = dispatch(day, people)
        if is_error(booked):
            problems.append(
                f"a table for {people} on {day} should be booked (every day but Monday, up to 8 people "
                f"included); the tool answered {booked!r}"
            )
            break
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
    for people in (12, 9):
        content = dispatch("Friday", people)
        if not is_error(content):
            problems.append(
                f"{people} people were booked ({content!r}); a table seats at most 8: raise ValueError saying so"
            )
            break
        if "8" not in content:
            problems.append(
                f"the error for {people} people should give the limit, 8, so the model can adjust: {content!r}"
            )
            break
        if "monday" in content.lower():
            problems.append(
                f"the error for {people} people on a Friday talks about Monday ({content!r}): give each "
                "rule its own message, saying what is wrong with this call"
            )
            break
    content = dispatch("Friday", "four")
    if not is_error(content):
        problems.append(
            f"people='four' was accepted ({content!r}); with `people: int` the registry refuses it"
        )
    return verdict("3.2", problems, "the tool refuses what it cannot do, and says what would work.")
