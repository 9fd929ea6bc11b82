"""The mock model behind the Anthropic Messages API, so the `anthropic` SDK runs offline too (lesson 09)."""

# Error texts: real 400 bodies, copied or adapted; where each comes from is in docs/sources.md.

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..formats import completion_to_anthropic, from_anthropic, tool_from_anthropic
from ..schema import json_type
from ..tokens import count_request
from .caching import PromptCache
from .protocol import Field, ProtocolError, is_kind, schema_problem
from .wire import Response, error_response, json_response, pieces

__all__ = [
    "AnthropicError",
    "check_api_key",
    "check_messages_request",
    "to_chat_request",
    "MessagesEndpoint",
    "Thread",
    "CountTokensEndpoint",
    "anthropic_error_response",
    "message_events",
]

ROLES = ("user", "assistant", "system")
# the anthropic-beta value of message threads (the SDK's MESSAGE_THREADS_BETA)
THREADS_BETA = "message-threads-2026-08-12"
# the fields the mock reads, with the types and ranges the API's request schema gives them
# (anthropic/types/message_create_params.py); checked before anything else reads them
FIELDS = {
    "model": Field(("string",)),
    "max_tokens": Field(("integer",), lowest=1),
    "messages": Field(("array",)),
    "system": Field(("string", "array")),
    "stream": Field(("boolean",)),
    "temperature": Field(("number",), lowest=0, highest=1),
    "top_p": Field(("number",), lowest=0, highest=1),
    "top_k": Field(("integer",), lowest=0),
    "stop_sequences": Field(("array",)),
    "metadata": Field(("object",)),
    "tools": Field(("array",)),
    "tool_choice": Field(("object",)),
}
TOOL_FIELDS = {
    "name": Field(("string",)),
    "description": Field(("string",)),
    "input_schema": Field(("object",)),
}
BLOCK_FIELDS = {
    "text": {"text": Field(("string",))},
    "tool_use": {"id": Field(("string",)), "name": Field(("string",)), "input": Field(("object",))},
    "tool_result": {
        "tool_use_id": Field(("string",)),
        "content": Field(("string", "array")),
        "is_error": Field(("boolean",)),
    },
}
REQUIRED_BLOCK_FIELDS = {
    "text": ("text",),
    "tool_use": ("id", "name", "input"),
    "tool_result": ("tool_use_id",),
}
TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,128}$")
# pydantic's words for a value of the wrong kind, which Anthropic's 400s use ("max_tokens: Input should be
# ...")
KIND_WORDS = {
    "string": "a valid string",
    "integer": "a valid integer",
    "number": "a valid number",
    "boolean": "a valid boolean",
    "object": "a valid dictionary",
    "array": "a valid list",
}
TRANSLATED_BLOCKS = ("text", "tool_use", "tool_result", "thinking", "redacted_thinking")


@dataclass
class AnthropicError(ProtocolError):
    """a request the Anthropic API would refuse: the same fields as ProtocolError, Anthropic's body shape

    details: the error's `details` object, whose `error_code` the SDK reads (anthropic/_exceptions.py).
    """

    details: dict[str, Any] | None = None

    def body(self) -> dict[str, Any]:
        """the JSON error body, shaped like Anthropic's; the learner's hint follows the real text"""
        message = f"{self.message}\n(agent_core mock hint: {self.hint})" if self.hint else self.message
        error: dict[str, Any] = {"type": self.type, "message": message}
        if self.details is not None:
            error["details"] = self.details
        return {"type": "error", "error": error}


def check_api_key(expected: str | None, given: str | None) -> None:
    """raise Anthropic's 401 when the server wants a key and the request does not carry it

    The SDK sends the key as an x-api-key header, or (newer versions) as Authorization: Bearer.
    """
    if expected is None or given == expected:
        return
    raise AnthropicError(
        "x-api-key header is required" if not given else "invalid x-api-key",
        hint="This mock server was started with an API key: pass it as anthropic.Anthropic(api_key=...).",
        status=401,
        type="authentication_error",
    )


def check_messages_request(
    body: Any, threads: Mapping[str, Thread] | None = None, headers: Mapping[str, str] | None = None
) -> None:
    """raise AnthropicError for the first Messages API rule the request body breaks

    threads: the message threads a `continue` may name (None: this endpoint takes no `thread`).
    headers: the request's headers, whose anthropic-beta must name the threads beta for `thread`.
    """
    if not isinstance(body, dict):
        raise AnthropicError(
            "The request body is not a JSON object.",
            hint="Send a JSON object with model, max_tokens and messages.",
        )
    for field in ("model", "max_tokens", "messages"):
        if body.get(field) is None:
            raise AnthropicError(
                f"{field}: Field required",
                hint="The Messages API needs model, max_tokens and messages in every request "
                "(max_tokens has no default, unlike Chat Completions).",
            )
    _check_fields(body, FIELDS)
    if isinstance(body.get("system"), list):
        for j, block in enumerate(body["system"]):
            _check_text_block(f"system.{j}", block, tagged=False)
    # tool_use and tool_result blocks need no `tools` since February 2025 (the API's release notes of
    # February 27th, 2025, as a maintainer points out in anthropics/anthropic-sdk-python#849; until then:
    # "Requests which include tool_use or tool_result blocks must define tools.", #494): none is asked for
    # here
    _check_tools(body.get("tools"))
    _check_tool_choice(body.get("tool_choice"), body.get("tools"))
    messages = body["messages"]
    if not isinstance(messages, list) or not messages:
        raise AnthropicError(
            "messages: at least one message is required",
            hint="Send at least one {'role': 'user', 'content': '...'} message.",
        )
    for i, message in enumerate(messages):
        _check_message_shape(i, message)
    _check_output_config(body.get("output_config"))
    if body.get("thread") is not None:
        _check_thread(body, threads, headers or {})
        if body["thread"]["type"] == "continue":
            return  # the tool results answer the thread's last message: checked once the thread is joined
    _check_tool_results(_combine_turns(messages))


def _check_fields(body: dict[str, Any], fields: Mapping[str, Field], at: str = "") -> None:
    """each field present holds its kind, within its range; the error names the field as pydantic does"""
    for name, field in fields.items():
        value = body.get(name)
        if value is None:
            continue
        where = f"{at}{name}"
        if not any(is_kind(value, kind) for kind in field.kinds):
            raise AnthropicError(
                f"{where}: Input should be {' or '.join(KIND_WORDS[kind] for kind in field.kinds)}",
                hint=f"{where} is {' or '.join(field.kinds)}, not {json_type(value)}.",
            )
        if field.out_of_range(value):
            bound = (
                ("greater than or equal to", field.lowest)
                if value < field.lowest
                else ("less than or equal to", field.highest)
            )
            raise AnthropicError(
                f"{where}: Input should be {bound[0]} {bound[1]:g}",
                hint=f"{where} goes from {field.lowest:g} to "
                f"{'any size' if field.highest is None else f'{field.highest:g}'}.",
            )


def _check_output_config(config: Any) -> None:
    """output_config.format is {"type": "json_schema", "schema": {...}} (the SDK's JSONOutputFormatParam)"""
    if config is None:
        return
    if not isinstance(config, dict):
        raise AnthropicError(
            "output_config: Input should be a valid dictionary", hint="output_config is an object."
        )
    output_format = config.get("format")
    if output_format is None:
        return
    if not isinstance(output_format, dict):
        raise AnthropicError(
            "output_config.format: Input should be a valid dictionary",
            hint="output_config.format is {'type': 'json_schema', 'schema': {...}}.",
        )
    if output_format.get("type") != "json_schema":
        raise AnthropicError(
            "output_config.format.type: Input should be 'json_schema'",
            hint="Structured outputs take a JSON schema: {'type': 'json_schema', 'schema': {...}}.",
        )
    if not isinstance(output_format.get("schema"), dict):
        raise AnthropicError(
            "output_config.format.schema: Field required"
            if output_format.get("schema") is None
            else "output_config.format.schema: Input should be a valid dictionary",
            hint="schema is a JSON schema object, e.g. {'type': 'object', 'properties': {...}}.",
        )
    problem = schema_problem(output_format["schema"])
    if (
        problem is not None
    ):  # the words are the mock's: the API's text for a schema it cannot use is not public
        raise AnthropicError(
            f"output_config.format.schema: not a valid JSON Schema: {problem}",
            hint="Check the schema against JSON Schema draft 2020-12, e.g. with jsonschema's check_schema().",
        )


def _check_thread(
    body: dict[str, Any], threads: Mapping[str, Thread] | None, headers: Mapping[str, str]
) -> None:
    """the message-threads beta, as the SDK's types define it (types/beta/beta_message_thread_param.py)"""
    betas = [beta.strip() for beta in (headers.get("anthropic-beta") or "").split(",")]
    if threads is None or THREADS_BETA not in betas:
        # Anthropic's words for a field the request may not have (pydantic's "Extra inputs are not permitted")
        raise AnthropicError(
            "thread: Extra inputs are not permitted",
            hint=f"`thread` is a beta: send the header anthropic-beta: {THREADS_BETA} (the SDK's "
            "client.beta.messages does), and only to POST /v1/messages."
            if threads is not None
            else "POST /v1/messages/count_tokens takes no `thread`: count the whole conversation.",
        )
    thread = body["thread"]
    kind = thread.get("type") if isinstance(thread, dict) else None
    if kind not in ("create", "continue"):
        raise AnthropicError(
            f"thread: Input tag '{kind}' found using 'type' does not match any of the expected tags: "
            "'create', 'continue'",
            hint="thread is {'type': 'create'} or {'type': 'continue', 'previous_message_id': 'msg_...'}.",
        )
    if kind == "create":
        return
    previous = thread.get("previous_message_id")
    if not isinstance(previous, str):
        raise AnthropicError(
            "thread.previous_message_id: Field required"
            if previous is None
            else "thread.previous_message_id: Input should be a valid string",
            hint="Continue from the id of the last message of the thread (message.id).",
        )
    if previous not in threads:
        # the SDK's own words for ThreadNotFoundError (types/thread_not_found_error.py): a 404 whose
        # details.error_code the SDK's threads read to start a new thread (lib/threads/_thread_state.py)
        raise AnthropicError(
            "No usable Thread state was found for `previous_message_id`.",
            hint=f"{previous!r} is not a message this mock made in a thread; replay the full conversation "
            "with thread {'type': 'create'}.",
            status=404,
            type="not_found_error",
            details={"error_code": "thread_not_found"},
        )
    if threads[previous].continued:
        # ThreadAlreadyContinuedError, a 400 (types/thread_already_continued_error.py)
        raise AnthropicError(
            "The response that `previous_message_id` names has already been continued, and each response can "
            "be continued only once. Continue from the Thread's most recent response `id`.",
            hint="Continue from the id of the newest message of the thread.",
            details={"error_code": "thread_already_continued"},
        )
    for field in ("system", "tools"):
        # "Request fields the server takes from the thread on a `continue` and rejects if the request
        # repeats them" (CREATE_ONLY_FIELDS in the SDK's lib/threads/_thread_state.py); the words are the
        # mock's
        if body.get(field) is not None:
            raise AnthropicError(
                f"{field}: cannot be set when continuing a thread; it is taken from the thread",
                hint=f"Send {field} with thread {{'type': 'create'}} only.",
            )


def _combine_turns(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """consecutive messages with the same role joined into one, as the API does; content as blocks"""
    turns: list[dict[str, Any]] = []
    for message in messages:
        blocks = _blocks(message["content"])
        if turns and turns[-1]["role"] == message["role"]:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": message["role"], "content": list(blocks)})
    return turns


def to_chat_request(body: dict[str, Any]) -> dict[str, Any]:
    """an Anthropic request body -> the Chat Completions request body a mock policy reads"""
    messages = []
    if body.get("system"):
        messages.extend(from_anthropic({"system": body["system"], "messages": []}))
    for turn in _combine_turns(body["messages"]):
        if turn["role"] == "system":  # a system message in the middle of the conversation
            text = "\n".join(b.get("text", "") for b in turn["content"])
            messages.append({"role": "system", "content": text})
        else:
            messages.extend(from_anthropic([turn]))
    request: dict[str, Any] = {"model": body["model"], "messages": messages}
    if body.get("tools"):
        request["tools"] = [tool_from_anthropic(tool) for tool in body["tools"]]
    choice = body.get("tool_choice")
    if choice and body.get("tools"):
        # Anthropic's auto / any / tool / none are Chat Completions' auto / required / named / none
        kind = choice["type"]
        request["tool_choice"] = (
            {"type": "function", "function": {"name": choice["name"]}}
            if kind == "tool"
            else {"any": "required"}.get(kind, kind)
        )
        if choice.get("disable_parallel_tool_use"):
            request["parallel_tool_calls"] = False
    output_format = (body.get("output_config") or {}).get("format")
    if output_format:  # structured outputs: the reply is one text block of JSON that matches the schema
        request["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": "output_format", "schema": output_format["schema"]},
        }
    if body.get("max_tokens"):
        request["max_tokens"] = body["max_tokens"]
    return request


class MessagesEndpoint:
    """POST /v1/messages: Anthropic's Messages API, read as a Chat Completions request for the policy

    `threads` holds the conversations of the message-threads beta: message id -> what a request
    that continues from that message builds on (its system prompt, tools and every message so far).
    """

    calls_model = True

    def __init__(self, cache: PromptCache | None = None, *, check_protocol: bool = True):
        # with a cache, a request with cache_control breakpoints gets cache_creation_input_tokens
        # and cache_read_input_tokens in its usage
        self.cache = cache
        self.check_protocol = check_protocol
        self.threads: dict[str, Thread] = {}

    def read(self, request: Any, headers: Mapping[str, str] | None = None) -> dict[str, Any]:
        """the Chat Completions request; a thread's `continue` is first completed, in place, from the
        thread"""
        if self.check_protocol:
            check_messages_request(request, self.threads, headers or {})
        if isinstance(request, dict) and request.get("thread"):
            self._complete_from_thread(request)
            if self.check_protocol:
                _check_tool_results(_combine_turns(request["messages"]))
        return to_chat_request(request)

    def write(
        self, request: dict[str, Any], chat_request: dict[str, Any], completion: dict[str, Any]
    ) -> Response:
        """the Message, as JSON or as a stream; in a thread, the conversation is kept under its id"""
        message = _anthropic_message(completion)
        # the real API always reports both cache fields, zeros when nothing was cached or written
        message["usage"].update({"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0})
        cached = self.cache.anthropic_usage(request, message["usage"]["input_tokens"]) if self.cache else None
        if cached:
            message["usage"].update(cached)
        if request.get("thread"):
            self._keep_thread(request, message)
        if request.get("stream"):
            return 200, {"content-type": "text/event-stream"}, message_events(message)
        return json_response(200, message)

    def refuse(self, error: ProtocolError) -> Response:
        """any refusal, a policy's failure (500) included, in Anthropic's error shape"""
        return anthropic_error_response(error)

    def _complete_from_thread(self, request: dict[str, Any]) -> None:
        """a `continue` request gets the thread's system prompt, tools and messages before its own"""
        thread = request["thread"]
        if thread.get("type") != "continue":
            return
        previous = self.threads[thread["previous_message_id"]]
        previous.continued = True
        for field in ("system", "tools"):
            if previous.request.get(field) is not None:
                request[field] = previous.request[field]
        request["messages"] = previous.request["messages"] + list(request["messages"])

    def _keep_thread(self, request: dict[str, Any], message: dict[str, Any]) -> None:
        reply = {"role": "assistant", "content": [_as_param(block) for block in message["content"]]}
        kept = {field: request[field] for field in ("system", "tools") if request.get(field) is not None}
        self.threads[message["id"]] = Thread({**kept, "messages": [*request["messages"], reply]})


@dataclass
class Thread:
    """one message of a thread: the conversation up to and including it, and whether a request continued it"""

    request: dict[str, Any]  # system, tools and messages, as a request that continues it builds on
    continued: bool = False


def _as_param(block: dict[str, Any]) -> dict[str, Any]:
    """a content block of a reply as a request sends it back"""
    fields = {"text": ("type", "text"), "tool_use": ("type", "id", "name", "input")}.get(block["type"])
    return {key: block[key] for key in fields} if fields else dict(block)


class CountTokensEndpoint(MessagesEndpoint):
    """POST /v1/messages/count_tokens: {"input_tokens": N}, what the request would cost as input

    Checked like a message request, except that max_tokens is not needed (the endpoint takes the
    same fields as POST /v1/messages without it); counted as the mock counts every prompt.
    """

    calls_model = False

    def read(self, request: Any, headers: Mapping[str, str] | None = None) -> dict[str, Any]:
        if self.check_protocol:
            given = {**request, "max_tokens": 1} if isinstance(request, dict) else request
            check_messages_request(given, None, headers or {})
        return to_chat_request(request)

    def write(
        self, request: dict[str, Any], chat_request: dict[str, Any], completion: dict[str, Any] | None
    ) -> Response:
        return json_response(
            200, {"input_tokens": count_request(chat_request["messages"], chat_request.get("tools"))}
        )


def anthropic_error_response(error: ProtocolError) -> Response:
    """a ProtocolError as Anthropic's JSON error: a server failure is an api_error"""
    if not isinstance(error, AnthropicError):
        kind = "api_error" if error.status >= 500 else "invalid_request_error"
        error = AnthropicError(error.message, hint=error.hint, status=error.status, type=kind)
    return error_response(error)


def _anthropic_message(completion: dict[str, Any]) -> dict[str, Any]:
    """a mock Chat Completions response -> the Anthropic Message, with Anthropic-style ids"""
    message = completion_to_anthropic(completion)
    message["id"] = "msg_" + completion["id"].removeprefix("chatcmpl-")
    for block in message["content"]:
        if block["type"] == "tool_use":
            block["id"] = "toolu_" + block["id"].removeprefix("call_")
            if message["stop_reason"] == "end_turn":  # a forced call: Anthropic still says tool_use
                message["stop_reason"] = "tool_use"
    return message


def message_events(message: dict[str, Any]) -> bytes:
    """the server-sent events the Messages API streams for this message, one `event:` + `data:` pair each"""
    start = {**message, "content": [], "stop_reason": None, "stop_sequence": None}
    start["usage"] = {**message["usage"], "output_tokens": 1}
    events: list[dict[str, Any]] = [{"type": "message_start", "message": start}]
    for index, block in enumerate(message["content"]):
        if block["type"] == "text":
            events.append(
                {"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}}
            )
            deltas = [{"type": "text_delta", "text": piece} for piece in pieces(block["text"]) or [""]]
        else:
            empty = {**block, "input": {}}
            events.append({"type": "content_block_start", "index": index, "content_block": empty})
            arguments = json.dumps(block["input"], ensure_ascii=False)
            deltas = [
                {"type": "input_json_delta", "partial_json": piece} for piece in pieces(arguments) or [""]
            ]
        events.extend({"type": "content_block_delta", "index": index, "delta": d} for d in deltas)
        events.append({"type": "content_block_stop", "index": index})
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
            "usage": {"output_tokens": message["usage"]["output_tokens"]},
        }
    )
    events.append({"type": "message_stop"})
    text = "".join(f"event: {e['type']}\ndata: {json.dumps(e, ensure_ascii=False)}\n\n" for e in events)
    return text.encode("utf-8", "backslashreplace")  # a lone surrogate as its JSON escape


def _check_tools(tools: Any) -> None:
    if tools is None:
        return
    if not isinstance(tools, list):
        raise AnthropicError("tools: Input should be a valid list", hint="tools is a list of tool dicts.")
    for i, tool in enumerate(tools):
        for field in ("name", "input_schema"):
            if not isinstance(tool, dict) or tool.get(field) is None:
                raise AnthropicError(
                    f"tools.{i}.{field}: Field required",
                    hint="An Anthropic tool is {'name': ..., 'description': ..., 'input_schema': {...}}: "
                    "flat, and `input_schema` where Chat Completions says `parameters` "
                    "(formats.tool_to_anthropic converts one).",
                )
        _check_fields(tool, TOOL_FIELDS, f"tools.{i}.custom.")
        if schema_problem(tool["input_schema"]):
            # as pasted in anthropics/claude-code#63673
            raise AnthropicError(
                f"tools.{i}.custom.input_schema: JSON schema is invalid. It must match JSON Schema draft "
                "2020-12 "
                "(https://json-schema.org/draft/2020-12). Learn more about tool use at "
                "https://docs.claude.com/en/docs/tool-use.",
                hint=f"What is wrong: {schema_problem(tool['input_schema'])}.",
            )
        if not TOOL_NAME.match(tool["name"]):
            # as pasted in home-assistant/core#147760 and netclaw-dev/netclaw#1134
            raise AnthropicError(
                f"tools.{i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{{1,128}}$'",
                hint="A tool name is 1 to 128 letters, digits, '_' or '-': no dots, spaces or slashes.",
            )


def _check_tool_choice(choice: Any, tools: Any) -> None:
    """tool_choice is {"type": "auto" | "any" | "tool" | "none"}, "tool" with the name of an offered tool

    The wording follows Anthropic's "field: problem" validation style; it is adapted, not copied.
    """
    if choice is None:
        return
    kind = choice.get("type") if isinstance(choice, dict) else None
    if kind not in ("auto", "any", "tool", "none"):
        raise AnthropicError(
            "tool_choice: Input tag '" + str(kind) + "' found using 'type' does not match any of the "
            "expected tags: 'auto', 'any', 'tool', 'none'",
            hint="tool_choice is {'type': 'auto'}, {'type': 'any'}, {'type': 'none'} or "
            "{'type': 'tool', 'name': ...}.",
        )
    _check_fields(
        choice, {"name": Field(("string",)), "disable_parallel_tool_use": Field(("boolean",))}, "tool_choice."
    )
    names = [t.get("name") for t in tools or [] if isinstance(t, dict)]
    if kind == "tool" and choice.get("name") not in names:
        raise AnthropicError(
            f"tool_choice.name: the tool {choice.get('name')!r} is not one of the tools offered",
            hint=f"Name one of the tools in this request: {', '.join(map(str, names)) or 'none offered'}.",
        )


def _check_message_shape(i: int, message: Any) -> None:
    role = message.get("role") if isinstance(message, dict) else None
    if role not in ROLES:
        raise AnthropicError(
            f"messages.{i}.role: Input should be 'user', 'assistant' or 'system'",
            hint="Tool results travel in a 'user' message as tool_result blocks, not with role 'tool'.",
        )
    content = message.get("content")
    if not isinstance(content, (str, list)):
        raise AnthropicError(
            f"messages.{i}.content: Field required"
            if content is None
            else f"messages.{i}.content: Input should be a valid list",
            hint="content is a string or a list of blocks such as {'type': 'text', 'text': ...}.",
        )
    for j, block in enumerate(_blocks(content)):
        kind = block.get("type") if isinstance(block, dict) else None
        if kind not in TRANSLATED_BLOCKS:
            raise AnthropicError(
                f"messages.{i}.content.{j}: the mock does not handle {kind!r} blocks",
                hint=f"The mock reads {', '.join(TRANSLATED_BLOCKS[:3])} blocks; describe other content in "
                "text.",
            )
        where = f"messages.{i}.content.{j}.{kind}"
        for name in REQUIRED_BLOCK_FIELDS.get(kind, ()):
            if block.get(name) is None:
                raise AnthropicError(
                    f"{where}.{name}: Field required",
                    hint=f"A {kind} block has {', '.join(REQUIRED_BLOCK_FIELDS[kind])}.",
                )
        _check_fields(block, BLOCK_FIELDS.get(kind, {}), f"{where}.")
        if kind == "tool_use" and "caller" in block and block["caller"] is None:
            # The SDK's ToolUseBlock reads a reply's tool_use with caller=None, so model_dump() sends
            # "caller": null back, which Anthropic refuses (the request type, ToolUseBlockParam, has
            # `caller: Caller`, not Optional); the 400 as pasted in langchain-ai/langchain#34286:
            # "messages.1.content.1.tool_use.caller: Extra inputs are not permitted"
            raise AnthropicError(
                f"{where}.caller: Extra inputs are not permitted",
                hint=f'messages.{i}.content.{j} carries "caller": null: turn SDK blocks into dicts with '
                "block.model_dump(exclude_none=True), which leaves out the fields the reply did not set.",
            )
        if kind == "text" and block["text"] == "":
            # Anthropic's 400 for an empty text block (or content ""), as pasted in
            # anthropics/claude-code#59812, miurla/morphic#83 and BiFangKNT/mtga#68:
            # {"type": "invalid_request_error", "message": "messages: text content blocks must be non-empty"}
            raise AnthropicError(
                "messages: text content blocks must be non-empty",
                hint=f"messages.{i}.content.{j} is an empty text block: leave it out, or put words in it.",
            )
        if kind == "tool_result" and isinstance(block.get("content"), list):
            for k, inner in enumerate(block["content"]):
                _check_text_block(f"{where}.content.{k}", inner, tagged=True)


def _check_text_block(where: str, block: Any, tagged: bool) -> None:
    """a text block of `system` or of a tool result, in pydantic's words; `tagged`: one type of several
    may stand there, so the error names the type too ("...content.0.text.text: Field required")"""
    if not isinstance(block, dict):
        raise AnthropicError(f"{where}: Input should be a valid dictionary", hint="A block is a dict.")
    kind = block.get("type")
    if kind != "text":
        raise AnthropicError(
            f"{where}: Unable to extract tag using discriminator 'type'"
            if kind is None
            else f"{where}.type: Input should be 'text'",
            hint="The mock reads text blocks here: {'type': 'text', 'text': ...}.",
        )
    text_at = f"{where}.text.text" if tagged else f"{where}.text"
    if block.get("text") is None or not isinstance(block["text"], str):
        raise AnthropicError(
            f"{text_at}: Field required"
            if block.get("text") is None
            else f"{text_at}: Input should be a valid string",
            hint="A text block carries its words in 'text', a string.",
        )


def _check_tool_results(turns: list[dict[str, Any]]) -> None:
    """every tool_use is answered in the very next turn, results first; no result answers nothing"""
    asked: list[str] = []  # tool_use ids of the previous assistant turn
    for i, turn in enumerate(turns):
        blocks = turn["content"]
        if turn["role"] == "user":
            for j, block in enumerate(blocks):
                if block["type"] == "tool_result" and block.get("tool_use_id") not in asked:
                    raise AnthropicError(
                        f"messages.{i}.content.{j}: unexpected `tool_use_id` found in `tool_result` blocks: "
                        f"{block.get('tool_use_id')}. Each `tool_result` block must have a corresponding "
                        "`tool_use` block in the previous message.",
                        hint=f"Answer only the tool_use ids of the assistant message just before "
                        f"({', '.join(asked) or 'it asked for none'}).",
                    )
        if asked:
            leading = []  # the results at the start of this turn: text before them does not count
            for block in blocks if turn["role"] == "user" else []:
                if block["type"] != "tool_result":
                    break
                leading.append(block.get("tool_use_id"))
            missing = [tool_id for tool_id in asked if tool_id not in leading]
            if missing:
                raise _unanswered(i - 1, missing)
        asked = (
            [b.get("id") for b in blocks if b["type"] == "tool_use"] if turn["role"] == "assistant" else []
        )
    if asked:
        raise _unanswered(len(turns) - 1, asked)


def _unanswered(i: int, ids: list[str]) -> AnthropicError:
    return AnthropicError(
        f"messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately after: "
        f"{', '.join(ids)}. Each `tool_use` block must have a corresponding `tool_result` block in the "
        "next message.",
        hint="Run every tool the model asked for and send all results in ONE user message, "
        "tool_result blocks first: {'type': 'tool_result', 'tool_use_id': block.id, 'content': ...}.",
    )


def _blocks(content: str | list[Any]) -> list[Any]:
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
