"""lesson 00: token counts without tiktoken: cl100k_base's byte-pair merges in pure Python, for the
browser edition."""

from __future__ import annotations

import re
import sys
import unicodedata
from collections.abc import Callable
from functools import lru_cache

__all__ = ["PureEncoding", "last_safe_cut"]


def _ranges(predicate: Callable[[str], bool]) -> str:
    """a character class body (a-b ranges) of every code point whose category passes `predicate`"""
    parts: list[str] = []
    start: int | None = None
    previous = 0
    for point in range(sys.maxunicode + 1):
        if predicate(unicodedata.category(chr(point))):
            if start is None:
                start = point
            previous = point
        elif start is not None:  # previous is the last point of this run
            parts.append(re.escape(chr(start)) + ("-" + re.escape(chr(previous)) if previous > start else ""))
            start = None
    if start is not None:
        parts.append(re.escape(chr(start)) + "-" + re.escape(chr(previous)))
    return "".join(parts)


@lru_cache(maxsize=1)
def _pre_tokenizer() -> re.Pattern[str]:
    """cl100k_base's pattern for `re`: \\p{L} and \\p{N} spelled out as ranges (re has no \\p{...})"""
    letter, number = _ranges(lambda c: c[0] == "L"), _ranges(lambda c: c[0] == "N")
    return re.compile(
        rf"""'(?i:[sdmt]|ll|ve|re)|[^\r\n{letter}{number}]?+[{letter}]++|[{number}]{{1,3}}+"""
        rf"""| ?[^\s{letter}{number}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
    )


class PureEncoding:
    """encode_ordinary() as tiktoken's Encoding does it: split by the pattern, then merge each piece's
    bytes, the lowest-ranked adjacent pair first, until no pair is in the ranks"""

    def __init__(self, name: str, mergeable_ranks: dict[bytes, int]) -> None:
        self.name = name
        self._ranks = mergeable_ranks
        self._bytes = {rank: token for token, rank in mergeable_ranks.items()}

    def encode_ordinary(self, text: str) -> list[int]:
        tokens: list[int] = []
        for piece in _pre_tokenizer().findall(text):
            tokens += self._merge(piece.encode("utf-8"))
        return tokens

    def decode(self, tokens: list[int]) -> str:
        """the text of these tokens; a character cut in half shows as U+FFFD, as tiktoken shows it"""
        return b"".join(self._bytes[token] for token in tokens).decode("utf-8", errors="replace")

    def _merge(self, piece: bytes) -> list[int]:
        ranks = self._ranks
        if piece in ranks:
            return [ranks[piece]]
        parts = [piece[i : i + 1] for i in range(len(piece))]
        while len(parts) > 1:
            best, best_rank = -1, None
            for i in range(len(parts) - 1):
                rank = ranks.get(parts[i] + parts[i + 1])
                if rank is not None and (best_rank is None or rank < best_rank):
                    best, best_rank = i, rank
            if best_rank is None:
                break
            parts[best : best + 2] = [parts[best] + parts[best + 1]]
        return [ranks[part] for part in parts]


@lru_cache(maxsize=1)
def _safe_cut() -> re.Pattern[str]:
    letter = _ranges(lambda c: c[0] == "L")
    return re.compile(rf"(?<=[{letter}])(?=[^{letter}])|(?<=\S)(?= \S)|(?<=\n)(?=\S)")


def last_safe_cut(text: str, start: int, end: int) -> int | None:
    """the last place in text[start:end] where cl100k_base's pattern always splits (as tokens.py's
    regex finds it searching backwards), or None"""
    cuts = [match.start() for match in _safe_cut().finditer(text, start, end)]
    return cuts[-1] if cuts else None
