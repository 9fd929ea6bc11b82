"""lesson 00: a recorded body read back as JSON or text that can be sent and printed as UTF-8, lone
surrogates escaped (the trace)."""

from __future__ import annotations

import json
from typing import Any

from ._shared import escape_surrogates

__all__ = ["json_or_text", "escape_surrogates", "escaped", "may_hold_surrogates"]


def json_or_text(body: bytes) -> Any:
    """a body as JSON when it is JSON, else as text (None when empty)"""
    if not body:
        return None
    try:
        parsed = json.loads(body)
    except ValueError:
        return body.decode("utf-8", errors="replace")
    return escaped(parsed) if may_hold_surrogates(body) else parsed


def escaped(value: Any) -> Any:
    """a JSON-like value with escape_surrogates applied to every string in it"""
    if isinstance(value, str):
        return escape_surrogates(value)
    if isinstance(value, dict):
        return {escaped(key): escaped(item) for key, item in value.items()}
    if isinstance(value, list):
        return [escaped(item) for item in value]
    return value


def may_hold_surrogates(body: bytes) -> bool:
    """whether JSON text has an escape like "\\ud800", which decodes to a lone surrogate (that no
    terminal or file can print) unless a second one follows to make a pair"""
    return b"\\ud" in body or b"\\uD" in body
