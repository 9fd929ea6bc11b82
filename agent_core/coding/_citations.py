"""The line citations a final answer makes ("line 10 of discount.py", "app/roles.py:3-5"), read from its
text (lesson 07)."""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Citation", "citations"]


@dataclass(frozen=True)
class Citation:
    """a place in a file that an answer points at, and the text it quotes there (if any)"""

    path: str
    first: int
    last: int
    quote: str | None
    written: str  # the citation as it appears in the answer

    def lines(self) -> range:
        return range(self.first, self.last + 1)


_FILE = r"`?(?P<path>[\w./-]*\w\.[A-Za-z]\w*)`?"
_CITATION_FORMS = [
    # "line 10 of discount.py", "lines 3-5 in app/roles.py"
    re.compile(
        rf"\blines?\s+(?P<first>\d+)(?:\s*(?:-|–|to)\s*(?P<last>\d+))?\s+(?:of|in)\s+{_FILE}",
        re.IGNORECASE,
    ),
    # "discount.py, line 10", "discount.py line 10"
    re.compile(rf"{_FILE},?\s+lines?\s+(?P<first>\d+)(?:\s*(?:-|–|to)\s*(?P<last>\d+))?", re.I),
    # "discount.py:10", "app/roles.py:3-5"
    re.compile(rf"{_FILE}:(?P<first>\d+)(?:-(?P<last>\d+))?\b"),
]
_QUOTE_AFTER = re.compile(r"^[^`.,\n]{0,20}`(?P<quote>[^`\n]+)`")


def citations(answer: str) -> list[Citation]:
    """every line citation in the answer, in order, with the `quoted` code right after it"""
    found: dict[int, Citation] = {}
    for form in _CITATION_FORMS:
        for match in form.finditer(answer):
            if any(start < match.end() and match.start() < end for start, end in _spans(found)):
                continue  # the same citation, already read by an earlier form
            first = int(match["first"])
            last = int(match["last"] or first)
            quote = _QUOTE_AFTER.match(answer[match.end() :])
            path = match["path"].removeprefix("./")
            found[match.start()] = Citation(path, first, last, quote["quote"] if quote else None, match[0])
    return [found[start] for start in sorted(found)]


def _spans(found: dict[int, Citation]) -> list[tuple[int, int]]:
    return [(start, start + len(c.written)) for start, c in found.items()]
