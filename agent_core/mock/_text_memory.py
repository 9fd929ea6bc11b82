"""lesson 08: a framework's memory written as text (smolagents' "Calling tools:" and "Observation:")
read back as the tool calls and tool messages a policy reads."""

from __future__ import annotations

import ast
import json
from typing import Any

from ..tokens import content_text

__all__ = ["with_tool_messages"]


def with_tool_messages(request: dict[str, Any]) -> dict[str, Any]:
    """the request with tool calls and results written out as text turned back into messages

    Some frameworks keep their memory as text: smolagents sends each call as an assistant message
    "Calling tools:\n[{'id': ..., 'function': {'name': ..., 'arguments': {...}}}]" and its result as
    a user message "Observation:\n...". Read that way, a reactive policy sees the tool_calls and
    tool messages it would see from any other client.
    """
    messages: list[dict[str, Any]] = []
    changed = False
    for message in request.get("messages", []):
        text = content_text(message.get("content"))
        tool_calls = _calls_written(text) if message.get("role") == "assistant" else None
        if tool_calls is not None:
            messages.append({"role": "assistant", "content": None, "tool_calls": tool_calls})
            changed = True
            continue
        pending = messages[-1].get("tool_calls") if messages and messages[-1]["role"] == "assistant" else None
        if message.get("role") == "user" and text.startswith("Observation:\n") and pending:
            results = text.removeprefix("Observation:\n")
            lines = results.split("\n") if len(pending) > 1 else [results]
            if len(lines) != len(pending):
                lines = [results] + [""] * (len(pending) - 1)
            messages.extend(
                {"role": "tool", "tool_call_id": c["id"], "content": line}
                for c, line in zip(pending, lines, strict=True)
            )
            changed = True
            continue
        messages.append(message)
    return {**request, "messages": messages} if changed else request


def _calls_written(text: str) -> list[dict[str, Any]] | None:
    """the tool calls an assistant message writes out as "Calling tools:\n[...]", or None"""
    if not text.startswith("Calling tools:\n"):
        return None
    written = _literal(text.removeprefix("Calling tools:\n"))
    if not (isinstance(written, list) and all(isinstance(c, dict) and "function" in c for c in written)):
        return None
    return [
        {
            "id": str(c.get("id")),
            "type": "function",
            "function": {
                "name": c["function"].get("name"),
                "arguments": json.dumps(c["function"].get("arguments") or {}),
            },
        }
        for c in written
    ]


def _literal(text: str) -> Any:
    try:
        return ast.literal_eval(text.strip())
    except (ValueError, SyntaxError):
        return None
