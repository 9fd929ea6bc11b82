"""Checks for lesson 01's exercises: the tool schema."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import openai

from .. import mock
from ..mock.chooser import DescriptionReader, score_tools
from ..schema import Tool
from . import Verdict, verdict

__all__ = [
    "DELIVERY_TARGET",
    "CANCEL_REQUESTS",
    "OTHER_REQUESTS",
    "check_schedule_delivery",
    "check_cancel_description",
    "check_strict_find_orders",
]

# Exercise 1.1: the definition the learner's function must generate.
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

# Where to look when a property's key differs from the target.
_KEY_HINTS = {
    "type": "the type hint decides it",
    "enum": "a fixed set of choices comes from Literal[...] or an Enum",
    "default": "the default value in the signature decides it",
    "description": "it comes from the parameter's line in the docstring's Args: section",
    "items": "the type inside list[...] decides it",
}

# Exercise 1.2: the other tools the model is offered (only their descriptions matter to it).
_OTHER_SHOP_TOOLS = [
    (
        "lookup_order",
        "Looks up an order by its id and returns its status and delivery date.",
        "order_id",
    ),
    (
        "search_products",
        "Searches the product catalog by name and returns price and stock for each product "
        "you can order.",
        "query",
    ),
    ("find_customer", "Finds a customer account by email address.", "email"),
]
CANCEL_REQUESTS = [
    "Please cancel order A-2071, I ordered the wrong size.",
    "I changed my mind: cancel my order B-3310.",
]
OTHER_REQUESTS = [
    ("Where is my order A-1042? I need the delivery status.", "lookup_order"),
    ("Do you have blue running shoes in stock?", "search_products"),
]

# Exercise 1.3: the parameters find_orders must keep.
_FIND_ORDERS_PARAMETERS = ["customer_email", "filters", "tags"]


def _definition(function: Any, **options: Any) -> tuple[Any, str | None]:
    """(Tool, None), or (None, a problem) when the function cannot become a tool"""
    try:
        return Tool(function, **options), None
    except Exception as error:  # the learner's code: report, don't crash the notebook
        return None, f"{type(error).__name__}: {error}"


def _shown(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def check_schedule_delivery(function: Callable[..., Any]) -> Verdict:
    """Exercise 1.1: the function's generated definition equals DELIVERY_TARGET"""
    made, problem = _definition(function)
    if problem:
        return verdict("1.1", [f"the function cannot become a tool: {problem}"], "")
    target = DELIVERY_TARGET["function"]
    yours = made.definition["function"]
    problems = []
    for key in ("name", "description"):
        if yours[key] != target[key]:
            where = "the function's name" if key == "name" else "the docstring's first paragraph"
            problems.append(
                f"{key} should be {_shown(target[key])}, yours is {_shown(yours[key])} ({where})"
            )
    wanted = target["parameters"]["properties"]
    got = yours["parameters"]["properties"]
    for name in wanted:
        if name not in got:
            problems.append(f"property '{name}' is missing: add a parameter named {name}")
    for name in got:
        if name not in wanted:
            problems.append(f"property '{name}' is not in the target: remove or rename it")
    for name in (n for n in wanted if n in got):
        for key in dict.fromkeys([*wanted[name], *got[name]]):
            if key not in got[name]:
                problem = f"has no {key}; it should be {_shown(wanted[name][key])}"
            elif key not in wanted[name]:
                problem = f"should have no {key}; yours is {_shown(got[name][key])}"
            elif got[name][key] != wanted[name][key]:
                problem = f"{key} should be {_shown(wanted[name][key])}, yours is {_shown(got[name][key])}"
            else:
                continue
            hint = _KEY_HINTS.get(key)
            problems.append(f"property '{name}' {problem}" + (f" ({hint})" if hint else ""))
    required, your_required = target["parameters"]["required"], yours["parameters"]["required"]
    if set(your_required) != set(required):
        problems.append(
            f"required should be {_shown(required)}, yours is {_shown(your_required)} "
            "(a parameter without a default value is required)"
        )
    return verdict("1.1", problems, "your function generates exactly the target definition.")


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
        tools=definitions,
    )
    tool_calls = response.choices[0].message.tool_calls or []
    return tool_calls[0].function.name if tool_calls else ""


def check_cancel_description(function: Callable[..., Any]) -> Verdict:
    """Exercise 1.2: DescriptionReader picks cancel_order for cancel requests, and only for those"""
    made, problem = _definition(function)
    if problem:
        return verdict("1.2", [f"the function cannot become a tool: {problem}"], "")
    if made.name != "cancel_order":
        return verdict("1.2", [f"keep the name cancel_order (yours is {made.name!r})"], "")
    problems = []
    order_ids = [word for word in ("A-2071", "B-3310", "A-1042") if word in made.description]
    if order_ids:
        problems.append(
            f"the description mentions {', '.join(order_ids)}: describe what the tool does for "
            "any order, not one request"
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
    expected = [(question, "cancel_order") for question in CANCEL_REQUESTS] + OTHER_REQUESTS
    for question, wanted in expected:
        try:
            picked = _pick(client, question, definitions)
        except openai.APIError as error:
            return verdict("1.2", [f"the model refused the request: {error}"], "")
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
                f"{_explain_choice(client.trace[-1].request)}: {advice}"
            )
    return verdict(
        "1.2",
        problems,
        "the model now calls cancel_order to cancel, and still looks up and searches with the "
        "right tools.",
    )


def check_strict_find_orders(function: Callable[..., Any]) -> Verdict:
    """Exercise 1.3: find_orders becomes a strict tool with the same parameters"""
    loose, problem = _definition(function)
    if problem:
        return verdict("1.3", [f"the function cannot become a tool: {problem}"], "")
    problems = []
    properties = loose.parameters["properties"]
    if list(properties) != _FIND_ORDERS_PARAMETERS:
        problems.append(
            f"keep the parameters {', '.join(_FIND_ORDERS_PARAMETERS)} (yours: "
            f"{', '.join(properties)}): the model's calls and your code both use these names"
        )
        return verdict("1.3", problems, "")
    for name, schema in properties.items():
        options = [schema, *schema.get("anyOf", [])]
        if any(o.get("type") == "object" and "properties" not in o for o in options):
            problems.append(
                f"'{name}' is a free-form dict: strict mode needs every key named. Describe its "
                "keys with a TypedDict (or a pydantic model) and use that as the type hint"
            )
        if any(o.get("type") == "array" and "items" not in o for o in options):
            problems.append(f"'{name}' is a list of anything: say what it holds, e.g. list[str]")
    filters = properties["filters"]
    if not problems and set(filters.get("properties", {})) != {"status", "placed_after"}:
        problems.append(
            "filters should have exactly two keys, status and placed_after; yours has "
            f"{', '.join(filters.get('properties', {})) or 'none'}"
        )
    if "tags" in loose.parameters["required"]:
        problems.append("tags should stay optional: give it a default of None")
    if problems:
        return verdict("1.3", problems, "")
    strict, problem = _definition(function, strict=True)
    if problem:
        return verdict("1.3", [f"strict mode still refuses it: {problem}"], "")
    problems += _accepted(strict)
    return verdict("1.3", problems, "find_orders is a strict tool now, and the API accepts it.")


def _accepted(strict: Tool) -> list[str]:
    client = mock.client(mock.Script("accepted"))
    try:
        client.chat.completions.create(
            model="mock-model",
            messages=[{"role": "user", "content": "Find my open orders."}],
            tools=[strict.definition],
        )
    except openai.APIError as error:
        return [f"the API refuses the strict definition: {error}"]
    return []
