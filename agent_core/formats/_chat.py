"""lesson 09: what every translation shares: messages as plain dicts, their text, a Chat Completions
tool call and its arguments (as JSON text or as an object), the leading system message, the error for a
role a format has no place for."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pydantic

__all__ = ["Message", "as_dict", "text_of", "chat_tool_call", "function_of", "first_choice"]
__all__ += ["UNPARSED_ARGUMENTS", "arguments_text", "as_object", "as_text", "split_system", "unknown_role"]
__all__ += ["request_body", "with_tools"]

Message = dict[str, Any]


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
                f"formats translates text content only, and found a {part.get('type')!r} part; "
                "describe the image/file in text or send it with the provider's own SDK"
            )
        texts.append(part["text"])
    return "\n".join(texts)


def chat_tool_call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    """a Chat Completions tool call"""
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def function_of(tool: dict[str, Any]) -> dict[str, Any]:
    """the "function" of a Chat Completions tool, or a clear error for anything else"""
    tool = as_dict(tool)
    if tool.get("type") != "function" or "function" not in tool:
        raise ValueError(
            'expected a Chat Completions tool {"type": "function", "function": {"name": ...}}, '
            f"got {tool!r}"
        )
    function: dict[str, Any] = tool["function"]
    return function


def first_choice(completion: Any) -> tuple[dict[str, Any], dict[str, Any], str]:
    """a Chat Completions response -> (the response dict, its first message, its finish_reason)"""
    completion = as_dict(completion)
    choice = completion["choices"][0]
    return completion, as_dict(choice["message"]), choice.get("finish_reason") or "stop"


# Anthropic and Ollama want tool arguments as a JSON object. Arguments that are not one
# (a model can send broken JSON) travel as {UNPARSED_ARGUMENTS: "<the raw text>"} and come back as that text.
UNPARSED_ARGUMENTS = "_unparsed_arguments"


def arguments_text(call: dict[str, Any]) -> str:
    """the JSON-string arguments of a Chat Completions tool call"""
    arguments = call["function"].get("arguments", "{}")
    return arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)


def as_object(arguments: str) -> dict[str, Any]:
    """JSON-string arguments -> the object Anthropic and Ollama want (broken JSON is kept, wrapped)"""
    if not arguments.strip():
        return {}
    try:
        value = json.loads(arguments)
    except json.JSONDecodeError:
        return {UNPARSED_ARGUMENTS: arguments}
    return value if isinstance(value, dict) else {UNPARSED_ARGUMENTS: arguments}


def as_text(arguments: Any) -> str:
    """an arguments object -> the JSON string Chat Completions wants"""
    if isinstance(arguments, dict) and set(arguments) == {UNPARSED_ARGUMENTS}:
        return str(arguments[UNPARSED_ARGUMENTS])
    return json.dumps(arguments, ensure_ascii=False)


def request_body(request: dict[str, Any] | list[dict[str, Any]], key: str) -> dict[str, Any]:
    """a request body, or only the list it holds under `key` (its messages, its input) -> the body"""
    return {key: request} if isinstance(request, list) else request


def with_tools(
    request: dict[str, Any], tools: list[dict[str, Any]] | None, translate: Callable[[dict[str, Any]], Any]
) -> dict[str, Any]:
    """the request, with the Chat Completions `tools` translated one by one when there are any"""
    if tools:
        request["tools"] = [translate(tool) for tool in tools]
    return request


def split_system(messages: list[Message]) -> tuple[str | None, list[Message]]:
    """a leading system message becomes the format's own system field; the rest stay messages"""
    if messages and messages[0].get("role") == "system":
        return text_of(messages[0].get("content")), messages[1:]
    return None, messages


def unknown_role(role: Any, where: str) -> ValueError:
    """the error for a message whose role the target format has no place for"""
    return ValueError(
        f"cannot translate a message with role {role!r} to {where}; "
        "expected one of system, user, assistant, tool"
    )
