"""Ollama's tool calls: arguments as an object, and no ids, so results are paired by order (lesson 09)."""

from __future__ import annotations

from typing import Any

from .._messages import chat_tool_call, text_of
from ._arguments import arguments_text, as_object, as_text

__all__ = ["ollama_assistant", "ResultsInCallOrder", "CallIds"]

# Shapes from https://docs.ollama.com/capabilities/tool-calling (tool results as role "tool" with
# `tool_name`, parallel results in call order) and https://github.com/ollama/ollama/blob/main/docs/api.md
# ("Chat request (with tools)": arguments are an object, tool calls have no id, done_reason "stop").


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
