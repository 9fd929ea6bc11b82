"""Anthropic's Messages API (lesson 09): the system prompt apart, content as typed blocks, turns that
alternate, every result of a turn in one user message as tool_result blocks (a failure marked is_error),
arguments as an object.

https://platform.claude.com/docs/en/api/messages. `system` is a top-level string, so only a leading
system message can be translated.
"""

from __future__ import annotations

from typing import Any

from .._shared import ERROR_PREFIX
from ._chat import (
    Message,
    arguments_text,
    as_dict,
    as_object,
    as_text,
    chat_tool_call,
    first_choice,
    function_of,
    request_body,
    split_system,
    text_of,
    unknown_role,
    with_tools,
)

__all__ = ["to_anthropic", "from_anthropic", "tool_to_anthropic", "tool_from_anthropic"]
__all__ += ["completion_to_anthropic", "to_anthropic_stop_reason", "from_anthropic_stop_reason"]
__all__ += ["assistant_blocks", "tool_result_block", "tool_result_text", "append_turn", "tidy", "blocks_of"]

# Shapes from https://platform.claude.com/docs/en/agents-and-tools/tool-use/handle-tool-calls
# (tool_use / tool_result blocks, is_error, results first in the user message) and
# https://platform.claude.com/docs/en/agents-and-tools/tool-use/parallel-tool-use (every result of
# one turn in ONE user message).

Block = dict[str, Any]
ToolDefinition = dict[str, Any]

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


def to_anthropic(messages: list[Message], tools: list[ToolDefinition] | None = None) -> dict[str, Any]:
    """Chat Completions messages (+ tools) -> an Anthropic request body: system, messages, tools"""
    system, rest = split_system([as_dict(m) for m in messages])
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
            raise unknown_role(role, "Anthropic Messages")
    request: dict[str, Any] = {} if system is None else {"system": system}
    request["messages"] = tidy(turns)
    return with_tools(request, tools, tool_to_anthropic)


def from_anthropic(request: dict[str, Any] | list[dict[str, Any]]) -> list[Message]:
    """an Anthropic request body (or its messages list) -> Chat Completions messages"""
    request = request_body(request, "messages")
    messages: list[Message] = []
    if request.get("system"):
        messages.append({"role": "system", "content": text_of(request["system"])})
    for turn in request["messages"]:
        blocks = blocks_of(turn)
        if turn["role"] == "assistant":
            texts = [b["text"] for b in blocks if b["type"] == "text"]
            message: Message = {"role": "assistant", "content": "".join(texts)}  # no text: ""
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


# --- the blocks and turns -----------------------------------------------------------------


def assistant_blocks(message: dict[str, Any]) -> list[Block]:
    """a Chat Completions assistant message -> its text block (if any), then a tool_use block per call"""
    blocks: list[Block] = []
    if text_of(message.get("content")):
        blocks.append({"type": "text", "text": text_of(message["content"])})
    for call in message.get("tool_calls") or []:
        blocks.append(
            {
                "type": "tool_use",
                "id": call["id"],
                "name": call["function"]["name"],
                "input": as_object(arguments_text(call)),
            }
        )
    return blocks


def tool_result_block(message: dict[str, Any]) -> Block:
    """a Chat Completions tool message -> a tool_result block; its text is all a message has, so the
    dispatcher's "ERROR: " becomes is_error (a loop holding the Observation sets it from is_error, as
    anthropic_loop does)"""
    text = text_of(message.get("content"))
    block: Block = {"type": "tool_result", "tool_use_id": message["tool_call_id"], "content": text}
    if text.startswith(ERROR_PREFIX):
        block["is_error"] = True
    return block


def tool_result_text(block: Block) -> str:
    """a tool_result block -> a tool message's text (Chat Completions has no is_error: the prefix says it)"""
    text = text_of(block.get("content"))
    if block.get("is_error") and not text.startswith(ERROR_PREFIX):
        text = ERROR_PREFIX + text
    return text


def append_turn(turns: list[dict[str, Any]], role: str, blocks: list[Block]) -> None:
    """Anthropic wants user and assistant to alternate: a second same-role message joins the first"""
    if turns and turns[-1]["role"] == role:
        turns[-1]["content"].extend(blocks)
    else:
        turns.append({"role": role, "content": list(blocks)})


def tidy(turns: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """tool_result blocks before any text in a user turn; a lone text block as a plain string"""
    for turn in turns:
        if turn["role"] == "user":
            turn["content"].sort(key=lambda block: block["type"] != "tool_result")
        if len(turn["content"]) == 1 and turn["content"][0]["type"] == "text":
            turn["content"] = turn["content"][0]["text"]  # reads as in Chat Completions
    return turns


def blocks_of(turn: dict[str, Any]) -> list[Block]:
    """an Anthropic turn's blocks (a string is one text block), without thinking; others are refused"""
    content = turn["content"]
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
    blocks = [b for b in map(as_dict, blocks) if b["type"] not in ("thinking", "redacted_thinking")]
    unknown = [b["type"] for b in blocks if b["type"] not in ("text", "tool_use", "tool_result")]
    if unknown:
        raise ValueError(f"cannot translate Anthropic {unknown[0]!r} blocks to Chat Completions")
    return blocks


# --- tools, responses and stop reasons -------------------------------------------------------


def tool_to_anthropic(tool: ToolDefinition) -> ToolDefinition:
    """Chat Completions tool -> Anthropic tool: `parameters` is called `input_schema`"""
    function = function_of(tool)
    anthropic_tool: ToolDefinition = {"name": function["name"]}
    if "description" in function:
        anthropic_tool["description"] = function["description"]
    anthropic_tool["input_schema"] = function.get("parameters") or {"type": "object", "properties": {}}
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


def completion_to_anthropic(completion: Any) -> dict[str, Any]:
    """a Chat Completions response -> the Anthropic Messages response that says the same thing"""
    completion, message, finish_reason = first_choice(completion)
    response: dict[str, Any] = {
        "id": completion["id"],
        "type": "message",
        "role": "assistant",
        "model": completion.get("model"),
        "content": assistant_blocks(message),
        "stop_reason": to_anthropic_stop_reason(finish_reason),
        "stop_sequence": None,
    }
    if usage := completion.get("usage"):
        response["usage"] = {
            "input_tokens": usage["prompt_tokens"],
            "output_tokens": usage["completion_tokens"],
        }
    return response


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
