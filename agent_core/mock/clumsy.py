"""Clumsy: a mock model that makes one mistake in a tool call, then reads the error and fixes it
(lesson 03)."""

from __future__ import annotations

import json
from typing import Any

from .policy import Policy, ReplyLike, ToolCall

__all__ = ["Clumsy", "MISTAKES"]

# unknown_tool: calls `wrong_name` instead of the tool's name
# invalid_json: sends the arguments with the closing brace missing, as a cut-off reply would
# wrong_type: writes the first number argument as a word ("four")
# missing_argument: leaves out the last argument
MISTAKES = ("unknown_tool", "invalid_json", "wrong_type", "missing_argument")
_NUMBER_WORDS = "zero one two three four five six seven eight nine ten eleven twelve".split()


class Clumsy(Policy):
    """asks for `call` with one mistake in it; fixes the call only if the error it reads says how

    The mistaken call goes out first. When its result is an error (text starting with "error",
    in any case), the model looks for what it needs in that text: the right tool's name
    (unknown_tool), the word JSON (invalid_json), or the quoted name of the wrong or missing
    argument (wrong_type, missing_argument). Found: it sends the correct call. Not found, or the
    correct call failed too: it answers in text, quoting the error. A result that is not an
    error is taken at its word: the answer is `answer` with "{result}" replaced by it.
    """

    def __init__(
        self,
        call: ToolCall,
        mistake: str,
        *,
        wrong_name: str | None = None,
        answer: str = "The result is {result}.",
    ):
        if mistake not in MISTAKES:
            raise ValueError(f"unknown mistake {mistake!r}; choose one of {', '.join(MISTAKES)}")
        if not isinstance(call.arguments, dict):
            raise ValueError("give the correct call's arguments as a dict, e.g. mock.call('add', a=4, b=2)")
        if mistake == "unknown_tool" and not wrong_name:
            raise ValueError("unknown_tool needs wrong_name=...: the tool name the model tries first")
        self.call = call
        self.mistake = mistake
        self.answer = answer
        self.wrong_call, self.clue = _make_mistake(call, mistake, wrong_name)

    def reply(self, request: dict[str, Any]) -> ReplyLike:
        asked, result = _latest_call_and_result(request.get("messages") or [])
        if asked is None or result is None:  # a result always comes with its call
            return self.wrong_call
        if not result.strip().lower().startswith("error"):
            return self.answer.replace("{result}", result)
        if asked == self.wrong_call and self.clue in result:
            return self.call
        return f"I could not do it: my call to {asked.name!r} failed with this error: {result}"


def _make_mistake(call: ToolCall, mistake: str, wrong_name: str | None) -> tuple[ToolCall, str]:
    """the mistaken call, and the text an error must contain for the model to know the fix"""
    assert isinstance(call.arguments, dict)  # Clumsy() checked it
    arguments = dict(call.arguments)
    if mistake == "unknown_tool":
        assert wrong_name  # Clumsy() checked it
        return ToolCall(wrong_name, arguments), call.name
    if mistake == "invalid_json":
        return ToolCall(call.name, json.dumps(arguments, ensure_ascii=False)[:-1]), "JSON"
    if mistake == "wrong_type":
        numbers = [k for k, v in arguments.items() if isinstance(v, (int, float)) and not isinstance(v, bool)]
        if not numbers:
            raise ValueError("wrong_type writes a number as a word: the call needs a number argument")
        name, value = numbers[0], arguments[numbers[0]]
        is_small = isinstance(value, int) and 0 <= value < len(_NUMBER_WORDS)
        arguments[name] = _NUMBER_WORDS[value] if is_small else str(value)
        return ToolCall(call.name, arguments), f"'{name}'"
    if not arguments:
        raise ValueError("missing_argument leaves one out: the call needs at least one argument")
    name = list(arguments)[-1]
    del arguments[name]
    return ToolCall(call.name, arguments), f"'{name}'"


def _latest_call_and_result(messages: list[dict[str, Any]]) -> tuple[ToolCall | None, str | None]:
    """the latest tool call since the last user message, and the text of its result (or None)"""
    for position in range(len(messages) - 1, -1, -1):
        message = messages[position]
        if message.get("role") == "user":
            return None, None
        if message.get("role") == "assistant" and message.get("tool_calls"):
            first = message["tool_calls"][0]
            function = first.get("function") or {}
            asked = ToolCall(function.get("name", ""), _arguments(function.get("arguments")))
            results = [
                m.get("content")
                for m in messages[position + 1 :]
                if m.get("role") == "tool" and m.get("tool_call_id") == first.get("id")
            ]
            return asked, (_text(results[0]) if results else None)
    return None, None


def _arguments(raw: Any) -> dict[str, Any] | str:
    """what the model sent, as it would compare to its own ToolCall: parsed if it parses"""
    if not isinstance(raw, str):
        return raw or {}
    try:
        parsed = json.loads(raw)
    except ValueError:
        return raw
    return parsed if isinstance(parsed, dict) else raw


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return content or ""
