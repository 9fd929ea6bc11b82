"""A text cut to a token budget: its first and last tokens around a marker saying how many were cut
(lesson 06)."""

from __future__ import annotations

from ..tokens import encoding

__all__ = ["keep_head_and_tail", "MARKER_ROOM"]

# tokens kept free for the cut marker, and for the cut edges, which may tokenise differently
MARKER_ROOM = 20


def keep_head_and_tail(text: str, max_tokens: int) -> str:
    """the text if it fits in max_tokens; else its first and last tokens around a marker saying
    how many were cut, all within max_tokens"""
    tokens = encoding().encode_ordinary(text)
    if len(tokens) <= max_tokens:
        return text
    if max_tokens < MARKER_ROOM + 2:
        raise ValueError(
            f"max_tokens={max_tokens} leaves no room beside the cut marker; give at least {MARKER_ROOM + 2}"
        )
    room = max_tokens - MARKER_ROOM
    head, tail = tokens[: room // 2], tokens[len(tokens) - (room - room // 2) :]
    marker = f"\n[... {len(tokens) - room:,} tokens cut from the middle ...]\n"
    return encoding().decode(head) + marker + encoding().decode(tail)
