"""lesson 10: MCP content blocks as text: a tool message carries text only, so an image, audio or a
resource becomes a line saying what it was."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["block_text"]


def block_text(block: dict[str, Any]) -> str:
    """one content block of a tool result, as text"""
    kind = block.get("type")
    if kind == "text":
        return str(block.get("text", ""))
    if kind in ("image", "audio"):
        size = len(block.get("data", "")) * 3 // 4
        return (
            f"[{kind} {block.get('mimeType', '')}, about {size:,} bytes: not shown, a tool message carries "
            "text only]"
        )
    if kind == "resource_link":
        return f"[resource {block.get('uri')}: {block.get('name', '')}]"
    if kind == "resource":
        resource = block.get("resource") or {}
        if "text" in resource:
            return str(resource["text"])
        return f"[resource {resource.get('uri')}: binary, not shown]"
    return json.dumps(block, ensure_ascii=False)
