"""Checks for lesson 03's exercises: the dispatcher."""

# No `from __future__ import annotations` here: the tools below must carry real type hints
# (int, not "int"), since the learner's dispatcher reads them to validate arguments.

import inspect
import json
import random
import re
from collections.abc import Callable, Iterator
from typing import Any

from .._i18n import N_, _
from ..dispatch import ERROR_PREFIX, ErrorText, ToolRegistry, is_error
from . import Verdict, verdict
from ._scenarios import Dimension, forms_of, judge_scenarios, scenarios, smaller_ints, smaller_lists

__all__ = [
    "check_safe_dispatch",
    "dispatch_scenarios",
    "DISPATCH_SHAPES",
    "check_honest_tool",
    "booking_scenarios",
    "BOOKING_SHAPES",
    "is_failure",
    "plain_str_problem",
]


def is_failure(result: Any) -> bool:
    """whether a tool's result is a failure as the dispatcher reads one: an ErrorText, what failure()
    returns (a plain str is the tool's output, whatever its first words)"""
    return isinstance(result, ErrorText)


def plain_str_problem(result: Any, shown: str) -> str | None:
    """what to say when a tool refused with a plain str that starts like a failure (None otherwise)"""
    if isinstance(result, str) and not is_failure(result) and result.startswith(ERROR_PREFIX.strip()):
        return _(
            'it returned the plain str {got}: return failure("...") (from agent_core.dispatch) instead; a '
            "str is the tool's output whatever its first words, so the dispatcher would not mark the call "
            "as failed",
            got=shown,
        )
    return None


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


def get_forecast(city: str, days: int = 3) -> list[dict[str, Any]]:
    """The forecast for the next few days in a city."""
    _ran.append("get_forecast")
    return [{"day": day + 1, "city": city, "sky": "clear"} for day in range(days)]


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "add": add,
    "divide": divide,
    "get_weather": get_weather,
    "get_forecast": get_forecast,
}


def lookup(key: str) -> str:
    """The value stored under a key."""
    _ran.append("lookup")
    return {"colour": "blue", "size": "M"}[key]  # KeyError for any other key


def convert(amount: float, currency: str) -> str:
    """Convert euros, command-line style: an unknown currency ends with SystemExit, as argparse does."""
    _ran.append("convert")
    rates = {"USD": 1.08, "CHF": 0.95}
    if currency not in rates:
        raise SystemExit(2)
    return f"{amount * rates[currency]:.2f} {currency}"


# tools that fail in other ways than divide's ZeroDivisionError: "never raises" covers them too
RAISING: dict[str, Callable[..., Any]] = {"lookup": lookup, "convert": convert}


def days_of_rain(city: str, days: int | None = None) -> str:
    """Rainy days in a city: over the next `days` days, or this week when days is null."""
    _ran.append("days_of_rain")
    return f"{city}: 2 rainy days in the next {days or 7}"


# a hint lesson 01 maps to JSON Schema as "T or null": JSON null fits `int | None`, so the call runs
OPTIONAL: dict[str, Callable[..., Any]] = {"days_of_rain": days_of_rain}
_TOOLS = {**FUNCTIONS, **RAISING, **OPTIONAL}


def _call(number: int, name: str, arguments: str) -> dict[str, Any]:
    return {
        "id": f"call_{number}",
        "type": "function",
        "function": {"name": name, "arguments": arguments},
    }


def _names(name: str, content: str) -> bool:
    """does the text name this parameter or tool as a word of its own (b, not the b in 'about')?"""
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", content) is not None


def _expect_text(expected: str) -> Callable[[str, int], str | None]:
    def judge(content: str, ran: int) -> str | None:
        if content == expected:
            return None
        if content in (json.dumps(expected), json.dumps(expected, ensure_ascii=False)):
            return _(
                "a string result goes back as it is, not as JSON: send {expected}, not {content}",
                expected=repr(expected),
                content=repr(content),
            )
        return _(
            "the content should be {expected}, not {content}", expected=repr(expected), content=repr(content)
        )

    return judge


def _expect_json(expected: Any, why: str = "") -> Callable[[str, int], str | None]:
    def judge(content: str, ran: int) -> str | None:
        try:
            if json.loads(content) == expected:
                return None
        except ValueError:
            pass
        return _(
            "{why} ({expected}), not {content}",
            why=_(why or N_("a result that is not a string goes back as JSON")),
            expected=json.dumps(expected),
            content=repr(content),
        )

    return judge


def _expect_error(*needed: str, why: str, words: tuple[str, ...] = ()) -> Callable[[str, int], str | None]:
    """an error whose text holds every `needed` piece, and names every `words` as a word"""

    def judge(content: str, ran: int) -> str | None:
        if not content.startswith("ERROR: "):
            return _(
                "the content should start with 'ERROR: ' and {why}; it is {content}",
                why=_(why),
                content=repr(content),
            )
        missing = [text for text in needed if text.lower() not in content.lower()]
        missing += [word for word in words if not _names(word, content)]
        if missing:
            return _(
                "the error should {why}; {missing} missing from {content}",
                why=_(why),
                missing=", ".join(map(repr, missing)),
                content=repr(content),
            )
        return None

    return judge


def _expect_refused(
    parameter: str, json_type: str, python_type: str, hint: str = "", either: str = ""
) -> Callable[[str, int], str | None]:
    """the arguments break the function's type hints: refused before the tool runs, naming a field"""

    def why() -> str:
        names = _("{either} or {parameter}", either=repr(either), parameter=repr(parameter))
        return _(
            "name the argument {names} and the type it should be ({type})",
            names=names if either else repr(parameter),
            type=python_type,
        )

    def judge(content: str, ran: int) -> str | None:
        if ran:
            if hint:
                return _(
                    "the tool ran with arguments its type hints forbid{hint} (it answered {content}). "
                    "Check each argument against its parameter's type hint before calling, and refuse "
                    "the call with an error that should {why}",
                    hint=_(hint),
                    content=repr(content),
                    why=why(),
                )
            return _(
                "the tool ran with arguments its type hints forbid (it answered {content}). "
                "Check each argument against its parameter's type hint before calling, and refuse "
                "the call with an error that should {why}",
                content=repr(content),
                why=why(),
            )
        if not content.startswith("ERROR: "):
            return _(
                "the content should start with 'ERROR: ' and {why}; it is {content}",
                why=why(),
                content=repr(content),
            )
        named = _names(parameter, content) or (either and _names(either, content))
        spanish = _SPANISH_TYPE_WORDS.get(json_type, json_type)
        if not named or not re.search(rf"\b({python_type}|{json_type}|{spanish})\b", content, re.IGNORECASE):
            return _("the error should {why}; it is {content}", why=why(), content=repr(content))
        return None

    return judge


_TYPE_WORDS = {  # in English or Spanish: a learner's error text may be in either
    int: ("int", "integer", "entero"),
    float: ("float", "number", "n[úu]mero", "decimal"),
    str: ("str", "string", "cadena", "texto"),
    list: ("list", "array", "lista"),
}
_SPANISH_TYPE_WORDS = {"integer": "entero", "string": "cadena|texto", "number": "n[úu]mero", "array": "lista"}

_SAYS_MISSING = (
    r"missing|required|not given|not provided|absent|omitted|left out|needed|needs|"
    r"falta\w*|obligatori\w*|requerid\w*|necesari\w*|ausente|omitid\w*|no se (?:ha )?dado|sin"
)


def _expect_missing(parameter: str, annotation: type) -> Callable[[str, int], str | None]:
    """a required argument left out: the model's mistake, found before the call, not the tool's. The error
    names the argument, and says it is missing (in any words) or gives the type it should be."""
    type_words = "|".join(_TYPE_WORDS[annotation])

    def why() -> str:  # the type as a word a learner reads: int, not a pattern
        return _(
            "name the argument that is missing, {parameter}, and say so or give its type ({type})",
            parameter=repr(parameter),
            type=annotation.__name__,
        )

    def judge(content: str, ran: int) -> str | None:
        if not content.startswith("ERROR: "):
            return _(
                "the content should start with 'ERROR: ' and {why}; it is {content}",
                why=why(),
                content=repr(content),
            )
        said = re.search(rf"\b({_SAYS_MISSING}|{type_words})\b", content, re.IGNORECASE)
        if not _names(parameter, content) or not said:
            return _("the error should {why}; it is {content}", why=why(), content=repr(content))
        if "TypeError" in content:
            return _(
                "a missing argument is the model's mistake, not an exception in the tool: check "
                "the required parameters before calling and say {parameter} is missing, instead "
                "of passing on Python's TypeError ({content})",
                parameter=repr(parameter),
                content=repr(content),
            )
        return None

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
            N_(
                "a whole number is a fine value for a float parameter (JSON has one number type): "
                "run the tool"
            ),
        ),
    ),
    (
        _call(14, "get_forecast", '{"city": "Paris"}'),
        "result",
        _expect_json(
            get_forecast("Paris"),
            N_(
                "days has a default (3), so leaving it out is fine: only a parameter without a default "
                "is required. Run the tool"
            ),
        ),
    ),
    (
        _call(5, "sum", '{"a": 4, "b": 2}'),
        "unknown",
        _expect_error(
            why=N_("say the tool is unknown and name every tool that exists"), words=("sum", *FUNCTIONS)
        ),
    ),
    (
        _call(6, "add", '{"a": 4, "b": 2'),
        "json",
        _expect_error("JSON", why=N_("say the arguments are not valid JSON")),
    ),
    (
        _call(15, "add", "null"),
        "json",
        _expect_error(why=N_("say the arguments must be a JSON object of named arguments")),
    ),
    (_call(7, "add", '{"a": 4, "b": "2"}'), "arguments", _expect_refused(*_INT)),
    (
        _call(8, "add", '{"a": "4", "b": "2"}'),
        "arguments",
        _expect_refused(*_INT, hint=N_(' ("4" + "2" is "42" in Python)'), either="a"),
    ),
    (_call(9, "get_weather", '{"city": 5}'), "arguments", _expect_refused("city", "string", "str")),
    (
        _call(10, "add", '{"a": 2, "b": true}'),
        "arguments",
        _expect_refused(
            *_INT,
            hint=N_(
                " (JSON true is not a number, but in Python bool is a subclass of int: isinstance(True, "
                "int) is True)"
            ),
        ),
    ),
    (
        _call(11, "add", '{"a": 4}'),
        "arguments",
        _expect_missing("b", int),
    ),
    (
        _call(12, "divide", '{"a": 1, "b": 0}'),
        "raised",
        _expect_error(
            "ZeroDivisionError", "division by zero", why=N_("give the exception's type and message")
        ),
    ),
]

_KINDS = {
    "unknown": N_("an unknown tool"),
    "json": N_("arguments that are not JSON"),
    "arguments": N_("wrong arguments"),
    "raised": N_("a tool that raised"),
}


def _answer(
    safe_dispatch: Callable[[dict[str, Any], dict[str, Any]], Any],
    functions: dict[str, Any],
    call: dict[str, Any],
) -> tuple[str | None, int, str | None]:
    """(content, whether a tool ran, problem) for one call, never raising"""
    del _ran[:]
    try:
        message = safe_dispatch(dict(functions), call)
    except (Exception, SystemExit) as error:  # the learner's code: report, don't crash the notebook
        arguments = _arguments(call)
        if arguments is not _BROKEN and not isinstance(arguments, dict):
            return (
                None,
                len(_ran),
                _(
                    "the arguments {arguments} are JSON, but not an object of named arguments, and "
                    "safe_dispatch raised {error} on them: check that json.loads gave a dict, and answer an "
                    "error saying the arguments must be a JSON object",
                    arguments=call["function"]["arguments"],
                    error=type(error).__name__,
                ),
            )
        escaped = (
            _(
                " (SystemExit is not an Exception: `except Exception` lets it through; catch it too, with "
                "`except (Exception, SystemExit)`)"
            )
            if isinstance(error, SystemExit)
            else ""
        )
        return (
            None,
            len(_ran),
            _(
                "safe_dispatch raised {error}: {message}{escaped}; it must never raise: return "
                "an error observation instead, whatever the tool raised",
                error=type(error).__name__,
                message=str(error),
                escaped=escaped,
            ),
        )
    if not isinstance(message, dict) or message.get("role") != "tool":
        return (
            None,
            len(_ran),
            _(
                "return a tool message (a dict whose 'role' is 'tool'), not {message}",
                message=f"{message!r:.80}",
            ),
        )
    content = message.get("content")
    if not isinstance(content, str):
        return None, len(_ran), _("content must be a string, not {type}", type=type(content).__name__)
    if message.get("tool_call_id") != call["id"]:
        return content, len(_ran), _("tool_call_id should be the call's id {id}", id=repr(call["id"]))
    return content, len(_ran), None


_JSON_VALUES = {  # JSON values of every type, each with its JSON type's name
    "integer": (0, 2, -7, 12345678901234567890),
    "number": (2.5, -0.125),
    "string": ("2", "Paris", "", "東京", "Zürich 🌧"),
    "boolean": (True, False),
    "null": (None,),
    "array": ([1, 2], []),
    "object": ({"value": 2},),
}
_FITS = {int: ("integer",), float: ("integer", "number"), str: ("string",), list: ("array",)}


def _fits(value: Any, annotation: Any) -> bool:
    """does a JSON value suit the type hint? (JSON true is not a number)"""
    if isinstance(value, bool):
        return False
    accepted: dict[Any, type | tuple[type, ...]] = {int: int, float: (int, float), str: str, list: list}
    return isinstance(value, accepted[annotation])


def _generated_call(rng: random.Random, number: int, offered: tuple[str, ...]) -> dict[str, Any]:
    """one call: right or wrong arguments of every JSON type, a missing one, an unknown tool, broken JSON, a
    raise"""
    kind = rng.choice(("right", "wrong type", "wrong type", "missing", "unknown", "json", "raises"))
    name = rng.choice(offered)
    if kind == "unknown":
        name = rng.choice(
            [n for n in (*FUNCTIONS, "sum", "Add", "wetter", "get weather") if n not in offered]
        )
    function = FUNCTIONS.get(name, add)
    parameters = list(inspect.signature(function).parameters.values())
    arguments: dict[str, Any] = {}
    for parameter in parameters:
        fitting = [v for k in _FITS[parameter.annotation] for v in _JSON_VALUES[k]]
        if name == "get_forecast":  # days: a short forecast
            fitting = [v for v in fitting if not isinstance(v, int) or abs(v) < 100]
        if parameter.default is inspect.Parameter.empty or rng.random() < 0.5:
            arguments[parameter.name] = rng.choice(fitting)
    if (
        kind == "wrong type"
    ):  # one argument or more of a JSON type its parameter does not take; often a boolean
        for parameter in rng.sample(parameters, rng.randint(1, len(parameters))):
            wrong = [v for vs in _JSON_VALUES.values() for v in vs if not _fits(v, parameter.annotation)]
            arguments[parameter.name] = rng.choice((True, False, *wrong))
    if kind == "missing":
        del arguments[rng.choice(list(arguments))]
    if kind == "raises":
        name, arguments = rng.choice(
            (
                ("divide", {"a": rng.choice((1, 2.5, -4)), "b": 0}),
                ("lookup", {"key": rng.choice(_NO_KEYS)}),
                ("convert", {"amount": rng.choice((10, 2.5)), "currency": rng.choice(("XYZ", "usd"))}),
            )
        )
    text = json.dumps(arguments, ensure_ascii=rng.random() < 0.5)
    if kind == "json":
        text = rng.choice((text[:-1], text.replace('"', "'"), "[1, 2]", '"a"', "42", text + "}"))
    return _call(100 + number, name, text)


def _generated(rng: random.Random) -> tuple[tuple[str, ...], tuple[dict[str, Any], ...]]:
    """some of the tools, and 1 to 4 calls to them in a row"""
    offered = tuple(n for n in FUNCTIONS if rng.random() < 0.6) or ("add",)
    if "divide" not in offered and rng.random() < 0.3:
        offered = (*offered, "divide")
    calls = tuple(_generated_call(rng, i, offered) for i in range(rng.randint(1, 4)))
    raising = tuple(c["function"]["name"] for c in calls if c["function"]["name"] in RAISING)
    return (*offered, *dict.fromkeys(n for n in raising if n not in offered)), calls


def _fewer(
    scenario: tuple[tuple[str, ...], tuple[dict[str, Any], ...]],
) -> Iterator[tuple[tuple[str, ...], tuple[dict[str, Any], ...]]]:
    offered, calls = scenario
    for fewer in smaller_lists(calls):
        if fewer:
            yield offered, tuple(fewer)


def _shown(call: dict[str, Any]) -> str:
    return f"{call['function']['name']}({call['function']['arguments']})"


def _describe(scenario: tuple[tuple[str, ...], tuple[dict[str, Any], ...]]) -> str:
    offered, calls = scenario
    if len(calls) > 1:
        return _(
            "with the tools {tools}, the calls {calls}",
            tools=", ".join(offered),
            calls=", ".join(map(_shown, calls)),
        )
    return _("with the tools {tools}, the call {call}", tools=", ".join(offered), call=_shown(calls[0]))


_FIXED_JUDGES = {call["id"]: judge for call, _, judge in CASES}
_FIXED_KINDS = {call["id"]: kind for call, kind, _ in CASES}
_REFERENCE_KINDS = {
    None: "result",
    "unknown_tool": "unknown",
    "invalid_json": "json",
    "not_an_object": "json",
    "invalid_arguments": "arguments",
    "tool_error": "raised",
}


def check_safe_dispatch(safe_dispatch: Callable[[dict[str, Any], dict[str, Any]], Any]) -> Verdict:
    """Exercise 3.1: every call, good or bad, is answered with a tool message; each failure says what happened

    Scenarios: the lesson's fourteen calls one by one, all of them together (one message for every
    kind of failure is found there), divide with only add and get_weather registered, a KeyError, a
    SystemExit, null for an `int | None` parameter (which fits it: the tool runs); then 120
    seeded runs of 1 to 4 calls in a row on a random choice of the tools, whose arguments hold
    every JSON type for every parameter type (true for a number, "2" for an int, null, arrays,
    unicode), a missing argument, an unknown name, broken JSON or not an object, a tool that raises.
    Each call is judged against the library's dispatcher: the same kind of answer, the tool run
    exactly when it runs there, the same result; an error names what it must.
    """
    cases = dispatch_scenarios()
    return judge_scenarios(
        "3.1",
        cases,
        lambda scenario: _judge_calls(safe_dispatch, scenario),
        _describe,
        _("every call gets an answer, and each kind of failure says what went wrong."),
        _fewer,
    )


Dispatch = tuple[tuple[str, ...], tuple[dict[str, Any], ...]]


def dispatch_scenarios() -> list[Dispatch]:
    """check 3.1's scenarios: the lesson's calls one by one and together, then 120 seeded runs"""
    fixed: list[Dispatch] = [(tuple(FUNCTIONS), (call,)) for call, _, _ in CASES]
    fixed += [
        (tuple(FUNCTIONS), tuple(call for call, _, _ in CASES)),
        (("add", "get_weather"), (_call(13, "divide", '{"a": 8, "b": 2}'),)),
        (("add", "lookup"), (_call(16, "lookup", '{"key": "weight"}'),)),
        (("add", "convert"), (_call(17, "convert", '{"amount": 10, "currency": "XYZ"}'),)),
        (("add", "days_of_rain"), (_call(18, "days_of_rain", '{"city": "Oslo", "days": null}'),)),
    ]
    return scenarios(fixed, _generated, count=120, seed=3)


def _arguments(call: dict[str, Any]) -> Any:
    try:
        return json.loads(call["function"]["arguments"])
    except ValueError:
        return _BROKEN


_BROKEN = object()  # arguments that are not JSON at all


def _any_call(test: Callable[[dict[str, Any], Any], bool]) -> Callable[[Dispatch], bool]:
    return lambda s: any(test(call, _arguments(call)) for call in s[1])


_NO_KEYS = ("weight", "Größe", "")  # keys lookup() does not hold


def _ends(arguments: Any) -> bool:
    """does convert() end with SystemExit on these arguments?"""
    return isinstance(arguments, dict) and arguments.get("currency") not in ("USD", "CHF")


def _missing_one(call: dict[str, Any], arguments: Any) -> bool:
    function = FUNCTIONS.get(call["function"]["name"])
    if function is None or not isinstance(arguments, dict):
        return False
    required = [p.name for p in inspect.signature(function).parameters.values() if p.default is p.empty]
    return any(name not in arguments for name in required)


# the shapes lesson 03 names for a dispatcher, each reached by dispatch_scenarios() (test_check_shapes.py)
DISPATCH_SHAPES: dict[str, Callable[[Dispatch], bool]] = {
    "a good call": _any_call(lambda c, a: isinstance(a, dict) and c["function"]["name"] in FUNCTIONS),
    "an unknown tool": lambda s: any(c["function"]["name"] not in s[0] for c in s[1]),
    "a name differing only in case": _any_call(lambda c, a: c["function"]["name"] == "Add"),
    "a tool defined but not registered": lambda s: any(
        c["function"]["name"] in FUNCTIONS and c["function"]["name"] not in s[0] for c in s[1]
    ),
    "arguments that are not JSON": _any_call(lambda c, a: a is _BROKEN),
    "JSON that is not an object": _any_call(lambda c, a: a is not _BROKEN and not isinstance(a, dict)),
    "a missing argument": _any_call(_missing_one),
    "a boolean for a number": _any_call(
        lambda c, a: (
            c["function"]["name"] in ("add", "divide")
            and isinstance(a, dict)
            and any(isinstance(v, bool) for v in a.values())
        )
    ),
    "a string of digits for an int": _any_call(
        lambda c, a: (
            isinstance(a, dict) and any(isinstance(v, str) and v.strip("-").isdigit() for v in a.values())
        )
    ),
    "a null argument": _any_call(lambda c, a: isinstance(a, dict) and None in a.values()),
    "a tool that raises": _any_call(
        lambda c, a: (
            c["function"]["name"] == "divide"
            and isinstance(a, dict)
            and a.get("b") in (0, 0.0)
            and a.get("b") is not False
        )
    ),
    "a tool that raises KeyError": lambda s: (
        "lookup" in s[0]
        and _any_call(lambda c, a: c["function"]["name"] == "lookup" and a in ({"key": k} for k in _NO_KEYS))(
            s
        )
    ),
    "a tool that ends with SystemExit": lambda s: (
        "convert" in s[0] and _any_call(lambda c, a: c["function"]["name"] == "convert" and _ends(a))(s)
    ),
    "a tool that returns a string": _any_call(lambda c, a: c["function"]["name"] == "get_weather"),
    "a tool that returns a list": _any_call(lambda c, a: c["function"]["name"] == "get_forecast"),
    "several calls in a row": lambda s: len(s[1]) > 1,
    "unicode in the arguments": _any_call(lambda c, a: not c["function"]["arguments"].isascii()),
    "null for an `int | None` parameter, which fits it": _any_call(
        lambda c, a: c["function"]["name"] in OPTIONAL and isinstance(a, dict) and None in a.values()
    ),
}


def _judge_calls(
    safe_dispatch: Callable[[dict[str, Any], dict[str, Any]], Any],
    scenario: tuple[tuple[str, ...], tuple[dict[str, Any], ...]],
) -> str | None:
    offered, calls = scenario
    functions = {name: _TOOLS[name] for name in offered}
    reference = ToolRegistry(list(functions.values()))
    errors: dict[str, list[tuple[str, str]]] = {}
    for call in calls:
        del _ran[:]
        expected = reference.run(call)
        kind = _FIXED_KINDS.get(call["id"]) or _REFERENCE_KINDS[expected.error_type]
        runs = len(_ran)
        content, ran, problem = _answer(safe_dispatch, functions, call)
        if problem is None and content is not None:
            judge = _FIXED_JUDGES.get(call["id"]) or _reference_judge(functions, call, kind, expected.content)
            problem = judge(content, ran)
            if problem is None and kind in ("result", "raised") and ran != runs:
                problem = _("the tool ran {count} times; once is right", count=ran)
        if problem:
            return f"{_shown(call)}: {problem}" if len(calls) > 1 else problem
        if content is not None and kind != "result":
            errors.setdefault(kind, []).append((_shown(call), content))
    problems = _catch_all(errors, functions)
    if problems:
        return problems[0]
    if calls[0]["id"] == "call_13":  # the tools listed must be those in `functions`
        content = _answer(safe_dispatch, functions, calls[0])[0] or ""
        if _names("get_forecast", content) or not _names("get_weather", content):
            return _(
                "it got {content}: list the tools in `functions`, not a list written in advance",
                content=repr(content),
            )
    return None


def _reference_judge(
    functions: dict[str, Any], call: dict[str, Any], kind: str, expected: str
) -> Callable[[str, int], str | None]:
    name = call["function"]["name"]
    if kind == "result":
        value = _TOOLS[name](**json.loads(call["function"]["arguments"]))
        judge = _expect_text(value) if isinstance(value, str) else _expect_json(value)
        nulls = [key for key, given in json.loads(call["function"]["arguments"]).items() if given is None]
        return _null_fits(judge, name, nulls, value) if nulls else judge
    if kind == "unknown":
        return _expect_error(
            why=N_("say the tool is unknown and name every tool that exists"), words=tuple(functions)
        )
    if kind == "json":
        return _expect_error(why=N_("say the arguments are not a JSON object of named arguments"))
    if kind == "raised":
        return _expect_error(_raised(name, call), why=N_("give the exception's type and message"))
    arguments = json.loads(call["function"]["arguments"])
    parameters = inspect.signature(_TOOLS[name]).parameters.values()
    absent = [p for p in parameters if p.name not in arguments and p.default is inspect.Parameter.empty]
    missing = [p.name for p in absent]
    wrong = [p for p in parameters if p.name in arguments and not _fits(arguments[p.name], p.annotation)]
    if missing and not wrong:
        if len(absent) == 1:
            return _expect_missing(absent[0].name, absent[0].annotation)
        return _expect_any_named(missing)
    return _expect_any_refused(wrong, missing, arguments)


def _null_fits(
    judge: Callable[[str, int], str | None], name: str, nulls: list[str], value: Any
) -> Callable[[str, int], str | None]:
    """a null the reference ran the tool with: the hint says `| None`, so refusing it is the mistake"""

    def null_judge(content: str, ran: int) -> str | None:
        if not ran and content.startswith("ERROR"):
            hint = inspect.signature(_TOOLS[name]).parameters[nulls[0]].annotation
            return _(
                "JSON null fits the type hint of {argument} ({hint}): a hint that says `| None` takes null, "
                "so run the tool ({expected}); yours refused it with {content}",
                argument=repr(nulls[0]),
                hint=str(hint),
                expected=repr(value),
                content=repr(content),
            )
        return judge(content, ran)

    return null_judge


def _raised(name: str, call: dict[str, Any]) -> str:
    """the type of the exception the tool raises on this call"""
    try:
        _TOOLS[name](**json.loads(call["function"]["arguments"]))
    except BaseException as error:  # SystemExit too: what the tool raised is what the message names
        return type(error).__name__
    return ""


def _expect_any_named(names: list[str]) -> Callable[[str, int], str | None]:
    """an error that names one of the missing arguments"""

    def judge(content: str, ran: int) -> str | None:
        if ran:
            return _(
                "the tool ran with arguments it cannot take (it answered {content}): refuse the call before "
                "it runs",
                content=repr(content),
            )
        if not content.startswith("ERROR: "):
            return _(
                "the content should start with 'ERROR: ' and say what is missing; it is {content}",
                content=repr(content),
            )
        if not any(_names(name, content) for name in names):
            return _(
                "the error should name the argument that is missing; it is {content}", content=repr(content)
            )
        return None

    return judge


def _expect_any_refused(
    wrong: list[Any], missing: list[str], arguments: dict[str, Any]
) -> Callable[[str, int], str | None]:
    """refused before the tool runs, naming one wrong argument with its type, or a missing one"""
    booleans = any(isinstance(arguments[p.name], bool) and p.annotation in (int, float) for p in wrong)

    def judge(content: str, ran: int) -> str | None:
        if ran:
            if booleans:
                return _(
                    "the tool ran with arguments its type hints forbid{hint} (it answered {content}). Check "
                    "each argument against its parameter's type hint before calling, and refuse the call "
                    "with an error that names the argument and the type it should be",
                    hint=_(
                        " (JSON true and false are not numbers, though isinstance(True, int) is True in "
                        "Python)"
                    ),
                    content=repr(content),
                )
            return _(
                "the tool ran with arguments its type hints forbid (it answered {content}). Check "
                "each argument against its parameter's type hint before calling, and refuse the call with an "
                "error that names the argument and the type it should be",
                content=repr(content),
            )
        if not content.startswith("ERROR: "):
            return _(
                "the content should start with 'ERROR: ' and name the wrong argument and its type; it is "
                "{content}",
                content=repr(content),
            )
        for parameter in wrong:
            words = "|".join(_TYPE_WORDS[parameter.annotation])
            if _names(parameter.name, content) and re.search(rf"\b({words})\b", content, re.IGNORECASE):
                return None
        if any(_names(name, content) for name in missing):
            return None
        return _(
            "the error should name the argument that is wrong and the type it should be; it is {content}",
            content=repr(content),
        )

    return judge


def _catch_all(errors: dict[str, list[tuple[str, str]]], functions: dict[str, Any]) -> list[str]:
    """the failures must be told apart: one message for everything helps the model with nothing"""
    problems = []
    owner: dict[str, str] = {}
    for kind, answers in errors.items():
        for shown, content in answers:
            other = owner.setdefault(content, kind)
            if other != kind:
                problems.append(
                    _(
                        "{other} and {kind} ({shown}) got the same message {content}: "
                        "each kind of failure needs its own message, saying what went wrong",
                        other=_(_KINDS[other]),
                        kind=_(_KINDS[kind]),
                        shown=shown,
                        content=repr(content),
                    )
                )
            lowered = content.lower()
            if kind != "unknown" and len(functions) > 2 and all(_names(name, content) for name in functions):
                problems.append(
                    _(
                        "{shown} ({kind}) got {content}, which lists every tool as if the tool "
                        "were unknown: list the tools only when the name is unknown",
                        shown=shown,
                        kind=_(_KINDS[kind]),
                        content=repr(content),
                    )
                )
            if kind not in ("json", "arguments") and "json" in lowered:
                problems.append(
                    _(
                        "{shown} ({kind}) got {content}, which talks about JSON though the "
                        "JSON was fine: say what went wrong for this call, not every possible failure",
                        shown=shown,
                        kind=_(_KINDS[kind]),
                        content=repr(content),
                    )
                )
    return list(dict.fromkeys(problems))


def check_honest_tool(book_table: Callable[..., Any]) -> Verdict:
    """Exercise 3.2: a tool that refuses what it cannot do, with a message the model can act on

    Scenarios: the lesson's bookings (Friday for 4, Tuesday for 8, Monday, 12 and 9 people, 'four'
    people), then 60 seeded ones: every day in any case, Mondays often, 1 to 14 people, often 8 or 9.
    Each is dispatched through a ToolRegistry and compared with the rules: booked unless Monday or
    more than 8 people; a refusal is a ValueError that says which rule and what would work (another
    day; at most 8, the limit given).
    """
    try:
        registry = ToolRegistry([book_table])
    except Exception as error:  # e.g. a missing type hint or docstring
        return verdict("3.2", [_("the registry cannot take book_table: {error}", error=str(error))], "")
    name = registry.names[0]
    properties = registry[name].parameters.get("properties", {})
    problems = []
    for parameter, json_type in (("day", "string"), ("people", "integer")):
        if properties.get(parameter, {}).get("type") != json_type:
            python_type = "str" if json_type == "string" else "int"
            problems.append(
                _(
                    "give `{parameter}` the type hint {type}, so its schema says {json_type}",
                    parameter=parameter,
                    type=python_type,
                    json_type=repr(json_type),
                )
            )
    if problems:
        return verdict("3.2", problems, "")

    def dispatch(day: Any, people: Any) -> str:
        arguments = json.dumps({"day": day, "people": people}, ensure_ascii=False)
        call = {
            "id": "call_1",
            "type": "function",
            "function": {"name": name, "arguments": arguments},
        }
        return str(registry.dispatch(call)["content"])

    cases = booking_scenarios()
    return judge_scenarios(
        "3.2",
        cases,
        lambda booking: _judge_booking(dispatch, book_table, *booking),
        _describe_booking,
        _("the tool refuses what it cannot do, and says what would work."),
        _smaller_booking,
    )


_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def booking_scenarios() -> list[tuple[str, Any]]:
    """check 3.2's scenarios: the lesson's bookings, then 60 seeded ones"""
    fixed: list[tuple[str, Any]] = [
        ("Friday", 4),
        ("Tuesday", 8),
        ("Sunday", 1),
        ("Monday", 2),
        ("monday", 2),
        ("Friday", 12),
        ("Friday", 9),
        ("Friday", "four"),
    ]
    return scenarios(fixed, _booking, count=60, seed=4)


def _people(test: Callable[[int], bool]) -> Callable[[tuple[str, Any]], bool]:
    return lambda s: isinstance(s[1], int) and test(s[1])


# the shapes lesson 03 names for an honest tool, each reached by booking_scenarios() (test_check_shapes.py)
BOOKING_SHAPES: dict[str, Callable[[tuple[str, Any]], bool]] = {
    "a booking that works": lambda s: s[0].lower() != "monday" and isinstance(s[1], int) and 1 <= s[1] <= 8,
    "closed on Monday": lambda s: s[0].lower() == "monday",
    "monday in lower case": lambda s: s[0] == "monday",
    "a day in capitals": lambda s: s[0].isupper(),
    "exactly the limit of 8": _people(lambda n: n == 8),
    "one past the limit": _people(lambda n: n == 9),
    "far past the limit": _people(lambda n: n > 10),
    "Monday and too many people": lambda s: s[0].lower() == "monday" and _people(lambda n: n > 8)(s),
    "people as a word": lambda s: not isinstance(s[1], int),
    "one person": _people(lambda n: n == 1),
}


def _booking(rng: random.Random) -> tuple[str, int]:
    """a day in any case, Mondays often; 1 to 14 people, often right at the limit"""
    day = rng.choice(("Monday", "Monday", *_DAYS))
    day = rng.choice((day, day.lower(), day.upper()))
    return day, rng.choice((8, 9, rng.randint(1, 14)))


def _smaller_booking(booking: tuple[str, Any]) -> Iterator[tuple[str, Any]]:
    day, people = booking
    if isinstance(people, int):
        yield from ((day, fewer) for fewer in smaller_ints(people, floor=1))


def _describe_booking(booking: tuple[str, Any]) -> str:
    day, people = booking
    return _("a table for {people} on {day}", people=repr(people), day=repr(day))


# what would work, in English or Spanish (the learner writes the message in either)
_ANOTHER_DAY = (
    r"another|other|different|choose|pick|instead|any day|tuesday|wednesday|thursday|friday|saturday|sunday|"
    r"otr[oa]s?|distint[oa]|diferente|elige|elija|escoge|escoja|en su lugar|cualquier d[íi]a|martes|"
    r"mi[ée]rcoles|jueves|viernes|s[áa]bado|domingo"
)
_SMALLER_GROUP = (
    r"at most|up to|no more than|maximum|max|split|several|separate|tables|fewer|smaller|instead|"
    r"como m[áa]ximo|como mucho|hasta|no m[áa]s de|m[áa]ximo|divid\w*|separad\w*|reparti\w*|varias|mesas|"
    r"menos|m[áa]s peque[ñn]\w*|en su lugar"
)
_MONDAY = ("monday", "lunes")


def _judge_booking(
    dispatch: Callable[[Any, Any], str], book_table: Callable[..., Any], day: str, people: Any
) -> str | None:
    content = dispatch(day, people)
    if not isinstance(people, int):
        if not is_error(content):
            return _(
                "it was accepted ({content}); with `people: int` the registry refuses it",
                content=repr(content),
            )
        return None
    monday, too_many = day.lower() == "monday", people > 8
    if not (monday or too_many):
        if is_error(content):
            return _(
                "it should be booked (every day but Monday, up to 8 people included); the tool answered "
                "{content}",
                content=repr(content),
            )
        confirmation = book_table(day=day, people=people)
        if not isinstance(confirmation, str) or not confirmation.strip():
            return _(
                "book_table returned {returned}, so the model reads {content}: return a "
                "confirmation text saying what was booked",
                returned=repr(confirmation),
                content=repr(content),
            )
        return None
    if not is_error(content):
        why = _("the restaurant is closed on Mondays") if monday else _("a table seats at most 8")
        return _(
            "it was accepted ({content}); {why}: raise ValueError saying so", content=repr(content), why=why
        )
    try:  # the tool itself, to see which exception it raises and the message it wrote
        returned = book_table(day=day, people=people)
    except Exception as error:
        if not isinstance(error, ValueError):
            return _(
                "it raised {error}: a call whose values break a rule of the tool is a "
                "ValueError: raise ValueError(...)",
                error=type(error).__name__,
            )
        said = str(error)
    else:
        return _(
            "book_table returned {returned} instead of raising: a call that breaks a rule raises "
            "ValueError(...), which the registry turns into the error the model reads (a returned text "
            "looks like a booking to the code that calls the tool)",
            returned=repr(returned),
        )
    if monday and not too_many:
        if not any(word in said.lower() for word in _MONDAY):
            return _("the error should say the problem is Monday: {said}", said=repr(said))
        if not re.search(rf"\b({_ANOTHER_DAY})\b", said, re.IGNORECASE):
            return _(
                "the error says why, but not what would work: suggest another day ({said})", said=repr(said)
            )
    if too_many and not monday:
        if "8" not in said:
            return _("the error should give the limit, 8, so the model can adjust: {said}", said=repr(said))
        if any(word in said.lower() for word in _MONDAY):
            return _(
                "the error talks about Monday ({said}): give each rule its own message, saying "
                "what is wrong with this call",
                said=repr(said),
            )
        if not re.search(rf"\b({_SMALLER_GROUP})\b", said, re.IGNORECASE):
            return _(
                "the error says what is wrong, but not what would work: say that 8 is the most a table "
                "seats, or that a larger group can split ({said})",
                said=repr(said),
            )
    return None


# --- the input space the exercises' words name (tests/test_input_space.py) ---------------------------

DISPATCH_SPACE: dict[str, Dimension[Dispatch]] = {
    "results": Dimension(
        "the result as it is when the function returns a string, and as JSON otherwise",
        forms_of(
            DISPATCH_SHAPES, "a tool that returns a string", "a tool that returns a list", "a good call"
        ),
    ),
    "unknown tool": Dimension(
        "**unknown tool**",
        forms_of(
            DISPATCH_SHAPES,
            "an unknown tool",
            "a name differing only in case",
            "a tool defined but not registered",
        ),
    ),
    "not JSON": Dimension(
        "**arguments that are not valid JSON**",
        forms_of(DISPATCH_SHAPES, "arguments that are not JSON", "JSON that is not an object"),
    ),
    "wrong arguments": Dimension(
        "**wrong arguments**",
        forms_of(
            DISPATCH_SHAPES,
            "a missing argument",
            "a boolean for a number",
            "a string of digits for an int",
            "a null argument",
            "unicode in the arguments",
            "null for an `int | None` parameter, which fits it",
        ),
    ),
    "raises": Dimension(
        "**the function raises**",
        forms_of(
            DISPATCH_SHAPES,
            "a tool that raises",
            "a tool that raises KeyError",
            "a tool that ends with SystemExit",
        ),
    ),
}

BOOKING_SPACE: dict[str, Dimension[tuple[str, Any]]] = {
    "days": Dimension(
        "every day of the week, written in any case",
        {
            **forms_of(BOOKING_SHAPES, "closed on Monday", "monday in lower case", "a day in capitals"),
            "another day": lambda s: s[0].lower() != "monday",
        },
    ),
    "people": Dimension(
        "for 1 to 14 people",
        forms_of(
            BOOKING_SHAPES,
            "one person",
            "exactly the limit of 8",
            "one past the limit",
            "far past the limit",
            "people as a word",
        ),
    ),
    "both rules": Dimension(
        "for a Monday, or more than 8 people",
        {
            **forms_of(BOOKING_SHAPES, "Monday and too many people", "a booking that works"),
            "one rule broken": lambda s: (s[0].lower() == "monday") != (isinstance(s[1], int) and s[1] > 8),
        },
    ),
}
