"""Checks for lesson 01's exercises: the tool schema."""

import inspect
import json
import random
import re
from collections.abc import Callable
from typing import Any

import openai

from .. import mock
from ..mock.chooser import DescriptionReader, score_tools, words
from ..schema import Tool, tool_definition
from . import Verdict, _trace_of, verdict
from ._scenarios import judge_scenarios, scenarios

__all__ = [
    "check_make_definition",
    "DELIVERY_TARGET",
    "check_schedule_delivery",
    "check_cancel_description",
    "check_strict_find_orders",
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
    "name": "function.__name__",
    "summary": "the docstring before its first section (Args:), each paragraph's lines joined by single "
    "spaces",
    "missing": "one property per parameter of inspect.signature(function)",
    "extra": "one property per parameter, no more",
    "required": "the parameters without a default value, and only those",
    "type": "map the annotation: str -> string, int -> integer, float -> number, bool -> boolean",
    "default": "a parameter's default value goes into its schema as default",
    "description": "the text after 'name: ' on the parameter's line in Args:; no line, no description",
}


_NAMES = ("city", "count", "price", "urgent", "label", "limit", "ratio", "größe", "query", "page")
_PREFIXED_NAMES = (("max_results", "max"), ("id_type", "id"), ("city_code", "city"))
_SUMMARIES = (
    "Finds rooms in a hotel.",
    "Converts a price to another currency,\nrounded to cents.",
    "Returns the café's opening hours ☕.",
    "Sends a reminder.\n\nIt never sends twice in an hour.",
)
_DEFAULTS = {str: ("", "none", "Zürich"), int: (0, 3, -1), float: (0.0, 2.5), bool: (False, True)}


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
    return function


def _describe_function(function: Callable[..., Any]) -> str:
    if function in PROBES:
        return f"for {function.__name__}()"
    return f"for {vars(function)['__source__']} with the docstring {inspect.getdoc(function)!r}"


def check_make_definition(make_definition: Callable[[Callable[..., Any]], Any]) -> Verdict:
    """Exercise 1.1: make_definition() writes the library's definition for every probe function

    Scenarios: the three probe functions, then 40 seeded ones of 0 to 4 str/int/float/bool
    parameters, some with defaults (0, False, "" and negative numbers among them), their docstrings
    of one or two lines or paragraphs, unicode, with Args: lines for some parameters; in some, one
    name starts another listed before it (max_results, then max). Each definition
    is compared with the library's (as the JSON the model reads), then sent to the mock API.
    """
    cases = scenarios(PROBES, _generated_function, count=40, seed=1)
    return judge_scenarios(
        "1.1",
        cases,
        lambda function: _judge_definition(make_definition, function),
        _describe_function,
        "your generator writes the same definitions as the library, and the API accepts them.",
    )


def _judge_definition(
    make_definition: Callable[[Callable[..., Any]], Any], function: Callable[..., Any]
) -> str | None:
    name = function.__name__
    yours = make_definition(function)
    envelope = isinstance(yours, dict) and yours.get("type") == "function"
    if not envelope or not isinstance(yours.get("function"), dict):
        return (
            f"make_definition({name}) should return {{'type': 'function', 'function': {{'name': ..., "
            f"'description': ..., 'parameters': ...}}}}; it returned {_shown_short(yours)}"
        )
    problems = _differences(tool_definition(function)["function"], yours["function"], _GENERATOR_HINTS)
    if problems:
        return problems[0]
    refused = _refused_by_api(yours)
    return f"the API refuses the definition: {refused}" if refused else None


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
    "name": "the function's name",
    "summary": "the docstring's text before its first section (Args:), each paragraph's lines joined by "
    "single spaces",
    "missing": "add a parameter named {name}",
    "extra": "remove or rename it",
    "required": "a parameter without a default value is required",
    "type": "the type hint decides it",
    "enum": "a fixed set of choices comes from Literal[...] or an Enum",
    "default": "the default value in the signature decides it",
    "description": "it comes from the parameter's line in the docstring's Args: section",
    "items": "the type inside list[...] decides it",
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
        return a == b


def _differences(target: dict[str, Any], yours: dict[str, Any], hints: dict[str, str]) -> list[str]:
    """each way a generated function definition differs from the target, with where to look"""
    problems = []
    for key in ("name", "description"):
        if yours.get(key) != target[key]:
            where = hints["name" if key == "name" else "summary"]
            problems.append(
                f"{key} should be {_shown(target[key])}, yours is {_shown(yours.get(key))} ({where})"
            )
    wanted = target["parameters"]["properties"]
    got = (yours.get("parameters") or {}).get("properties") or {}
    for name in wanted:
        if name not in got:
            problems.append(f"property '{name}' is missing: {hints['missing'].format(name=name)}")
    for name in got:
        if name not in wanted:
            problems.append(f"property '{name}' is not in the target: {hints['extra'].format(name=name)}")
    for name in (n for n in wanted if n in got):
        for key in dict.fromkeys([*wanted[name], *got[name]]):
            if key not in got[name]:
                problem = f"has no {key}; it should be {_shown(wanted[name][key])}"
            elif key not in wanted[name]:
                problem = f"should have no {key}; yours is {_shown(got[name][key])}"
            elif not _same_json(got[name][key], wanted[name][key]):
                problem = f"{key} should be {_shown(wanted[name][key])}, yours is {_shown(got[name][key])}"
            else:
                continue
            hint = hints.get(key)
            problems.append(f"property '{name}' {problem}" + (f" ({hint})" if hint else ""))
    required = target["parameters"]["required"]
    your_required = (yours.get("parameters") or {}).get("required")
    if isinstance(your_required, tuple | set) and set(map(str, your_required)) == set(required):
        problems.append(
            f"required holds the right names, but as a {type(your_required).__name__}: make it a list "
            "(the definition is JSON data, and other code that reads it expects a list)"
        )
    elif not isinstance(your_required, list) or set(map(str, your_required)) != set(required):
        problems.append(
            f"required should be {_shown(required)}, yours is {_shown(your_required)} ({hints['required']})"
        )
    return problems


def check_schedule_delivery(function: Callable[..., Any]) -> Verdict:
    """Exercise 1.2: the function's generated definition equals DELIVERY_TARGET"""
    made, problem = _definition(function)
    if problem:
        return verdict("1.2", [f"the function cannot become a tool: {problem}"], "")
    problems = _differences(DELIVERY_TARGET["function"], made.definition["function"], _KEY_HINTS)
    return verdict("1.2", problems, "your function generates exactly the target definition.")


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
_REQUEST_ONLY_WORDS = {"ordered", "wrong", "size", "changed", "mind"}
_MAX_DESCRIPTION_WORDS = 30


def _stuffing(description: str) -> list[str]:
    """the ways a description can win the word count without saying what the tool does"""
    content = words(description)
    repeated = sorted(w for w in set(content) if content.count(w) > 1)
    if repeated:
        return [
            f"the description repeats {', '.join(repeated)}: a model reads a description once; "
            "say what the tool does, each word once"
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
            f"the description speaks as a customer ({', '.join(voice)}): it is read by the model that "
            "picks tools, so say what the tool does, e.g. 'Cancels an order ...'"
        ]
    copied = sorted(_REQUEST_ONLY_WORDS & set(content))
    if copied:
        return [
            f"the description copies words from the example requests ({', '.join(copied)}): say what "
            "the tool does for any cancellation, not what these two customers wrote"
        ]
    segments = [part for part in description.replace(";", ",").split(",") if part.strip()]
    if len(segments) >= 3 and sum(len(part.split()) <= 1 for part in segments) * 2 >= len(segments):
        return ["the description is a list of keywords: write one sentence saying what the tool does"]
    if len(description.split()) > _MAX_DESCRIPTION_WORDS or not description.rstrip().endswith("."):
        return [
            f"write the description as one sentence of at most {_MAX_DESCRIPTION_WORDS} words, "
            "ending with a period"
        ]
    return []


def check_cancel_description(function: Callable[..., Any]) -> Verdict:
    """Exercise 1.3: DescriptionReader picks cancel_order for cancel requests, and only for those"""
    made, problem = _definition(function)
    if problem:
        return verdict("1.3", [f"the function cannot become a tool: {problem}"], "")
    if made.name != "cancel_order":
        return verdict("1.3", [f"keep the name cancel_order (yours is {made.name!r})"], "")
    problems = []
    order_ids = [word for word in ("A-2071", "B-3310", "A-1042") if word in made.description]
    if order_ids:
        problems.append(
            f"the description mentions {', '.join(order_ids)}: describe what the tool does for "
            "any order, not one request"
        )
    problems += _stuffing(made.description)
    if problems:
        return verdict("1.3", problems, "")
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
    expected = [(question, "cancel_order") for question in _CANCEL_REQUESTS] + _OTHER_REQUESTS
    for question, wanted in expected:
        try:
            picked = _pick(client, question, definitions)
        except openai.APIError as error:
            return verdict("1.3", [f"the model refused the request: {error}"], "")
        if picked != wanted:
            what = f"called {picked}" if picked else "called no tool"
            if wanted == "cancel_order":
                advice = (
                    "cancel_order needs more shared words than every other tool (a tie goes to "
                    "the tool offered first, and cancel_order is offered last)"
                )
            else:
                advice = f"say what cancel_order does, not what {wanted} does"
            problems.append(
                f"for {question!r} the model {what}, not {wanted}. Shared words per tool: "
                f"{_explain_choice(_trace_of(client)[-1].request)}: {advice}"
            )
    return verdict(
        "1.3",
        problems,
        "the model now calls cancel_order to cancel, and still looks up and searches with the right tools.",
    )


def check_strict_find_orders(function: Callable[..., Any]) -> Verdict:
    """Exercise 1.4: find_orders becomes a strict tool with the same parameters"""
    loose, problem = _definition(function)
    if problem:
        return verdict("1.4", [f"the function cannot become a tool: {problem}"], "")
    problems = []
    properties = loose.parameters["properties"]
    if list(properties) != _FIND_ORDERS_PARAMETERS:
        problems.append(
            f"keep the parameters {', '.join(_FIND_ORDERS_PARAMETERS)} (yours: "
            f"{', '.join(properties)}): the model's calls and your code both use these names"
        )
        return verdict("1.4", problems, "")
    for name, schema in properties.items():
        options = [schema, *schema.get("anyOf", [])]
        if any(o.get("type") == "object" and "properties" not in o for o in options):
            problems.append(
                f"'{name}' is a free-form dict: strict mode needs every key named. Describe its "
                "keys with a TypedDict and use that as the type hint (it is still a dict, so "
                "filters['status'] keeps working)"
            )
        if any(o.get("type") == "array" and "items" not in o for o in options):
            problems.append(f"'{name}' is a list of anything: say what it holds, e.g. list[str]")
    filters = properties["filters"]
    if not problems and set(filters.get("properties", {})) != {"status", "placed_after"}:
        problems.append(
            "filters should have exactly two keys, status and placed_after; yours has "
            f"{', '.join(filters.get('properties', {})) or 'none'}"
        )
    if not problems:
        problems += _filter_keys(filters.get("properties", {}))
    if "tags" in loose.parameters["required"]:
        problems.append("tags should stay optional: give it a default of None")
    if problems:
        return verdict("1.4", problems, "")
    strict, problem = _definition(function, strict=True)
    if problem:
        return verdict("1.4", [f"strict mode still refuses it: {problem}"], "")
    problems += _accepted(strict)
    return verdict("1.4", problems, "find_orders is a strict tool now, and the API accepts it.")


def _filter_keys(keys: dict[str, Any]) -> list[str]:
    """status may only be one of the four statuses; placed_after is a date written as a string"""
    problems = []
    status = keys["status"]
    if status.get("type") != "string" or sorted(status.get("enum") or []) != sorted(_ORDER_STATUSES):
        problems.append(
            f"filters' status should be one of {', '.join(_ORDER_STATUSES)} and nothing else; yours "
            f"allows {_shown(status)}: type it as Literal[{', '.join(map(repr, _ORDER_STATUSES))}]"
        )
    if keys["placed_after"].get("type") != "string":
        problems.append(
            f"filters' placed_after is an ISO date, which JSON writes as a string; yours is "
            f"{_shown(keys['placed_after'])}: type it as str"
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
        return [f"the API refuses the strict definition: {error}"]
    return []
