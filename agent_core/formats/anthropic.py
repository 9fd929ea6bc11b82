"""Anthropic's content blocks: text, tool_use, tool_result with is_error; turns that alternate (lesson 09)."""

from __future__ import annotations

from typing import Any

from .._messages import ERROR_PREFIX, as_dict, text_of
from ._arguments import arguments_text, as_object

__all__ = ["assistant_blocks", "tool_result_block", "tool_result_text", "append_turn", "tidy", "blocks_of"]

# Shapes from https://platform.claude.com/docs/en/agents-and-tools/tool-use/handle-tool-calls
# (tool_use / tool_result blocks, is_error, results first in the user message) and
# https://platform.claude.com/docs/en/agents-and-tools/tool-use/parallel-tool-use (every result of
# one turn in ONE user message).

Block = dict[str, Any]


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
    """a Chat Completions tool message -> a tool_result block; the course's "ERROR: " becomes is_error"""
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
