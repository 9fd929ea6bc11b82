"""Messages several lessons share: a failed tool's prefix (lesson 03), Responses input read as Chat messages
(00, 09)."""

from __future__ import annotations

from typing import Any

import pydantic

__all__ = ["ERROR_PREFIX", "from_responses", "as_dict", "text_of", "chat_tool_call"]

Message = dict[str, Any]

# The course's convention for a failed tool: its observation text starts with this prefix.
ERROR_PREFIX = "ERROR: "


def as_dict(item: Any) -> dict[str, Any]:
    """an SDK object (ChatCompletionMessage, ChatCompletion...) or a dict -> a plain dict"""
    if isinstance(item, pydantic.BaseModel):
        return item.model_dump(exclude_none=True)
    if isinstance(item, dict):
        return item
    raise TypeError(f"expected a dict (or an openai SDK object), not {type(item).__name__}: {item!r}")


def text_of(content: Any) -> str:
    """message content (None, a string, or a list of text parts/blocks) -> one string"""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    texts = []
    for part in content:
        if part.get("type") not in ("text", "input_text", "output_text"):
            raise ValueError(
                f"formats.py translates text content only, and found a {part.get('type')!r} part; "
                "describe the image/file in text or send it with the provider's own SDK"
            )
        texts.append(part["text"])
    return "\n".join(texts)


def chat_tool_call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    """a Chat Completions tool call"""
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def from_responses(request: dict[str, Any] | list[dict[str, Any]]) -> list[Message]:
    """a Responses request body (or its input list) -> Chat Completions messages"""
    if isinstance(request, list):
        request = {"input": request}
    items = request.get("input", [])
    if isinstance(items, str):
        items = [{"role": "user", "content": items}]
    messages: list[Message] = []
    if request.get("instructions"):
        messages.append({"role": "system", "content": request["instructions"]})
    for item in map(as_dict, items):
        kind = item.get("type", "message")
        if kind == "message":
            messages.append({"role": item["role"], "content": text_of(item.get("content"))})
        elif kind == "function_call":
            call = chat_tool_call(item["call_id"], item["name"], item["arguments"])
            previous = messages[-1] if messages else None
            if previous is not None and previous["role"] == "assistant":
                previous.setdefault("tool_calls", []).append(call)  # parallel calls, or text + calls
            else:
                messages.append({"role": "assistant", "content": "", "tool_calls": [call]})
        elif kind == "function_call_output":
            messages.append(
                {"role": "tool", "tool_call_id": item["call_id"], "content": text_of(item["output"])}
            )
        elif kind == "reasoning":
            continue  # a reasoning model's private notes: Chat Completions has no place for them
        else:
            raise ValueError(f"cannot translate a Responses item of type {kind!r} to Chat Completions")
    return messages
