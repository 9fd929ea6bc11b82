"""lesson 00: what every lesson writes the same way: the model asked for by default and the output cap,
a failed call's ERROR_PREFIX and ErrorText, an error in one line, a value's JSON type name, lone
surrogates escaped, and the one cut of a long text's middle."""

from __future__ import annotations

from typing import Any, TypeVar

__all__ = ["DEFAULT_MODEL", "DEFAULT_MAX_TOKENS", "ERROR_PREFIX", "ErrorText", "failure"]
__all__ += ["one_line", "safe_one_line", "quoted", "json_type", "escape_surrogates", "keep_ends"]

DEFAULT_MODEL = "mock-model"

# The most tokens one reply may have when the caller sets no cap: local servers (llama.cpp, Ollama) set
# none, and a small model that rambles can write for minutes. Sent as max_tokens, which every
# OpenAI-compatible server reads (llama-cpp-python and Ollama ignore max_completion_tokens).
DEFAULT_MAX_TOKENS = 1024

# What the model reads first in a failed call's result. Chat Completions has no field for a failure,
# so the text says it to the model; in the library a failure is typed (Observation.is_error, ErrorText).
ERROR_PREFIX = "ERROR: "


class ErrorText(str):
    """a tool's own report that it failed, as the model reads it (ERROR_PREFIX first): returned instead
    of raising, it stays a str for whoever calls the tool, and its type tells the dispatcher the call
    failed. A plain str that starts with "ERROR: " is a tool's normal output."""


def failure(message: str) -> ErrorText:
    """the ErrorText a tool returns to say it failed: ERROR_PREFIX, then the message"""
    return ErrorText(ERROR_PREFIX + message)


def one_line(error: BaseException, empty: str = "(no message)") -> str:
    """an exception's message on one line (`empty` when it has none)"""
    return " ".join(str(error).split()) or empty


def safe_one_line(error: BaseException) -> str:
    """one_line of an exception a tool raised, whose own __str__ may raise too"""
    try:
        return quoted(one_line(error))
    except Exception:
        return "(its message cannot be shown)"


def quoted(text: str, limit: int = 300) -> str:
    """text to quote in a message, cut after `limit` characters with the count of the rest"""
    if len(text) <= limit:
        return text
    return text[:limit] + f"... ({len(text) - limit:,} more characters)"


def json_type(value: Any) -> str:
    """how a JSON Schema error names a value's type: "a string", "an array", "null"..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    names: dict[type, str] = {dict: "an object", list: "an array", str: "a string"}
    return names.get(type(value), type(value).__name__)


def escape_surrogates(text: str) -> str:
    """text that can be sent and printed as UTF-8: a lone surrogate becomes its escape, e.g. '\\udcff'

    A file name with a byte that is not UTF-8 reaches Python as a lone surrogate (PEP 383), and a
    server's JSON "\\ud800" decodes to one; the SDK's `.encode()` of the next request would raise
    UnicodeEncodeError on it.
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


Cuttable = TypeVar("Cuttable", str, list[int])


def keep_ends(whole: Cuttable, room: int) -> tuple[Cuttable, int, Cuttable]:
    """a text (or its tokens) with its middle cut so `room` items remain: (the head kept, how many were
    cut, the tail kept), the tail keeping the odd one; (whole, 0, empty) when it fits. The library's one
    cut: a long observation (lesson 03), a tool result within a token budget (06), a command's output (07)"""
    if len(whole) <= room:
        return whole, 0, whole[len(whole) :]
    head = room // 2
    return whole[:head], len(whole) - room, whole[len(whole) - (room - head) :]
