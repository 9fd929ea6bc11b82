"""What every endpoint of the mock sends back: JSON bodies, model cards, and text cut into stream pieces."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["Response", "json_response", "error_response", "model_card", "pieces", "CREATED"]

Response = tuple[int, dict[str, str], bytes]
"""an HTTP answer: status, headers, body"""
CREATED = 1767225600  # 2026-01-01T00:00:00Z: a fixed clock, so every run prints the same JSON


def json_response(status: int, payload: dict[str, Any]) -> Response:
    # a lone surrogate (sent as "\ud800") goes back as the same JSON escape, not as invalid UTF-8
    body = json.dumps(payload, ensure_ascii=False).encode("utf-8", "backslashreplace")
    return status, {"content-type": "application/json"}, body


def error_response(error: Any) -> Response:
    """the JSON answer of an API error: anything with a `status` and a `body()`, as ProtocolError has"""
    return json_response(error.status, error.body())


def model_card(name: str) -> dict[str, Any]:
    """what GET /v1/models lists for one model"""
    return {"id": name, "object": "model", "created": CREATED, "owned_by": "agent-core"}


def pieces(text: str, size: int = 16) -> list[str]:
    """text cut into the pieces a stream sends, `size` characters each (none for empty text)"""
    return [text[i : i + size] for i in range(0, len(text), size)]
