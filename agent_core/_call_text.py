"""A tool call read by the guardrails: its arguments, one readable line, a key to compare calls
(lesson 05)."""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from typing import Any

from .calls import parse_arguments

__all__ = ["describe_call", "call_arguments", "times_text", "takes_an_argument"]


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


def takes_an_argument(function: Callable[..., Any]) -> bool:
    try:
        inspect.signature(function).bind(None)
    except TypeError:
        return False
    except ValueError:  # no signature to read (some built-ins): assume check(answer)
        return True
    return True
