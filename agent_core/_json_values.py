"""JSON values for the tool schema: a default written as JSON, and how an error names a value's
type (lesson 01)."""

from __future__ import annotations

import enum
import json
from typing import Any

__all__ = ["json_value", "is_json", "json_type"]


def json_value(value: Any) -> Any:
    """an Enum member as its value; anything else as it is"""
    return value.value if isinstance(value, enum.Enum) else value


def is_json(value: Any) -> bool:
    """whether json.dumps can write the value"""
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


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
