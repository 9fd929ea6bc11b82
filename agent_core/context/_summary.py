"""lesson 06: the model call that writes a compaction's summary: the old messages, then a request for a
summary."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import openai

from .._shared import DEFAULT_MAX_TOKENS, DEFAULT_MODEL

__all__ = ["summarize", "SUMMARY_REQUEST"]

SUMMARY_REQUEST = (
    "Summarise the conversation so far, so that the work can go on from your summary alone: "
    "what the user asked, what each tool call found, and what you concluded."
)


def summarize(
    client: openai.OpenAI,
    messages: Sequence[dict[str, Any]],
    *,
    model: str = DEFAULT_MODEL,
    tools: list[dict[str, Any]] | None = None,
) -> str:
    """ask the model to summarise these messages; returns the summary's text

    The messages are sent as they are, with SUMMARY_REQUEST after them; with the tools they
    used (if any), and tool_choice "none" so the model answers in text.
    """
    options: dict[str, Any] = {"tools": tools, "tool_choice": "none"} if tools else {}
    options["max_tokens"] = DEFAULT_MAX_TOKENS  # a summary that rambles on would defeat its purpose
    # the SDK types messages as TypedDicts; ours are the same JSON objects as plain dicts
    response = client.chat.completions.create(
        model=model,
        messages=[*messages, {"role": "user", "content": SUMMARY_REQUEST}],  # type: ignore[list-item]
        **options,
    )
    return response.choices[0].message.content or ""
