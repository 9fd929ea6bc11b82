"""OpenAI's Responses API in the mock: POST /v1/responses, read as and answered by Chat Completions
(lesson 09)."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from openai.types.responses.response_create_params import ResponseCreateParamsBase

from ..formats import from_responses, tool_from_responses
from ._response_events import response_events
from .protocol import Field, ProtocolError, invalid_type, is_kind, missing_parameter, not_json
from .wire import Response, error_response, json_response

__all__ = [
    "ResponsesEndpoint",
    "to_chat_request",
    "response_events",
]

# every top-level field a create request may carry, as the SDK defines them (plus `stream`)
PARAMETERS = frozenset(ResponseCreateParamsBase.__annotations__) | {"stream"}
# the fields the mock reads, with the types and ranges of the API reference (the SDK's
# response_create_params.py documents the ranges of temperature, top_p and top_logprobs; the minimum
# of max_output_tokens, 16, is the API's 400 "Expected a value >= 16")
FIELDS = {
    "model": Field(("string",)),
    "input": Field(("string", "array")),
    "instructions": Field(("string",)),
    "tools": Field(("array",)),
    "tool_choice": Field(("string", "object"), choices=("none", "auto", "required")),
    "parallel_tool_calls": Field(("boolean",)),
    "previous_response_id": Field(("string",)),
    "store": Field(("boolean",)),
    "stream": Field(("boolean",)),
    "max_output_tokens": Field(("integer",), lowest=16),
    "max_tool_calls": Field(("integer",)),
    "temperature": Field(("number",), lowest=0, highest=2),
    "top_p": Field(("number",), lowest=0, highest=1),
    "top_logprobs": Field(("integer",), lowest=0, highest=20),
    "truncation": Field(("string",), choices=("auto", "disabled")),
    "text": Field(("object",)),
    "user": Field(("string",)),
    "metadata": Field(("object",)),
}
ITEM_FIELDS = {
    "message": {
        "role": Field(("string",), choices=("user", "assistant", "system", "developer")),
        "content": Field(("string", "array")),
    },
    "function_call": {
        "call_id": Field(("string",)),
        "name": Field(("string",)),
        "arguments": Field(("string",)),
    },
    "function_call_output": {"call_id": Field(("string",)), "output": Field(("string", "array"))},
    "item_reference": {"id": Field(("string",))},
}
TOOL_FIELDS = {
    "name": Field(("string",)),
    "description": Field(("string",)),
    "parameters": Field(("object",)),
    "strict": Field(("boolean",)),
}
# how OpenAI's 400s name a JSON kind: "expected an integer, but got a string instead"
KIND_WORDS = {
    "string": "a string",
    "integer": "an integer",
    "number": "a decimal",
    "boolean": "a boolean",
    "object": "an object",
    "array": "an array",
}
EXPECTED = {"input": "a string or an array of input items"}
REQUIRED_ITEM_FIELDS = {
    "message": ("role", "content"),
    "function_call": ("call_id", "name", "arguments"),
    "function_call_output": ("call_id", "output"),
    "item_reference": ("id",),
}
# a content part's types, as the API's 400 lists them ("Supported values are: ..."); the mock reads text
PART_TYPES = ("input_text", "input_image", "output_text", "refusal", "input_file", "text")
TEXT_PARTS = ("input_text", "output_text", "text")
ITEM_TYPES = ("message", "function_call", "function_call_output", "reasoning", "item_reference")


class ResponsesEndpoint:
    """POST /v1/responses for one MockModel; `stored` keeps each stored response's conversation

    A request is checked by this API's rules and translated into a Chat Completions request, which
    then passes the chat endpoint's checks too; the policy's chat.completion is translated back.
    """

    calls_model = True

    def __init__(self, chat: Any, *, check_protocol: bool = True):
        self.chat = (
            chat  # the model's Chat Completions endpoint (model.ChatCompletions): its checks and cache
        )
        self.check_protocol = check_protocol
        # response id -> the items of its conversation: every input item, then its output
        self.stored: dict[str, list[dict[str, Any]]] = {}
        self.items: dict[str, dict[str, Any]] = {}  # item id -> an output item of a stored response

    def read(self, request: Any, headers: Mapping[str, str] | None = None) -> dict[str, Any]:
        """the Chat Completions request for this Responses request and the conversation it continues"""
        if self.check_protocol:
            _check_responses_request(request, self.stored, self.items)
        chat_request: dict[str, Any] = self.chat.read(to_chat_request(request, self._conversation(request)))
        return chat_request

    def write(
        self, request: dict[str, Any], chat_request: dict[str, Any], completion: dict[str, Any]
    ) -> Response:
        """the Response object (stored unless store is false), as JSON or as a stream"""
        self.chat.count_cached_tokens(chat_request, completion)
        response = _build_response(request, completion)
        if request.get(
            "store", True
        ):  # with store false, neither the response nor its items can be named later
            self.stored[response["id"]] = self._conversation(request) + response["output"]
            self.items.update((item["id"], item) for item in response["output"])
        if request.get("stream"):
            return 200, {"content-type": "text/event-stream"}, response_events(response)
        return json_response(200, response)

    def refuse(self, error: ProtocolError) -> Response:
        """the error in OpenAI's shape, with the chat checks' field names as a Responses request spells
        them"""
        return error_response(_in_responses_terms(error))

    def _conversation(self, request: dict[str, Any]) -> list[dict[str, Any]]:
        """the stored items of the response it continues, then its own input items, references resolved"""
        items = [
            self.items[item["id"]] if _is_reference(item) else item
            for item in _input_items(request.get("input"))
        ]
        return self.stored.get(request.get("previous_response_id") or "", []) + items


def _is_reference(item: Any) -> bool:
    return isinstance(item, dict) and item.get("type") == "item_reference"


def _check_responses_request(
    body: Any, stored: dict[str, list[dict[str, Any]]], stored_items: dict[str, dict[str, Any]]
) -> None:
    """raise ProtocolError for the first Responses API rule the request body breaks"""
    if not isinstance(body, dict):
        raise not_json(hint="Send a JSON object with at least 'model' and 'input'.")
    for name in body:
        if name not in PARAMETERS:
            # {"message": "Unknown parameter: 'parent_id'.", "param": "parent_id", "code":
            # "unknown_parameter"}
            # as pasted in cogwheel0/conduit#258
            raise ProtocolError(
                f"Unknown parameter: '{name}'.",
                param=name,
                code="unknown_parameter",
                hint=f"The Responses API has no {name!r} field; check the spelling "
                "(Chat Completions names differ: messages -> input, max_tokens -> max_output_tokens).",
            )
    if not body.get("model"):  # OpenAI's "Missing required parameter" form, adapted
        raise missing_parameter(
            "model", hint="Pass model=... to responses.create(); the mock accepts any name."
        )
    _check_fields(body, FIELDS)
    previous = body.get("previous_response_id")
    if previous is not None and previous not in stored:
        # 400, param previous_response_id, code previous_response_not_found (bigduu/Bamboo-agent#513),
        # "Previous response with id 'resp_...' not found." (maximhq/bifrost#2441)
        raise ProtocolError(
            f"Previous response with id '{previous}' not found.",
            param="previous_response_id",
            code="previous_response_not_found",
            hint="Only responses made by this client or server with store left true can be continued; "
            "with store=false, send the whole conversation as input instead.",
        )
    items = _input_items(body.get("input"))
    if not items and previous is None:  # adapted, as for 'model'
        raise missing_parameter(
            "input",
            hint="Send input='your question', or a list of items such as {'role': 'user', 'content': ...}.",
        )
    for i, item in enumerate(items):
        kind = item.get("type", "message") if isinstance(item, dict) else None
        if kind not in ITEM_TYPES:
            raise ProtocolError(
                f"Invalid value: {kind!r}. The mock reads input items of type {', '.join(ITEM_TYPES)}.",
                param=f"input[{i}].type",
                code="invalid_value",
                hint="Messages, function calls and function call outputs are what an agent loop sends.",
            )
        _check_fields(item, ITEM_FIELDS.get(kind, {}), f"input[{i}].")
        _check_item(f"input[{i}]", kind, item)
        if kind == "item_reference" and item.get("id") not in stored_items:
            # 404, as pasted in can1357/oh-my-pi#41 (there for a reasoning item, rs_...)
            raise ProtocolError(
                f"Item with id '{item.get('id')}' not found. Items are not persisted when `store` is set to "
                "false. Try again with `store` set to true, or remove this item from your input.",
                param="input",
                status=404,
                hint="An item_reference names an output item (msg_..., fc_...) of a response this mock "
                "stored; "
                "a response made with store=false keeps nothing, so send its items in full instead.",
            )
    _check_tools(body.get("tools"))
    text_format = body["text"].get("format") if isinstance(body.get("text"), dict) else None
    if text_format is not None and not isinstance(text_format, dict):
        raise invalid_type("text.format", "an object", text_format, hint="text.format is {'type': ...}.")
    items = [stored_items[item["id"]] if _is_reference(item) else item for item in items]
    conversation = stored.get(previous or "", []) + items
    _check_calls_answered(conversation)
    _check_json_mentioned(body, conversation)


def _check_item(where: str, kind: str, item: dict[str, Any]) -> None:
    """an input item has the fields its type requires, and its text parts their text"""
    for name in REQUIRED_ITEM_FIELDS.get(kind, ()):
        if item.get(name) is None:
            raise missing_parameter(
                f"{where}.{name}", hint=f"A {kind} item has {', '.join(REQUIRED_ITEM_FIELDS[kind])}."
            )
    parts_field = {"message": "content", "function_call_output": "output"}.get(kind)
    parts = item.get(parts_field) if parts_field else None
    for j, part in enumerate(parts if isinstance(parts, list) else []):
        _check_text_part(f"{where}.{parts_field}[{j}]", part)


def _check_text_part(where: str, part: Any) -> None:
    """a content part the mock reads: an object with a text type and its text, in the API's words"""
    if not isinstance(part, dict):
        raise invalid_type(where, "an object", part, hint='A part is {"type": "input_text", "text": ...}.')
    kind = part.get("type")
    if kind is None:
        raise missing_parameter(
            f"{where}.type", hint='Give each part its type: {"type": "input_text", "text": ...}.'
        )
    if kind not in PART_TYPES:
        choices = ", ".join(f"'{name}'" for name in PART_TYPES[:-1])
        raise ProtocolError(
            f"Invalid value: {_shown(kind)}. Supported values are: {choices}, and '{PART_TYPES[-1]}'.",
            param=f"{where}.type",
            code="invalid_value",
            hint="A text part of a message you send is input_text; of the model's own message, output_text.",
        )
    if kind not in TEXT_PARTS:
        raise ProtocolError(
            f"The mock reads text parts only, and {where} is an '{kind}' part.",
            param=f"{where}.type",
            code="invalid_value",
            hint="Describe the image or file in text; the real API reads it.",
        )
    if part.get("text") is None:
        raise missing_parameter(f"{where}.text", hint="A text part carries its words in 'text'.")
    if not isinstance(part["text"], str):
        raise invalid_type(f"{where}.text", "a string", part["text"], hint="A part's text is a string.")


def _shown(value: Any) -> str:
    """a value as the API's 400 quotes it: a string in single quotes, anything else as JSON"""
    return f"'{value}'" if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _check_fields(body: dict[str, Any], fields: dict[str, Field], at: str = "") -> None:
    """each field present holds its kind, within its range, in the words of OpenAI's 400s
    (as mock/protocol.py)"""
    for name, field in fields.items():
        value = body.get(name)
        if value is None:
            continue
        where = f"{at}{name}"
        if not any(is_kind(value, kind) for kind in field.kinds):
            expected = EXPECTED.get(where) or " or ".join(KIND_WORDS[kind] for kind in field.kinds)
            raise invalid_type(where, expected, value, hint=f"{where} is {expected}.")
        if not field.out_of_range(value):
            continue
        if isinstance(value, str):
            # "Invalid value: 'tool'. Supported values are: 'system', 'assistant', ..." (the chat path's
            # words)
            choices = [f"'{choice}'" for choice in field.choices]
            raise ProtocolError(
                f"Invalid value: '{value}'. Supported values are: {', '.join(choices[:-1])} and "
                f"{choices[-1]}.",
                param=where,
                code="invalid_value",
                hint=f"{where} is one of {', '.join(choices)}.",
            )
        kind = "integer" if is_kind(value, "integer") else "decimal"
        below = field.lowest is not None and value < field.lowest
        bound = f">= {field.lowest:g}" if below else f"<= {field.highest:g}"
        raise ProtocolError(
            f"Invalid '{where}': {kind} {'below minimum' if below else 'above maximum'} value. "
            f"Expected a value {bound}, but got {value:g} instead.",
            param=where,
            code=f"{kind}_{'below_min' if below else 'above_max'}_value",
            hint=f"{where} must be {bound}.",
        )


def to_chat_request(body: dict[str, Any], items: list[dict[str, Any]]) -> dict[str, Any]:
    """a Responses request (with its whole conversation as `items`) -> the Chat Completions request"""
    # "the instructions from a previous response will not be carried over" (the SDK's docstring of
    # `instructions`)
    messages = from_responses({"instructions": body.get("instructions"), "input": items})
    request: dict[str, Any] = {"model": body["model"], "messages": messages}
    tools = [tool_from_responses(tool) for tool in body.get("tools") or []]
    if tools:  # Chat Completions refuses tool_choice and parallel_tool_calls without tools
        request["tools"] = tools
        if body.get("tool_choice") is not None:
            request["tool_choice"] = _chat_tool_choice(body["tool_choice"])
        if body.get("parallel_tool_calls") is not None:
            request["parallel_tool_calls"] = body["parallel_tool_calls"]
    response_format = _chat_response_format((body.get("text") or {}).get("format"))
    if response_format is not None:
        request["response_format"] = response_format
    if body.get("max_output_tokens") is not None:
        request["max_completion_tokens"] = body["max_output_tokens"]
    for name in ("temperature", "top_p"):
        if body.get(name) is not None:
            request[name] = body[name]
    return request


def _build_response(body: dict[str, Any], completion: dict[str, Any]) -> dict[str, Any]:
    """the Response object for a mock chat.completion; ids derive from the completion's (deterministic) id"""
    digest = hashlib.sha256(completion["id"].encode()).hexdigest()
    choice = completion["choices"][0]
    message, finish_reason = choice["message"], choice["finish_reason"]
    incomplete = finish_reason == "length"
    output: list[dict[str, Any]] = []
    if message.get("content"):
        output.append(
            {
                "id": "msg_" + hashlib.sha256(f"{digest}:message".encode()).hexdigest()[:48],
                "type": "message",
                "status": "incomplete" if incomplete else "completed",
                "role": "assistant",
                "content": [
                    {"type": "output_text", "text": message["content"], "annotations": [], "logprobs": []}
                ],
            }
        )
    for i, call in enumerate(message.get("tool_calls") or []):
        output.append(
            {
                "id": "fc_" + hashlib.sha256(f"{digest}:{i}".encode()).hexdigest()[:48],
                "type": "function_call",
                "status": "completed",
                "arguments": call["function"]["arguments"],
                "call_id": call["id"],
                "name": call["function"]["name"],
            }
        )
    usage = completion["usage"]
    created = completion["created"]
    return {
        "id": f"resp_{digest[:48]}",
        "object": "response",
        "created_at": created,
        "status": "incomplete" if incomplete else "completed",
        "completed_at": None if incomplete else created,
        "background": False,
        "error": None,
        "incomplete_details": {"reason": "max_output_tokens"} if incomplete else None,
        "instructions": body.get("instructions"),
        "max_output_tokens": body.get("max_output_tokens"),
        "max_tool_calls": body.get("max_tool_calls"),
        "model": completion["model"],
        "output": output,
        "parallel_tool_calls": body.get("parallel_tool_calls", True),
        "previous_response_id": body.get("previous_response_id"),
        "reasoning": {"effort": None, "summary": None},
        "service_tier": "default",
        "store": body.get("store", True),
        "temperature": body.get("temperature", 1.0),
        "text": body.get("text") or {"format": {"type": "text"}},
        "tool_choice": body.get("tool_choice", "auto"),
        "tools": [_echoed_tool(tool) for tool in body.get("tools") or []],
        "top_p": body.get("top_p", 1.0),
        "top_logprobs": body.get("top_logprobs") or 0,
        "truncation": body.get("truncation") or "disabled",
        "usage": {
            "input_tokens": usage["prompt_tokens"],
            "input_tokens_details": {
                "cached_tokens": usage.get("prompt_tokens_details", {}).get("cached_tokens", 0),
                "cache_write_tokens": 0,
            },
            "output_tokens": usage["completion_tokens"],
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": usage["total_tokens"],
        },
        "user": body.get("user"),
        "metadata": body.get("metadata") or {},
    }


def _input_items(given: Any) -> list[dict[str, Any]]:
    """`input` as a list of items: a plain string is one user message"""
    if given is None:
        return []
    if isinstance(given, str):
        return [{"role": "user", "content": given}]
    return list(given)


def _check_tools(tools: Any) -> None:
    for i, tool in enumerate(tools or []):
        if not isinstance(tool, dict) or tool.get("type") != "function":
            kind = tool.get("type") if isinstance(tool, dict) else tool
            raise ProtocolError(
                f"The mock serves function tools only, and tools[{i}] has type {kind!r}.",
                param=f"tools[{i}].type",
                code="invalid_value",
                hint="Built-in tools (web search, file search...) run on OpenAI's servers; the mock has "
                "none.",
            )
        if "name" not in tool:
            raise missing_parameter(
                f"tools[{i}].name",
                hint="A Responses tool is flat: {'type': 'function', 'name': ..., 'parameters': {...}} "
                "(formats.tool_to_responses converts a Chat Completions one).",
            )
        _check_fields(tool, TOOL_FIELDS, f"tools[{i}].")


def _check_calls_answered(items: list[dict[str, Any]]) -> None:
    """every function_call_output answers an earlier function_call; every function_call gets its output"""
    made: list[Any] = []  # the call_ids as the request sent them
    answered: set[Any] = set()
    for item in items:
        kind = item.get("type", "message")
        if kind == "function_call":
            made.append(item.get("call_id"))
        elif kind == "function_call_output":
            call_id = item.get("call_id")
            if call_id not in made:
                # {"message": "No tool call found for function call output with call_id call_....",
                #  "type": "invalid_request_error", "param": "input", "code": null}
                # as pasted in microsoft/vscode#320060 and continuedev/continue#10092
                raise ProtocolError(
                    f"No tool call found for function call output with call_id {call_id}.",
                    param="input",
                    hint=f"A function_call_output answers a function_call made earlier in the conversation "
                    f"(calls made: {', '.join(made) or 'none'}); copy its call_id, not its id (fc_...).",
                )
            answered.add(call_id)
    for call_id in made:
        if call_id not in answered:
            # "No tool output found for function call call_XXX.", param "input", code null
            # (tjardoo/openai-client#124, openai/openai-agents-python#673)
            raise ProtocolError(
                f"No tool output found for function call {call_id}.",
                param="input",
                hint="Run every function_call of the last response and send one "
                "{'type': 'function_call_output', 'call_id': ..., 'output': ...} item for each.",
            )


def _check_json_mentioned(body: dict[str, Any], items: list[dict[str, Any]]) -> None:
    """text.format json_object needs the word "json" in an input message; `instructions` do not count"""
    if ((body.get("text") or {}).get("format") or {}).get("type") != "json_object":
        return
    messages = [item for item in items if item.get("type", "message") == "message"]
    if any("json" in json.dumps(item.get("content"), ensure_ascii=False).lower() for item in messages):
        return
    # the real text, as quoted in pydantic-ai (pydantic_ai/models/openai/_responses_model.py), whose
    # comment there notes that the API checks input messages for "JSON", not instructions
    raise ProtocolError(
        "Response input messages must contain the word 'json' in some form to use 'text.format' of type "
        "'json_object'.",
        param="input",
        hint="Say in a message of `input` that you want JSON (saying it in `instructions` is not enough), "
        "or use text.format json_schema, which has no such rule.",
    )


def _chat_tool_choice(choice: Any) -> Any:
    """Responses {"type": "function", "name": n} -> Chat Completions {"type": "function", "function":
    {...}}"""
    if isinstance(choice, dict) and choice.get("type") == "function" and "name" in choice:
        return {"type": "function", "function": {"name": choice["name"]}}
    return choice


def _chat_response_format(text_format: Any) -> dict[str, Any] | None:
    """Responses text.format -> Chat Completions response_format (the schema one level down)"""
    if not isinstance(text_format, dict) or text_format.get("type") in (None, "text"):
        return None
    if text_format["type"] == "json_schema":
        schema = {key: value for key, value in text_format.items() if key != "type"}
        return {"type": "json_schema", "json_schema": schema}
    return dict(text_format)


def _echoed_tool(tool: dict[str, Any]) -> dict[str, Any]:
    """a function tool as the response lists it: every field, present or not"""
    return {
        "type": "function",
        "name": tool["name"],
        "description": tool.get("description"),
        "parameters": tool.get("parameters"),
        "strict": tool.get("strict"),
    }


# where a Chat Completions error names a field, the name of the same field in a Responses request
_FIELD_NAMES = [
    (re.compile(r"\btools\[(\d+)\]\.function\."), r"tools[\1]."),
    (re.compile(r"\bresponse_format\.json_schema\b"), "text.format"),
    (re.compile(r"\bresponse_format\b"), "text.format"),
    (re.compile(r"\bmax_completion_tokens\b"), "max_output_tokens"),
    (re.compile(r"\btool_choice\.function\.name\b"), "tool_choice.name"),
    (
        re.compile(re.escape("{'type': 'function', 'function': {'name': ...}}")),
        "{'type': 'function', 'name': ...}",
    ),
]


def _in_responses_terms(error: ProtocolError) -> ProtocolError:
    """the same error, with the field names of a Chat Completions request as a Responses request spells
    them"""

    def renamed(text: str) -> str:
        for pattern, name in _FIELD_NAMES:
            text = pattern.sub(name, text)
        return text

    param = renamed(error.param) if isinstance(error.param, str) else error.param
    return replace(error, message=renamed(error.message), param=param, hint=renamed(error.hint))
