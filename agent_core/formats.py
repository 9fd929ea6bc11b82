"""Other wire formats: one Chat Completions conversation as Responses, Anthropic and Ollama (lesson 09)."""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime
from typing import Any

from ._messages import ERROR_PREFIX, from_responses
from ._messages import as_dict as _as_dict
from ._messages import chat_tool_call as _chat_tool_call
from ._messages import text_of as _text

__all__ = [
    "ERROR_PREFIX",
    "UNPARSED_ARGUMENTS",
    "tool_to_responses",
    "tool_from_responses",
    "to_responses",
    "from_responses",
    "completion_to_responses",
    "tool_to_anthropic",
    "tool_from_anthropic",
    "to_anthropic",
    "from_anthropic",
    "completion_to_anthropic",
    "to_anthropic_stop_reason",
    "from_anthropic_stop_reason",
    "tool_to_ollama",
    "tool_from_ollama",
    "to_ollama",
    "from_ollama",
    "completion_to_ollama",
]

# Anthropic and Ollama want tool arguments as a JSON object. Arguments that are not one
# (a model can send broken JSON) travel as {UNPARSED_ARGUMENTS: "<the raw text>"} and come back as that text.
UNPARSED_ARGUMENTS = "_unparsed_arguments"

Message = dict[str, Any]
ToolDefinition = dict[str, Any]


# --- shared helpers ---------------------------------------------------------------------------


def _arguments_text(call: dict[str, Any]) -> str:
    """the JSON-string arguments of a Chat Completions tool call"""
    arguments = call["function"].get("arguments", "{}")
    return arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)


def _arguments_to_object(arguments: str) -> dict[str, Any]:
    """JSON-string arguments -> the object Anthropic and Ollama want (broken JSON is kept, wrapped)"""
    if not arguments.strip():
        return {}
    try:
        value = json.loads(arguments)
    except json.JSONDecodeError:
        return {UNPARSED_ARGUMENTS: arguments}
    return value if isinstance(value, dict) else {UNPARSED_ARGUMENTS: arguments}


def _arguments_to_text(arguments: Any) -> str:
    """an arguments object -> the JSON string Chat Completions wants"""
    if isinstance(arguments, dict) and set(arguments) == {UNPARSED_ARGUMENTS}:
        return arguments[UNPARSED_ARGUMENTS]
    return json.dumps(arguments, ensure_ascii=False)


def _split_system(messages: list[Message]) -> tuple[str | None, list[Message]]:
    """a leading system message becomes the format's own system field; the rest stay messages"""
    if messages and messages[0].get("role") == "system":
        return _text(messages[0].get("content")), messages[1:]
    return None, messages


def _function_of(tool: ToolDefinition) -> dict[str, Any]:
    tool = _as_dict(tool)
    if tool.get("type") != "function" or "function" not in tool:
        raise ValueError(
            'expected a Chat Completions tool {"type": "function", "function": {"name": ...}}, '
            f"got {tool!r}"
        )
    return tool["function"]


def _unknown_role(role: Any, where: str) -> ValueError:
    return ValueError(
        f"cannot translate a message with role {role!r} to {where}; "
        "expected one of system, user, assistant, tool"
    )


def _choice(completion: Any) -> tuple[dict[str, Any], dict[str, Any], str]:
    """a Chat Completions response -> (the response dict, its first message, its finish_reason)"""
    completion = _as_dict(completion)
    choice = completion["choices"][0]
    return completion, _as_dict(choice["message"]), choice.get("finish_reason") or "stop"


# --- OpenAI Responses API ---------------------------------------------------------------------
# Shapes from the function calling guide (https://platform.openai.com/docs/guides/function-calling,
# Responses tab) and the Responses API reference (https://platform.openai.com/docs/api-reference/responses),
# checked against the types in the openai SDK (openai.types.responses).
# Decision: a leading system message becomes `instructions`; any later system message stays an input
# message with role "system", which the Responses API also accepts.


def tool_to_responses(tool: ToolDefinition) -> ToolDefinition:
    """Chat Completions tool -> Responses tool: the same fields, one level up"""
    function = _function_of(tool)
    flat: ToolDefinition = {"type": "function", "name": function["name"]}
    if "description" in function:
        flat["description"] = function["description"]
    flat["parameters"] = function.get("parameters")
    # Responses normalises a function into strict mode when `strict` is omitted; Chat Completions does not
    # (OpenAI function-calling guide, "strict mode" section, as of 2026-04). So we always spell it out.
    flat["strict"] = bool(function.get("strict", False))
    return flat


def tool_from_responses(tool: ToolDefinition) -> ToolDefinition:
    """Responses tool -> Chat Completions tool (strict=False is left out: it is the default there)"""
    function: dict[str, Any] = {"name": tool["name"]}
    if "description" in tool:
        function["description"] = tool["description"]
    if tool.get("parameters") is not None:
        function["parameters"] = tool["parameters"]
    if tool.get("strict"):
        function["strict"] = True
    return {"type": "function", "function": function}


def to_responses(messages: list[Message], tools: list[ToolDefinition] | None = None) -> dict[str, Any]:
    """Chat Completions messages (+ tools) -> a Responses request body: instructions, input items, tools"""
    instructions, rest = _split_system([_as_dict(m) for m in messages])
    items: list[dict[str, Any]] = []
    for message in rest:
        role = message.get("role")
        if role == "tool":
            items.append(
                {
                    "type": "function_call_output",
                    "call_id": message["tool_call_id"],
                    "output": _text(message.get("content")),
                }
            )
        elif role == "assistant" and message.get("tool_calls"):
            if _text(message.get("content")):
                items.append({"role": "assistant", "content": _text(message["content"])})
            for call in message["tool_calls"]:
                items.append(
                    {
                        "type": "function_call",
                        "call_id": call["id"],
                        "name": call["function"]["name"],
                        "arguments": _arguments_text(call),
                    }
                )
        elif role in ("system", "developer", "user", "assistant"):
            items.append({"role": role, "content": _text(message.get("content"))})
        else:
            raise _unknown_role(role, "the Responses API")
    request: dict[str, Any] = {}
    if instructions is not None:
        request["instructions"] = instructions
    request["input"] = items
    if tools:
        request["tools"] = [tool_to_responses(t) for t in tools]
    return request


_RESPONSES_STATUS = {
    "stop": ("completed", None),
    "tool_calls": ("completed", None),
    "length": ("incomplete", {"reason": "max_output_tokens"}),
    "content_filter": ("incomplete", {"reason": "content_filter"}),
}


def completion_to_responses(completion: Any) -> dict[str, Any]:
    """a Chat Completions response -> the Responses API response that says the same thing"""
    completion, message, finish_reason = _choice(completion)
    if finish_reason not in _RESPONSES_STATUS:
        raise ValueError(f"no Responses status for finish_reason {finish_reason!r}")
    status, incomplete_details = _RESPONSES_STATUS[finish_reason]
    output: list[dict[str, Any]] = []
    if _text(message.get("content")):
        output.append(
            {
                "type": "message",
                "id": f"msg_{completion['id']}",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": _text(message["content"]), "annotations": []}],
            }
        )
    for call in message.get("tool_calls") or []:
        output.append(
            {
                "type": "function_call",
                "id": f"fc_{call['id']}",  # Responses gives every item an id of its own
                "call_id": call["id"],
                "name": call["function"]["name"],
                "arguments": _arguments_text(call),
                "status": "completed",
            }
        )
    response: dict[str, Any] = {
        "id": f"resp_{completion['id']}",
        "object": "response",
        "created_at": completion.get("created"),
        "model": completion.get("model"),
        "status": status,
        "incomplete_details": incomplete_details,
        "output": output,
    }
    if completion.get("usage"):
        usage = completion["usage"]
        response["usage"] = {
            "input_tokens": usage["prompt_tokens"],
            "output_tokens": usage["completion_tokens"],
            "total_tokens": usage["total_tokens"],
        }
    return response


# --- Anthropic Messages API -------------------------------------------------------------------
# Shapes from https://platform.claude.com/docs/en/agents-and-tools/tool-use/handle-tool-calls
# (tool_use / tool_result blocks, is_error, results first in the user message),
# https://platform.claude.com/docs/en/agents-and-tools/tool-use/parallel-tool-use (every result of
# one turn in ONE user message) and .../tool-use/strict-tool-use (strict on a tool definition).
# `system` is a top-level string, so only a leading system message can be translated.


def tool_to_anthropic(tool: ToolDefinition) -> ToolDefinition:
    """Chat Completions tool -> Anthropic tool: `parameters` is called `input_schema`"""
    function = _function_of(tool)
    anthropic_tool: ToolDefinition = {"name": function["name"]}
    if "description" in function:
        anthropic_tool["description"] = function["description"]
    anthropic_tool["input_schema"] = function.get("parameters") or {
        "type": "object",
        "properties": {},
    }
    if function.get("strict"):
        anthropic_tool["strict"] = True
    return anthropic_tool


def tool_from_anthropic(tool: ToolDefinition) -> ToolDefinition:
    """Anthropic tool -> Chat Completions tool"""
    function: dict[str, Any] = {"name": tool["name"]}
    if "description" in tool:
        function["description"] = tool["description"]
    function["parameters"] = tool["input_schema"]
    if tool.get("strict"):
        function["strict"] = True
    return {"type": "function", "function": function}


def _tool_result_block(message: Message) -> dict[str, Any]:
    text = _text(message.get("content"))
    block = {"type": "tool_result", "tool_use_id": message["tool_call_id"], "content": text}
    if text.startswith(ERROR_PREFIX):
        block["is_error"] = True
    return block


def _append_turn(turns: list[dict[str, Any]], role: str, blocks: list[dict[str, Any]]) -> None:
    """Anthropic wants user and assistant to alternate: a second same-role message joins the first"""
    if turns and turns[-1]["role"] == role:
        turns[-1]["content"].extend(blocks)
    else:
        turns.append({"role": role, "content": list(blocks)})


def to_anthropic(messages: list[Message], tools: list[ToolDefinition] | None = None) -> dict[str, Any]:
    """Chat Completions messages (+ tools) -> an Anthropic request body: system, messages, tools"""
    system, rest = _split_system([_as_dict(m) for m in messages])
    turns: list[dict[str, Any]] = []
    for position, message in enumerate(rest, start=1 if system is not None else 0):
        role = message.get("role")
        if role == "tool":
            _append_turn(turns, "user", [_tool_result_block(message)])  # results travel as "user"
        elif role == "user":
            _append_turn(turns, "user", [{"type": "text", "text": _text(message.get("content"))}])
        elif role == "assistant":
            blocks: list[dict[str, Any]] = []
            if _text(message.get("content")):
                blocks.append({"type": "text", "text": _text(message["content"])})
            for call in message.get("tool_calls") or []:
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": call["id"],
                        "name": call["function"]["name"],
                        "input": _arguments_to_object(_arguments_text(call)),
                    }
                )
            _append_turn(turns, "assistant", blocks)
        elif role == "system":
            raise ValueError(
                f"message {position} is a system message, but Anthropic takes one system prompt, "
                "as the top-level `system` field: keep a single system message at the start"
            )
        else:
            raise _unknown_role(role, "Anthropic Messages")
    for turn in turns:
        if turn["role"] == "user":  # tool_result blocks must come before any text
            turn["content"].sort(key=lambda block: block["type"] != "tool_result")
        if len(turn["content"]) == 1 and turn["content"][0]["type"] == "text":
            # a lone text block reads better as a plain string, as in Chat Completions
            turn["content"] = turn["content"][0]["text"]
    request: dict[str, Any] = {}
    if system is not None:
        request["system"] = system
    request["messages"] = turns
    if tools:
        request["tools"] = [tool_to_anthropic(t) for t in tools]
    return request


def _tool_result_text(block: dict[str, Any]) -> str:
    text = _text(block.get("content"))
    if block.get("is_error") and not text.startswith(ERROR_PREFIX):
        text = ERROR_PREFIX + text  # Chat Completions has no is_error: the prefix carries it
    return text


def from_anthropic(request: dict[str, Any] | list[dict[str, Any]]) -> list[Message]:
    """an Anthropic request body (or its messages list) -> Chat Completions messages"""
    if isinstance(request, list):
        request = {"messages": request}
    messages: list[Message] = []
    if request.get("system"):
        messages.append({"role": "system", "content": _text(request["system"])})
    for turn in request["messages"]:
        content = turn["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        blocks = [b for b in map(_as_dict, blocks) if b["type"] not in ("thinking", "redacted_thinking")]
        unknown = [b["type"] for b in blocks if b["type"] not in ("text", "tool_use", "tool_result")]
        if unknown:
            raise ValueError(f"cannot translate Anthropic {unknown[0]!r} blocks to Chat Completions")
        if turn["role"] == "assistant":
            texts = [b["text"] for b in blocks if b["type"] == "text"]
            message: Message = {"role": "assistant", "content": "".join(texts) if texts else None}
            calls = [
                _chat_tool_call(b["id"], b["name"], _arguments_to_text(b["input"]))
                for b in blocks
                if b["type"] == "tool_use"
            ]
            if calls:
                message["tool_calls"] = calls
            messages.append(message)
            continue
        for block in blocks:  # a user turn: tool results become tool messages, text user messages
            if block["type"] == "tool_result":
                messages.append(
                    {
                        "role": "tool",
                        "tool_call_id": block["tool_use_id"],
                        "content": _tool_result_text(block),
                    }
                )
            else:
                messages.append({"role": "user", "content": block["text"]})
    return messages


_ANTHROPIC_STOP_REASONS = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "length": "max_tokens",
    "content_filter": "refusal",
}
_FINISH_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "refusal": "content_filter",
}


def to_anthropic_stop_reason(finish_reason: str) -> str:
    """Chat Completions finish_reason -> Anthropic stop_reason ("tool_calls" -> "tool_use"...)"""
    if finish_reason not in _ANTHROPIC_STOP_REASONS:
        raise ValueError(
            f"no Anthropic stop_reason for finish_reason {finish_reason!r}; "
            f"known: {', '.join(_ANTHROPIC_STOP_REASONS)}"
        )
    return _ANTHROPIC_STOP_REASONS[finish_reason]


def from_anthropic_stop_reason(stop_reason: str) -> str:
    """Anthropic stop_reason -> Chat Completions finish_reason ("end_turn" -> "stop"...)"""
    if stop_reason not in _FINISH_REASONS:
        raise ValueError(
            f"no Chat Completions finish_reason for stop_reason {stop_reason!r}; "
            f"known: {', '.join(_FINISH_REASONS)}"
        )
    return _FINISH_REASONS[stop_reason]


def completion_to_anthropic(completion: Any) -> dict[str, Any]:
    """a Chat Completions response -> the Anthropic Messages response that says the same thing"""
    completion, message, finish_reason = _choice(completion)
    assistant = to_anthropic([{**message, "role": "assistant"}])["messages"][0]
    content = assistant["content"]
    response: dict[str, Any] = {
        "id": completion["id"],
        "type": "message",
        "role": "assistant",
        "model": completion.get("model"),
        "content": [{"type": "text", "text": content}] if isinstance(content, str) else content,
        "stop_reason": to_anthropic_stop_reason(finish_reason),
        "stop_sequence": None,
    }
    if completion.get("usage"):
        usage = completion["usage"]
        response["usage"] = {
            "input_tokens": usage["prompt_tokens"],
            "output_tokens": usage["completion_tokens"],
        }
    return response


# --- Ollama native /api/chat -----------------------------------------------------------------
# Shapes from https://docs.ollama.com/capabilities/tool-calling (tool results as role "tool" with
# `tool_name`, parallel results in call order) and https://github.com/ollama/ollama/blob/main/docs/api.md
# ("Chat request (with tools)": arguments are an object, tool calls have no id, done_reason "stop").
# Ollama calls have no ids: on the way back we number them call_0, call_1... through the conversation
# and pair each tool message with the oldest unanswered call of the same name.


def tool_to_ollama(tool: ToolDefinition) -> ToolDefinition:
    """Chat Completions tool -> Ollama tool: the same shape (Ollama does not use `strict`)"""
    _function_of(tool)
    return copy.deepcopy(_as_dict(tool))


def tool_from_ollama(tool: ToolDefinition) -> ToolDefinition:
    """Ollama tool -> Chat Completions tool: the same shape"""
    return copy.deepcopy(tool)


def _ollama_assistant(message: Message) -> dict[str, Any]:
    ollama_message: dict[str, Any] = {"role": "assistant", "content": _text(message.get("content"))}
    if message.get("tool_calls"):
        ollama_message["tool_calls"] = [
            {
                "function": {
                    "name": call["function"]["name"],
                    "arguments": _arguments_to_object(_arguments_text(call)),
                }
            }
            for call in message["tool_calls"]
        ]
    return ollama_message


def to_ollama(messages: list[Message], tools: list[ToolDefinition] | None = None) -> dict[str, Any]:
    """Chat Completions messages (+ tools) -> an Ollama /api/chat request body: messages, tools"""
    ollama_messages: list[dict[str, Any]] = []
    call_names: dict[str, str] = {}  # call id -> tool name
    call_order: dict[str, int] = {}  # call id -> its place among the calls of the conversation
    pending_results: list[tuple[int, dict[str, Any]]] = []

    def flush_results() -> None:
        # Without ids, results are paired by order: send them in the order the calls were made.
        ollama_messages.extend(result for _, result in sorted(pending_results, key=lambda r: r[0]))
        pending_results.clear()

    for message in map(_as_dict, messages):
        role = message.get("role")
        if role == "tool":
            call_id = message.get("tool_call_id")
            if call_id not in call_names:
                raise ValueError(
                    f"a tool message answers call {call_id!r}, but no earlier assistant message made "
                    "that call; every tool message needs the tool_call_id of a call before it"
                )
            result = {
                "role": "tool",
                "tool_name": call_names[call_id],
                "content": _text(message.get("content")),
            }
            pending_results.append((call_order[call_id], result))
            continue
        flush_results()
        if role == "assistant":
            for call in message.get("tool_calls") or []:
                call_names[call["id"]] = call["function"]["name"]
                call_order[call["id"]] = len(call_order)
            ollama_messages.append(_ollama_assistant(message))
        elif role in ("system", "user"):
            ollama_messages.append({"role": role, "content": _text(message.get("content"))})
        else:
            raise _unknown_role(role, "Ollama")
    flush_results()
    request: dict[str, Any] = {"messages": ollama_messages}
    if tools:
        request["tools"] = [tool_to_ollama(t) for t in tools]
    return request


def from_ollama(request: dict[str, Any] | list[dict[str, Any]]) -> list[Message]:
    """an Ollama /api/chat request body (or its messages list) -> Chat Completions messages"""
    if isinstance(request, list):
        request = {"messages": request}
    messages: list[Message] = []
    unanswered: list[tuple[str, str]] = []  # (call id, tool name), oldest first
    call_count = 0
    for message in request["messages"]:
        role = message.get("role")
        if role == "assistant" and message.get("tool_calls"):
            calls = []
            for call in message["tool_calls"]:
                call_id = f"call_{call_count}"
                call_count += 1
                name = call["function"]["name"]
                calls.append(
                    _chat_tool_call(call_id, name, _arguments_to_text(call["function"].get("arguments", {})))
                )
                unanswered.append((call_id, name))
            messages.append(
                {
                    "role": "assistant",
                    "content": message.get("content") or None,
                    "tool_calls": calls,
                }
            )
        elif role == "tool":
            name = message.get("tool_name")
            match = next((c for c in unanswered if name is None or c[1] == name), None)
            if match is None:
                raise ValueError(
                    f"a tool message (tool_name={name!r}) answers no earlier unanswered call; "
                    "Ollama pairs results with calls by order and name"
                )
            unanswered.remove(match)
            messages.append({"role": "tool", "tool_call_id": match[0], "content": message.get("content", "")})
        elif role in ("system", "user", "assistant"):
            messages.append({"role": role, "content": message.get("content", "")})
        else:
            raise _unknown_role(role, "Chat Completions")
    return messages


def completion_to_ollama(completion: Any) -> dict[str, Any]:
    """a Chat Completions response -> the Ollama /api/chat response (stream: false) that says the same"""
    completion, message, finish_reason = _choice(completion)
    created = datetime.fromtimestamp(completion.get("created", 0), tz=UTC)
    response: dict[str, Any] = {
        "model": completion.get("model"),
        "created_at": created.isoformat().replace("+00:00", "Z"),
        "message": _ollama_assistant(message),
        "done": True,
        # Ollama says "stop" after tool calls too: the presence of tool_calls is the signal.
        "done_reason": "length" if finish_reason == "length" else "stop",
    }
    if completion.get("usage"):
        response["prompt_eval_count"] = completion["usage"]["prompt_tokens"]
        response["eval_count"] = completion["usage"]["completion_tokens"]
    return response
