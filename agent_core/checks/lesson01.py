"""Checks for lesson 01's exercises: the tool schema."""

import functools
import inspect
import json
import random
import re
from collections.abc import Callable, Iterator
from typing import Any, Literal, TypedDict

import openai

from .. import mock
from .._i18n import N_, _
from ..dispatch import ToolRegistry
from ..mock.chooser import DescriptionReader, score_tools, words
from ..schema import Tool, tool_definition
from . import Verdict, _trace_of, verdict
from ._scenarios import Dimension, forms_of, judge_scenarios, scenarios

__all__ = [
    "check_make_definition",
    "DELIVERY_TARGET",
    "check_schedule_delivery",
    "check_cancel_description",
    "check_strict_find_orders",
    "definition_scenarios",
    "DEFINITION_SHAPES",
    "delivery_scenarios",
    "DELIVERY_SHAPES",
    "cancel_scenarios",
    "CANCEL_SHAPES",
    "order_scenarios",
    "ORDER_SHAPES",
]


# Exercise 1.1: functions to run the learner's generator on, each tempting a different shortcut.
# (This module has no `from __future__ import annotations`: the learner reads real annotations.)
def search_catalog(text: str, max_results: int = 5) -> str:
    """Searches the catalog by product name.

    Args:
        text: Words to look for in product names, like "running shoes".
        max_results: How many products to return at most.
    """
    return text


def book_table(when: str, guests: int, deposit: float, vip: bool = False, note: str = "none") -> str:
    """Books a table in the shop's cafe for a number of guests,
    and returns the booking's reference.

    Args:
        when: The time, as HH:MM, like 19:30.
        vip: Whether to seat the guests in the quiet room.
    """
    return when


def ping() -> str:
    """Checks that the shop's server answers at all."""
    return "pong"


PROBES: list[Callable[..., Any]] = [search_catalog, book_table, ping]
_GENERATOR_HINTS = {
    "name": "function.__name__",  # code, the same in every language
    "summary": N_(
        "the docstring before its first section (Args:), each paragraph's lines joined by single spaces"
    ),
    "missing": N_("one property per parameter of inspect.signature(function)"),
    "extra": N_("one property per parameter, no more"),
    "required": N_("the parameters without a default value, and only those"),
    "type": N_(
        "map the annotation, not the default's type (`ratio: float = 0` is a number): str -> string, "
        "int -> integer, float -> number, bool -> boolean"
    ),
    "default": N_("a parameter's default value goes into its schema as default"),
    "description": N_("the text after 'name: ' on the parameter's line in Args:; no line, no description"),
}


_NAMES = ("city", "count", "price", "urgent", "label", "limit", "ratio", "größe", "query", "page")
_PREFIXED_NAMES = (("max_results", "max"), ("id_type", "id"), ("city_code", "city"))
_SUMMARIES = (
    "Finds rooms in a hotel.",
    "Converts a price to another currency,\nrounded to cents.",
    "Returns the café's opening hours ☕.",
    "Sends a reminder.\n\nIt never sends twice in an hour.",
)
# a float parameter's default is often written as a whole number (`ratio: float = 0`): its type is the hint's
_DEFAULTS = {str: ("", "none", "Zürich"), int: (0, 3, -1), float: (0.0, 2.5, 0, 1), bool: (False, True)}


def _generated_function(rng: random.Random) -> Callable[..., Any]:
    """a function of 0 to 4 str/int/float/bool parameters, some with defaults (0 and False among them),
    sometimes two whose names start alike (max_results before max), its docstring a summary of one or
    two lines or paragraphs, and Args: lines for some of them"""
    names = rng.sample(_NAMES, rng.randint(0, 4))
    alike: tuple[str, ...] = ()
    if (
        rng.random() < 0.25
    ):  # a name that starts another, listed after it: find its Args: line by the whole name
        alike = rng.choice(_PREFIXED_NAMES)
        names = [*alike, *(name for name in names[:2] if name not in alike)]
    types = [rng.choice((str, int, float, bool)) for _ in names]
    first_default = rng.randint(0, len(names))
    parameters = [
        f"{name}: {kind.__name__}" + (f" = {rng.choice(_DEFAULTS[kind])!r}" if index >= first_default else "")
        for index, (name, kind) in enumerate(zip(names, types, strict=True))
    ]
    documented = [name for name in names if name in alike or rng.random() < 0.7]
    docstring = rng.choice(_SUMMARIES)
    if documented:
        docstring += "\n\nArgs:\n" + "\n".join(
            f"    {name}: The {name}, as text: ünïcode ok." for name in documented
        )
    name = rng.choice(("find_rooms", "convert_price", "opening_hours", "remind"))
    source = f"def {name}({', '.join(parameters)}) -> str:\n    {docstring!r}\n    return ''\n"
    namespace: dict[str, Any] = {}
    exec(source, namespace)  # a real function, with real annotations and a docstring
    function = namespace[name]
    function.__source__ = f"def {name}({', '.join(parameters)})"
    made: Callable[..., Any] = function
    return made


def _describe_function(function: Callable[..., Any]) -> str:
    if function in PROBES:
        return _("for {function}()", function=function.__name__)
    return _(
        "for {function} with the docstring {docstring}",
        function=vars(function)["__source__"],
        docstring=repr(inspect.getdoc(function)),
    )


def check_make_definition(make_definition: Callable[[Callable[..., Any]], Any]) -> Verdict:
    """Exercise 1.1: make_definition() writes the library's definition for every probe function

    Scenarios: the three probe functions, then 40 seeded ones of 0 to 4 str/int/float/bool
    parameters, some with defaults (0, False, "" and negative numbers among them), their docstrings
    of one or two lines or paragraphs, unicode, with Args: lines for some parameters; in some, one
    name starts another listed before it (max_results, then max). Each definition
    is compared with the library's (as the JSON the model reads), then sent to the mock API.
    """
    cases = definition_scenarios()
    return judge_scenarios(
        "1.1",
        cases,
        lambda function: _judge_definition(make_definition, function),
        _describe_function,
        _("your generator writes the same definitions as the library, and the API accepts them."),
    )


def definition_scenarios() -> list[Callable[..., Any]]:
    """check 1.1's scenarios: the three probe functions, then 40 seeded ones"""
    return scenarios(PROBES, _generated_function, count=40, seed=1)


def _parameters(function: Callable[..., Any]) -> list[inspect.Parameter]:
    return list(inspect.signature(function).parameters.values())


def _with_default(test: Callable[[Any], bool]) -> Callable[[Callable[..., Any]], bool]:
    return lambda f: any(p.default is not p.empty and test(p.default) for p in _parameters(f))


def _args_lines(function: Callable[..., Any]) -> str:
    return (inspect.getdoc(function) or "").partition("Args:")[2]


def _summary(function: Callable[..., Any]) -> str:
    return (inspect.getdoc(function) or "").partition("Args:")[0].strip()


# the shapes lesson 01 names for make_definition, each reached by definition_scenarios()
DEFINITION_SHAPES: dict[str, Callable[[Callable[..., Any]], bool]] = {
    **{
        f"a {kind.__name__} parameter": (lambda k: lambda f: any(p.annotation is k for p in _parameters(f)))(
            kind
        )
        for kind in (str, int, float, bool)
    },
    "no parameters": lambda f: not _parameters(f),
    "a default of 0 or False": _with_default(lambda d: d == 0 and not isinstance(d, str)),
    "a default of True": _with_default(lambda d: d is True),
    "a whole-number default for a float parameter": lambda f: any(
        p.annotation is float and type(p.default) is int for p in _parameters(f)
    ),
    "an empty string default": _with_default(lambda d: d == ""),
    "a negative default": _with_default(lambda d: not isinstance(d, str) and d < 0),
    "only parameters with defaults": lambda f: (
        bool(_parameters(f)) and all(p.default is not p.empty for p in _parameters(f))
    ),
    "a parameter with no Args: line": lambda f: any(
        re.search(rf"^\s*{p.name}:", _args_lines(f), re.MULTILINE) is None for p in _parameters(f)
    ),
    "no Args: section": lambda f: "Args:" not in (inspect.getdoc(f) or ""),
    "a summary over two lines": lambda f: "\n" in _summary(f) and "\n\n" not in _summary(f),
    "a summary of two paragraphs": lambda f: "\n\n" in _summary(f),
    "a name that starts another": lambda f: any(
        p.name != q.name and p.name.startswith(q.name) for p in _parameters(f) for q in _parameters(f)
    ),
    "unicode in the docstring": lambda f: not (inspect.getdoc(f) or "").isascii(),
    "a non-ASCII parameter name": lambda f: any(not p.name.isascii() for p in _parameters(f)),
}


def _judge_definition(
    make_definition: Callable[[Callable[..., Any]], Any], function: Callable[..., Any]
) -> str | None:
    name = function.__name__
    yours = make_definition(function)
    envelope = isinstance(yours, dict) and yours.get("type") == "function"
    if not envelope or not isinstance(yours.get("function"), dict):
        return _(
            "make_definition({name}) should return {{'type': 'function', 'function': {{'name': ..., "
            "'description': ..., 'parameters': ...}}}}; it returned {returned}",
            name=name,
            returned=_shown_short(yours),
        )
    problems = _differences(tool_definition(function)["function"], yours["function"], _GENERATOR_HINTS)
    if problems:
        return problems[0]
    refused = _refused_by_api(yours)
    return _("the API refuses the definition: {refused}", refused=refused) if refused else None


def _refused_by_api(definition: dict[str, Any]) -> str:
    client = mock.client(mock.Script("accepted"))
    try:
        client.chat.completions.create(
            model="mock-model",
            messages=[{"role": "user", "content": "hello"}],
            tools=[definition],  # type: ignore[list-item]  # the learner's, as written: the API judges it
        )
    except openai.APIError as error:
        body = getattr(error, "body", None)
        return str(body.get("message") if isinstance(body, dict) else error).splitlines()[0]
    return ""


def _shown_short(value: Any) -> str:
    text = repr(value)
    return text if len(text) < 120 else text[:117] + "..."


# Exercise 1.2: the definition the learner's function must generate.
DELIVERY_TARGET: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "schedule_delivery",
        "description": "Books a delivery slot for an order that has not arrived yet.",
        "parameters": {
            "type": "object",
            "properties": {
                "order_id": {"type": "string", "description": "The order's id, like A-1042."},
                "day": {
                    "type": "string",
                    "enum": ["monday", "tuesday", "wednesday", "thursday", "friday"],
                    "description": "Weekday of the delivery.",
                },
                "window": {
                    "type": "string",
                    "enum": ["morning", "afternoon", "evening"],
                    "description": "Part of the day the courier comes.",
                    "default": "morning",
                },
                "leave_at_door": {
                    "type": "boolean",
                    "description": "Whether the courier may leave the parcel without a signature.",
                    "default": False,
                },
                "instructions": {
                    "type": ["string", "null"],
                    "description": "A note for the courier, if any.",
                    "default": None,
                },
            },
            "required": ["order_id", "day"],
        },
    },
}

# Where to look when a key of the definition differs from the target.
_KEY_HINTS = {
    "name": N_("the function's name"),
    "summary": N_(
        "the docstring's text before its first section (Args:), each paragraph's lines joined by "
        "single spaces"
    ),
    "missing": N_("add a parameter named {name}"),
    "extra": N_("remove or rename it"),
    "required": N_("a parameter without a default value is required"),
    "type": N_("the type hint decides it"),
    "enum": N_("a fixed set of choices comes from Literal[...] or an Enum"),
    "default": N_("the default value in the signature decides it"),
    "description": N_("it comes from the parameter's line in the docstring's Args: section"),
    "items": N_("the type inside list[...] decides it"),
}

# Exercise 1.3: the other tools the model is offered (only their descriptions matter to it).
_OTHER_SHOP_TOOLS = [
    (
        "lookup_order",
        "Looks up an order by its id and returns its status and delivery date.",
        "order_id",
    ),
    (
        "search_products",
        "Searches the product catalog by name and returns price and stock for each product you can order.",
        "query",
    ),
    ("find_customer", "Finds a customer account by email address.", "email"),
]
_CANCEL_REQUESTS = [
    "Please cancel order A-2071, I ordered the wrong size.",
    "I changed my mind: cancel my order B-3310.",
]
_OTHER_REQUESTS = [
    ("Where is my order A-1042? I need the delivery status.", "lookup_order"),
    ("Do you have blue running shoes in stock?", "search_products"),
]

# Exercise 1.4: the parameters find_orders must keep.
_FIND_ORDERS_PARAMETERS = ["customer_email", "filters", "tags"]
_ORDER_STATUSES = ["open", "shipped", "delivered", "cancelled"]


def _definition(function: Any, **options: Any) -> tuple[Any, str | None]:
    """(Tool, None), or (None, a problem) when the function cannot become a tool"""
    try:
        return Tool(function, **options), None
    except Exception as error:  # the learner's code: report, don't crash the notebook
        return None, f"{type(error).__name__}: {error}"


def _shown(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _same_json(a: Any, b: Any) -> bool:
    """equal as the JSON the model reads: 0 is not false there, though 0 == False in Python"""
    try:
        return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    except (TypeError, ValueError):
        return bool(a == b)


# how a key of one property differs: the message with the hint, and without one
_PROPERTY_KEY_PROBLEMS = {
    "absent": (
        N_("property '{name}' has no {key}; it should be {expected} ({hint})"),
        N_("property '{name}' has no {key}; it should be {expected}"),
    ),
    "extra": (
        N_("property '{name}' should have no {key}; yours is {yours} ({hint})"),
        N_("property '{name}' should have no {key}; yours is {yours}"),
    ),
    "different": (
        N_("property '{name}' {key} should be {expected}, yours is {yours} ({hint})"),
        N_("property '{name}' {key} should be {expected}, yours is {yours}"),
    ),
}


def _differences(target: dict[str, Any], yours: dict[str, Any], hints: dict[str, str]) -> list[str]:
    """each way a generated function definition differs from the target, with where to look"""
    problems = []
    for key in ("name", "description"):
        if yours.get(key) != target[key]:
            where = _(hints["name" if key == "name" else "summary"])
            problems.append(
                _(
                    "{key} should be {expected}, yours is {yours} ({where})",
                    key=key,
                    expected=_shown(target[key]),
                    yours=_shown(yours.get(key)),
                    where=where,
                )
            )
    wanted = target["parameters"]["properties"]
    got = (yours.get("parameters") or {}).get("properties") or {}
    for name in wanted:
        if name not in got:
            hint = _(hints["missing"], name=name)
            problems.append(_("property '{name}' is missing: {hint}", name=name, hint=hint))
    for name in got:
        if name not in wanted:
            hint = _(hints["extra"], name=name)
            problems.append(_("property '{name}' is not in the target: {hint}", name=name, hint=hint))
    for name in (n for n in wanted if n in got):
        for key in dict.fromkeys([*wanted[name], *got[name]]):
            if key not in got[name]:
                way = "absent"
            elif key not in wanted[name]:
                way = "extra"
            elif not _same_json(got[name][key], wanted[name][key]):
                way = "different"
            else:
                continue
            key_hint = hints.get(key)
            with_hint, without = _PROPERTY_KEY_PROBLEMS[way]
            problems.append(
                _(
                    with_hint if key_hint else without,
                    name=name,
                    key=key,
                    expected=_shown(wanted[name].get(key)),
                    yours=_shown(got[name].get(key)),
                    hint=_(key_hint) if key_hint else "",
                )
            )
    required = target["parameters"]["required"]
    your_required = (yours.get("parameters") or {}).get("required")
    if isinstance(your_required, tuple | set) and set(map(str, your_required)) == set(required):
        problems.append(
            _(
                "required holds the right names, but as a {kind}: make it a list "
                "(the definition is JSON data, and other code that reads it expects a list)",
                kind=type(your_required).__name__,
            )
        )
    elif not isinstance(your_required, list) or set(map(str, your_required)) != set(required):
        problems.append(
            _(
                "required should be {expected}, yours is {yours} ({hint})",
                expected=_shown(required),
                yours=_shown(your_required),
                hint=_(hints["required"]),
            )
        )
    return problems


def check_schedule_delivery(function: Callable[..., Any]) -> Verdict:
    """Exercise 1.2: the function's generated definition equals DELIVERY_TARGET, and the tool runs every call
    that definition allows

    Scenarios: the definition compared with the target, key by key (every difference is listed);
    then 7 readable calls and 30 seeded ones, as a model would send them: every weekday and window,
    the optional arguments left out or given (instructions null, empty or unicode), and arguments
    the target forbids (a weekend day, a number for a string, "yes" for a boolean, an unknown key, a
    missing order_id). Each call is run through a ToolRegistry with your function and with the
    reference's: both must run the same calls and refuse the same ones (what your body returns is
    yours to choose).
    """
    made, problem = _definition(function)
    if problem:
        return verdict("1.2", [_("the function cannot become a tool: {problem}", problem=problem)], "")
    problems = _differences(DELIVERY_TARGET["function"], made.definition["function"], _KEY_HINTS)
    cases = delivery_scenarios()
    if problems:
        result = verdict("1.2", problems, "")
        result.scenarios = len(cases)
        return result
    return judge_scenarios(
        "1.2",
        cases,
        functools.partial(
            _judge_call,
            _registry(function, "schedule_delivery"),
            _registry(_reference_schedule_delivery, "schedule_delivery"),
        ),
        lambda arguments: _("the model's call schedule_delivery({arguments})", arguments=_shown(arguments)),
        _("your function generates exactly the target definition."),
        _fewer_arguments,
    )


def _reference_schedule_delivery(
    order_id: str,
    day: Literal["monday", "tuesday", "wednesday", "thursday", "friday"],
    window: Literal["morning", "afternoon", "evening"] = "morning",
    leave_at_door: bool = False,
    instructions: str | None = None,
) -> str:
    """Books a delivery slot for an order that has not arrived yet.

    Args:
        order_id: The order's id, like A-1042.
        day: Weekday of the delivery.
        window: Part of the day the courier comes.
        leave_at_door: Whether the courier may leave the parcel without a signature.
        instructions: A note for the courier, if any.
    """
    return f"Delivery of {order_id} booked for {day} ({window})."


_DELIVERY_CALLS: list[dict[str, Any]] = [
    {"order_id": "A-1042", "day": "monday"},
    {
        "order_id": "B-3310",
        "day": "friday",
        "window": "evening",
        "leave_at_door": True,
        "instructions": "Ring twice.",
    },
    {"order_id": "A-2071", "day": "wednesday", "instructions": None},
    {"order_id": "A-1042", "day": "saturday"},
    {"order_id": "A-1042", "day": "Monday"},
    {"order_id": "B-3310", "day": "tuesday", "gift_wrap": True},
    {"day": "thursday", "window": "afternoon"},
]


def delivery_scenarios() -> list[dict[str, Any]]:
    """check 1.2's calls: 7 readable ones, then 30 seeded"""
    return scenarios(_DELIVERY_CALLS, _delivery_arguments, count=30, seed=12)


# the shapes lesson 01 names for schedule_delivery's calls, each reached by delivery_scenarios()
DELIVERY_SHAPES: dict[str, Callable[[dict[str, Any]], bool]] = {
    "only the required arguments": lambda a: set(a) == {"order_id", "day"},
    "every argument": lambda a: set(a) >= {"order_id", "day", "window", "leave_at_door", "instructions"},
    "instructions null": lambda a: "instructions" in a and a["instructions"] is None,
    "instructions empty": lambda a: a.get("instructions") == "",
    "unicode in a string": lambda a: (
        not json.dumps(a).isascii() or any(isinstance(v, str) and not v.isascii() for v in a.values())
    ),
    "a weekend day": lambda a: a.get("day") in ("saturday", "sunday"),
    "a day in capitals": lambda a: isinstance(a.get("day"), str) and a["day"] != a["day"].lower(),
    "a window not in the enum": lambda a: (
        "window" in a and a["window"] not in ("morning", "afternoon", "evening")
    ),
    "a number for a string": lambda a: (
        isinstance(a.get("order_id"), int) or isinstance(a.get("instructions"), int)
    ),
    "a string for a boolean": lambda a: isinstance(a.get("leave_at_door"), str),
    "an unknown key": lambda a: bool(set(a) - set(DELIVERY_TARGET["function"]["parameters"]["properties"])),
    "a missing order_id": lambda a: "order_id" not in a,
    "keys in another order": lambda a: list(a)[:1] != ["order_id"],
}


def _delivery_arguments(rng: random.Random) -> dict[str, Any]:
    """mostly calls the target allows, in any key order; sometimes one argument it forbids"""
    arguments: dict[str, Any] = {
        "order_id": rng.choice(("A-1042", "Z-9", "", "Ö-77 ✉")),
        "day": rng.choice(("monday", "tuesday", "wednesday", "thursday", "friday")),
    }
    if rng.random() < 0.6:
        arguments["window"] = rng.choice(("morning", "afternoon", "evening"))
    if rng.random() < 0.5:
        arguments["leave_at_door"] = rng.choice((True, False))
    if rng.random() < 0.6:
        arguments["instructions"] = rng.choice((None, "", "Leave it with the neighbour.", "Klingeln 🔔"))
    if rng.random() < 0.3:
        key, value = rng.choice(
            (
                ("day", "sunday"),
                ("day", "Monday"),
                ("order_id", 1042),
                ("window", "noon"),
                ("leave_at_door", "yes"),
                ("instructions", 5),
                ("gift_wrap", True),
                ("order_id", None),
            )
        )
        arguments[key] = value
        if value is None:
            del arguments[key]  # a required argument left out
    keys = list(arguments)
    rng.shuffle(keys)
    return {key: arguments[key] for key in keys}


def _fewer_arguments(arguments: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """the call without one of its arguments"""
    for key in arguments:
        yield {k: v for k, v in arguments.items() if k != key}


def _judge_call(
    yours: ToolRegistry,
    reference: ToolRegistry,
    arguments: dict[str, Any],
    target: str = N_("the target definition"),
) -> str | None:
    """both tools run the call or both refuse it; a tool that fails on an allowed call is wrong"""
    target = _(target)
    name = reference.names[0]
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }
    expected, got = reference.run(call), yours.run(call)
    if expected.is_error and got.error_type == "tool_error" and expected.error_type != "tool_error":
        return _(
            "{target} forbids this call ({reason}), but your definition let it "
            "through and your tool then failed ({failure}): its type hints should "
            "refuse what the definition refuses",
            target=target,
            reason=_first_line(expected.content, 1),
            failure=repr(_first_line(got.content)),
        )
    if expected.is_error == got.is_error:
        return None
    if got.is_error:
        return _(
            "{target} allows this call, but your tool answered {answer}: "
            "it must run every call its definition allows",
            target=target,
            answer=repr(_first_line(got.content)),
        )
    return _(
        "{target} forbids this call ({reason}), but your tool ran "
        "it: its type hints should refuse what the definition refuses",
        target=target,
        reason=_first_line(expected.content, 1),
    )


def _registry(function: Callable[..., Any], name: str, strict: bool = False) -> ToolRegistry:
    """one tool under the exercise's name, whatever the learner's function is called"""
    return ToolRegistry([Tool(function, name=name, strict=strict)])


def _first_line(text: str, index: int = 0) -> str:
    lines = text.splitlines()
    line = lines[min(index, len(lines) - 1)].strip(" -") if lines else ""
    return line if len(line) < 160 else line[:157] + "..."


def _explain_choice(request: dict[str, Any]) -> str:
    scores = score_tools(mock.last_user_text(request), mock.offered_tools(request))
    return "; ".join(
        f"{s.name} {s.score}" + (f" ({', '.join(s.matched)})" if s.matched else "") for s in scores
    )


def _pick(client: openai.OpenAI, question: str, definitions: list[dict[str, Any]]) -> str:
    """the tool the model calls for this question ('' for a text answer)"""
    response = client.chat.completions.create(
        model="mock-model",
        messages=[{"role": "user", "content": question}],
        tools=definitions,  # type: ignore[arg-type]  # the learner's, as written
    )
    tool_calls = [call for call in response.choices[0].message.tool_calls or [] if call.type == "function"]
    return tool_calls[0].function.name if tool_calls else ""


# Words of the two cancel requests that say nothing about what cancelling is: copying them into
# the description games this word-counting model and would not help a real one.
# words of a Spanish sentence that no English one has (exercise 1.3 is in English, like its requests)
_SPANISH_WORDS = {
    "un",
    "una",
    "el",
    "los",
    "las",
    "por",
    "su",
    "sus",
    "que",
    "del",
    "pedido",
    "pedidos",
    "si",
    "aún",
}
_REQUEST_ONLY_WORDS = {"ordered", "wrong", "size", "changed", "mind"}
_MAX_DESCRIPTION_WORDS = 30


def _stuffing(description: str) -> list[str]:
    """the ways a description can win the word count without saying what the tool does"""
    content = words(description)
    repeated = sorted(w for w in set(content) if content.count(w) > 1)
    if repeated:
        return [
            _(
                "the description repeats {words}: a model reads a description once; "
                "say what the tool does, each word once",
                words=", ".join(repeated),
            )
        ]
    unquoted = re.sub(r'"[^"]*"|“[^”]*”|\'[^\']*\'', " ", description)  # a quoted request may say "my"
    voice = sorted(
        {
            w.lower()
            for w in re.findall(r"\b(?:I'[a-z]+|I|my|me|please)\b", unquoted, re.IGNORECASE)
            if w.lower() != "i" or w == "I"
        }
    )
    if voice:
        return [
            _(
                "the description speaks as a customer ({words}): it is read by the model that "
                "picks tools, so say what the tool does, e.g. 'Cancels an order ...'",
                words=", ".join(voice),
            )
        ]
    copied = sorted(_REQUEST_ONLY_WORDS & set(content))
    if copied:
        return [
            _(
                "the description copies words from the example requests ({words}): say what "
                "the tool does for any cancellation, not what these two customers wrote",
                words=", ".join(copied),
            )
        ]
    segments = [part for part in description.replace(";", ",").split(",") if part.strip()]
    if len(segments) >= 3 and sum(len(part.split()) <= 1 for part in segments) * 2 >= len(segments):
        return [_("the description is a list of keywords: write one sentence saying what the tool does")]
    # a sentence ends at . ! or ? followed by a capital letter ("e.g." and "i.e." do not end one)
    ends = re.findall(r"(?<!\be\.g)(?<!\bi\.e)[.!?]\s+(?=[A-Z])", description.strip())
    if ends:
        return [
            _(
                "the description is {count} sentences: write one sentence (of at most {most} words, ending "
                "with a period)",
                count=len(ends) + 1,
                most=_MAX_DESCRIPTION_WORDS,
            )
        ]
    if len(description.split()) > _MAX_DESCRIPTION_WORDS:
        return [
            _(
                "the description has {count} words: write one sentence of at most {most} words",
                count=len(description.split()),
                most=_MAX_DESCRIPTION_WORDS,
            )
        ]
    if not description.rstrip().endswith("."):
        return [_("the description should end with a period: write it as one sentence that ends with '.'")]
    return []


def check_cancel_description(function: Callable[..., Any]) -> Verdict:
    """Exercise 1.3: DescriptionReader picks cancel_order for cancel requests, and only for those

    A description has no single right text, so the check asks what every right one does and the
    tempting wrong ones do not: no order id, no word twice, the tool's voice, no words copied from
    the requests, one sentence. Scenarios: the lesson's four requests; then 30 seeded ones, written
    as customers write: cancel requests with other order ids, greetings, thanks and unicode around
    them, and requests for the other three tools (an order's status, delivery date or tracking; a
    product's price and stock; a customer's account by email). Each is sent to DescriptionReader,
    offered the shop's tools with yours last; it must call the tool the request is for.
    """
    made, problem = _definition(function)
    if problem:
        return verdict("1.3", [_("the function cannot become a tool: {problem}", problem=problem)], "")
    if made.name != "cancel_order":
        return verdict("1.3", [_("keep the name cancel_order (yours is {name})", name=repr(made.name))], "")
    cases = cancel_scenarios()
    problems = []
    order_ids = [word for word in ("A-2071", "B-3310", "A-1042") if word in made.description]
    if order_ids:
        problems.append(
            _(
                "the description mentions {ids}: describe what the tool does for any order, not one request",
                ids=", ".join(order_ids),
            )
        )
    problems += _stuffing(made.description)
    spanish = _SPANISH_WORDS & set(re.findall(r"\w+", made.description.lower()))
    if len(spanish) >= 2 and not problems:
        problems.append(
            _(
                "the description is in Spanish ({words}...), and the requests are in "
                "English: DescriptionReader matches the words they share, so write it in English, as the "
                "exercise says",
                words=", ".join(sorted(spanish)),
            )
        )
    definitions = [
        {
            "type": "function",
            "function": {
                "name": name,
                "description": description,
                "parameters": {
                    "type": "object",
                    "properties": {parameter: {"type": "string"}},
                    "required": [parameter],
                },
            },
        }
        for name, description, parameter in _OTHER_SHOP_TOOLS
    ] + [made.definition]
    client = mock.client(DescriptionReader())
    if not problems:
        expected = [(question, "cancel_order") for question in _CANCEL_REQUESTS] + _OTHER_REQUESTS
        for question, wanted in expected:
            problem = _judge_pick(client, definitions, ("", question, "", wanted), named=True)
            if problem:
                problems.append(problem)
    if problems:
        result = verdict("1.3", problems, "")
        result.scenarios = len(_CANCEL_REQUESTS) + len(_OTHER_REQUESTS) + len(cases)
        return result
    result = judge_scenarios(
        "1.3",
        cases,
        functools.partial(_judge_pick, client, definitions),
        lambda request: _("for {request}", request=repr("".join(request[:3]))),
        _(
            "the model now calls cancel_order to cancel, and still looks up and searches with the right "
            "tools."
        ),
        _plainer_request,
    )
    result.scenarios += len(_CANCEL_REQUESTS) + len(_OTHER_REQUESTS)
    return result


# (greeting, request, closing, the tool it is for): the request's own words are the tool's job
_Request = tuple[str, str, str, str]
_GREETINGS = ("", "Hi! ", "Hello, ", "Guten Tag! ", "Bonjour, ")
_CLOSINGS = ("", " Thanks!", " Danke schön.", " Merci 🙏", " Cheers, Zoë.")


def cancel_scenarios() -> list[_Request]:
    """check 1.3's generated requests (the lesson's four come first, apart)"""
    return scenarios([], _shop_request, count=30, seed=13)


# the shapes lesson 01 names for cancel_order's description, each reached by cancel_scenarios()
CANCEL_SHAPES: dict[str, Callable[[_Request], bool]] = {
    **{
        f"a request for {tool}": (lambda t: lambda r: r[3] == t)(tool)
        for tool in ("cancel_order", "lookup_order", "search_products", "find_customer")
    },
    "another order id": lambda r: (
        re.search(r"[A-Z]-\d{4}", r[1]) is not None
        and not any(i in r[1] for i in ("A-2071", "B-3310", "A-1042"))
    ),
    "a greeting": lambda r: bool(r[0]),
    "a closing": lambda r: bool(r[2]),
    "unicode": lambda r: not "".join(r[:3]).isascii(),
    "a cancel request without 'my'": lambda r: r[3] == "cancel_order" and "my" not in r[1].split(),
}


def _shop_request(rng: random.Random) -> _Request:
    """a cancel request for another order, or a request for one of the other tools, worded freshly"""
    order = f"{rng.choice('ABCZ')}-{rng.randint(1000, 9999)}"
    kind = rng.choice(("cancel_order", "cancel_order", "lookup_order", "search_products", "find_customer"))
    body = {
        "cancel_order": (
            f"Cancel order {order}.",
            f"Please cancel my order {order}.",
            f"Can you cancel the order {order}?",
            f"I need to cancel order {order} today.",
        ),
        "lookup_order": (
            f"What is the status of order {order}?",
            f"When is the delivery date of my order {order}?",
            f"Look up order {order}: status and delivery date, please.",
        ),
        "search_products": (
            f"Do you have {rng.choice(('red scarves', 'a kettle', 'Wanderschuhe'))} in stock?",
            f"Search the catalog for {rng.choice(('a lamp', 'green tea'))}: price and stock?",
        ),
        "find_customer": (
            f"Find the customer account for {rng.choice(('ana@example.com', 'zoë@beispiel.de'))}.",
            "Which customer account has the email address ben@example.org?",
        ),
    }[kind]
    return rng.choice(_GREETINGS), rng.choice(body), rng.choice(_CLOSINGS), kind


def _plainer_request(request: _Request) -> Iterator[_Request]:
    greeting, body, closing, wanted = request
    if greeting:
        yield "", body, closing, wanted
    if closing:
        yield greeting, body, "", wanted


# what went wrong when the model picked another tool, said alone (a scenario's problem) or after the
# request it was asked (the lesson's own requests): one whole message each, as their fields are free text
_PICK_PROBLEMS = {
    "refused": (
        N_("the model refused the request: {error}"),
        N_("for {request} the model refused the request: {error}"),
    ),
    "other": (
        N_("the model called {picked}, not {wanted}. Shared words per tool: {scores}: {advice}"),
        N_(
            "for {request} the model called {picked}, not {wanted}. Shared words per tool: {scores}: {advice}"
        ),
    ),
    "none": (
        N_("the model called no tool, not {wanted}. Shared words per tool: {scores}: {advice}"),
        N_("for {request} the model called no tool, not {wanted}. Shared words per tool: {scores}: {advice}"),
    ),
}


def _judge_pick(
    client: openai.OpenAI, definitions: list[dict[str, Any]], request: _Request, named: bool = False
) -> str | None:
    """the model calls the tool the request is for; else which it called, the scores, and where to look
    (after the request, when `named`)"""
    greeting, body, closing, wanted = request
    question = greeting + body + closing
    try:
        picked = _pick(client, question, definitions)
    except openai.APIError as error:
        return _(_PICK_PROBLEMS["refused"][named], request=repr(question), error=error)
    if picked == wanted:
        return None
    if wanted == "cancel_order":
        advice = _(
            "cancel_order needs more shared words than every other tool (a tie goes to "
            "the tool offered first, and cancel_order is offered last)"
        )
    else:
        advice = _("say what cancel_order does, not what {wanted} does", wanted=wanted)
    return _(
        _PICK_PROBLEMS["other" if picked else "none"][named],
        request=repr(question),
        picked=picked,
        wanted=wanted,
        scores=_explain_choice(_trace_of(client)[-1].request),
        advice=advice,
    )


def check_strict_find_orders(function: Callable[..., Any]) -> Verdict:
    """Exercise 1.4: find_orders becomes a strict tool with the same parameters, and runs every call strict
    mode lets through

    Scenarios: the strict definition's shape (named keys, typed lists, status and placed_after,
    tags optional) and the API's answer to it; then 6 readable calls and 30 seeded ones, as a
    model in strict mode sends them: every status, tags null, empty or unicode, and arguments strict
    mode forbids (a status not in the list, a number for the date, an extra or a missing key in
    filters, tags as a string, tags left out). Each call is run through a ToolRegistry with your
    strict tool and with the reference's: both must run the same calls and refuse the same ones, so
    a body that cannot read what your type hints let in (filters['status'] on an object) fails.
    """
    loose, problem = _definition(function)
    if problem:
        return verdict("1.4", [_("the function cannot become a tool: {problem}", problem=problem)], "")
    cases = order_scenarios()
    problems = _strict_shape(loose)
    if not problems:
        strict, problem = _definition(function, strict=True)
        if problem or strict is None:
            problems = [_("strict mode still refuses it: {problem}", problem=problem)]
        else:
            problems = _accepted(strict)
    if problems:
        result = verdict("1.4", problems, "")
        result.scenarios = len(cases)
        return result
    return judge_scenarios(
        "1.4",
        cases,
        functools.partial(
            _judge_call,
            _registry(function, "find_orders", strict=True),
            _registry(_reference_find_orders, "find_orders", strict=True),
            target=N_("the strict definition the exercise describes"),
        ),
        lambda arguments: _("the model's call find_orders({arguments})", arguments=_shown(arguments)),
        _("find_orders is a strict tool now, and the API accepts it."),
        _fewer_arguments,
    )


def _strict_shape(loose: Tool) -> list[str]:
    """what keeps the loose definition from becoming the strict one the exercise describes"""
    problems = []
    properties = loose.parameters["properties"]
    if list(properties) != _FIND_ORDERS_PARAMETERS:
        return [
            _(
                "keep the parameters {expected} (yours: {yours}): the model's calls and your code both use "
                "these names",
                expected=", ".join(_FIND_ORDERS_PARAMETERS),
                yours=", ".join(properties),
            )
        ]
    for name, schema in properties.items():
        options = [schema, *schema.get("anyOf", [])]
        if any(o.get("type") == "object" and "properties" not in o for o in options):
            problems.append(
                _(
                    "'{name}' is a free-form dict: strict mode needs every key named. Describe its "
                    "keys with a TypedDict and use that as the type hint (it is still a dict, so "
                    "filters['status'] keeps working)",
                    name=name,
                )
            )
        if any(o.get("type") == "array" and "items" not in o for o in options):
            problems.append(_("'{name}' is a list of anything: say what it holds, e.g. list[str]", name=name))
    filters = properties["filters"]
    if not problems and set(filters.get("properties", {})) != {"status", "placed_after"}:
        keys = ", ".join(filters.get("properties", {}))
        problems.append(
            _("filters should have exactly two keys, status and placed_after; yours has {keys}", keys=keys)
            if keys
            else _("filters should have exactly two keys, status and placed_after; yours has none")
        )
    if not problems:
        problems += _filter_keys(filters.get("properties", {}))
    if not problems and set(filters.get("required", [])) != {"status", "placed_after"}:
        problems.append(
            _(
                "filters' status and placed_after should both be required, since the body reads both: a "
                "TypedDict with total=False makes them optional, and strict mode then lets the model send "
                "null for them"
            )
        )
    if "tags" in loose.parameters["required"]:
        problems.append(_("tags should stay optional: give it a default of None"))
    return problems


class _ReferenceOrderFilters(TypedDict):
    status: Literal["open", "shipped", "delivered", "cancelled"]
    placed_after: str


def _reference_find_orders(
    customer_email: str, filters: _ReferenceOrderFilters, tags: list[str] | None = None
) -> str:
    """Finds a customer's orders, newest first."""
    return f"No {filters['status']} orders for {customer_email} since {filters['placed_after']}."


_ORDER_CALLS: list[dict[str, Any]] = [
    {
        "customer_email": "ana@example.com",
        "filters": {"status": "open", "placed_after": "2024-05-01"},
        "tags": None,
    },
    {
        "customer_email": "ben@example.com",
        "filters": {"status": "shipped", "placed_after": "2024-01-31"},
        "tags": ["gift", "express"],
    },
    {
        "customer_email": "ana@example.com",
        "filters": {"status": "pending", "placed_after": "2024-05-01"},
        "tags": None,
    },
    {"customer_email": "ana@example.com", "filters": {"status": "open", "placed_after": "2024-05-01"}},
    {
        "customer_email": "ben@example.com",
        "filters": {"status": "delivered", "placed_after": ""},
        "tags": "gift",
    },
    {
        "customer_email": "zoë@exämple.de",
        "filters": {"status": "cancelled", "placed_after": "2023-12-31"},
        "tags": ["fragile ⚠", 7],
    },
]


def order_scenarios() -> list[dict[str, Any]]:
    """check 1.4's calls: 6 readable ones, then 30 seeded"""
    return scenarios(_ORDER_CALLS, _order_arguments, count=30, seed=14)


def _filters(a: dict[str, Any]) -> dict[str, Any]:
    return a.get("filters") if isinstance(a.get("filters"), dict) else {}  # type: ignore[return-value]


# the shapes lesson 01 names for strict find_orders' calls, each reached by order_scenarios()
ORDER_SHAPES: dict[str, Callable[[dict[str, Any]], bool]] = {
    **{
        f"status {status}": (lambda st: lambda a: _filters(a).get("status") == st)(status)
        for status in _ORDER_STATUSES
    },
    "a status not in the list": lambda a: _filters(a).get("status", "open") not in _ORDER_STATUSES,
    "a status in another case": lambda a: _filters(a).get("status") == "Open",
    "a number for the date": lambda a: isinstance(_filters(a).get("placed_after"), int),
    "a null date": lambda a: "placed_after" in _filters(a) and _filters(a)["placed_after"] is None,
    "an extra key in filters": lambda a: bool(set(_filters(a)) - {"status", "placed_after"}),
    "a key missing from filters": lambda a: not {"status", "placed_after"} <= set(_filters(a)),
    "tags null": lambda a: "tags" in a and a["tags"] is None,
    "tags empty": lambda a: a.get("tags") == [],
    "tags with unicode": lambda a: isinstance(a.get("tags"), list) and not str(a["tags"]).isascii(),
    "tags as a string": lambda a: isinstance(a.get("tags"), str),
    "tags holding a number": lambda a: (
        isinstance(a.get("tags"), list) and any(isinstance(t, int) for t in a["tags"])
    ),
    "tags left out": lambda a: "tags" not in a,
    "an empty email": lambda a: a.get("customer_email") == "",
}


def _order_arguments(rng: random.Random) -> dict[str, Any]:
    """mostly calls strict mode allows, in any key order; sometimes one value or key it forbids"""
    filters: dict[str, Any] = {
        "status": rng.choice(_ORDER_STATUSES),
        "placed_after": rng.choice(("2024-05-01", "2023-12-31", "")),
    }
    arguments: dict[str, Any] = {
        "customer_email": rng.choice(("ana@example.com", "zoë@exämple.de", "")),
        "filters": filters,
        "tags": rng.choice((None, [], ["gift"], ["express", "fragile ⚠"])),
    }
    if rng.random() < 0.35:
        where, key, value = rng.choice(
            (
                ("filters", "status", "pending"),
                ("filters", "status", "Open"),
                ("filters", "placed_after", 20240501),
                ("filters", "placed_after", None),
                ("filters", "limit", 5),
                ("filters", "status", None),
                ("top", "tags", "gift"),
                ("top", "tags", [1]),
                ("top", "tags", ...),
            )
        )
        target = filters if where == "filters" else arguments
        if value is ... or (where == "filters" and value is None and key == "status"):
            del target[key]  # a required key left out
        else:
            target[key] = value
    for part in (filters, arguments):
        keys = list(part)
        rng.shuffle(keys)
        shuffled = {key: part[key] for key in keys}
        part.clear()
        part.update(shuffled)
    return arguments


def _filter_keys(keys: dict[str, Any]) -> list[str]:
    """status may only be one of the four statuses; placed_after is a date written as a string"""
    problems = []
    status = keys["status"]
    if status.get("type") != "string" or sorted(status.get("enum") or []) != sorted(_ORDER_STATUSES):
        problems.append(
            _(
                "filters' status should be one of {statuses} and nothing else; yours allows {yours}: type it "
                "as Literal[{literal}]",
                statuses=", ".join(_ORDER_STATUSES),
                yours=_shown(status),
                literal=", ".join(map(repr, _ORDER_STATUSES)),
            )
        )
    if keys["placed_after"].get("type") != "string":
        problems.append(
            _(
                "filters' placed_after is an ISO date, which JSON writes as a string; yours is {yours}: "
                "type it as str",
                yours=_shown(keys["placed_after"]),
            )
        )
    return problems


def _accepted(strict: Tool) -> list[str]:
    client = mock.client(mock.Script("accepted"))
    try:
        client.chat.completions.create(
            model="mock-model",
            messages=[{"role": "user", "content": "Find my open orders."}],
            tools=[strict.definition],  # type: ignore[list-item]  # the learner's, as written
        )
    except openai.APIError as error:
        return [_("the API refuses the strict definition: {error}", error=error)]
    return []


# --- the input space the exercises' words name (tests/test_input_space.py) ---------------------------

DEFINITION_SPACE: dict[str, Dimension[Callable[..., Any]]] = {
    "types": Dimension(
        "parameters are `str`, `int`, `float` or `bool`",
        forms_of(
            DEFINITION_SHAPES,
            "a str parameter",
            "a int parameter",
            "a float parameter",
            "a bool parameter",
            "no parameters",
            "a whole-number default for a float parameter",
        ),
    ),
    "defaults": Dimension(
        "defaults such as 0 and False",
        {
            **forms_of(
                DEFINITION_SHAPES,
                "a default of 0 or False",
                "a default of True",
                "an empty string default",
                "a negative default",
                "only parameters with defaults",
            ),
            "a parameter without a default": lambda f: any(p.default is p.empty for p in _parameters(f)),
        },
    ),
    "docstrings": Dimension(
        "docstrings of one or two paragraphs",
        {
            "one paragraph": lambda f: "\n\n" not in _summary(f),
            "two paragraphs": lambda f: "\n\n" in _summary(f),
            **forms_of(DEFINITION_SHAPES, "a summary over two lines"),
        },
    ),
    "Args: lines": Dimension(
        "parameters with no `Args:` line",
        {
            **forms_of(DEFINITION_SHAPES, "a parameter with no Args: line", "no Args: section"),
            "a line for every parameter": lambda f: (
                bool(_parameters(f)) and not DEFINITION_SHAPES["a parameter with no Args: line"](f)
            ),
        },
    ),
}

DELIVERY_SPACE: dict[str, Dimension[dict[str, Any]]] = {
    "arguments given": Dimension(
        "the calls a model could send under the target definition",
        forms_of(DELIVERY_SHAPES, "only the required arguments", "every argument", "keys in another order"),
    ),
    "values allowed": Dimension(
        "your tool must run each one the definition allows",
        forms_of(
            DELIVERY_SHAPES, "instructions null", "instructions empty", "unicode in a string", "a weekend day"
        ),
    ),
    "values refused": Dimension(
        "The check compares the two and says which property differs",
        forms_of(
            DELIVERY_SHAPES,
            "a day in capitals",
            "a window not in the enum",
            "a number for a string",
            "a string for a boolean",
            "an unknown key",
            "a missing order_id",
        ),
    ),
}

CANCEL_SPACE: dict[str, Dimension[_Request]] = {
    "the tool asked for": Dimension(
        "requests for the other tools",
        forms_of(
            CANCEL_SHAPES,
            "a request for cancel_order",
            "a request for lookup_order",
            "a request for search_products",
            "a request for find_customer",
        ),
    ),
    "order ids": Dimension(
        "other order ids",
        {
            **forms_of(CANCEL_SHAPES, "another order id"),
            "no order id": lambda r: re.search(r"[A-Z]-\d{4}", r[1]) is None,
        },
    ),
    "wording": Dimension(
        "written as customers write them",
        {
            **forms_of(CANCEL_SHAPES, "a greeting", "a closing", "unicode", "a cancel request without 'my'"),
            "the request alone": lambda r: not r[0] and not r[2],
        },
    ),
}

ORDER_SPACE: dict[str, Dimension[dict[str, Any]]] = {
    "status": Dimension(
        '`status` (one of `"open"`, `"shipped"`, `"delivered"`, `"cancelled"`)',
        forms_of(ORDER_SHAPES, "status open", "status shipped", "status delivered", "status cancelled"),
    ),
    "placed_after": Dimension(
        "`placed_after` (an ISO date string)",
        {
            "an ISO date": lambda a: isinstance(_filters(a).get("placed_after"), str),
            **forms_of(ORDER_SHAPES, "a number for the date", "a null date", "a key missing from filters"),
        },
    ),
    "tags": Dimension(
        "`tags` stays optional",
        forms_of(ORDER_SHAPES, "tags null", "tags empty", "tags left out", "tags with unicode"),
    ),
}
