"""Other wire formats: one Chat Completions conversation as Responses, Anthropic and Ollama (lesson 09).

Beneath it, each named for what it holds:
- `_tool_definitions.py`: one tool definition in each API's shape (`tool_to_anthropic`...);
- `_tool_arguments.py`: arguments as JSON text or as an object; broken JSON kept as UNPARSED_ARGUMENTS;
- `_anthropic_blocks.py`: Anthropic's blocks: tool_use, tool_result with is_error, alternating turns;
- `_ollama_calls.py`: Ollama's calls have no ids: results go in call order, ids are made up on the way back;
- `_completion_formats.py`: a Chat Completions response as the other APIs' responses, and stop reasons.
"""

from __future__ import annotations

from typing import Any

from .._messages import ERROR_PREFIX, as_dict, chat_tool_call, from_responses, text_of
from ._arguments import UNPARSED_ARGUMENTS, arguments_text, as_text
from ._completions import (
    completion_to_anthropic,
    completion_to_ollama,
    completion_to_responses,
    from_anthropic_stop_reason,
    to_anthropic_stop_reason,
)
from ._tool_definitions import (
    tool_from_anthropic,
    tool_from_ollama,
    tool_from_responses,
    tool_to_anthropic,
    tool_to_ollama,
    tool_to_responses,
)
from .anthropic import (
    append_turn,
    assistant_blocks,
    blocks_of,
    tidy,
    tool_result_block,
    tool_result_text,
)
from .ollama import CallIds, ResultsInCallOrder, ollama_assistant

__all__ = ["to_responses", "from_responses", "to_anthropic", "from_anthropic", "to_ollama", "from_ollama"]
__all__ += ["tool_to_responses", "tool_from_responses", "tool_to_anthropic", "tool_from_anthropic"]
__all__ += ["tool_to_ollama", "tool_from_ollama", "ERROR_PREFIX", "UNPARSED_ARGUMENTS"]
__all__ += ["completion_to_responses", "completion_to_anthropic", "completion_to_ollama"]
__all__ += ["to_anthropic_stop_reason", "from_anthropic_stop_reason"]

Message = dict[str, Any]
ToolDefinition = dict[str, Any]


# --- OpenAI Responses API: https://platform.openai.com/docs/api-reference/responses -----------------
# A leading system message becomes `instructions`; a later one stays an input item with role "system".


def to_responses(messages: list[Message], tools: list[ToolDefinition] | None = None) -> dict[str, Any]:
    """Chat Completions messages (+ tools) -> a Responses request body: instructions, input items, tools"""
    instructions, rest = _split_system([as_dict(m) for m in messages])
    items: list[dict[str, Any]] = []
    for message in rest:
        role, text = message.get("role"), text_of(message.get("content"))
        if role == "tool":
            items.append({"type": "function_call_output", "call_id": message["tool_call_id"], "output": text})
        elif role == "assistant" and message.get("tool_calls"):
            if text:
                items.append({"role": "assistant", "content": text})
            for call in message["tool_calls"]:
                name, arguments = call["function"]["name"], arguments_text(call)
                items.append(
                    {"type": "function_call", "call_id": call["id"], "name": name, "arguments": arguments}
                )
        elif role in ("system", "developer", "user", "assistant"):
            items.append({"role": role, "content": text})
        else:
            raise _unknown_role(role, "the Responses API")
    request: dict[str, Any] = {} if instructions is None else {"instructions": instructions}
    request["input"] = items
    if tools:
        request["tools"] = [tool_to_responses(t) for t in tools]
    return request


# --- Anthropic Messages API: https://platform.claude.com/docs/en/api/messages ------------------------
# `system` is a top-level string, so only a leading system message can be translated. Tool results travel
# in a user turn, as tool_result blocks.


def to_anthropic(messages: list[Message], tools: list[ToolDefinition] | None = None) -> dict[str, Any]:
    """Chat Completions messages (+ tools) -> an Anthropic request body: system, messages, tools"""
    system, rest = _split_system([as_dict(m) for m in messages])
    turns: list[dict[str, Any]] = []
    for position, message in enumerate(rest, start=1 if system is not None else 0):
        role = message.get("role")
        if role == "tool":
            append_turn(turns, "user", [tool_result_block(message)])
        elif role == "user":
            append_turn(turns, "user", [{"type": "text", "text": text_of(message.get("content"))}])
        elif role == "assistant":
            append_turn(turns, "assistant", assistant_blocks(message))
        elif role == "system":
            raise ValueError(
                f"message {position} is a system message, but Anthropic takes one system prompt, "
                "as the top-level `system` field: keep a single system message at the start"
            )
        else:
            raise _unknown_role(role, "Anthropic Messages")
    request: dict[str, Any] = {} if system is None else {"system": system}
    request["messages"] = tidy(turns)
    if tools:
        request["tools"] = [tool_to_anthropic(t) for t in tools]
    return request


def from_anthropic(request: dict[str, Any] | list[dict[str, Any]]) -> list[Message]:
    """an Anthropic request body (or its messages list) -> Chat Completions messages"""
    if isinstance(request, list):
        request = {"messages": request}
    messages: list[Message] = []
    if request.get("system"):
        messages.append({"role": "system", "content": text_of(request["system"])})
    for turn in request["messages"]:
        blocks = blocks_of(turn)
        if turn["role"] == "assistant":
            texts = [b["text"] for b in blocks if b["type"] == "text"]
            message: Message = {"role": "assistant", "content": "".join(texts) if texts else None}
            calls = [
                chat_tool_call(b["id"], b["name"], as_text(b["input"]))
                for b in blocks
                if b["type"] == "tool_use"
            ]
            if calls:
                message["tool_calls"] = calls
            messages.append(message)
            continue
        for block in blocks:  # a user turn: tool results become tool messages, text user messages
            if block["type"] == "tool_result":
                tool_call_id = block["tool_use_id"]
                messages.append(
                    {"role": "tool", "tool_call_id": tool_call_id, "content": tool_result_text(block)}
                )
            else:
                messages.append({"role": "user", "content": block["text"]})
    return messages


# --- Ollama native /api/chat: https://docs.ollama.com/capabilities/tool-calling -----------------------
# Arguments are an object and calls have no id: a result is paired with its call by order and tool name.


def to_ollama(messages: list[Message], tools: list[ToolDefinition] | None = None) -> dict[str, Any]:
    """Chat Completions messages (+ tools) -> an Ollama /api/chat request body: messages, tools"""
    ollama_messages: list[dict[str, Any]] = []
    results = ResultsInCallOrder()
    for message in map(as_dict, messages):
        role = message.get("role")
        if role == "tool":
            results.answer(message)
            continue
        ollama_messages += results.flush()
        if role == "assistant":
            results.made(message)
            ollama_messages.append(ollama_assistant(message))
        elif role in ("system", "user"):
            ollama_messages.append({"role": role, "content": text_of(message.get("content"))})
        else:
            raise _unknown_role(role, "Ollama")
    request: dict[str, Any] = {"messages": ollama_messages + results.flush()}
    if tools:
        request["tools"] = [tool_to_ollama(t) for t in tools]
    return request


def from_ollama(request: dict[str, Any] | list[dict[str, Any]]) -> list[Message]:
    """an Ollama /api/chat request body (or its messages list) -> Chat Completions messages"""
    if isinstance(request, list):
        request = {"messages": request}
    messages: list[Message] = []
    ids = CallIds()
    for message in request["messages"]:
        role = message.get("role")
        if role == "assistant" and message.get("tool_calls"):
            calls = [ids.call(call) for call in message["tool_calls"]]
            messages.append(
                {"role": "assistant", "content": message.get("content") or None, "tool_calls": calls}
            )
        elif role == "tool":
            call_id = ids.answered(message.get("tool_name"))
            messages.append({"role": "tool", "tool_call_id": call_id, "content": message.get("content", "")})
        elif role in ("system", "user", "assistant"):
            messages.append({"role": role, "content": message.get("content", "")})
        else:
            raise _unknown_role(role, "Chat Completions")
    return messages


# --- what every translation shares -------------------------------------------------------------------


def _split_system(messages: list[Message]) -> tuple[str | None, list[Message]]:
    """a leading system message becomes the format's own system field; the rest stay messages"""
    if messages and messages[0].get("role") == "system":
        return text_of(messages[0].get("content")), messages[1:]
    return None, messages


def _unknown_role(role: Any, where: str) -> ValueError:
    """the error for a message whose role the target format has no place for"""
    return ValueError(
        f"cannot translate a message with role {role!r} to {where}; "
        "expected one of system, user, assistant, tool"
    )
