"""The dispatcher: a model's tool call in, a `tool` message out; every failure is an observation
(lesson 03).

Beneath it: `_dispatch_errors.py` words every failure (unknown tool, broken JSON, wrong arguments);
`_tool_runner.py` runs a tool on a worker thread under its time limit and makes its result text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from ._dispatch_errors import CallFailure, ToolFailure, check_arguments, find_tool, read_arguments
from ._shared import ERROR_PREFIX, ErrorText, escape_surrogates, failure, keep_ends
from ._tool_runner import python_arguments, run_tool, to_text
from .schema import Tool

__all__ = [
    "ToolRegistry",
    "Observation",
    "is_error",
    "truncate",
    "ERROR_PREFIX",
    "DEFAULT_TOOL_TIMEOUT",
    "python_arguments",
    "to_text",
    "ToolFailure",
    "ErrorText",
    "failure",
]

DEFAULT_TOOL_TIMEOUT = 30.0  # seconds a tool may run before the dispatcher stops waiting
DEFAULT_MAX_CHARS = 4000  # longest observation sent back to the model


@dataclass(frozen=True)
class Observation:
    """what one tool call produced: the text the model will read, and whether it is an error"""

    tool_call_id: str
    name: str
    content: str
    # the failure travels here, typed: set by the dispatcher when the call failed (and by the loop
    # for a call a guardrail refused), never read from the text, which a tool's output can imitate
    is_error: bool = False
    # unknown_tool, invalid_json, not_an_object, invalid_arguments, tool_error, timeout (or refused)
    error_type: str | None = None
    arguments: dict[str, Any] | None = None  # the parsed arguments, when they parsed
    value: Any = None  # what the function returned, before it became text

    def to_message(self) -> dict[str, Any]:
        """the Chat Completions `tool` message that answers the call"""
        return {"role": "tool", "tool_call_id": self.tool_call_id, "content": self.content}


def is_error(result: dict[str, Any] | Observation | str) -> bool:
    """whether an Observation failed (its field), or a tool message read off the wire (a dict, or its
    content) says it did: a Chat Completions tool message has no field for it, only the text the
    dispatcher wrote, ERROR_PREFIX first"""
    if isinstance(result, Observation):
        return result.is_error
    content = result.get("content") if isinstance(result, dict) else result
    return isinstance(content, str) and content.startswith(ERROR_PREFIX)


class ToolRegistry:
    """the tools a model may call: their definitions to send, and `dispatch` to run a call"""

    def __init__(
        self,
        tools: Iterable[Callable[..., Any]] = (),
        *,
        timeout: float | None = DEFAULT_TOOL_TIMEOUT,
        max_chars: int | None = DEFAULT_MAX_CHARS,
    ):
        self.timeout = timeout  # None: wait for ever
        self.max_chars = max_chars  # None: never cut
        self._tools: dict[str, Tool] = {}
        self._timeouts: dict[str, float | None] = {}
        for function in tools:
            self.add(function)

    # --- registering --------------------------------------------------------------------

    def add(
        self,
        function: Callable[..., Any],
        *,
        name: str | None = None,
        strict: bool = False,
        timeout: float | None = None,
    ) -> Tool:
        """register a Tool or a plain function (made into a Tool); returns the Tool

        strict: make the tool strict (a Tool that is strict already stays so). timeout: seconds the
        registry waits for this tool; None uses the registry's timeout. Give a tool that stops
        itself (as run_command kills its command) longer than its own limit, so the model hears
        the tool's own message rather than the registry's.
        """
        if isinstance(function, Tool) and name in (None, function.name) and (function.strict or not strict):
            new_tool = function
        else:
            keeps_strict = isinstance(function, Tool) and function.strict
            new_tool = Tool(function, name=name, strict=strict or keeps_strict)
        if new_tool.name in self._tools:
            raise ValueError(
                f"a tool named {new_tool.name!r} is already registered; give one of them "
                "another name with name=..."
            )
        self._tools[new_tool.name] = new_tool
        if timeout is not None:
            self._timeouts[new_tool.name] = timeout
        return new_tool

    def register(
        self,
        function: Callable[..., Any] | None = None,
        *,
        name: str | None = None,
        strict: bool = False,
        timeout: float | None = None,
    ) -> Any:
        """decorator: `@registry.register` or `@registry.register(timeout=5, name=...)`"""

        def add(function: Callable[..., Any]) -> Tool:
            return self.add(function, name=name, strict=strict, timeout=timeout)

        return add if function is None else add(function)

    @property
    def definitions(self) -> list[dict[str, Any]]:
        """the Chat Completions tool definitions to send as `tools=`"""
        return [t.definition for t in self._tools.values()]

    @property
    def names(self) -> list[str]:
        return list(self._tools)

    def timeout_for(self, name: str) -> float | None:
        """the timeout given for this tool when it was added, else the registry's"""
        return self._timeouts.get(name, self.timeout)

    def __getitem__(self, name: str) -> Tool:
        return self._tools[name]

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools.values())

    def __repr__(self) -> str:
        return f"ToolRegistry({self.names})"

    # --- running a call -----------------------------------------------------------------

    def dispatch(self, call: Any) -> dict[str, Any]:
        """run one tool call (SDK object or dict); always returns the `tool` message answering it"""
        return self.run(call).to_message()

    def dispatch_all(self, tool_calls: Iterable[Any] | None) -> list[dict[str, Any]]:
        """run every call in order; one `tool` message per call, in the same order"""
        return [self.dispatch(call) for call in tool_calls or []]

    def run(self, call: Any) -> Observation:
        """run one tool call and return the Observation; never raises for the model's mistakes"""
        call_id, name, raw_arguments = _read_call(call)
        arguments = None
        try:
            tool = find_tool(self._tools, name)
            arguments = read_arguments(tool, raw_arguments)
            check_arguments(tool, arguments)
            text, value = run_tool(tool, arguments, self.timeout_for(tool.name))
        except CallFailure as failed_call:
            content = self._finish(ERROR_PREFIX + failed_call.message)
            return Observation(call_id, name, content, True, failed_call.error_type, arguments)
        # a tool reports its own failure by its result's type (ErrorText) or by raising ToolFailure;
        # a plain str is its output, whatever its first words ("ERROR: " included)
        failed = isinstance(value, ErrorText)
        return Observation(
            call_id, name, self._finish(text), failed, "tool_error" if failed else None, arguments, value
        )

    def _finish(self, text: str) -> str:
        """the content the model reads: sendable as UTF-8, then capped"""
        return truncate(escape_surrogates(text), self.max_chars)


# --- reading a call -------------------------------------------------------------------------


def _read_call(call: Any) -> tuple[str, Any, Any]:
    """(id, name, arguments) from an SDK tool call object or its dict shape; name and arguments
    as the server sent them, which may be neither strings nor valid"""
    if isinstance(call, dict):
        function = call.get("function")
        function = function if isinstance(function, dict) else {}
        name, arguments = function.get("name", ""), function.get("arguments")
        call_id = call.get("id", "")
    else:
        function = getattr(call, "function", None)
        if function is None:
            raise TypeError(
                f"expected a tool call (an SDK object or a dict with 'id' and 'function'), got {call!r}"
            )
        call_id = getattr(call, "id", "")
        name, arguments = getattr(function, "name", ""), getattr(function, "arguments", None)
    return call_id, name, "" if arguments is None else arguments


# --- a long result -> a shorter text ------------------------------------------------------


def truncate(text: str, max_chars: int | None = DEFAULT_MAX_CHARS) -> str:
    """keep the head and the tail of a long text, with a marker saying how much was cut"""
    if max_chars is None or len(text) <= max_chars:
        return text
    head, cut, tail = keep_ends(text, max(max_chars - len(_cut_marker(len(text))), 0))
    return head + _cut_marker(cut) + tail


def _cut_marker(count: int) -> str:
    return f"\n[... {count:,} characters cut ...]\n"
