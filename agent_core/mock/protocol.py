"""The rules of a Chat Completions request, checked the way the real API checks them (every lesson)."""

# Error texts: real 400 bodies, copied; where each comes from is in docs/sources.md.

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from openai.types.chat.completion_create_params import CompletionCreateParamsBase

from ..schema import json_type

__all__ = [
    "ProtocolError",
    "invalid_type",
    "missing_parameter",
    "not_json",
    "Field",
    "is_kind",
    "schema_problem",
    "check_request",
    "check_no_extra_fields",
    "REQUEST_ARGUMENTS",
]

VALID_ROLES = ("system", "developer", "user", "assistant", "tool", "function")
# the fields a request message may have, per role, as the SDK's *MessageParam types define them
MESSAGE_FIELDS = {
    "system": {"role", "content", "name"},
    "developer": {"role", "content", "name"},
    "user": {"role", "content", "name"},
    "assistant": {"role", "content", "name", "tool_calls", "refusal", "audio", "function_call"},
    "tool": {"role", "content", "tool_call_id"},
    "function": {"role", "content", "name"},
}
# the fields of a tool's function definition, as the SDK's FunctionDefinition type defines them
FUNCTION_FIELDS = frozenset({"name", "description", "parameters", "strict"})
_NAME_PATTERN = re.compile(r"^[a-zA-Z0-9_-]+$")
# the top-level fields of a Chat Completions request: the keys of the SDK's request type (its
# streaming variants add `stream`), so the list follows the SDK; any other key gets a 400
REQUEST_ARGUMENTS = frozenset(CompletionCreateParamsBase.__annotations__) | {"stream"}
# numeric request fields: (JSON type the API names, lowest allowed, highest allowed or None)
RANGES: dict[str, tuple[str, float, float | None]] = {
    "temperature": ("decimal", 0, 2),
    "top_p": ("decimal", 0, 1),
    "frequency_penalty": ("decimal", -2, 2),
    "presence_penalty": ("decimal", -2, 2),
    "n": ("integer", 1, 128),
    "top_logprobs": ("integer", 0, 20),
    "max_tokens": ("integer", 1, None),
    "max_completion_tokens": ("integer", 1, None),
}
RESPONSE_FORMATS = ("text", "json_object", "json_schema")


@dataclass(frozen=True)
class Field:
    """what a request field may hold: its JSON kinds, and for a number its bounds"""

    kinds: tuple[str, ...]  # "string", "integer", "number", "boolean", "object", "array"
    lowest: float | None = None
    highest: float | None = None
    choices: tuple[str, ...] = ()  # for a string: the values it may take

    def out_of_range(self, value: Any) -> bool:
        if isinstance(value, str):
            return bool(self.choices) and value not in self.choices
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return False
        return (self.lowest is not None and value < self.lowest) or (
            self.highest is not None and value > self.highest
        )


SCHEMA_TYPES = ("object", "array", "string", "number", "integer", "boolean", "null")
# keyword -> the kind of JSON value a JSON Schema gives it (draft 2020-12): the keywords the mock reads
SCHEMA_KEYWORDS = {
    "properties": "object",
    "required": "array",
    "enum": "array",
    "anyOf": "array",
    "oneOf": "array",
    "allOf": "array",
    "$defs": "object",
    "definitions": "object",
    "description": "string",
}


def schema_problem(schema: Any) -> str | None:
    """what makes a JSON Schema invalid, in the parts the mock reads; None if nothing (no recursion)"""
    stack = [(schema, "schema")]
    while stack:
        node, where = stack.pop()
        if isinstance(node, bool):
            continue
        if not isinstance(node, dict):
            return f"{where} is not of type 'object', 'boolean'"
        for keyword, kind in SCHEMA_KEYWORDS.items():
            if keyword in node and not is_kind(node[keyword], kind):
                return f"{where}.{keyword} is not of type '{kind}'"
        types = node.get("type", [])
        for name in types if isinstance(types, list) else [types]:
            if not isinstance(name, str) or name not in SCHEMA_TYPES:
                return f"{where}.type {name!r} is not one of {list(SCHEMA_TYPES)}"
        stack.extend(
            (child, f"{where}.properties.{key}") for key, child in (node.get("properties") or {}).items()
        )
        stack.extend((child, f"{where}.$defs.{key}") for key, child in (node.get("$defs") or {}).items())
        for keyword in ("anyOf", "oneOf", "allOf"):
            stack.extend(
                (child, f"{where}.{keyword}[{i}]") for i, child in enumerate(node.get(keyword) or [])
            )
        if "items" in node:
            stack.append((node["items"], f"{where}.items"))
    return None


def is_kind(value: Any, kind: str) -> bool:
    """whether a JSON value is of a kind: a boolean is not a number, 2.0 is not an integer"""
    if kind in ("integer", "number"):
        numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
        return numeric and (kind == "number" or isinstance(value, int))
    return isinstance(value, {"string": str, "boolean": bool, "object": dict, "array": list}[kind])


@dataclass
class ProtocolError(Exception):
    """a request the real API would refuse: status, OpenAI error fields, and a hint for the learner"""

    message: str
    param: str | None = None
    code: str | None = None
    hint: str = ""
    status: int = 400
    type: str = "invalid_request_error"

    def __str__(self) -> str:
        return self.message

    def body(self) -> dict[str, Any]:
        """the JSON error body, shaped like OpenAI's; the learner's hint follows the real text"""
        message = f"{self.message}\n(agent_core mock hint: {self.hint})" if self.hint else self.message
        return {"error": {"message": message, "type": self.type, "param": self.param, "code": self.code}}


def missing_parameter(where: str, hint: str) -> ProtocolError:
    """the API's 400 for a field a request must have: "Missing required parameter: 'where'." (param
    `where`, code missing_required_parameter), with a hint for the learner"""
    return ProtocolError(
        f"Missing required parameter: '{where}'.", param=where, code="missing_required_parameter", hint=hint
    )


def invalid_type(where: str, expected: str, value: Any, hint: str) -> ProtocolError:
    """the API's 400 for a value of the wrong JSON type: "Invalid type for 'where': expected ..., but
    got ... instead." (param `where`, code invalid_type), with a hint for the learner"""
    # the API's words for 7 and 2.5 ("...but got a decimal number instead.", Jeffser/Alpaca#904)
    got = {int: "an integer", float: "a decimal number"}.get(type(value)) or json_type(value)
    return ProtocolError(
        f"Invalid type for '{where}': expected {expected}, but got {got} instead.",
        param=where,
        code="invalid_type",
        hint=hint,
    )


def not_json(hint: str) -> ProtocolError:
    """the API's 400 for a body that is not a JSON object, with a hint for the learner"""
    return ProtocolError(
        "We could not parse the JSON body of your request. (HINT: This likely means you aren't "
        "using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was "
        "sent was not valid JSON. If you have trouble figuring out how to fix this, please contact us "
        # the whole text, as pasted in ChatGPTNextWeb/NextChat#4064
        "through our help center at help.openai.com.)",
        hint=hint,
    )


def _extra_forbidden(loc: tuple[str | int, ...], value: Any, param: str, hint: str) -> ProtocolError:
    """vLLM's 400 for a field the request schema does not define: the pydantic error list on one line,
    its `loc` naming the field (github.com/vllm-project/vllm/pull/10463 quotes one)"""
    return ProtocolError(
        f"[{{'type': 'extra_forbidden', 'loc': {loc!r}, 'msg': 'Extra inputs are not permitted', "
        f"'input': {value!r}}}]",
        param=param,
        code="extra_forbidden",
        hint=hint,
    )


def check_request(body: Any) -> None:
    """raise ProtocolError for the first rule the request body breaks"""
    if not isinstance(body, dict):
        raise not_json(hint="Send a JSON object with at least 'model' and 'messages'.")
    if not body.get("model"):
        raise ProtocolError(
            "you must provide a model parameter",
            hint="Pass model=... to create(); the mock accepts any name.",
        )
    _check_known_arguments(body)
    _check_ranges(body)
    tool_names = _check_tools(body.get("tools"))
    _check_tool_choice(body.get("tool_choice"), body.get("tools"), tool_names)
    _check_messages(body.get("messages"))
    _check_response_format(body.get("response_format"), body["messages"])


def check_no_extra_fields(body: dict[str, Any]) -> None:
    """what a server that validates requests strictly (e.g. vLLM, with pydantic) adds: no unknown fields

    OpenAI ignores a message field it does not define; such servers refuse it, in pydantic's words.
    """
    for i, message in enumerate(body.get("messages") or []):
        allowed = MESSAGE_FIELDS.get(message.get("role"), set())
        for key in message:
            if key not in allowed:
                raise _extra_forbidden(
                    ("body", "messages", i, message["role"], key),
                    message[key],
                    param=f"messages[{i}].{key}",
                    hint=f"Send only {sorted(allowed)} in this {message['role']} message: build it "
                    "as a plain dict instead of dumping the SDK object.",
                )
    for i, tool in enumerate(body.get("tools") or []):
        function = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(function, dict):
            continue  # _check_tools says what is wrong with it
        for key in function:
            if key not in FUNCTION_FIELDS:
                raise _extra_forbidden(
                    ("body", "tools", i, "function", key),
                    function[key],
                    param=f"tools[{i}].function.{key}",
                    hint=f"A function definition holds only {sorted(FUNCTION_FIELDS)}.",
                )


def _check_tools(tools: Any) -> list[str]:
    if tools is None:
        return []
    if tools == []:
        raise ProtocolError(
            "Invalid 'tools': empty array. Expected an array with minimum length 1, "
            "but got an empty array instead.",
            param="tools",
            code="empty_array",
            hint="Leave tools out when you offer none.",
        )
    if not isinstance(tools, list):
        raise invalid_type(
            "tools",
            "an array",
            tools,
            hint="tools is a list of {'type': 'function', 'function': {...}} dicts.",
        )
    names = []
    for i, tool in enumerate(tools):
        where = f"tools[{i}]"
        if not isinstance(tool, dict):
            raise invalid_type(
                where,
                "an object",
                tool,
                hint="Each tool is a dict: {'type': 'function', 'function': {'name': ..., ...}}.",
            )
        if tool.get("type") != "function":
            raise ProtocolError(
                f"Invalid value: '{tool.get('type')}'. Supported values are: 'function' and 'custom'.",
                param=f"{where}.type",
                code="invalid_value",
                hint="Set 'type': 'function' on every tool definition.",
            )
        function = tool.get("function")
        if not isinstance(function, dict):
            raise missing_parameter(
                f"{where}.function",
                hint="Chat Completions nests the definition: {'type': 'function', 'function': {...}}.",
            )
        name = function.get("name")
        if not isinstance(name, str) or not name:
            raise missing_parameter(f"{where}.function.name", hint="Every function needs a name.")
        if not _NAME_PATTERN.match(name) or len(name) > 64:
            raise ProtocolError(
                f"Invalid '{where}.function.name': string does not match pattern. "
                "Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.",
                param=f"{where}.function.name",
                code="invalid_value",
                hint="Tool names use letters, digits, '_' and '-' only (at most 64).",
            )
        parameters = function.get("parameters")
        # a schema with no "type" at the top is refused too ({} or {"properties": ...}: got 'type: "None"'),
        # the text as a client met it in farion1231/cc-switch#5490 ("Invalid schema for function
        # 'codex_app__automation_update': schema must be a JSON Schema of 'type: \"object\"', got 'type:
        # null'") and many projects quote from OpenAI with 'type: \"None\"'; the param and code as in
        # FoundationAgents/OpenManus#1162 (tools[2].function.parameters, invalid_function_parameters)
        if parameters is not None and (
            not isinstance(parameters, dict) or parameters.get("type") != "object"
        ):
            raise ProtocolError(
                f"Invalid schema for function '{name}': schema must be a JSON Schema of "
                "'type: \"object\"', got 'type: \"" + str(_schema_type(parameters)) + "\"'.",
                param=f"{where}.function.parameters",
                code="invalid_function_parameters",
                hint="parameters must be a JSON Schema object with its type at the top: "
                "{'type': 'object', 'properties': {...}}.",
            )
        problem = schema_problem(parameters) if parameters is not None else None
        if problem:  # the form of the API's other schema errors, with what is wrong
            raise ProtocolError(
                f"Invalid schema for function '{name}': {problem}.",
                param=f"{where}.function.parameters",
                code="invalid_function_parameters",
                hint="parameters must be a JSON Schema (draft 2020-12): properties an object, required an "
                "array...",
            )
        if function.get("strict") is True and isinstance(parameters, dict):
            _check_strict_schema(parameters, name, f"{where}.function.parameters")
        if name in names:
            raise ProtocolError(
                f"Invalid 'tools': duplicate function name '{name}'.",
                param="tools",
                code="invalid_value",
                hint="Give every tool a different name.",
            )
        names.append(name)
    return names


def _check_strict_schema(
    schema: Any,
    name: str,
    param: str,
    context: tuple[Any, ...] = (),
    owner: str = "function",
    code: str | None = "invalid_function_parameters",
) -> None:
    """strict mode's subset of JSON Schema: every object is closed and requires all its properties

    `context` is the path to the object inside the parameters, shown as the API shows it:
    In context=() for the top level, In context=('properties', 'address') for a nested object.
    `owner` is what the schema belongs to: "function" (a tool) or "response_format".
    """
    if not isinstance(schema, dict):
        return
    if schema.get("type") == "object" or "properties" in schema:
        if schema.get("additionalProperties") is not False:
            raise ProtocolError(
                f"Invalid schema for {owner} '{name}': In context={context!r}, 'additionalProperties' "
                "is required to be supplied and to be false.",
                param=param,
                code=code,
                hint="With strict: true, every object in the schema needs 'additionalProperties': false.",
            )
        properties = schema["properties"] if isinstance(schema.get("properties"), dict) else {}
        required = schema["required"] if isinstance(schema.get("required"), list) else []
        missing = [key for key in properties if key not in required]
        if missing:
            raise ProtocolError(
                f"Invalid schema for {owner} '{name}': In context={context!r}, 'required' is required "
                "to be supplied and to be an array including every key in properties. Missing "
                f"'{missing[0]}'.",
                param=param,
                code=code,
                hint="With strict: true, list every property in 'required'; an optional one may be null: "
                "{'type': ['string', 'null']}.",
            )
        for key, subschema in properties.items():
            _check_strict_schema(subschema, name, param, (*context, "properties", key), owner, code)
    _check_strict_schema(schema.get("items"), name, param, (*context, "items"), owner, code)
    for keyword in ("anyOf", "$defs"):
        members = schema.get(keyword)
        pairs = members.items() if isinstance(members, dict) else enumerate(members or [])
        for key, subschema in pairs:
            _check_strict_schema(subschema, name, param, (*context, keyword, key), owner, code)


def _check_known_arguments(body: dict[str, Any]) -> None:
    # the API's words and fields, as pasted in nashsu/llm_wiki#336 and coroot/coroot#698:
    # {"message": "Unrecognized request argument supplied: thinking", "param": null, "code": null}
    unknown = [key for key in body if key not in REQUEST_ARGUMENTS]
    if unknown:
        plural = "s" if len(unknown) > 1 else ""
        raise ProtocolError(
            f"Unrecognized request argument{plural} supplied: {', '.join(unknown)}",
            hint=f"Chat Completions has no {', '.join(repr(k) for k in unknown)}: check the spelling, "
            "or send a server's own options only to the server that defines them.",
        )


def _check_ranges(body: dict[str, Any]) -> None:
    # wording and codes as in the API's 400s quoted in public error-handling code, e.g.
    # "Invalid 'temperature': decimal above maximum value. Expected a value <= 2, but got 2.5
    # instead." (code decimal_above_max_value) and "Invalid 'n': integer below minimum value.
    # Expected a value >= 1, but got 0 instead."
    for name, (kind, lowest, highest) in RANGES.items():
        value = body.get(name)
        if value is None:
            continue
        is_number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if not is_number or (kind == "integer" and not isinstance(value, int)):
            raise invalid_type(
                name,
                f"{'an' if kind == 'integer' else 'a'} {kind}",
                value,
                hint=f"Send {name} as a number, not {json_type(value)}.",
            )
        side = (
            "below minimum"
            if value < lowest
            else "above maximum"
            if highest is not None and value > highest
            else ""
        )
        if side:
            bound = f">= {lowest:g}" if value < lowest else f"<= {highest:g}"
            raise ProtocolError(
                f"Invalid '{name}': {kind} {side} value. Expected a value {bound}, but got {value:g} "
                "instead.",
                param=name,
                code=f"{kind}_{'below_min' if value < lowest else 'above_max'}_value",
                hint=f"{name} goes from {lowest:g} to {'any size' if highest is None else f'{highest:g}'}.",
            )
    if body.get("stream_options") is not None and not body.get("stream"):
        # as pasted in BerriAI/litellm#5803
        raise ProtocolError(
            "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
            param="stream_options",
            hint="Pass stream=True with stream_options, or leave stream_options out.",
        )


def _check_response_format(response_format: Any, messages: list[dict[str, Any]]) -> None:
    if response_format is None:
        return
    kind = response_format.get("type") if isinstance(response_format, dict) else None
    if kind not in RESPONSE_FORMATS:
        raise ProtocolError(
            f"Invalid value: '{kind}'. Supported values are: 'text', 'json_object', and 'json_schema'.",
            param="response_format.type",
            code="invalid_value",
            hint="response_format is {'type': 'json_object'} or {'type': 'json_schema', 'json_schema': "
            "{'name': ..., 'schema': {...}, 'strict': True}}.",
        )
    if kind == "json_object" and not any("json" in _text_of(m).lower() for m in messages):
        # as pasted in the errornotes.dev page on this 400 ("Fixing OpenAI 400: Why JSON Mode
        # Requires the word 'json'"); the Responses API says "Response input messages must ..."
        raise ProtocolError(
            "'messages' must contain the word 'json' in some form, to use 'response_format' of type "
            "'json_object'.",
            param="messages",
            hint="Say in a system or user message that you want JSON (and which keys).",
        )
    if kind != "json_schema":
        return
    spec = response_format.get("json_schema")
    for field, value in (("json_schema", spec), ("json_schema.name", (spec or {}).get("name"))):
        if not value:
            raise missing_parameter(
                f"response_format.{field}",
                hint="response_format={'type': 'json_schema', 'json_schema': {'name': 'answer', "
                "'schema': {...}, 'strict': True}}; client.chat.completions.parse() builds it for you.",
            )
    name, schema = spec["name"], spec.get("schema")
    if not _NAME_PATTERN.match(str(name)) or len(str(name)) > 64:
        raise ProtocolError(
            "Invalid 'response_format.json_schema.name': string does not match pattern. "
            "Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.",
            param="response_format.json_schema.name",
            code="invalid_value",
            hint="Name the schema with letters, digits, '_' and '-' only (at most 64).",
        )
    if not isinstance(schema, dict) or schema.get("type", "object") != "object":
        raise ProtocolError(
            f"Invalid schema for response_format '{name}': schema must be a JSON Schema of "
            "'type: \"object\"', got 'type: \"" + str(_schema_type(schema)) + "\"'.",
            param="response_format",
            hint="Structured output is an object at the top; wrap a single value: "
            "{'type': 'object', 'properties': {'value': ...}}.",
        )
    if spec.get("strict") is True:
        # as pasted in moeru-ai/xsai#145 and dottxt-ai/outlines#844: "Invalid schema for
        # response_format 'default': In context=(), 'additionalProperties' is required to be
        # supplied and to be false." with param "response_format" and code null
        _check_strict_schema(schema, name, "response_format", owner="response_format", code=None)


def _text_of(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return content if isinstance(content, str) else ""


def _check_tool_choice(tool_choice: Any, tools: Any, names: list[str]) -> None:
    if tool_choice is None:
        return
    if not tools and tool_choice != "none":
        raise ProtocolError(
            "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
            param="tool_choice",
            hint="Offer tools=[...] in the same request, or leave tool_choice out.",
        )
    if isinstance(tool_choice, str):
        if tool_choice not in ("none", "auto", "required"):
            raise ProtocolError(
                f"Invalid value: '{tool_choice}'. Supported values are: 'none', 'auto', and 'required'.",
                param="tool_choice",
                code="invalid_value",
                hint="To force one tool, pass {'type': 'function', 'function': {'name': ...}}.",
            )
        return
    name = (tool_choice.get("function") or {}).get("name") if isinstance(tool_choice, dict) else None
    if name not in names:
        raise ProtocolError(
            f"Invalid value for 'tool_choice': no function named '{name}' was specified in the "
            "'tools' parameter.",
            param="tool_choice",
            code="invalid_value",
            hint=f"tool_choice must name one of the offered tools: {', '.join(names)}.",
        )


def _check_messages(messages: Any) -> None:
    if messages is None:
        raise missing_parameter("messages", hint="Pass messages=[{'role': 'user', 'content': '...'}].")
    if not isinstance(messages, list):
        raise invalid_type(
            "messages", "an array", messages, hint="messages is a list of dicts, oldest first."
        )
    if not messages:
        raise ProtocolError(
            "Invalid 'messages': empty array. Expected an array with minimum length 1, "
            "but got an empty array instead.",
            param="messages",
            code="empty_array",
            hint="Send at least one message, usually {'role': 'user', 'content': ...}.",
        )
    pending: list[str] = []  # tool_call_ids of the latest assistant message not yet answered
    answered: dict[str, int] = {}  # tool_call_id -> index of the tool message that answered it
    pending_from = -1
    for i, message in enumerate(messages):
        role = _check_message_shape(i, message)
        if role == "tool":
            call_id = message.get("tool_call_id")
            if not isinstance(call_id, str) or not call_id:
                raise missing_parameter(
                    f"messages[{i}].tool_call_id",
                    hint="A tool message must say which call it answers: tool_call_id=call.id.",
                )
            if pending_from < 0:
                raise ProtocolError(
                    "Invalid parameter: messages with role 'tool' must be a response to a preceeding "
                    "message with 'tool_calls'.",
                    param=f"messages.[{i}].role",
                    hint="Append the assistant message that asked for the tool before its tool message.",
                )
            if call_id in answered:
                raise ProtocolError(
                    f"Invalid parameter: Duplicate value for 'tool_call_id' of '{call_id}', in "
                    f"messages[{answered[call_id]}] and messages[{i}].",
                    param=f"messages.[{i}].tool_call_id",
                    hint="Answer each tool call exactly once.",
                )
            if call_id not in pending:
                raise ProtocolError(
                    f"Invalid parameter: 'tool_call_id' of '{call_id}' not found in 'tool_calls' of "
                    "previous message.",
                    param=f"messages.[{i}].tool_call_id",
                    hint=f"{call_id!r} is not one of the ids the previous assistant message asked for "
                    f"({', '.join(pending + sorted(answered)) or 'none'}).",
                )
            pending.remove(call_id)
            answered[call_id] = i
            continue
        if pending:
            raise ProtocolError(
                "An assistant message with 'tool_calls' must be followed by tool messages responding "
                "to each 'tool_call_id'. The following tool_call_ids did not have response messages: "
                + ", ".join(pending),
                param=f"messages.[{i}].role",
                hint="Append one {'role': 'tool', 'tool_call_id': ...} message per call, even if it failed.",
            )
        pending_from, answered = -1, {}
        if role == "assistant" and message.get("tool_calls") == []:
            # the real 400, as quoted whole in home-assistant/core#118577 and openai/openai-node#1341
            # (see also openai/openai-python#2061)
            raise ProtocolError(
                f"Invalid 'messages[{i}].tool_calls': empty array. Expected an array with minimum length 1, "
                "but got an empty array instead.",
                param=f"messages[{i}].tool_calls",
                code="empty_array",
                hint="When the model called no tool, leave 'tool_calls' out of the assistant message "
                "(or send None); send the key only with at least one call.",
            )
        if role == "assistant" and message.get("tool_calls"):
            ids = _check_tool_calls(i, message["tool_calls"])
            pending, pending_from = ids, i
    if pending:
        raise ProtocolError(
            "An assistant message with 'tool_calls' must be followed by tool messages responding "
            "to each 'tool_call_id'. The following tool_call_ids did not have response messages: "
            + ", ".join(pending),
            param="messages",
            hint="Run every requested tool and append its result before calling the model again.",
        )


def _check_message_shape(i: int, message: Any) -> str:
    if not isinstance(message, dict):
        raise invalid_type(
            f"messages[{i}]", "an object", message, hint="Each message is a dict with 'role' and 'content'."
        )
    role = message.get("role")
    if role is None:
        raise missing_parameter(
            f"messages[{i}].role", hint="Every message needs a role: system, user, assistant or tool."
        )
    if role not in VALID_ROLES:
        raise ProtocolError(
            f"Invalid value: '{role}'. Supported values are: 'system', 'assistant', 'user', "
            "'function', 'tool', and 'developer'.",
            param=f"messages[{i}].role",
            code="invalid_value",
            hint="The model's own turns use role 'assistant'; tool results use role 'tool'.",
        )
    content = message.get("content")
    may_be_empty = role == "assistant" and message.get("tool_calls")
    if content is None and not may_be_empty:
        raise ProtocolError(
            "Invalid value for 'content': expected a string, got null.",
            param=f"messages.[{i}].content",
            hint="Give the message a 'content' string; only an assistant message with tool_calls "
            "may leave it None.",
        )
    if content is not None and not isinstance(content, (str, list)):
        raise invalid_type(
            f"messages[{i}].content",
            "one of a string or array of objects",
            content,
            hint="Turn the value into text first, e.g. json.dumps(result).",
        )
    if isinstance(content, list):
        _check_content_parts(i, content)
    return str(role)


def _check_content_parts(i: int, parts: list[Any]) -> None:
    """each part of an array content is an object with a type; a text part's text is a string"""
    for j, part in enumerate(parts):
        where = f"messages[{i}].content[{j}]"
        if not isinstance(part, dict):
            # the real text, as quoted in microsoft/graphrag#672
            raise invalid_type(
                where,
                "an object",
                part,
                hint='Each part is an object such as {"type": "text", "text": "..."}; or send the text '
                "itself as the content.",
            )
        if "type" not in part:
            raise missing_parameter(
                f"{where}.type", hint='Give each part its type: {"type": "text", "text": "..."}.'
            )
        if part["type"] != "text":
            continue
        if "text" not in part:
            raise missing_parameter(f"{where}.text", hint="A text part carries its words in 'text'.")
        if not isinstance(part["text"], str):
            raise invalid_type(
                f"{where}.text",
                "a string",
                part["text"],
                hint="Turn the value into text first, e.g. json.dumps(value).",
            )


def _check_tool_calls(i: int, tool_calls: Any) -> list[str]:
    if not isinstance(tool_calls, list):
        raise invalid_type(
            f"messages[{i}].tool_calls",
            "an array",
            tool_calls,
            hint="tool_calls is the list the model sent, copied as it came.",
        )
    ids: list[str] = []
    for j, tool_call in enumerate(tool_calls):
        where = f"messages[{i}].tool_calls[{j}]"
        for field in ("id", "type", "function"):
            if not isinstance(tool_call, dict) or field not in tool_call:
                raise missing_parameter(
                    f"{where}.{field}",
                    hint="Copy each tool call as {'id', 'type': 'function', 'function': {'name', "
                    "'arguments'}}.",
                )
        arguments = (
            tool_call["function"].get("arguments") if isinstance(tool_call["function"], dict) else None
        )
        if not isinstance(arguments, str):
            raise invalid_type(
                f"{where}.function.arguments",
                "a string",
                arguments,
                hint="Arguments travel as a JSON string: json.dumps(args).",
            )
        if tool_call["id"] in ids:
            raise ProtocolError(
                f"Invalid parameter: duplicate 'tool_call_id' {tool_call['id']!r} in "
                f"messages[{i}].tool_calls.",
                param=f"{where}.id",
                hint="Every tool call in a message has its own id.",
            )
        ids.append(tool_call["id"])
    return ids


def _schema_type(schema: Any) -> Any:
    return schema.get("type") if isinstance(schema, dict) else json_type(schema)
