"""Reading tool calls out of a response, and writing the messages that answer them (lesson 02)."""

from __future__ import annotations

import json
from typing import Any

import openai
from openai.types.chat import ChatCompletion, ChatCompletionMessage

from .trace import escaped

__all__ = [
    "wants_tools",
    "tool_calls_of",
    "parse_arguments",
    "assistant_message",
    "tool_message",
    "sendable_message",
    "unanswered_calls",
]


def _message_of(response_or_message: Any) -> Any:
    """the assistant message inside a ChatCompletion (or the message itself), dict or SDK object"""
    if isinstance(response_or_message, openai.Stream | openai.AsyncStream):
        raise TypeError(
            "this is a stream (the call was made with stream=True), not a ChatCompletion: read its "
            "chunks until the end, or call without stream=True to get the whole reply at once"
        )
    if isinstance(response_or_message, ChatCompletion):
        return response_or_message.choices[0].message if response_or_message.choices else {}
    if isinstance(response_or_message, dict) and "choices" in response_or_message:
        choices = response_or_message["choices"]
        return choices[0]["message"] if choices else {}
    if isinstance(response_or_message, ChatCompletionMessage | dict):
        return response_or_message
    raise TypeError(
        "expected a ChatCompletion or its message (an openai SDK object or a dict), "
        f"not {type(response_or_message).__name__}"
    )


def _attribute_or_key(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


def wants_tools(response: Any) -> bool:
    """True when the model asked for at least one tool call instead of only answering"""
    return bool(tool_calls_of(response))


def tool_calls_of(response_or_message: Any) -> list[dict[str, Any]]:
    """the tool calls of a reply, as plain dicts {"id", "type", "function": {"name", "arguments"}}"""
    calls = _attribute_or_key(_message_of(response_or_message), "tool_calls") or []
    plain = []
    for call in calls:
        function = _attribute_or_key(call, "function")
        plain.append(
            {
                "id": _attribute_or_key(call, "id"),
                "type": "function",
                "function": {
                    "name": _attribute_or_key(function, "name"),
                    "arguments": _attribute_or_key(function, "arguments"),
                },
            }
        )
    return plain


def parse_arguments(call: Any) -> dict[str, Any]:
    """the arguments of one tool call, parsed from their JSON string into a dict"""
    function = _attribute_or_key(call, "function")
    name, raw = _attribute_or_key(function, "name"), _attribute_or_key(function, "arguments")
    try:
        arguments = json.loads(raw or "{}")
    except json.JSONDecodeError as error:
        raise ValueError(f"the arguments of {name!r} are not valid JSON ({error}): {raw!r}") from None
    if not isinstance(arguments, dict):
        raise ValueError(f"the arguments of {name!r} should be a JSON object, got: {raw!r}")
    return arguments


def assistant_message(response_or_message: Any) -> dict[str, Any]:
    """the assistant message to append to the history: role, content and tool calls, nothing else

    The SDK's message object carries more fields (refusal, annotations, audio...), most of them
    None. Sending those back works with OpenAI but some OpenAI-compatible servers refuse fields
    they do not know, so we write the message out explicitly. A reply with no text (`content`
    null, as beside tool calls) goes back as "": every server accepts an empty string, while
    llama.cpp's Python server answers null, or no content at all, with HTTP 500
    (docs/real_models.md).
    """
    message = _message_of(response_or_message)
    plain: dict[str, Any] = {"role": "assistant", "content": _attribute_or_key(message, "content") or ""}
    calls = tool_calls_of(message)
    if calls:
        plain["tool_calls"] = calls
    return plain


def tool_message(call: Any, content: Any) -> dict[str, Any]:
    """the `tool` message that answers one call; non-text results are sent as JSON"""
    text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    call_id = call if isinstance(call, str) else _attribute_or_key(call, "id")
    return {"role": "tool", "tool_call_id": call_id, "content": text}


def sendable_message(message: dict[str, Any]) -> dict[str, Any]:
    """a message the next request can carry: no lone surrogates, and a call's name and arguments as
    strings (a server may send `"arguments": 5`; the API accepts only a JSON string back), and an
    assistant message's missing text as "" (as assistant_message writes it)"""
    if not isinstance(message, dict):
        return message
    sendable = {key: escaped(value) for key, value in message.items()}
    if sendable.get("role") == "assistant" and sendable.get("content") is None:
        sendable["content"] = ""
    for call in sendable.get("tool_calls") or []:
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict):
            if function.get("arguments", "") is None:
                function["arguments"] = "{}"  # no arguments
            for key in ("name", "arguments"):
                if key in function and not isinstance(function[key], str):
                    function[key] = escaped(json.dumps(function[key], ensure_ascii=False, default=repr))
    return sendable


def unanswered_calls(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """the calls of the last assistant message that no tool message answers yet: each needs an
    answer before the next model call"""
    last = max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=None)
    if last is None:
        return []
    answered = {m.get("tool_call_id") for m in messages[last + 1 :]}
    return [call for call in messages[last].get("tool_calls") or [] if call["id"] not in answered]
