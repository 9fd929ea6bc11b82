"""Checks for lesson 10's exercises: tools from an MCP server."""

from __future__ import annotations

import copy
import functools
import itertools
import json
import random
import re
from collections.abc import Callable, Iterator
from typing import Any

import openai

from .. import mock
from .._i18n import _
from ..mcp_bridge import openai_name
from . import Verdict, verdict
from ._scenarios import Dimension, joined, judge_scenarios, scenarios, smaller_lists

__all__ = [
    "PREFIX_SPACE",
    "RESULT_SPACE",
    "DEFINITION_SPACE",
    "definition_scenarios",
    "DEFINITION_SHAPES",
    "result_scenarios",
    "RESULT_SHAPES",
    "prefix_scenarios",
    "PREFIX_SHAPES",
    "check_tool_definition",
    "check_result_message",
    "check_prefix_tools",
    "TOOLS",
]

# tools as an MCP server lists them (tools/list), the first as the weather server sends it
TOOLS = [
    {
        "name": "forecast",
        "description": "Tomorrow's weather forecast for a city: sky, temperature and chance of rain.",
        "inputSchema": {
            "type": "object",
            "title": "forecastArguments",
            "properties": {
                "city": {"title": "City", "type": "string"},
                "unit": {
                    "default": "celsius",
                    "enum": ["celsius", "fahrenheit"],
                    "title": "Unit",
                    "type": "string",
                },
            },
            "required": ["city"],
        },
        "outputSchema": {"type": "object", "properties": {"sky": {"type": "string"}}, "required": ["sky"]},
    },
    {
        "name": "book_table",
        "title": "Book a table",
        "description": "Book a table at a restaurant for a party.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "restaurant": {"type": "string"},
                "time": {"type": "string", "enum": ["18:00", "19:30", "21:00"]},
                "party": {
                    "type": "object",
                    "properties": {
                        "size": {"type": "integer", "minimum": 1},
                        "names": {"type": "array", "items": {"type": "string"}},
                    },
                    "required": ["size"],
                },
            },
            "required": ["restaurant", "time", "party"],
        },
        "annotations": {"destructiveHint": False},
    },
    {"name": "server_status", "inputSchema": {"type": "object", "properties": {}}},  # no description
]

# tool results as a server sends them (tools/call), with what each must become
FORECAST = {"city": "Oslo", "sky": "light rain", "temperature": 9.5, "unit": "celsius", "rain_chance": 0.8}
_RESULTS: dict[str, dict[str, Any]] = {
    "structured": {
        "content": [{"type": "text", "text": json.dumps(FORECAST, indent=2)}],
        "structuredContent": FORECAST,
        "isError": False,
    },
    "summary and structured": {
        "content": [{"type": "text", "text": "Oslo tomorrow: light rain, 9.5 °C."}],
        "structuredContent": {**FORECAST, "humidity": 0.93},
        "isError": False,
    },
    "error": {
        "content": [
            {"type": "text", "text": "no forecast for 'Paris'; the cities I know are Lisbon, Oslo, Tokyo"}
        ],
        "isError": True,
    },
    "two text blocks": {
        "content": [
            {"type": "text", "text": "Heat warning: up to 38 °C in the afternoon."},
            {"type": "text", "text": "Fire risk: very high."},
        ],
    },
    "empty structured": {  # {} is structured content too: nothing measured yet, said as JSON
        "content": [{"type": "text", "text": "No readings for Oslo yet."}],
        "structuredContent": {},
    },
}


# --- Exercise 10.1 -------------------------------------------------------------------------------


def _never_raises(exercise: str, function: str) -> Callable[[Any], Any]:
    """a check that meets a return value it cannot read says so, instead of raising"""

    def wrap(check: Callable[[Any], Verdict]) -> Callable[[Any], Verdict]:
        @functools.wraps(check)
        def checked(learner_function: Any) -> Verdict:
            try:
                return check(learner_function)
            except Exception as error:
                message = _READ_PROBLEM(function, error)
                return verdict(exercise, [message], "")

        return checked

    return wrap


_WORDS = ["city", "date", "party", "names", "unit", "limit", "query", "ville", "données", "größe"]
_DESCRIPTIONS = [
    "Search the catalogue.",
    "Prévisions météo pour une ville.",
    "天気予報を返します。",
    "Book it 🙂 (no refunds).",
    "Multi-line:\nfirst the city, then the date.",
]


def _schema(rng: random.Random, depth: int = 0) -> dict[str, Any]:
    """a JSON Schema for one value, as an MCP server writes one: types, enums, arrays, nested objects"""
    kind = rng.choice(["string", "integer", "number", "boolean", "array"] + (["object"] * (depth < 2)))
    schema: dict[str, Any] = {"type": kind}
    if rng.random() < 0.3:
        schema["title"] = rng.choice(_WORDS).title()
    if kind == "string" and rng.random() < 0.4:
        schema["enum"] = rng.sample(["celsius", "fahrenheit", "18:00", "19:30", "été"], rng.randint(1, 3))
    if kind in ("integer", "number") and rng.random() < 0.4:
        schema["minimum"] = rng.choice([0, 1, -10])
    if kind == "array":
        schema["items"] = _schema(rng, depth + 1)
    if kind == "object":
        schema.update(_object_schema(rng, depth + 1))
    if rng.random() < 0.2 and kind == "string":
        schema["default"] = "celsius"
    return schema


def _object_schema(rng: random.Random, depth: int = 0) -> dict[str, Any]:
    names = rng.sample(_WORDS, rng.randint(0, 4))
    schema: dict[str, Any] = {"type": "object", "properties": {name: _schema(rng, depth) for name in names}}
    required = [name for name in names if rng.random() < 0.5]
    if required:
        schema["required"] = required
    if rng.random() < 0.2:
        schema["additionalProperties"] = False
    return schema


def _mcp_tool(rng: random.Random, name: str | None = None) -> dict[str, Any]:
    """a tool as tools/list sends it: a description or none, extra MCP fields, a schema of any shape"""
    tool: dict[str, Any] = {"name": name or rng.choice(["search", "get_user", "book-table", "forecast_v2"])}
    if rng.random() < 0.2:
        tool["title"] = "A title for people"
    if rng.random() < 0.8:
        tool["description"] = rng.choice(_DESCRIPTIONS)
    schema = _object_schema(rng)
    if rng.random() < 0.2:
        schema["title"] = f"{tool['name']}Arguments"
    tool["inputSchema"] = schema
    if rng.random() < 0.2:
        tool["outputSchema"] = {"type": "object", "properties": {"ok": {"type": "boolean"}}}
    if rng.random() < 0.2:
        tool["annotations"] = {"readOnlyHint": True}
    return tool


def _smaller_tools(tool: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for key in ("title", "outputSchema", "annotations"):
        if key in tool:
            yield {k: v for k, v in tool.items() if k != key}
    properties = tool["inputSchema"].get("properties", {})
    for name in properties:
        schema = copy.deepcopy(tool["inputSchema"])
        del schema["properties"][name]
        if name in schema.get("required", []):
            schema["required"].remove(name)
            if not schema["required"]:
                del schema["required"]
        yield {**tool, "inputSchema": schema}


def _describe_tool(tool: dict[str, Any]) -> str:
    return _("the MCP tool {tool}", tool=json.dumps(tool, ensure_ascii=False))


def definition_scenarios() -> list[dict[str, Any]]:
    """check 10.1's tools: the three TOOLS, then 60 generated"""
    return scenarios(copy.deepcopy(TOOLS), _mcp_tool, count=60, seed=1001)


def _schemas(schema: Any) -> Iterator[dict[str, Any]]:
    """a JSON Schema and every schema nested in it"""
    if isinstance(schema, dict):
        yield schema
        for inner in [*schema.get("properties", {}).values(), schema.get("items")]:
            yield from _schemas(inner)


def _any_schema(test: Callable[[dict[str, Any]], bool]) -> Callable[[dict[str, Any]], bool]:
    return lambda tool: any(test(schema) for schema in _schemas(tool["inputSchema"]))


def _typed(kind: str) -> Callable[[dict[str, Any]], bool]:
    return lambda schema: schema.get("type") == kind


def _nested_object(tool: dict[str, Any]) -> bool:
    return any(s.get("type") == "object" for s in list(_schemas(tool["inputSchema"]))[1:])


# the shapes lesson 10 names for tools/list, each reached by definition_scenarios() (test_check_shapes.py)
DEFINITION_SHAPES: dict[str, Callable[[dict[str, Any]], bool]] = {
    "no description (optional in MCP)": lambda tool: "description" not in tool,
    "a non-ASCII description": lambda tool: not tool.get("description", "").isascii(),
    "a multi-line description": lambda tool: "\n" in tool.get("description", ""),
    "MCP's fields the API does not know (title, outputSchema, annotations)": lambda tool: bool(
        {"title", "outputSchema", "annotations"} & set(tool)
    ),
    "required arguments": lambda tool: bool(tool["inputSchema"].get("required")),
    "no argument at all": lambda tool: not tool["inputSchema"].get("properties"),
    "a nested required": lambda tool: any(s.get("required") for s in list(_schemas(tool["inputSchema"]))[1:]),
    "an enum": _any_schema(lambda s: "enum" in s),
    "a default": _any_schema(lambda s: "default" in s),
    "a minimum": _any_schema(lambda s: "minimum" in s),
    "a title in the schema": _any_schema(lambda s: "title" in s),
    "additionalProperties false": _any_schema(lambda s: s.get("additionalProperties") is False),
    "a nested object": _nested_object,
    "an array": _any_schema(lambda s: s.get("type") == "array"),
    "an array of objects": _any_schema(
        lambda s: s.get("type") == "array" and s.get("items", {}).get("type") == "object"
    ),
    **{
        f"a {kind} argument": _any_schema(_typed(kind)) for kind in ("string", "integer", "number", "boolean")
    },
    "a non-ASCII argument name": lambda tool: any(
        not name.isascii() for s in _schemas(tool["inputSchema"]) for name in s.get("properties", {})
    ),
}


# what exercise 10.1's words say varies, each form reached by definition_scenarios() (test_input_space.py)
DEFINITION_SPACE: dict[str, Dimension[dict[str, Any]]] = {
    "the description": Dimension(
        "`description` is optional in MCP",
        {
            "none": DEFINITION_SHAPES["no description (optional in MCP)"],
            "one line": lambda tool: "description" in tool and "\n" not in tool["description"],
            "several lines": DEFINITION_SHAPES["a multi-line description"],
            "non-ASCII": DEFINITION_SHAPES["a non-ASCII description"],
        },
    ),
    "required": Dimension(
        "from `required` which arguments it must give",
        {
            "required arguments": DEFINITION_SHAPES["required arguments"],
            "none required": lambda tool: not tool["inputSchema"].get("required"),
            "a nested required": DEFINITION_SHAPES["a nested required"],
        },
    ),
    "enum": Dimension(
        "from `enum` the only values the server accepts",
        {
            "an enum": DEFINITION_SHAPES["an enum"],
            "no enum": lambda tool: not DEFINITION_SHAPES["an enum"](tool),
        },
    ),
    "the whole schema": Dimension(
        "The schema must arrive whole",
        {
            "no argument": DEFINITION_SHAPES["no argument at all"],
            "a nested object": DEFINITION_SHAPES["a nested object"],
            "an array of objects": DEFINITION_SHAPES["an array of objects"],
            "a default, a minimum or a title": lambda tool: any(
                DEFINITION_SHAPES[shape](tool)
                for shape in ("a default", "a minimum", "a title in the schema")
            ),
            "additionalProperties false": DEFINITION_SHAPES["additionalProperties false"],
            "MCP's own fields beside it": DEFINITION_SHAPES[
                "MCP's fields the API does not know (title, outputSchema, annotations)"
            ],
        },
    ),
}


@_never_raises("10.1", "mcp_tool_to_openai")
def check_tool_definition(mcp_tool_to_openai: Callable[[dict[str, Any]], Any]) -> Verdict:
    """Exercise 10.1: an MCP tool (tools/list) -> a Chat Completions tool definition

    Scenarios: the three TOOLS (one with a nested object, one without a description), then 60
    generated tools: with or without a description (some unicode, some multi-line), with MCP's
    extra fields (title, outputSchema, annotations), and input schemas of every JSON type, with
    enums, defaults, minimums, arrays and objects nested two deep, required or not. Every
    definition must keep the schema whole and be accepted by the strict mock.
    """

    def judge(mcp_tool: dict[str, Any]) -> str | None:
        given = copy.deepcopy(mcp_tool)
        try:
            definition = mcp_tool_to_openai(given)
        except Exception as error:  # the learner's code
            raised = f"{type(error).__name__}: {error}"
            if "description" not in mcp_tool:
                return _("your code raised {error} (description is optional in MCP)", error=raised)
            return _("your code raised {error}", error=raised)
        found = _readable("mcp_tool_to_openai", lambda: _definition_problems(mcp_tool, definition))
        found += _changed(given, mcp_tool, "the tool")
        if not found:
            found = _refused_by_the_api([definition])
        return joined(found)

    return judge_scenarios(
        "10.1",
        definition_scenarios(),
        judge,
        _describe_tool,
        _("every MCP tool becomes a definition the API accepts, with its schema whole."),
        _smaller_tools,
    )


def _readable(function: str, problems: Callable[[], list[str]]) -> list[str]:
    """the problems found, or that what the learner's function returned could not be read"""
    try:
        return problems()
    except Exception as error:  # a shape the rules did not foresee: say so, never crash
        return [_READ_PROBLEM(function, error)]


def _READ_PROBLEM(function: str, error: Exception) -> str:  # noqa: N802
    return _(
        "could not read what {function}() returned ({error})",
        function=function,
        error=f"{type(error).__name__}: {error}",
    )


_FUNCTION_FIELDS = ("name", "description", "parameters", "strict")  # all a function definition may hold


def _definition_problems(mcp_tool: dict[str, Any], definition: Any) -> list[str]:
    if not isinstance(definition, dict) or definition.get("type") != "function":
        return [
            _(
                "a Chat Completions tool is {{'type': 'function', 'function': {{...}}}}, a dict; yours is a "
                "{kind}: {value}",
                kind=type(definition).__name__,
                value=_short(definition),
            )
        ]
    function = definition.get("function")
    if not isinstance(function, dict):
        return [_("the definition needs a 'function' object holding name, description and parameters")]
    problems = []
    if function.get("name") != mcp_tool["name"]:
        problems.append(
            _(
                "function.name should be {expected}, not {found}",
                expected=repr(mcp_tool["name"]),
                found=repr(function.get("name")),
            )
        )
    if "description" in mcp_tool and function.get("description") != mcp_tool["description"]:
        problems.append(
            _(
                "function.description should be the tool's description: it is how the model knows "
                "when to call it; got {found}",
                found=repr(function.get("description")),
            )
        )
    # null is not a string: a stricter provider refuses it, e.g. Amazon Bedrock's 400
    # "tools.0.custom.description: Input should be a valid string" (campertunity/mcp-server#2)
    if (
        "description" not in mcp_tool
        and "description" in function
        and not isinstance(function["description"], str)
    ):
        problems.append(
            _(
                "function.description is {found}, not a string: the tool has no "
                "description, so leave the key out (mcp_tool.get('description') gives None)",
                found=repr(function["description"]),
            )
        )
    unknown = [key for key in function if key not in _FUNCTION_FIELDS and key != "inputSchema"]
    if unknown:
        problems.append(
            _(
                "function.{key} is MCP's, not a field of a Chat Completions function ({fields}): the API "
                "refuses it, \"Additional properties are not allowed ('{key}' was unexpected) - "
                "'tools.0.function'\". Copy only name, description and the inputSchema",
                key=unknown[0],
                fields=", ".join(_FUNCTION_FIELDS),
            )
        )
    if "inputSchema" in function or "inputSchema" in definition:
        problems.append(
            _("Chat Completions has no 'inputSchema': the same JSON Schema goes in function.parameters")
        )
    elif "parameters" not in function:
        problems.append(_("function.parameters is missing: put the tool's inputSchema there"))
    else:
        problems += _schema_problems(mcp_tool["inputSchema"], function["parameters"], "parameters")
    return problems


def _schema_problems(expected: Any, got: Any, where: str) -> list[str]:
    """what was lost between the inputSchema and the parameters ('title' keys may go)"""
    if not isinstance(expected, dict):
        return [] if expected == got else [_SHOULD_BE(where, expected, got)]
    if not isinstance(got, dict):
        return [_("{where} should be a JSON Schema object, not {found}", where=where, found=_short(got))]
    problems = []
    for key, value in expected.items():
        if key == "title":
            continue
        if key not in got:
            problems.append(_lost(key, value, where))
        elif key == "properties":
            for name, schema in value.items():
                if name not in got[key]:
                    problems.append(_("{where}.properties lost {name}", where=where, name=repr(name)))
                else:
                    problems += _schema_problems(schema, got[key][name], f"{where}.properties.{name}")
        elif isinstance(value, dict):
            problems += _schema_problems(value, got[key], f"{where}.{key}")
        elif value != got[key]:
            problems.append(_SHOULD_BE(f"{where}.{key}", value, got[key]))
    return problems


def _SHOULD_BE(where: str, expected: Any, found: Any) -> str:  # noqa: N802
    return _(
        "{where} should be {expected}, not {found}", where=where, expected=repr(expected), found=repr(found)
    )


def _lost(key: str, value: Any, where: str) -> str:
    if key == "required":
        return _(
            "{where} lost 'required' ({value}): the model is no longer told which arguments it "
            "must give. Copy the whole inputSchema, not only its properties",
            where=where,
            value=value,
        )
    if key == "enum":
        return _(
            "{where} lost its enum {value}: the model is no longer told the only values the "
            "server accepts. Keep every keyword of the schema",
            where=where,
            value=value,
        )
    return _(
        "{where} lost {key} ({value}): keep every keyword of the inputSchema",
        where=where,
        key=repr(key),
        value=_short(value),
    )


def _refused_by_the_api(definitions: list[dict[str, Any]]) -> list[str]:
    client = mock.client(mock.Echo(), reject_unknown_fields=True)
    try:
        client.chat.completions.create(
            model="mock-model",
            messages=[{"role": "user", "content": "hello"}],
            tools=definitions,  # type: ignore[arg-type]  # the learner's, as written: the API judges it
        )
    except openai.APIStatusError as error:
        body = error.body if isinstance(error.body, dict) else {}
        return [
            _(
                "the API refused the definitions (HTTP {status}): {error}",
                status=error.status_code,
                error=body.get("message", error),
            )
        ]
    return []


# --- Exercise 10.2 -------------------------------------------------------------------------------


_TEXTS = [
    "Oslo tomorrow: light rain, 9.5 °C.",
    "Fire risk: very high.",
    "東京: 晴れ",
    "no forecast for 'Paris'",
    "ok 🙂",
]


_OTHER_BLOCKS = [
    {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
    {"type": "resource_link", "uri": "file:///reports/oslo.csv", "name": "oslo.csv"},
]


def _mcp_result(rng: random.Random) -> dict[str, Any]:
    """a tools/call result: 0 to 3 text blocks, sometimes an image or a resource link among them,
    structuredContent or not, isError true, false or absent"""
    result: dict[str, Any] = {
        "content": [{"type": "text", "text": rng.choice(_TEXTS)} for _ in range(rng.randint(0, 3))]
    }
    if rng.random() < 0.3:  # a block that is not text: it has no "text" to read
        other = rng.choice(_OTHER_BLOCKS)
        result["content"].insert(rng.randint(0, len(result["content"])), copy.deepcopy(other))
    if rng.random() < 0.4:
        structured = {
            key: rng.choice([9.5, "light rain", 0, True, None, ["a", "b"], {"deep": "é"}])
            for key in rng.sample(_WORDS, rng.randint(1, 4))
        }
        result["structuredContent"] = structured
        if rng.random() < 0.5:
            result["content"] = [{"type": "text", "text": json.dumps(structured, indent=2)}]
    error = rng.choice([None, False, True])
    if error is not None:
        result["isError"] = error
    if error and "structuredContent" in result and rng.random() < 0.5:
        del result["structuredContent"]
    return result


def _smaller_results(result: dict[str, Any]) -> Iterator[dict[str, Any]]:
    if "isError" in result and not result["isError"]:
        yield {k: v for k, v in result.items() if k != "isError"}
    for fewer in smaller_lists(result["content"]):
        yield {**result, "content": fewer}
    if "structuredContent" in result and len(result["structuredContent"]) > 1:
        for key in result["structuredContent"]:
            yield {
                **result,
                "structuredContent": {k: v for k, v in result["structuredContent"].items() if k != key},
            }


def _describe_result(result: dict[str, Any]) -> str:
    return _("the MCP result {result}", result=json.dumps(result, ensure_ascii=False))


def result_scenarios() -> list[dict[str, Any]]:
    """check 10.2's results: the five readable ones, then 100 generated"""
    return scenarios(list(copy.deepcopy(_RESULTS).values()), _mcp_result, count=100, seed=1002)


def _texts(result: dict[str, Any]) -> list[str]:
    return [block["text"] for block in result["content"] if block.get("type") == "text"]


def _structured(test: Callable[[Any], bool]) -> Callable[[dict[str, Any]], bool]:
    return lambda result: any(test(value) for value in (result.get("structuredContent") or {}).values())


# the shapes lesson 10 names for tools/call results, each reached by result_scenarios() (test_check_shapes.py)
RESULT_SHAPES: dict[str, Callable[[dict[str, Any]], bool]] = {
    "structuredContent, its JSON repeated as text": lambda r: (
        "structuredContent" in r and any(_holds_json(text, r["structuredContent"]) for text in _texts(r))
    ),
    "structuredContent, with a summary as text": lambda r: (
        "structuredContent" in r
        and bool(_texts(r))
        and not any(_holds_json(text, r["structuredContent"]) for text in _texts(r))
    ),
    "no structuredContent, one text block": lambda r: "structuredContent" not in r and len(_texts(r)) == 1,
    "no structuredContent, several text blocks": lambda r: (
        "structuredContent" not in r and len(_texts(r)) > 1
    ),
    "no content block at all": lambda r: not r["content"],
    "an image block": lambda r: any(block["type"] == "image" for block in r["content"]),
    "a resource link": lambda r: any(block["type"] == "resource_link" for block in r["content"]),
    "isError true": lambda r: r.get("isError") is True,
    "isError false": lambda r: r.get("isError") is False,
    "no isError": lambda r: "isError" not in r,
    "an error with structuredContent": lambda r: r.get("isError") is True and "structuredContent" in r,
    "a null in structuredContent": _structured(lambda v: v is None),
    "a boolean in structuredContent": _structured(lambda v: isinstance(v, bool)),
    "a zero in structuredContent": _structured(lambda v: v == 0 and not isinstance(v, bool)),
    "a list in structuredContent": _structured(lambda v: isinstance(v, list)),
    "an object in structuredContent": _structured(lambda v: isinstance(v, dict)),
    "an empty structuredContent": lambda r: r.get("structuredContent") == {},
    "non-ASCII text": lambda r: any(not text.isascii() for text in _texts(r)),
}


# what exercise 10.2's words say varies, each form reached by result_scenarios() (test_input_space.py)
RESULT_SPACE: dict[str, Dimension[dict[str, Any]]] = {
    "structuredContent": Dimension(
        "when the result has `structuredContent`, send it as JSON",
        {
            "its JSON repeated as text": RESULT_SHAPES["structuredContent, its JSON repeated as text"],
            "a summary as text": RESULT_SHAPES["structuredContent, with a summary as text"],
            "empty": RESULT_SHAPES["an empty structuredContent"],
            "values that print alike (null, false, 0)": lambda r: any(
                RESULT_SHAPES[f"a {kind} in structuredContent"](r) for kind in ("null", "boolean", "zero")
            ),
            "none": lambda r: "structuredContent" not in r,
        },
    ),
    "the content blocks": Dimension(
        "join the text of the `content` blocks with newlines",
        {
            "one text block": RESULT_SHAPES["no structuredContent, one text block"],
            "several text blocks": RESULT_SHAPES["no structuredContent, several text blocks"],
            "no block at all": RESULT_SHAPES["no content block at all"],
            "an image": RESULT_SHAPES["an image block"],
            "a resource link": RESULT_SHAPES["a resource link"],
            "non-ASCII text": RESULT_SHAPES["non-ASCII text"],
        },
    ),
    "isError": Dimension(
        "when `isError` is true",
        {
            "true": RESULT_SHAPES["isError true"],
            "false": RESULT_SHAPES["isError false"],
            "absent": RESULT_SHAPES["no isError"],
            "true, with structuredContent": RESULT_SHAPES["an error with structuredContent"],
        },
    ),
}


@_never_raises("10.2", "mcp_result_to_message")
def check_result_message(mcp_result_to_message: Callable[[str, dict[str, Any]], Any]) -> Verdict:
    """Exercise 10.2: an MCP tool result (tools/call) -> the tool message answering the call

    Scenarios: the five readable results (one whose structuredContent is {}), then 100 generated: 0 to
    3 text blocks (some unicode), sometimes an image or a resource link among them, structuredContent
    of every JSON type or none
    (with or without its JSON as a text block), and isError true, false or absent. Judged by what
    every right message has: the call's id, the structured content as JSON when there is some, else
    every text block on its own line, and 'ERROR: ' in front exactly when the result is an error.
    """

    def judge(result: dict[str, Any]) -> str | None:
        given = copy.deepcopy(result)
        message = mcp_result_to_message("call_mcp_1", given)
        found = _readable("mcp_result_to_message", lambda: _message_problems("call_mcp_1", result, message))
        found += _changed(given, result, _("the result"))
        return joined(found)

    return judge_scenarios(
        "10.2",
        result_scenarios(),
        judge,
        _describe_result,
        _("structured content, text blocks and errors all reach the model as a tool message."),
        _smaller_results,
    )


def _message_problems(call_id: str, result: dict[str, Any], message: Any) -> list[str]:
    if not isinstance(message, dict):
        return [_("return a dict (the tool message), not {found}", found=_short(message))]
    problems = []
    if message.get("role") != "tool":
        problems.append(
            _("the message's role should be 'tool', not {found}", found=repr(message.get("role")))
        )
    if message.get("tool_call_id") != call_id:
        problems.append(
            _(
                "tool_call_id should be {expected}, the id of the call it answers, not {found}",
                expected=repr(call_id),
                found=repr(message.get("tool_call_id")),
            )
        )
    content = message.get("content")
    if not isinstance(content, str):
        kind, shown = type(content).__name__, _short(content)
        if content == result.get("structuredContent"):
            problem = _(
                "content should be one string of text, not a {kind}: {content} "
                "(structuredContent goes as JSON text: json.dumps)",
                kind=kind,
                content=shown,
            )
        else:
            problem = _(
                "content should be one string of text, not a {kind}: {content}", kind=kind, content=shown
            )
        return [*problems, problem]
    texts = [block["text"] for block in result["content"] if block.get("type") == "text"]
    structured = result.get("structuredContent")
    if result.get("isError") and not content.startswith("ERROR: "):
        problems.append(
            _(
                "the result has isError: true, so the content should start with 'ERROR: ' (as the "
                "dispatcher's errors do); otherwise the model takes {content} for a success",
                content=repr(content),
            )
        )
    if not result.get("isError") and content.startswith("ERROR"):
        problems.append(_("only a result with isError: true is an error; this one is a success"))
    if structured == {} and not _holds_json(content, structured):
        problems.append(
            _(
                "the result's structuredContent is {{}}, and the content is {content}: an empty object is "
                "structured content too (test 'structuredContent' in result, not its truthiness), so send "
                "its JSON, '{{}}'",
                content=repr(content),
            )
        )
    elif structured is not None and not _holds_json(content, structured):
        missing = [key for key, value in structured.items() if not _mentions(content, key, value)]
        if missing:
            problems.append(
                _(
                    "the structuredContent's {keys} did not reach the model: "
                    "send structuredContent (as JSON) when the result has it",
                    keys=", ".join(map(repr, missing)),
                )
            )
        else:
            problems.append(
                _(
                    "the structuredContent reached the model, but not as JSON ({content}): "
                    "send json.dumps(result['structuredContent']), "
                    "which any program (and the model) can read back",
                    content=_short(content),
                )
            )
    elif structured is None:
        lost = [text for text in texts if text not in content]
        together = [
            _("{first} and {second}", first=repr(a), second=repr(b))
            for a, b in itertools.pairwise(texts)
            if a + b in content
        ]
        if lost:
            problems.append(
                _("every text block must reach the model; {texts} did not", texts=", ".join(map(repr, lost)))
            )
        elif together:
            problems.append(
                _("{texts} run together: join the text blocks with newlines", texts=joined(together))
            )
        elif not _each_on_its_line(content.removeprefix("ERROR: "), texts):
            problems.append(
                _(
                    "each text block should be a line of its own, in order (join them with newlines); the "
                    "content is {content}",
                    content=repr(content),
                )
            )
        problems += _blocks_sent_as_data(result, content)
    return problems


def _blocks_sent_as_data(result: dict[str, Any], content: str) -> list[str]:
    """a block that is not text, sent as its Python repr, or an image's base64 data sent as text: 'join the
    text of the content blocks' sends text, and such a block has none (a line describing it may stay)"""
    for block in result["content"]:
        if block.get("type") == "text":
            continue
        if repr(block) in content or ("data" in block and str(block["data"]) in content):
            return [
                _(
                    "the {kind} block reached the model as data ({content}): only text blocks have text "
                    "to join; leave out a block that is not text, or describe it in words",
                    kind=block.get("type"),
                    content=_short(content),
                )
            ]
    return []


def _each_on_its_line(text: str, lines: list[str]) -> bool:
    """are these pieces, in this order, whole lines of the text? (a piece may hold several lines, and
    other lines may come between them)"""
    start = 0
    for line in lines:
        at = text.find(line, start)
        while at >= 0 and not (
            (at == 0 or text[at - 1] == "\n")
            and (at + len(line) in (len(text), text.find("\n", at + len(line))))
        ):
            at = text.find(line, at + 1)
        if at < 0:
            return False
        start = at + len(line)
    return True


def _mentions(content: str, key: str, value: Any) -> bool:
    as_json = json.dumps(value, ensure_ascii=False)
    return key in content and (as_json in content or str(value) in content)


def _holds_json(content: str, value: Any) -> bool:
    """whether some JSON text in content decodes to value"""
    decoder = json.JSONDecoder()
    for start, character in enumerate(content):
        if character in "{[":
            try:
                if decoder.raw_decode(content, start)[0] == value:
                    return True
            except ValueError:
                continue
    return False


def _changed(given: Any, original: Any, what: str) -> list[str]:
    """the learner's function must leave its input as it found it: the caller uses it again"""
    if given == original:
        return []
    return [
        _(
            "your function changed {what} it was given (now {value}): build new dicts instead, "
            "since the caller keeps using what it passed you (the next conversation lists the same tools)",
            what=what,
            value=_short(given),
        )
    ]


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


# --- Exercise 10.3 -------------------------------------------------------------------------------

_SERVERS = {
    "weather": TOOLS[:1]
    + [
        {
            "name": "weather_alerts",
            "description": "Official alerts (storms, heat, floods) in force for a city.",
            "inputSchema": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        }
    ],
    "marine": [
        {
            "name": "forecast",
            "description": "Sea state and wind for a sea area.",
            "inputSchema": {
                "type": "object",
                "properties": {"area": {"type": "string"}},
                "required": ["area"],
            },
        }
    ],
    "files": [
        {
            "name": "files.read",
            "description": "Read a text file.",
            "inputSchema": {
                "type": "object",
                "properties": {"path": {"type": "string"}},
                "required": ["path"],
            },
        }
    ],
}
ROUTES = {
    "weather__forecast": ("weather", "forecast"),
    "weather__weather_alerts": ("weather", "weather_alerts"),
    "marine__forecast": ("marine", "forecast"),
    "files__files_read": ("files", "files.read"),
}


# one server whose tools differ only in case: a tool name is case-sensitive, so both must stay apart
_CASE_SERVERS = {
    "files": [
        {
            "name": "Read",
            "description": "Read a file's metadata: size, owner, modified time.",
            "inputSchema": {
                "type": "object",
                "properties": {"path": {"type": "string"}},
                "required": ["path"],
            },
        },
        {
            "name": "read",
            "description": "Read a text file.",
            "inputSchema": {
                "type": "object",
                "properties": {"path": {"type": "string"}},
                "required": ["path"],
            },
        },
    ]
}

# a server and a tool named in French: é is a letter to Python's \w, not to the API
_ACCENT_SERVERS = {
    "météo": [
        {
            "name": "prévision",
            "description": "La prévision de demain pour une ville.",
            "inputSchema": {
                "type": "object",
                "properties": {"ville": {"type": "string"}},
                "required": ["ville"],
            },
        }
    ]
}

_SERVER_NAMES = ["weather", "marine", "files", "git-hub", "calendar", "my.files", "web tools"]
_TOOL_NAMES = [
    "forecast",
    "search",
    "files.read",
    "get-user",
    "list_events",
    "read",
    "fetch url",
    "repo/list",
]


def _servers(rng: random.Random) -> dict[str, list[dict[str, Any]]]:
    """1 to 4 servers of 1 to 3 tools; the same tool name on several servers; server and tool names
    with '.', '-', ' ' and '/'"""
    servers = {}
    for server in rng.sample(_SERVER_NAMES, rng.randint(1, 4)):
        names = rng.sample(_TOOL_NAMES, rng.randint(1, 3))
        servers[server] = [_mcp_tool(rng, name) for name in names]
    return servers


def _smaller_servers(servers: dict[str, list[dict[str, Any]]]) -> Iterator[dict[str, list[dict[str, Any]]]]:
    for server in servers:
        if len(servers) > 1:
            yield {name: tools for name, tools in servers.items() if name != server}
    for server, tools in servers.items():
        for fewer in smaller_lists(tools):
            if fewer and _case_pairs(fewer) == _case_pairs(tools) & {t["name"].lower() for t in fewer}:
                yield {**servers, server: fewer}  # tools that differ only in case stay together


def _case_pairs(tools: list[dict[str, Any]]) -> set[str]:
    """the lower-cased names that two or more of these tools share"""
    lowered = [t["name"].lower() for t in tools]
    return {name for name in lowered if lowered.count(name) > 1}


def _describe_servers(servers: dict[str, list[dict[str, Any]]]) -> str:
    listed = "; ".join(
        f"{server}: {', '.join(t['name'] for t in tools)}" for server, tools in servers.items()
    )
    return _("the servers {{{servers}}}", servers=listed)


@_never_raises("10.3", "prefix_tools")
def check_prefix_tools(prefix_tools: Callable[[dict[str, list[dict[str, Any]]]], Any]) -> Verdict:
    """Exercise 10.3: every server's tools under server__name, and the way back to the server's name

    Scenarios: three servers whose tools clash and include 'files.read', one server with tools 'Read'
    and 'read' (names differing only in case), a server 'météo' with a tool 'prévision' (letters the API
    refuses), then 60 generated sets of
    1 to 4 servers (names with '-', '.' or a space), 1 to 3 tools each, drawn from names that clash
    between servers or hold '.', '-', a space or '/'. Every definition set is sent to the strict mock.
    """

    def judge(servers: dict[str, list[dict[str, Any]]]) -> str | None:
        given = copy.deepcopy(servers)
        outcome = prefix_tools(given)
        found = _readable("prefix_tools", lambda: _prefix_problems(servers, outcome))
        return joined(found + _changed(given, servers, _("the servers' tool lists")))

    return judge_scenarios(
        "10.3",
        prefix_scenarios(),
        judge,
        _describe_servers,
        _("every tool has a name the API accepts and no other server can take, and a way back."),
        _smaller_servers,
    )


Servers = dict[str, list[dict[str, Any]]]


def prefix_scenarios() -> list[Servers]:
    """check 10.3's scenarios: the lesson's three servers, Read beside read, a server and tool named in
    French (météo, prévision), then 60 generated sets"""
    fixed = [copy.deepcopy(_SERVERS), copy.deepcopy(_CASE_SERVERS), copy.deepcopy(_ACCENT_SERVERS)]
    return scenarios(fixed, _servers, count=60, seed=1003)


def _tool_names(servers: Servers) -> list[str]:
    return [t["name"] for tools in servers.values() for t in tools]


# the shapes lesson 10 names for prefixed tools, each reached by prefix_scenarios() (test_check_shapes.py)
PREFIX_SHAPES: dict[str, Callable[[Servers], bool]] = {
    "one server": lambda s: len(s) == 1,
    "several servers": lambda s: len(s) > 1,
    "the same tool name on two servers": lambda s: len(_tool_names(s)) != len(set(_tool_names(s))),
    "names differing only in case": lambda s: (
        len({n.lower() for n in _tool_names(s)}) < len(set(_tool_names(s)))
    ),
    "a tool name with a '.'": lambda s: any("." in n for n in _tool_names(s)),
    "a tool name with a '-'": lambda s: any("-" in n for n in _tool_names(s)),
    "a tool name with a space": lambda s: any(" " in n for n in _tool_names(s)),
    "a tool name with a '/'": lambda s: any("/" in n for n in _tool_names(s)),
    "a server name the API does not accept": lambda s: any(re.search(r"[^A-Za-z0-9_-]", n) for n in s),
    "a server name with a '-'": lambda s: any("-" in n for n in s),
    "a non-ASCII letter in a name": lambda s: any(not n.isascii() for n in [*s, *_tool_names(s)]),
    "a server whose name starts a tool's": lambda s: any(
        t["name"].startswith(server) for server, tools in s.items() for t in tools
    ),
}


# what exercise 10.3's words say varies, each form reached by prefix_scenarios() (test_input_space.py)
PREFIX_SPACE: dict[str, Dimension[Servers]] = {
    "servers": Dimension(
        "every tool becomes a definition named `server__tool`",
        {
            "one server": PREFIX_SHAPES["one server"],
            "several servers": PREFIX_SHAPES["several servers"],
            "a server whose name starts a tool's": PREFIX_SHAPES["a server whose name starts a tool's"],
        },
    ),
    "characters": Dimension(
        "a character the API refuses in a name becomes `_`",
        {
            "a '.'": PREFIX_SHAPES["a tool name with a '.'"],
            "a space": PREFIX_SHAPES["a tool name with a space"],
            "a '/'": PREFIX_SHAPES["a tool name with a '/'"],
            "a '-' (accepted)": PREFIX_SHAPES["a tool name with a '-'"],
            "a letter beyond ASCII": PREFIX_SHAPES["a non-ASCII letter in a name"],
            "in a server's name": PREFIX_SHAPES["a server name the API does not accept"],
        },
    ),
    "the way back": Dimension(
        "`route` maps each new name back to `(server name, the tool's own name)`",
        {
            "the same tool name on two servers": PREFIX_SHAPES["the same tool name on two servers"],
            "names differing only in case": PREFIX_SHAPES["names differing only in case"],
            "names all different": lambda s: len(_tool_names(s)) == len(set(_tool_names(s))),
        },
    ),
}


def _prefix_problems(servers: dict[str, list[dict[str, Any]]], outcome: Any) -> list[str]:
    routes = {
        openai_name(t["name"], server): (server, t["name"])
        for server, tools in servers.items()
        for t in tools
    }
    if not (isinstance(outcome, tuple) and len(outcome) == 2):
        return [_("return a pair (definitions, route), not {found}", found=_short(outcome))]
    definitions, route = outcome
    if not isinstance(definitions, list) or not all(isinstance(d, dict) for d in definitions):
        return [_("definitions should be a list of tool definitions, not {found}", found=_short(definitions))]
    names = [(d.get("function") or {}).get("name") for d in definitions]
    problems, unprefixed = [], []
    for name, (server, tool_name) in routes.items():
        if name in names:
            continue
        bare = {tool_name, tool_name.replace(".", "_")}
        near = [n for n in names if isinstance(n, str) and re.sub(r"[^a-zA-Z0-9_-]", "_", n) == name]
        cased = [n for n in names if isinstance(n, str) and n != name and n.lower() == name.lower()]
        if cased:
            alike = [t["name"] for t in servers[server] if t["name"].lower() == tool_name.lower()]
            problems.append(
                _(
                    "the {server} server's {tool} became {found}: tool names are case-sensitive, "
                    "and changing the case can make two tools one ({server} has {alike}); "
                    "keep the case, giving {name}",
                    server=server,
                    tool=repr(tool_name),
                    found=repr(cased[0]),
                    alike=", ".join(map(repr, alike)),
                    name=repr(name),
                )
            )
        elif bare & set(names):
            unprefixed.append(
                _(
                    "the {server} server's {tool} should be {name}",
                    server=server,
                    tool=repr(tool_name),
                    name=repr(name),
                )
            )
        elif near:
            accents = "".join(dict.fromkeys(c for c in near[0] if not c.isascii()))
            if accents:
                problems.append(
                    _(
                        "{found} is not a name the API accepts (letters, digits, '_' and '-' only) "
                        "({accents} is a letter to Python's \\w and str.isalnum(), but not to the API: "
                        "only ASCII letters A-Z and a-z): replace the other characters with '_', "
                        "giving {name}",
                        found=repr(near[0]),
                        accents=repr(accents),
                        name=repr(name),
                    )
                )
            else:
                problems.append(
                    _(
                        "{found} is not a name the API accepts (letters, digits, '_' and '-' only): "
                        "replace the other characters with '_', giving {name}",
                        found=repr(near[0]),
                        name=repr(name),
                    )
                )
        else:
            problems.append(
                _(
                    "the {server} server's {tool} is missing: expected a definition named {name}",
                    server=server,
                    tool=repr(tool_name),
                    name=repr(name),
                )
            )
    if unprefixed:
        problems.insert(
            0,
            _(
                "{names}. With every tool prefixed, the model can tell which server each "
                "comes from, and a server added later cannot rename a tool the model already uses",
                names=joined(unprefixed),
            ),
        )
    if len(names) != len(set(names)):
        problems.append(_("two definitions have the same name: {names}", names=names))
    if not isinstance(route, dict):
        return [*problems, _("route should be a dict, not {found}", found=_short(route))]
    for name, target in routes.items():
        if name in names and tuple(route.get(name) or ()) != target:
            problems.append(
                _(
                    "route[{name}] should be {expected}, not {found}: the server only knows "
                    "its tool as {tool}, so the call must go back under that name",
                    name=repr(name),
                    expected=target,
                    found=repr(route.get(name)),
                    tool=repr(target[1]),
                )
            )
    by_name = {(d.get("function") or {}).get("name"): d.get("function") or {} for d in definitions}
    for name, (server, tool_name) in routes.items():
        source = next(t for t in servers[server] if t["name"] == tool_name)
        function = by_name.get(name)
        if function is not None and function.get("parameters") != source["inputSchema"]:
            problems.append(
                _(
                    "{name} should keep {server}'s inputSchema as its parameters",
                    name=repr(name),
                    server=server,
                )
            )
        if function is not None and function.get("description") != source.get("description"):
            problems.append(
                _(
                    "{name} should keep its description {description}: the prefix tells the "
                    "model which server a tool comes from, the description still tells it when to call "
                    "the tool",
                    name=repr(name),
                    description=repr(source.get("description")),
                )
            )
    if not problems:
        problems += _refused_by_the_api(definitions)
    return problems
