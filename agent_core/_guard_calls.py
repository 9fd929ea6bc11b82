"""lesson 05: a tool call as the guardrails read it: its arguments and paths, one readable line, the same
call again, a tool that only reads, text safe for a terminal."""

from __future__ import annotations

import fnmatch
import json
import math
import posixpath
import unicodedata
from collections.abc import Sequence
from typing import Any

from .calls import parse_arguments

__all__ = [
    "describe_call",
    "call_arguments",
    "times_text",
    "call_paths",
    "matching_pattern",
    "PATH_ARGUMENTS",
    "same_call",
    "times_asked",
    "readonly_from_annotations",
    "escape_for_terminal",
]


def describe_call(call: dict[str, Any]) -> str:
    """a tool call as one readable line: send_email(to="ana@example.com", subject="Hi")"""
    name, arguments = call["function"]["name"], call_arguments(call)
    if arguments is None:  # broken JSON: show it as it came
        return f"{name}({call['function'].get('arguments')})"
    shown = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in arguments.items())
    return f"{name}({shown})"


def call_arguments(call: dict[str, Any]) -> dict[str, Any] | None:
    """the call's arguments, or None when they are not a JSON object"""
    try:
        return parse_arguments(call)
    except (ValueError, TypeError):
        return None


def times_text(count: int) -> str:
    return {1: "once", 2: "twice"}.get(count, f"{count} times")


PATH_ARGUMENTS = ("path", "file", "filename", "file_path", "filepath")


def call_paths(call: dict[str, Any]) -> list[str]:
    """the call's arguments named like a path (PATH_ARGUMENTS), normalised ("./a/../b.py" -> "b.py")"""
    arguments = call_arguments(call) or {}
    found = [arguments[name] for name in PATH_ARGUMENTS if isinstance(arguments.get(name), str)]
    return [posixpath.normpath(path.replace("\\", "/")) for path in found]


def matching_pattern(path: str, patterns: Sequence[str]) -> str | None:
    """the first glob pattern the path matches: one without "/" is matched against the file name
    in any folder, one with "/" against the whole path from the project root"""
    for pattern in patterns:
        target = path if "/" in pattern else posixpath.basename(path)
        if fnmatch.fnmatchcase(target, pattern):
            return pattern
    return None


def same_call(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """whether two tool calls ask for the same thing: same name, arguments equal as JSON values

    1 and 1.0 are the same number, key order and spacing do not matter, and the call ids are
    ignored: a model chooses its ids, and may send one id twice or a new id for the same call.
    """
    return _call_key(a) == _call_key(b)


def times_asked(messages: list[dict[str, Any]], call: dict[str, Any]) -> int:
    """how many times the messages ask for this call, up to and including it

    `call` is one of the calls of the last assistant message. Which one is told by position, not
    by id: every call is answered, in order, by one tool message, so the tool messages after the
    assistant message say how many of its calls came before this one.
    """
    key = _call_key(call)
    last = max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=-1)
    times = 0
    for message in messages[:last]:
        times += sum(_call_key(earlier) == key for earlier in message.get("tool_calls") or [])
    if last >= 0:
        answered = sum(m.get("role") == "tool" for m in messages[last + 1 :])
        batch = messages[last].get("tool_calls") or []
        times += sum(_call_key(earlier) == key for earlier in batch[:answered])
    return times + 1


def _call_key(call: dict[str, Any]) -> tuple[str, str]:
    function = call.get("function") or {}
    name, raw = str(function.get("name")), function.get("arguments")
    try:
        arguments = raw if isinstance(raw, dict) else json.loads(raw or "{}")
    except (ValueError, TypeError, RecursionError):  # broken JSON: compare the text as it came
        return name, f"text:{raw}"
    try:
        return name, json.dumps(_canonical(arguments), sort_keys=True)
    except (ValueError, TypeError, RecursionError):
        return name, f"text:{raw}"


def _canonical(value: Any) -> Any:
    """a JSON value with every number that is a whole number written as an int (1.0 -> 1)"""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return repr(value)
        return int(value) if value.is_integer() else value
    if isinstance(value, dict):
        return {str(key): _canonical(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_canonical(item) for item in value]
    return value


def readonly_from_annotations(annotations: dict[str, Any] | None) -> bool:
    """whether an MCP tool says it only reads: readOnlyHint true, and destructiveHint not also true

    The defaults are those of the MCP specification: readOnlyHint false, destructiveHint true
    (https://modelcontextprotocol.io/specification/2025-06-18/schema#toolannotations). They are
    hints from the server: a server that lies about them is not caught.
    """
    annotations = annotations if isinstance(annotations, dict) else {}
    return annotations.get("readOnlyHint") is True and annotations.get("destructiveHint") is not True


# Cc: control characters (escape sequences start with ESC); Cf: format characters, invisible ones
# included: bidirectional overrides (U+202E), zero-width spaces and joiners, the BOM;
# Zl, Zp: line and paragraph separators.
_HIDDEN = ("Cc", "Cf", "Zl", "Zp")


def escape_for_terminal(text: str) -> str:
    """text with every invisible or reordering character shown as its escape (\\u202e), so what a
    person approves reads as what will run; newlines and tabs are kept"""
    return "".join(
        char if char in "\n\t" or unicodedata.category(char) not in _HIDDEN else _escape(char)
        for char in text
    )


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
