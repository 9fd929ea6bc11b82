"""What the mock model says next: replies, tool calls, and the Policy interface (every lesson)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..tokens import content_text
from ._text_memory import with_tool_messages  # frameworks that keep their memory as text

__all__ = [
    "ToolCall",
    "Reply",
    "Policy",
    "PolicyLike",
    "ReplyLike",
    "Script",
    "ScriptExhausted",
    "text",
    "call",
    "calls",
    "as_reply",
    "as_policy",
    "offered_tools",
    "last_user_text",
    "tool_results",
    "turn_index",
    "content_text",
    "with_tool_messages",
]


@dataclass(frozen=True)
class ToolCall:
    """one function call the model asks for; `arguments` as a str is sent verbatim (even if broken)"""

    name: str
    arguments: dict[str, Any] | str = field(default_factory=dict)

    def arguments_json(self) -> str:
        if isinstance(self.arguments, str):
            return self.arguments
        return json.dumps(self.arguments, ensure_ascii=False)


@dataclass(frozen=True)
class Reply:
    """one assistant turn: some text, some tool calls, or both"""

    content: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    finish_reason: str | None = None  # None means: "tool_calls" if there are calls, else "stop"
    # the answer's parts by name, e.g. {"expression": "2 + 3", "result": 5}: what structured output
    # (response_format, an answer tool) fills a schema's fields with
    values: dict[str, Any] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.content is None and not self.tool_calls:
            raise ValueError("a Reply needs content, tool_calls, or both")
        object.__setattr__(self, "tool_calls", tuple(self.tool_calls))

    @property
    def stop_reason(self) -> str:
        if self.finish_reason:
            return self.finish_reason
        return "tool_calls" if self.tool_calls else "stop"


ReplyLike = Reply | str | ToolCall | Sequence[ToolCall]


def text(content: str) -> Reply:
    """a plain text turn"""
    return Reply(content=content)


def call(name: str, arguments: dict[str, Any] | str | None = None, /, **kwargs: Any) -> ToolCall:
    """one tool call: call("add", a=1, b=2) or call("add", {"a": 1, "b": 2}) or call("add", '{"a": 1')"""
    if arguments is not None and kwargs:
        raise TypeError("give the arguments either as a dict/str or as keywords, not both")
    return ToolCall(name, arguments if arguments is not None else dict(kwargs))


def calls(*tool_calls: ToolCall, content: str | None = None) -> Reply:
    """a turn with one or more (parallel) tool calls, optionally with text beside them"""
    return Reply(content=content, tool_calls=tuple(tool_calls))


def as_reply(value: ReplyLike) -> Reply:
    """str -> text turn, ToolCall -> one call, list of ToolCalls -> parallel calls, Reply -> itself"""
    if isinstance(value, Reply):
        return value
    if isinstance(value, str):
        return text(value)
    if isinstance(value, ToolCall):
        return calls(value)
    if isinstance(value, Sequence) and value and all(isinstance(c, ToolCall) for c in value):
        return calls(*value)
    raise TypeError(f"a policy must return a Reply, a str, a ToolCall or a list of ToolCalls, not {value!r}")


# one decision at a time, even when a server answers many clients at once: a Script keeps its
# place. Only the decision waits here; parsing, checks and token counts run side by side.
_DECIDING = threading.RLock()


class Policy:
    """decides what the model says next, given the request body (messages, tools, tool_choice...)"""

    def reply(self, request: dict[str, Any]) -> ReplyLike:
        raise NotImplementedError

    def __call__(self, request: dict[str, Any]) -> Reply:
        with _DECIDING:
            return as_reply(self.reply(request))


PolicyLike = Policy | Callable[[dict[str, Any]], ReplyLike]


class _FunctionPolicy(Policy):
    def __init__(self, function: Callable[[dict[str, Any]], ReplyLike]):
        self.function = function

    def reply(self, request: dict[str, Any]) -> ReplyLike:
        return self.function(request)


def as_policy(policy: PolicyLike) -> Policy:
    """accept a Policy object or a plain function request -> reply"""
    if isinstance(policy, Policy):
        return policy
    if callable(policy):
        return _FunctionPolicy(policy)
    raise TypeError(f"a policy is a mock.Policy or a function request -> reply, not {policy!r}")


class ScriptExhausted(RuntimeError):
    """the script has no reply left for this request"""


class Script(Policy):
    """replies in order, one per model call, whatever the request says"""

    def __init__(self, *replies: ReplyLike):
        if len(replies) == 1 and isinstance(replies[0], list) and not _all_calls(replies[0]):
            replies = tuple(replies[0])  # Script([...]) works like Script(...)
        self.replies = [as_reply(r) for r in replies]
        self.position = 0

    def reply(self, request: dict[str, Any]) -> Reply:
        if self.position >= len(self.replies):
            raise ScriptExhausted(
                f"the script has {len(self.replies)} replies and all were used; "
                "add a reply for this model call or create a fresh Script"
            )
        reply = self.replies[self.position]
        self.position += 1
        return reply

    def reset(self) -> None:
        self.position = 0


def _all_calls(items: Iterable[Any]) -> bool:
    items = list(items)
    return bool(items) and all(isinstance(i, ToolCall) for i in items)


# --- reading a request: helpers for reactive policies ---------------------------------------


def offered_tools(request: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """name -> function definition ({"name", "description", "parameters"}) of the tools offered"""
    tools = request.get("tools") or []
    return {t["function"]["name"]: t["function"] for t in tools if t.get("type") == "function"}


def last_user_text(request: dict[str, Any]) -> str:
    """the text of the latest user message ('' if none)"""
    for message in reversed(request.get("messages", [])):
        if message.get("role") == "user":
            return content_text(message.get("content"))
    return ""


def tool_results(request: dict[str, Any]) -> dict[str, str]:
    """tool_call_id -> result text, for every tool message in the request"""
    return {
        m["tool_call_id"]: content_text(m.get("content"))
        for m in request.get("messages", [])
        if m.get("role") == "tool" and "tool_call_id" in m
    }


def turn_index(request: dict[str, Any]) -> int:
    """how many assistant turns came before this one since the latest user message"""
    count = 0
    for message in reversed(request.get("messages", [])):
        if message.get("role") == "user":
            break
        if message.get("role") == "assistant":
            count += 1
    return count
