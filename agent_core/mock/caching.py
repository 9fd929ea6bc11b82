"""Prompt caching as the wire reports it: how much of a prompt an earlier request already sent (lesson 06)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from ..tokens import REPLY_PRIMING, count_request, count_text

__all__ = ["PromptCache", "OPENAI_MINIMUM", "OPENAI_INCREMENT", "ANTHROPIC_MINIMUM"]

# OpenAI's prompt caching guide (developers.openai.com/api/docs/guides/prompt-caching): caching is
# automatic for prompts of 1,024 tokens or more, a hit needs an exact prefix match, and the cached
# part grows in 128-token steps (1024, 1152, 1280, ...); usage.prompt_tokens_details.cached_tokens
# (Chat Completions) and usage.input_tokens_details.cached_tokens (Responses) report it.
OPENAI_MINIMUM = 1024
OPENAI_INCREMENT = 128


def _prompt_blocks(
    messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None
) -> list[tuple[str, int]]:
    """the prompt as (key, tokens) blocks in the order it is cached: the tools, then each message

    A block's key hashes everything up to and including it, so equal keys mean equal prefixes.
    The tokens add up to count_request(messages, tools) less the reply priming.
    """
    blocks: list[tuple[str, int]] = []
    digest = hashlib.sha256()
    parts: list[tuple[str, Any]] = ([("tools", tools)] if tools else []) + [("message", m) for m in messages]
    for kind, part in parts:
        digest.update(json.dumps(part, sort_keys=True, ensure_ascii=False).encode("utf-8", "surrogatepass"))
        tokens = count_request([], part) if kind == "tools" else count_request([part])
        blocks.append((digest.copy().hexdigest(), tokens - REPLY_PRIMING))
    return blocks


class PromptCache:
    """the prefixes that earlier requests to one mock model sent; nothing expires (no clock)"""

    def __init__(self) -> None:
        self.seen: set[str] = set()

    def cached_tokens(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> int:
        """OpenAI's rule: the longest prefix sent before, if >= 1,024 tokens, in 128-token steps; remembers
        this prompt"""
        blocks = _prompt_blocks(messages, tools)
        matched = 0
        for key, tokens in blocks:
            if key not in self.seen:
                break
            matched += tokens
        self.seen.update(key for key, _ in blocks)
        if matched < OPENAI_MINIMUM:
            return 0
        return OPENAI_MINIMUM + (matched - OPENAI_MINIMUM) // OPENAI_INCREMENT * OPENAI_INCREMENT

    def anthropic_usage(self, body: dict[str, Any], input_tokens: int) -> dict[str, int] | None:
        """Anthropic's rule, for a Messages request: see _anthropic_cache_usage"""
        return _anthropic_cache_usage(self.seen, body, input_tokens)


# Anthropic's prompt caching docs (docs.anthropic.com/en/docs/build-with-claude/prompt-caching):
# caching is explicit: a `cache_control` breakpoint caches the prefix up to and including its
# block, in the order tools, system, messages; a prefix shorter than the model's minimum (1,024
# tokens for Sonnet and Opus, 2,048 for Haiku) is not cached; usage then splits the input into
# cache_creation_input_tokens (written now), cache_read_input_tokens (found) and input_tokens (the rest).
ANTHROPIC_MINIMUM = 1024
ANTHROPIC_HAIKU_MINIMUM = 2048


def _anthropic_blocks(body: dict[str, Any]) -> list[dict[str, Any]]:
    """the request's blocks in the order Anthropic caches them: tools, system, then each message's content"""
    blocks: list[dict[str, Any]] = list(body.get("tools") or [])
    system = body.get("system")
    if isinstance(system, str):
        blocks.append({"type": "text", "text": system})
    elif isinstance(system, list):
        blocks += system
    for message in body.get("messages") or []:
        content = message.get("content")
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else list(content or [])
        blocks += [{**part, "role": message.get("role")} for part in parts]
    return blocks


def _block_text(block: dict[str, Any]) -> str:
    if "input_schema" in block:  # a tool definition
        return json.dumps({k: v for k, v in block.items() if k != "cache_control"}, sort_keys=True)
    if block.get("type") == "tool_use":
        return str(block.get("name", "")) + json.dumps(block.get("input", {}), sort_keys=True)
    content = block.get("content") if block.get("type") == "tool_result" else block.get("text", "")
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return str(content or "")


def _anthropic_cache_usage(seen: set[str], body: dict[str, Any], input_tokens: int) -> dict[str, int] | None:
    """the usage split for a request with cache_control breakpoints (None without any); remembers its
    prefixes"""
    minimum = ANTHROPIC_HAIKU_MINIMUM if "haiku" in str(body.get("model", "")) else ANTHROPIC_MINIMUM
    digest, tokens, breakpoints = hashlib.sha256(), 0, []
    for block in _anthropic_blocks(body):
        digest.update(
            json.dumps({k: v for k, v in block.items() if k != "cache_control"}, sort_keys=True).encode()
        )
        tokens += count_text(_block_text(block))
        if block.get("cache_control"):
            breakpoints.append(("anthropic:" + digest.hexdigest(), min(tokens, input_tokens)))
    if not breakpoints:
        return None
    eligible = [(key, size) for key, size in breakpoints if size >= minimum]
    read = max((size for key, size in eligible if key in seen), default=0)
    written = eligible[-1][1] - read if eligible and eligible[-1][0] not in seen else 0
    seen.update(key for key, _ in eligible)
    return {
        "input_tokens": input_tokens - read - written,
        "cache_creation_input_tokens": written,
        "cache_read_input_tokens": read,
    }
