"""Ollama's native /api/chat (lesson 09): arguments as an object, and tool calls without ids, so a result
is paired with its call by ORDER (and tool name): results go back in the order of their calls, and ids
are made up on the way back.

https://docs.ollama.com/capabilities/tool-calling (tool results as role "tool" with `tool_name`,
parallel results in call order) and https://github.com/ollama/ollama/blob/main/docs/api.md ("Chat
request (with tools)": arguments are an object, tool calls have no id, done_reason "stop").
"""

from __future__ import annotations

import copy
from datetime import UTC, datetime
from typing import Any

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
    text_of,
    unknown_role,
    with_tools,
)

__all__ = ["to_ollama", "from_ollama", "tool_to_ollama", "tool_from_ollama", "completion_to_ollama"]
__all__ += ["ollama_assistant", "ResultsInCallOrder", "CallIds"]

ToolDefinition = dict[str, Any]


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
            raise unknown_role(role, "Ollama")
    request: dict[str, Any] = {"messages": ollama_messages + results.flush()}
    return with_tools(request, tools, tool_to_ollama)


def from_ollama(request: dict[str, Any] | list[dict[str, Any]]) -> list[Message]:
    """an Ollama /api/chat request body (or its messages list) -> Chat Completions messages"""
    request = request_body(request, "messages")
    messages: list[Message] = []
    ids = CallIds()
    for message in request["messages"]:
        role = message.get("role")
        if role == "assistant" and message.get("tool_calls"):
            calls = [ids.call(call) for call in message["tool_calls"]]
            messages.append(
                {"role": "assistant", "content": message.get("content") or "", "tool_calls": calls}
            )
        elif role == "tool":
            call_id = ids.answered(message.get("tool_name"))
            messages.append({"role": "tool", "tool_call_id": call_id, "content": message.get("content", "")})
        elif role in ("system", "user", "assistant"):
            messages.append({"role": role, "content": message.get("content", "")})
        else:
            raise unknown_role(role, "Chat Completions")
    return messages


# --- no ids: results paired with calls by order -------------------------------------------


def ollama_assistant(message: dict[str, Any]) -> dict[str, Any]:
    """a Chat Completions assistant message -> Ollama's: the same text, calls without ids"""
    ollama_message: dict[str, Any] = {"role": "assistant", "content": text_of(message.get("content"))}
    if message.get("tool_calls"):
        ollama_message["tool_calls"] = [
            {"function": {"name": call["function"]["name"], "arguments": as_object(arguments_text(call))}}
            for call in message["tool_calls"]
        ]
    return ollama_message


class ResultsInCallOrder:
    """Chat Completions -> Ollama: without ids, results are paired by order, so they go in the calls' order"""

    def __init__(self) -> None:
        self.calls: dict[str, tuple[int, str]] = {}  # call id -> (its place in the conversation, tool name)
        self.pending: list[tuple[int, dict[str, Any]]] = []

    def made(self, message: dict[str, Any]) -> None:
        """note the calls of an assistant message"""
        for call in message.get("tool_calls") or []:
            self.calls[call["id"]] = (len(self.calls), call["function"]["name"])

    def answer(self, message: dict[str, Any]) -> None:
        """hold a tool message until the next non-tool message"""
        call_id = message.get("tool_call_id")
        if call_id not in self.calls:
            raise ValueError(
                f"a tool message answers call {call_id!r}, but no earlier assistant message made "
                "that call; every tool message needs the tool_call_id of a call before it"
            )
        place, name = self.calls[call_id]
        self.pending.append(
            (place, {"role": "tool", "tool_name": name, "content": text_of(message.get("content"))})
        )

    def flush(self) -> list[dict[str, Any]]:
        """the results held so far, in the order their calls were made"""
        results = [result for _, result in sorted(self.pending, key=lambda r: r[0])]
        self.pending.clear()
        return results


class CallIds:
    """Ollama -> Chat Completions: calls numbered call_0, call_1... through the conversation; each tool
    message answers the oldest unanswered call of its tool_name"""

    def __init__(self) -> None:
        self.unanswered: list[tuple[str, str]] = []  # (call id, tool name), oldest first
        self.count = 0

    def call(self, ollama_call: dict[str, Any]) -> dict[str, Any]:
        """an Ollama tool call -> a Chat Completions one, with a new id"""
        call_id, name = f"call_{self.count}", ollama_call["function"]["name"]
        self.count += 1
        self.unanswered.append((call_id, name))
        return chat_tool_call(call_id, name, as_text(ollama_call["function"].get("arguments", {})))

    def answered(self, name: str | None) -> str:
        """the id of the call a tool message (of that tool_name) answers"""
        match = next((c for c in self.unanswered if name is None or c[1] == name), None)
        if match is None:
            raise ValueError(
                f"a tool message (tool_name={name!r}) answers no earlier unanswered call; "
                "Ollama pairs results with calls by order and name"
            )
        self.unanswered.remove(match)
        return match[0]


# --- tools and responses -------------------------------------------------------------------


def tool_to_ollama(tool: ToolDefinition) -> ToolDefinition:
    """Chat Completions tool -> Ollama tool: the same shape (Ollama does not use `strict`)"""
    function_of(tool)
    return copy.deepcopy(as_dict(tool))


def tool_from_ollama(tool: ToolDefinition) -> ToolDefinition:
    """Ollama tool -> Chat Completions tool: the same shape"""
    return copy.deepcopy(tool)


def completion_to_ollama(completion: Any) -> dict[str, Any]:
    """a Chat Completions response -> the Ollama /api/chat response (stream: false) that says the same"""
    completion, message, finish_reason = first_choice(completion)
    created = datetime.fromtimestamp(completion.get("created", 0), tz=UTC)
    response: dict[str, Any] = {
        "model": completion.get("model"),
        "created_at": created.isoformat().replace("+00:00", "Z"),
        "message": ollama_assistant(message),
        "done": True,
        # Ollama says "stop" after tool calls too: the presence of tool_calls is the signal.
        "done_reason": "length" if finish_reason == "length" else "stop",
    }
    if usage := completion.get("usage"):
        response["prompt_eval_count"] = usage["prompt_tokens"]
        response["eval_count"] = usage["completion_tokens"]
    return response
