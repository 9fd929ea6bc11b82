"""A Responses API turn read as Chat Completions: the messages it sent and the reply it got (lesson 00's
trace, for the Responses API of lesson 09)."""

from __future__ import annotations

from typing import Any

from .._messages import from_responses

__all__ = ["responses_messages", "responses_reply"]


def responses_messages(request: dict[str, Any]) -> list[dict[str, Any]]:
    """a request's `instructions` and `input` items as the Chat Completions messages that say the same
    (only the new items, after previous_response_id); [] when they are not items formats can read"""
    try:
        return from_responses(request)
    except (KeyError, TypeError, ValueError, AttributeError):
        return []


def responses_reply(response: dict[str, Any]) -> dict[str, Any] | None:
    """a response's output as one assistant message; None when it is not one"""
    replies = responses_messages({"input": response.get("output") or []})
    return replies[0] if len(replies) == 1 else None
