"""lesson 00: what a message or a turn says, whichever way render draws it (as text or as HTML): its
lines, its summaries, its colours."""

from __future__ import annotations

import json as jsonlib
from typing import Any
from urllib.parse import urlsplit

import pydantic

from ..trace import Trace

__all__ = [
    "COLORS",
    "plain",
    "as_messages",
    "clip",
    "describe",
    "colors",
    "count",
    "request_summary",
    "usage_summary",
    "error_summary",
    "turn_title",
    "totals",
]

# role (or "error", "new") -> (notebook colour, terminal colour). The notebook colours are mid-tones
# that read on light and dark themes; the terminal's 16 standard colours have no orange.
COLORS = {
    "system": ("#8a8a8a", "bright_black"),
    "developer": ("#8a8a8a", "bright_black"),
    "user": ("#3b82f6", "blue"),
    "assistant": ("#22a35a", "green"),
    "tool": ("#e8871e", "yellow"),
    "error": ("#e5484d", "red"),
    "new": ("#8b5cf6", "magenta"),
}

MAX_TEXT = 1000  # longer message texts are clipped in the summaries (the JSON always has it all)
# longer message texts are clipped in the summaries (the JSON always has it all)


def plain(obj: Any) -> Any:
    """SDK objects become the dicts they stand for (as sent on the wire); the rest is kept"""
    if isinstance(obj, pydantic.BaseModel):
        return obj.model_dump(mode="json", exclude_unset=True)
    if isinstance(obj, dict):
        return {key: plain(value) for key, value in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [plain(value) for value in obj]
    return obj


def as_messages(messages: Any) -> list[dict[str, Any]]:
    messages = plain(messages)
    if isinstance(messages, dict):
        messages = [messages]  # one message on its own
    if not isinstance(messages, list):
        raise TypeError(f"expected a list of messages, got {type(messages).__name__}")
    return messages


def clip(text: str) -> str:
    if len(text) <= MAX_TEXT:
        return text
    return f"{text[:MAX_TEXT]} … ({len(text) - MAX_TEXT} more characters)"


def _content_text(content: Any) -> str | None:
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            part.get("text", "") if part.get("type") == "text" else f"[{part.get('type')} part]"
            for part in content
        )
    return jsonlib.dumps(content, ensure_ascii=False)


def describe(message: dict[str, Any]) -> list[list[tuple[str, str]]]:
    """a message as lines of (kind, text) pieces; kind is "text", "call" or "dim" """
    lines = []
    text = _content_text(message.get("content"))
    if text:
        lines.append([("text", clip(text))])
    if message.get("refusal"):
        lines.append([("dim", "refusal: "), ("text", message["refusal"])])
    for call in message.get("tool_calls") or []:
        function = call.get("function") or {}
        name, arguments = function.get("name"), function.get("arguments", "")
        lines.append([("call", f"→ {name}({clip(arguments)})"), ("dim", f"  id {call.get('id')}")])
    if message.get("tool_call_id"):
        lines.append([("dim", f"result for {message['tool_call_id']}")])
    return lines or [[("dim", "(empty)")]]


def colors(kind: str) -> tuple[str, str]:
    return COLORS.get(kind, COLORS["system"])


def count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def request_summary(request: Any) -> str:
    request = request if isinstance(request, dict) else {}
    names = [(t.get("function") or t).get("name") for t in request.get("tools") or []]
    tools = "tools: " + ", ".join(map(str, names)) if names else "no tools"
    if "input" in request and "messages" not in request:  # the Responses API
        items = request["input"]
        items = count(1 if isinstance(items, str) else len(items or []), "input item")
        previous = (
            f" · after {request['previous_response_id']}" if request.get("previous_response_id") else ""
        )
        return f"model {request.get('model')} · Responses API · {items}{previous} · {tools}"
    if "messages" not in request:
        return f"model {request.get('model')} · not a Chat Completions request (see the JSON)"
    return f"model {request.get('model')} · {count(len(request['messages']), 'message')} · {tools}"


def usage_summary(turn: Any) -> str:
    parts = [f"finish_reason {turn.finish_reason}"] if turn.finish_reason else []
    usage = turn.usage or {}
    if isinstance(turn.response, dict) and turn.response.get("object") == "response":
        parts.append(f"status {turn.response.get('status')}")
        if usage:
            parts.append(
                f"tokens input {usage.get('input_tokens')} · output "
                f"{usage.get('output_tokens')} · total {usage.get('total_tokens')}"
            )
    elif usage:
        parts.append(
            f"tokens prompt {usage.get('prompt_tokens')} · completion "
            f"{usage.get('completion_tokens')} · total {usage.get('total_tokens')}"
        )
    return " · ".join(parts)


def error_summary(turn: Any) -> str | None:
    error = turn.error
    if isinstance(error, dict):
        return f"HTTP {turn.status} {error.get('type') or 'error'}: {error.get('message')}"
    if turn.status >= 400 or error is not None:
        return f"HTTP {turn.status}: {clip(str(error or turn.response))}"
    return None


def turn_title(trace: Trace, position: int, timings: bool) -> str:
    turn = trace[position]
    parts = [f"Turn {position + 1} of {len(trace)}", f"trace[{position}]"]
    parts += [f"{turn.method} {urlsplit(turn.url).path}", f"HTTP {turn.status}"]
    if turn.stream:
        parts.append("streamed")
    if timings:
        parts.append(f"{turn.elapsed_ms:.1f} ms")
    return " · ".join(parts)


def totals(trace: Trace) -> str:
    usage = trace.total_usage()
    refused = sum(1 for turn in trace if error_summary(turn))
    text = (
        f"{count(len(trace), 'turn')} · tokens prompt {usage['prompt_tokens']} · completion "
        f"{usage['completion_tokens']} · total {usage['total_tokens']}"
    )
    return text + (f" · {refused} refused" if refused else "")
