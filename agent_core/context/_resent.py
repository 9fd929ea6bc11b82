"""What a model call sent again: the input tokens of the prefix it shares with the call before
(lesson 06)."""

from __future__ import annotations

from ..tokens import count_request
from ..trace import Turn

__all__ = ["resent_tokens"]


def resent_tokens(previous: Turn, turn: Turn) -> int:
    """tokens of `turn`'s prompt that `previous` already sent: their shared prefix of messages,
    with the same tools (a different tool list changes the prompt from its start)"""
    old, new = previous.messages, turn.messages
    same = 0
    while same < min(len(old), len(new)) and old[same] == new[same]:
        same += 1
    if same == 0 or previous.request.get("tools") != turn.request.get("tools"):
        return 0
    if same == len(old) and previous.usage:  # the history only grew: all of the previous prompt again
        return int(previous.usage["prompt_tokens"])
    return count_request(new[:same], turn.request.get("tools"))
