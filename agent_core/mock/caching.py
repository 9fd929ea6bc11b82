"""Prompt caching as the wire reports it: how much of a prompt an earlier request already sent (lesson 06)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from .tokens import REPLY_PRIMING, count_request

__all__ = ["PromptCache", "OPENAI_MINIMUM", "OPENAI_INCREMENT"]

# OpenAI's prompt caching guide (developers.openai.com/api/docs/guides/prompt-caching): caching is
# automatic for prompts of 1,024 tokens or more, a hit needs an exact prefix match, and the cached
# part grows in 128-token steps (1024, 1152, 1280, ...); usage.prompt_tokens_details.cached_tokens
# (Chat Completions) and usage.input_tokens_details.cached_tokens (Responses) report it.
OPENAI_MINIMUM = 1024
OPENAI_INCREMENT = 128


def prompt_blocks(
    messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None
) -> list[tuple[str, int]]:
    """the prompt as (key, tokens) blocks in the order it is cached: the tools, then each message

    A block's key hashes everything up to and including it, so equal keys mean equal prefixes.
    The tokens add up to count_request(messages, tools) less the reply priming.
    """
    blocks: list[tuple[str, int]] = []
    digest = hashlib.sha256()
    parts = ([("tools", tools)] if tools else []) + [("message", m) for m in messages]
    for kind, part in parts:
        digest.update(json.dumps(part, sort_keys=True, ensure_ascii=False).encode())
        tokens = count_request([], part) if kind == "tools" else count_request([part])
        blocks.append((digest.copy().hexdigest(), tokens - REPLY_PRIMING))
    return blocks


class PromptCache:
    """the prefixes that earlier requests to one mock model sent; nothing expires (no clock)"""

    def __init__(self) -> None:
        self.seen: set[str] = set()

    def cached_tokens(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> int:
        """OpenAI's rule: the longest prefix sent before, if >= 1,024 tokens, in 128-token steps; remembers this prompt"""
        blocks = prompt_blocks(messages, tools)
        matched = 0
        for key, tokens in blocks:
            if key not in self.seen:
                break
            matched += tokens
        self.seen.update(key for key, _ in blocks)
        if matched < OPENAI_MINIMUM:
            return 0
        return OPENAI_MINIMUM + (matched - OPENAI_MINIMUM) // OPENAI_INCREMENT * OPENAI_INCREMENT
