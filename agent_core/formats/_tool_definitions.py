"""One tool definition in each API's shape: Chat Completions, Responses, Anthropic, Ollama (lesson 09)."""

from __future__ import annotations

import copy
from typing import Any

from .._messages import as_dict

__all__ = [
    "tool_to_responses",
    "tool_from_responses",
    "tool_to_anthropic",
    "tool_from_anthropic",
    "tool_to_ollama",
    "tool_from_ollama",
]

ToolDefinition = dict[str, Any]


def _function_of(tool: ToolDefinition) -> dict[str, Any]:
    """the "function" of a Chat Completions tool, or a clear error for anything else"""
    tool = as_dict(tool)
    if tool.get("type") != "function" or "function" not in tool:
        raise ValueError(
            'expected a Chat Completions tool {"type": "function", "function": {"name": ...}}, '
            f"got {tool!r}"
        )
    function: dict[str, Any] = tool["function"]
    return function


def tool_to_responses(tool: ToolDefinition) -> ToolDefinition:
    """Chat Completions tool -> Responses tool: the same fields, one level up"""
    function = _function_of(tool)
    flat: ToolDefinition = {"type": "function", "name": function["name"]}
    if "description" in function:
        flat["description"] = function["description"]
    flat["parameters"] = function.get("parameters")
    # Responses normalises a function into strict mode when `strict` is omitted; Chat Completions does not
    # (OpenAI function-calling guide, "strict mode" section, as of 2026-04). So we always spell it out.
    flat["strict"] = bool(function.get("strict", False))
    return flat


def tool_from_responses(tool: ToolDefinition) -> ToolDefinition:
    """Responses tool -> Chat Completions tool (strict=False is left out: it is the default there)"""
    function: dict[str, Any] = {"name": tool["name"]}
    if "description" in tool:
        function["description"] = tool["description"]
    if tool.get("parameters") is not None:
        function["parameters"] = tool["parameters"]
    if tool.get("strict"):
        function["strict"] = True
    return {"type": "function", "function": function}


def tool_to_anthropic(tool: ToolDefinition) -> ToolDefinition:
    """Chat Completions tool -> Anthropic tool: `parameters` is called `input_schema`"""
    function = _function_of(tool)
    anthropic_tool: ToolDefinition = {"name": function["name"]}
    if "description" in function:
        anthropic_tool["description"] = function["description"]
    anthropic_tool["input_schema"] = function.get("parameters") or {"type": "object", "properties": {}}
    if function.get("strict"):
        anthropic_tool["strict"] = True
    return anthropic_tool


def tool_from_anthropic(tool: ToolDefinition) -> ToolDefinition:
    """Anthropic tool -> Chat Completions tool"""
    function: dict[str, Any] = {"name": tool["name"]}
    if "description" in tool:
        function["description"] = tool["description"]
    function["parameters"] = tool["input_schema"]
    if tool.get("strict"):
        function["strict"] = True
    return {"type": "function", "function": function}


def tool_to_ollama(tool: ToolDefinition) -> ToolDefinition:
    """Chat Completions tool -> Ollama tool: the same shape (Ollama does not use `strict`)"""
    _function_of(tool)
    return copy.deepcopy(as_dict(tool))


def tool_from_ollama(tool: ToolDefinition) -> ToolDefinition:
    """Ollama tool -> Chat Completions tool: the same shape"""
    return copy.deepcopy(tool)
