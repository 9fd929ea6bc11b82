"""What every endpoint of the mock sends back: JSON bodies, model cards, and text cut into stream pieces."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Protocol

__all__ = [
    "Response",
    "Endpoint",
    "json_response",
    "error_response",
    "is_anthropic",
    "model_card",
    "pieces",
    "CREATED",
]

Response = tuple[int, dict[str, str], bytes]
"""an HTTP answer: status, headers, body"""
CREATED = 1767225600  # 2026-01-01T00:00:00Z: a fixed clock, so every run prints the same JSON


class Endpoint(Protocol):
    """one API the mock answers (Chat Completions, Responses, Messages...), as MockModel.respond drives it"""

    calls_model: bool  # False for an endpoint that answers without the model (count_tokens)

    def read(self, request: Any, headers: Mapping[str, str]) -> dict[str, Any]:
        """the request checked by this API's rules, as the Chat Completions request a policy reads"""
        ...

    def write(self, request: dict[str, Any], chat_request: dict[str, Any], completion: Any) -> Response:
        """the answer in this API's terms, from the chat.completion the policy's reply became

        completion is that chat.completion (a dict), or None for an endpoint that does not call the model.
        """
        ...

    def refuse(self, error: Any) -> Response:
        """a ProtocolError in this API's error shape"""
        ...


def json_response(status: int, payload: dict[str, Any]) -> Response:
    # a lone surrogate (sent as "\ud800") goes back as the same JSON escape, not as invalid UTF-8
    body = json.dumps(payload, ensure_ascii=False).encode("utf-8", "backslashreplace")
    return status, {"content-type": "application/json"}, body


def error_response(error: Any) -> Response:
    """the JSON answer of an API error: anything with a `status` and a `body()`, as ProtocolError has"""
    return json_response(error.status, error.body())


def is_anthropic(path: str) -> bool:
    """whether a URL path is one of Anthropic's endpoints, answered in Anthropic's words and error shape"""
    return path.rstrip("/").endswith(("/messages", "/messages/count_tokens"))


def model_card(name: str) -> dict[str, Any]:
    """what GET /v1/models lists for one model"""
    return {"id": name, "object": "model", "created": CREATED, "owned_by": "agent-core"}


def pieces(text: str, size: int = 16) -> list[str]:
    """text cut into the pieces a stream sends, `size` characters each (none for empty text)"""
    return [text[i : i + size] for i in range(0, len(text), size)]
