"""OpenAI's Responses API (lesson 09): the instructions apart, the conversation as typed input items,
a call and its result as two items paired by call_id, tool definitions one level flatter.

https://platform.openai.com/docs/api-reference/responses. A leading system message becomes `instructions`;
a later one stays an input item with role "system". Lesson 00's trace reads a Responses turn with
`responses_messages` and `responses_reply`.
"""

from __future__ import annotations

from typing import Any

from ._chat import (
    Message,
    arguments_text,
    as_dict,
    chat_tool_call,
    first_choice,
    function_of,
    request_body,
    split_system,
    text_of,
    unknown_role,
    with_tools,
)

__all__ = ["to_responses", "from_responses", "tool_to_responses", "tool_from_responses"]
__all__ += ["completion_to_responses", "responses_messages", "responses_reply"]

ToolDefinition = dict[str, Any]

_RESPONSES_STATUS: dict[str, tuple[str, dict[str, str] | None]] = {
    "stop": ("completed", None),
    "tool_calls": ("completed", None),
    "length": ("incomplete", {"reason": "max_output_tokens"}),
    "content_filter": ("incomplete", {"reason": "content_filter"}),
}


def to_responses(messages: list[Message], tools: list[ToolDefinition] | None = None) -> dict[str, Any]:
    """Chat Completions messages (+ tools) -> a Responses request body: instructions, input items, tools"""
    instructions, rest = split_system([as_dict(m) for m in messages])
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
            raise unknown_role(role, "the Responses API")
    request: dict[str, Any] = {} if instructions is None else {"instructions": instructions}
    request["input"] = items
    return with_tools(request, tools, tool_to_responses)


def from_responses(request: dict[str, Any] | list[dict[str, Any]]) -> list[Message]:
    """a Responses request body (or its input list) -> Chat Completions messages"""
    request = request_body(request, "input")
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


def tool_to_responses(tool: ToolDefinition) -> ToolDefinition:
    """Chat Completions tool -> Responses tool: the same fields, one level up"""
    function = function_of(tool)
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


def completion_to_responses(completion: Any) -> dict[str, Any]:
    """a Chat Completions response -> the Responses API response that says the same thing"""
    completion, message, finish_reason = first_choice(completion)
    if finish_reason not in _RESPONSES_STATUS:
        raise ValueError(f"no Responses status for finish_reason {finish_reason!r}")
    status, incomplete_details = _RESPONSES_STATUS[finish_reason]
    response: dict[str, Any] = {
        "id": f"resp_{completion['id']}",
        "object": "response",
        "created_at": completion.get("created"),
        "model": completion.get("model"),
        "status": status,
        "incomplete_details": incomplete_details,
        "output": _responses_output(completion["id"], message),
    }
    if usage := completion.get("usage"):
        response["usage"] = {
            "input_tokens": usage["prompt_tokens"],
            "output_tokens": usage["completion_tokens"],
            "total_tokens": usage["total_tokens"],
        }
    return response


def _responses_output(completion_id: str, message: dict[str, Any]) -> list[dict[str, Any]]:
    """an assistant message -> Responses output items: a message with its text, a function_call per call"""
    output: list[dict[str, Any]] = []
    if text_of(message.get("content")):
        output.append(
            {
                "type": "message",
                "id": f"msg_{completion_id}",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": text_of(message["content"]), "annotations": []}],
            }
        )
    for call in message.get("tool_calls") or []:
        output.append(
            {
                "type": "function_call",
                "id": f"fc_{call['id']}",  # Responses gives every item an id of its own
                "call_id": call["id"],
                "name": call["function"]["name"],
                "arguments": arguments_text(call),
                "status": "completed",
            }
        )
    return output


def responses_messages(request: dict[str, Any]) -> list[dict[str, Any]]:
    """a request's `instructions` and `input` items as the Chat Completions messages that say the same
    (only the new items, after previous_response_id); [] when they are not items formats can read"""
    try:
        return from_responses(request)
    except (KeyError, TypeError, ValueError, AttributeError):
        return []


def responses_reply(response: dict[str, Any]) -> dict[str, Any] | None:
    """a response's output as one assistant message; None when it is not one"""
    replies = responses_messages({"input": response.get("output") or []})
    return replies[0] if len(replies) == 1 else None
