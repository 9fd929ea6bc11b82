"""lesson 03: the dispatcher's wording: every way a call can fail, said so a model can fix it."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from referencing.exceptions import Unresolvable

from ._jsonschema import NOTHING_TO_FETCH, Draft202012Validator, ValidationError, relevance
from ._shared import json_type, one_line, quoted, safe_one_line
from .schema import Tool

__all__ = [
    "ToolFailure",
    "CallFailure",
    "find_tool",
    "read_arguments",
    "check_arguments",
    "one_line",
    "safe_one_line",
]


class ToolFailure(Exception):
    """raise it from a tool whose message is already written for the model: sent as it is, after ERROR:"""


class CallFailure(Exception):
    """a step of dispatching a call failed; carries the observation text for the model"""

    def __init__(self, error_type: str, message: str):
        super().__init__(message)
        self.error_type = error_type
        self.message = message


def find_tool(tools: dict[str, Tool], name: Any) -> Tool:
    """the registered tool of that name, or a CallFailure that lists the names there are"""
    if not isinstance(name, str):
        raise CallFailure(
            "unknown_tool",
            f"the tool name must be a string, but got {json_type(name)}: {quoted(repr(name))}. "
            f"Call a tool by its exact name: {', '.join(tools) or '(no tools)'}.",
        )
    if name in tools:
        return tools[name]
    if not tools:
        raise CallFailure(
            "unknown_tool",
            f"there is no tool named {name!r}; no tools are available, so answer without one.",
        )
    known = ", ".join(tools)
    raise CallFailure(
        "unknown_tool",
        f"there is no tool named {name!r}. The available tools are: {known}. "
        "Call one of them by its exact name.",
    )


def read_arguments(tool: Tool, raw: Any) -> dict[str, Any]:
    """the arguments as sent (a JSON string, or already an object) -> a dict, or a CallFailure"""
    if isinstance(raw, dict):  # some servers send arguments already parsed
        return raw
    if not isinstance(raw, str):  # e.g. "arguments": 5 from a server; the SDK keeps it
        raise CallFailure(
            "not_an_object",
            f"the arguments for {tool.name!r} must be a JSON object written as a string, but got "
            f"{json_type(raw)}: {quoted(repr(raw))}. Call {tool.name!r} again with one JSON "
            f"object, like {_example(tool)}.",
        )
    if not raw.strip():  # some servers send "" for a call without arguments
        raw = "{}"
    try:
        arguments = json.loads(raw)
    except (ValueError, RecursionError) as error:  # JSONDecodeError is a ValueError
        if isinstance(error, json.JSONDecodeError):
            problem = f"{error.msg} at line {error.lineno}, column {error.colno} (char {error.pos})"
        else:  # e.g. a 5000-digit number, or nesting too deep to read
            problem = one_line(error)
        raise CallFailure(
            "invalid_json",
            f"the arguments for {tool.name!r} are not valid JSON: {problem}. "
            f"Received: {quoted(raw)}. "
            f"Call {tool.name!r} again with one JSON object, like {_example(tool)}.",
        ) from None
    if not isinstance(arguments, dict):
        raise CallFailure(
            "not_an_object",
            f"the arguments for {tool.name!r} must be a JSON object, but got "
            f"{json_type(arguments)}: {quoted(raw)}. Call {tool.name!r} again with one JSON "
            f"object, like {_example(tool)}.",
        )
    return arguments


def check_arguments(tool: Tool, arguments: dict[str, Any]) -> None:
    """raise a CallFailure listing every way the arguments break the tool's JSON Schema"""
    # the function takes no other arguments, so report unknown ones even if the schema allows them
    schema = {"additionalProperties": False, **tool.parameters}
    validator = Draft202012Validator(schema, registry=NOTHING_TO_FETCH)  # a "$ref" is never fetched
    try:
        errors = sorted(validator.iter_errors(arguments), key=relevance, reverse=True)
    except Unresolvable as error:  # the tool's own schema is broken: the model cannot fix that
        raise CallFailure(
            "tool_error",
            f"the tool {tool.name!r} cannot be called: its parameters schema refers to "
            f"{getattr(error, 'ref', error)!r}, which is not inside the schema (a schema is never "
            "fetched). Do the task without this tool.",
        ) from None
    if errors:
        order = list(tool.parameters.get("properties", {}))
        explained = dict.fromkeys(_explain(error) for error in errors)  # drop repeats

        def field_order(text: str) -> int:  # list the fields in the order the schema has them
            name = text.split("'")[1] if text.startswith("'") else ""
            return order.index(name) if name in order else len(order)

        lines = [f"- {text}" for text in sorted(explained, key=field_order)]
        problems = "\n".join(lines)
        raise CallFailure(
            "invalid_arguments",
            f"the arguments for {tool.name!r} do not match its parameters:\n{problems}\n"
            f"Call {tool.name!r} again with corrected arguments. Its parameters: "
            f"{_signature(tool)}.",
        )


def _explain(error: ValidationError) -> str:
    """one schema violation, in words a model can act on"""
    path = list(error.absolute_path)
    where = _argument_path(path)
    if error.validator == "required":
        missing = [name for name in error.validator_value if name not in error.instance]
        return ", ".join(f"{_argument_path([*path, name])}: missing (required)" for name in missing)
    if error.validator == "additionalProperties":
        known = set(error.schema.get("properties", {}))
        extra = [key for key in error.instance if key not in known]
        return f"{where}: unexpected {', '.join(repr(e) for e in extra)} (not a parameter)"
    if error.validator == "type":
        expected = error.validator_value
        expected = " or ".join(expected) if isinstance(expected, list) else expected
        got = quoted(json.dumps(error.instance, ensure_ascii=False))
        return f"{where}: expected {_a(expected)}, got {json_type(error.instance)} {got}"
    if error.validator == "enum":
        choices = ", ".join(json.dumps(c, ensure_ascii=False) for c in error.validator_value)
        return f"{where}: {json.dumps(error.instance, ensure_ascii=False)} is not one of {choices}"
    return f"{where}: {error.message}"


def _argument_path(path: Iterable[Any]) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return repr(text) if text else "the arguments"


def _signature(tool: Tool) -> str:
    properties = tool.parameters.get("properties", {})
    required = set(tool.parameters.get("required", []))
    parts = []
    for name, schema in properties.items():
        kind = _type_label(schema)
        parts.append(f"{name} ({kind}{', required' if name in required else ''})")
    return ", ".join(parts) or "none"


def _type_label(schema: dict[str, Any]) -> str:
    if "enum" in schema:
        return "one of " + "/".join(json.dumps(c) for c in schema["enum"])
    if "anyOf" in schema:
        return " or ".join(_type_label(option) for option in schema["anyOf"])
    json_type = schema.get("type", "any")
    return " or ".join(json_type) if isinstance(json_type, list) else json_type


def _example(tool: Tool) -> str:
    properties = tool.parameters.get("properties", {})
    return "{" + ", ".join(f'"{name}": ...' for name in properties) + "}"


def _a(json_type: str) -> str:
    return f"an {json_type}" if json_type[0] in "aeiou" else f"a {json_type}"
