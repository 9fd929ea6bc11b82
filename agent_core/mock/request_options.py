"""What a request's options make of the model's reply: tool_choice, parallel_tool_calls, response_format
(the mock)."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import Any, TypeGuard

from .policy import Reply, ToolCall, offered_tools
from .protocol import ProtocolError

__all__ = ["is_answer_tool", "policy_view", "honour", "fill_schema"]

# tools through which an agent framework takes the final answer: smolagents' final_answer,
# pydantic-ai's final_result (final_result_<Type> when it offers several)
ANSWER_TOOLS = ("final_answer", "final_result")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e-?\d+)?")


def is_answer_tool(name: str) -> bool:
    """is this a tool a framework offers for the final answer (final_answer, final_result...)?"""
    return name in ANSWER_TOOLS or name.startswith("final_result_")


def _forced_tool(request: dict[str, Any]) -> str | None:
    """the tool a named tool_choice forces, {"type": "function", "function": {"name": ...}}"""
    choice = request.get("tool_choice")
    if isinstance(choice, dict):
        return (choice.get("function") or {}).get("name")
    return None


def policy_view(request: dict[str, Any]) -> dict[str, Any]:
    """the request as the policy reads it: under a named tool_choice, that tool is the only one offered"""
    name = _forced_tool(request)
    if name is None:
        return request
    tools = [t for t in request.get("tools") or [] if (t.get("function") or {}).get("name") == name]
    return {**request, "tools": tools}


def honour(request: dict[str, Any], reply: Reply) -> Reply:
    """the reply as the request's options allow it; a policy cannot break them

    tool_choice "none": no tool calls (text only). A named tool: exactly one call to that tool, with
    finish_reason "stop", as the real API answers a forced call (vllm-project/vllm#25054 tabulates
    OpenAI's answers: named -> "stop", required -> "tool_calls"). "required": at least one call; an
    answer that is ready goes through an offered answer tool (final_answer, final_result), and
    with none offered, through the first tool offered, its arguments filled from the answer, as a
    model that must call something does. parallel_tool_calls false: the first call only.
    response_format: the text becomes JSON (json_object) or JSON valid against the schema.
    stop: the text ends before the first stop sequence it contains.
    """
    tools = offered_tools(request)
    choice = request.get("tool_choice")
    calls = list(reply.tool_calls)
    content = reply.content
    finish = reply.finish_reason
    if choice == "none" and calls:
        names = ", ".join(dict.fromkeys(c.name for c in calls))
        content = content or f"(I would call {names}, but tool_choice is 'none', so I answer in text.)"
        calls, finish = [], None
    forced = _forced_tool(request)
    if forced is not None and forced in tools:
        named = [c for c in calls if c.name == forced]
        calls = named[:1] or [_call_from_answer(forced, tools[forced], reply)]  # forced: exactly one call
        content, finish = None, finish if finish == "length" else "stop"
    if choice == "required" and not calls and tools:
        answer_tools = [name for name in tools if is_answer_tool(name)]
        name = answer_tools[0] if answer_tools else next(iter(tools))
        calls, content, finish = [_call_from_answer(name, tools[name], reply)], None, None
    if request.get("parallel_tool_calls") is False:
        calls = calls[:1]
    if not calls and content is not None:
        content = _formatted(request.get("response_format"), content, reply.values or {})
    stops = request.get("stop")
    for stop in [stops] if isinstance(stops, str) else stops or []:
        if content and stop and stop in content:  # the text ends before the stop sequence, which is left out
            content, finish = content[: content.index(stop)], "stop" if not calls else finish
    if content is None and not calls:  # every call was dropped and there was no text
        content = ""
    changed = (content, tuple(calls), finish) != (reply.content, reply.tool_calls, reply.finish_reason)
    return (
        replace(reply, content=content, tool_calls=tuple(calls), finish_reason=finish) if changed else reply
    )


def _call_from_answer(name: str, function: dict[str, Any], reply: Reply) -> ToolCall:
    """a call to `name` that carries the reply's answer in the tool's parameters"""
    parameters = function.get("parameters") or {"type": "object", "properties": {}}
    text = reply.content or ""
    return ToolCall(name, fill_schema(parameters, text, reply.values or {}))


def _formatted(response_format: Any, content: str, values: dict[str, Any]) -> str:
    kind = response_format.get("type") if isinstance(response_format, dict) else None
    if kind == "json_object":
        if isinstance(_loads(content), dict):
            return content
        return json.dumps({"answer": content, **values}, ensure_ascii=False)
    if kind == "json_schema":
        from .._jsonschema import Draft202012Validator  # only here: it costs a fresh kernel time

        schema = response_format["json_schema"].get("schema") or {"type": "object"}
        validator = Draft202012Validator(schema)
        parsed = _loads(content)
        if parsed is not _NOT_JSON and validator.is_valid(parsed):
            return content
        value = fill_schema(schema, content, values)
        problem = next(iter(validator.iter_errors(value)), None)
        if problem is not None:
            raise ProtocolError(
                f"The mock model could not build a value for the schema "
                f"'{response_format['json_schema']['name']}': {problem.message}",
                status=500,
                type="server_error",
                hint="The mock fills a schema from names, types, enums and bounds; simplify the "
                "schema, or script the reply's JSON text with mock.Script.",
            )
        return json.dumps(value, ensure_ascii=False)
    return content


def fill_schema(
    schema: dict[str, Any],
    text: str,
    values: dict[str, Any],
    name: str | None = None,
    root: dict[str, Any] | None = None,
) -> Any:
    """a value for `schema` made of the answer: a property takes the policy's value of the same name
    (values), a string property the answer's text, a number the answer's result"""
    root = root if root is not None else schema
    schema = _resolve(schema, root)
    value = values.get(name) if name is not None else None
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        if value in schema["enum"]:
            return value
        return next((e for e in schema["enum"] if str(e).lower() in text.lower()), schema["enum"][0])
    options = schema.get("anyOf") or schema.get("oneOf")
    if options:
        options = [_resolve(o, root) for o in options]
        usable = [o for o in options if o.get("type") != "null"] or options
        return fill_schema(usable[0], text, values, name, root)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind is None:
        kind = "object" if "properties" in schema else None
    if kind == "object":
        properties = schema.get("properties") or {}
        return {key: fill_schema(sub, text, values, key, root) for key, sub in properties.items()}
    if kind == "array":
        items = schema.get("items") or {}
        if isinstance(value, list):
            return [fill_schema(items, text, {"item": element}, "item", root) for element in value]
        return [fill_schema(items, text, values, name, root)]
    if kind in ("number", "integer"):
        number = value if _is_number(value) else _main_number(text, values)
        if kind == "integer":
            number = int(round(number))
        if "minimum" in schema:
            number = max(number, schema["minimum"])
        if "maximum" in schema:
            number = min(number, schema["maximum"])
        return number
    if kind == "boolean":
        return value if isinstance(value, bool) else True
    if kind == "null":
        return None
    if kind == "string":
        if isinstance(value, str):
            return value
        return _number_text(value) if _is_number(value) else text
    return value if value is not None else text  # no type: any JSON value


def _resolve(schema: Any, root: dict[str, Any]) -> dict[str, Any]:
    """follow a local $ref ("#/$defs/Name", "#/definitions/Name", "#") to the schema it names"""
    seen = 0
    while isinstance(schema, dict) and isinstance(schema.get("$ref"), str) and seen < 32:
        target: Any = root
        for part in schema["$ref"].removeprefix("#").strip("/").split("/"):
            if part:
                target = target[part]
        schema, seen = target, seen + 1
    return schema if isinstance(schema, dict) else {}


def _main_number(text: str, values: dict[str, Any]) -> int | float:
    """the answer's number: the policy's result, else the last number in its text, else 0"""
    result = values.get("result")
    if _is_number(result):
        return result
    numbers = _NUMBER.findall(text)
    if not numbers:
        return 0
    number = float(numbers[-1])
    return int(number) if number.is_integer() and "." not in numbers[-1] else number


def _number_text(value: int | float) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def _is_number(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return _NOT_JSON


_NOT_JSON = object()
