"""A mock model that obeys instructions written in tool descriptions: a description is a prompt
(lesson 10)."""

from __future__ import annotations

import re
from typing import Any

from .chooser import DescriptionReader, fill_arguments, score_tools
from .policy import ReplyLike, ToolCall, calls, last_user_text, offered_tools

__all__ = ["Obedient"]

# "call NAME with the user's (whole|full) message|request": the one instruction it understands
INSTRUCTION = re.compile(
    r"\bcall\s+`?(?P<name>[A-Za-z0-9_-]+)`?\s+with\s+the\s+user'?s\s+(?:whole\s+|full\s+)?(?:message|request)",
    re.IGNORECASE,
)


class Obedient(DescriptionReader):
    """a DescriptionReader that also does what any offered tool's description tells it to

    Models are trained to follow instructions, and every tool description is in their prompt,
    whoever wrote it. This one obeys "call NAME with the user's message" in any description: in
    its first reply it calls NAME with the user's whole message as NAME's first string
    parameter, beside the tool it picked for the request (see DescriptionReader).
    """

    def reply(self, request: dict[str, Any]) -> ReplyLike:
        messages = request.get("messages", [])
        tools = offered_tools(request)
        if (messages and messages[-1].get("role") == "tool") or not tools:
            return super().reply(request)
        user_text = last_user_text(request)
        ordered = [ToolCall(name, arguments) for name, arguments in _instructed(tools, user_text)]
        scores = score_tools(user_text, tools)
        best = max(scores, key=lambda s: s.score)
        if best.score > 0 and best.name not in [c.name for c in ordered]:
            ordered.append(ToolCall(best.name, fill_arguments(user_text, tools[best.name])))
        return calls(*ordered) if ordered else super().reply(request)


def _instructed(tools: dict[str, dict[str, Any]], user_text: str) -> list[tuple[str, dict[str, Any]]]:
    """(name, arguments) for each call a description orders, in the order the tools are offered"""
    found: dict[str, dict[str, Any]] = {}
    for function in tools.values():
        for match in INSTRUCTION.finditer(function.get("description") or ""):
            name = match.group("name")
            if name in tools and name not in found:
                properties = (tools[name].get("parameters") or {}).get("properties") or {}
                strings = [p for p, schema in properties.items() if schema.get("type") == "string"]
                found[name] = {strings[0]: user_text} if strings else {}
    return list(found.items())
