"""A tool call's arguments as JSON text (Chat Completions, Responses) or as an object (Anthropic, Ollama)
(lesson 09)."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["UNPARSED_ARGUMENTS", "arguments_text", "as_object", "as_text"]

# Anthropic and Ollama want tool arguments as a JSON object. Arguments that are not one
# (a model can send broken JSON) travel as {UNPARSED_ARGUMENTS: "<the raw text>"} and come back as that text.
UNPARSED_ARGUMENTS = "_unparsed_arguments"


def arguments_text(call: dict[str, Any]) -> str:
    """the JSON-string arguments of a Chat Completions tool call"""
    arguments = call["function"].get("arguments", "{}")
    return arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)


def as_object(arguments: str) -> dict[str, Any]:
    """JSON-string arguments -> the object Anthropic and Ollama want (broken JSON is kept, wrapped)"""
    if not arguments.strip():
        return {}
    try:
        value = json.loads(arguments)
    except json.JSONDecodeError:
        return {UNPARSED_ARGUMENTS: arguments}
    return value if isinstance(value, dict) else {UNPARSED_ARGUMENTS: arguments}


def as_text(arguments: Any) -> str:
    """an arguments object -> the JSON string Chat Completions wants"""
    if isinstance(arguments, dict) and set(arguments) == {UNPARSED_ARGUMENTS}:
        return str(arguments[UNPARSED_ARGUMENTS])
    return json.dumps(arguments, ensure_ascii=False)
