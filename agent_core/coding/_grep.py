"""lesson 07: grep's search: a pattern checked, matched with the `regex` package under a time limit, the
matches reported with a cap."""

from __future__ import annotations

import fnmatch
import re
import time
from pathlib import PurePosixPath
from typing import Any

from ._confinement import ToolError, ToolLimits, plural, show_name

try:
    import regex
except ImportError:  # the browser edition (no WebAssembly wheel): `re`, whose matching cannot be stopped
    regex = None

__all__ = ["Search", "glob_matches", "grep_report"]

_PATTERN_ERRORS = (re.error, regex.error) if regex else (re.error,)


class Search:
    """one pattern, matched line by line until `seconds` have passed since it was made"""

    def __init__(self, pattern: object, seconds: float) -> None:
        if not isinstance(pattern, str) or not pattern:
            raise ToolError("pattern must be a non-empty regular expression, e.g. 'def main'")
        try:
            re.compile(pattern)  # Python's own messages for a bad pattern
            # the `regex` package matches the same syntax, and can stop: the model's pattern may
            # backtrack for ever, e.g. "(a|a)+$", and `re` holds the GIL while it does
            self.compiled: Any = regex.compile(pattern) if regex else re.compile(pattern)
        except _PATTERN_ERRORS as error:
            raise ToolError(
                f"invalid regular expression {pattern!r}: {error}. Put a backslash before "
                "special characters you mean literally, e.g. '\\(' for '('"
            ) from None
        self.pattern, self.seconds = pattern, seconds
        self.deadline = time.monotonic() + seconds

    def found(self, line: str) -> bool:
        """whether the pattern matches somewhere in the line; ToolError once the time is up"""
        if regex is None:  # `re` has no timeout: a pattern that backtracks for ever hangs the search
            return self.compiled.search(line) is not None
        try:
            return (
                self.compiled.search(line, timeout=max(self.deadline - time.monotonic(), 0.001)) is not None
            )
        except TimeoutError:
            raise ToolError(
                f"the search for {self.pattern!r} took more than {self.seconds:g} "
                "seconds and was stopped: the pattern backtracks too much (nested repeats like "
                "'(a+)+' or '(a|a)*'). Search for a simpler pattern, e.g. a plain word"
            ) from None


def glob_matches(name: str, file_glob: str | None) -> bool:
    """'*.py' matches at any depth; 'tests/*.py' matches the path from the root"""
    if file_glob is None:
        return True
    return fnmatch.fnmatchcase(name, file_glob) or fnmatch.fnmatchcase(PurePosixPath(name).name, file_glob)


def grep_report(
    pattern: str, searched: int, matches: list[tuple[str, int, str]], skipped: list[str], limits: ToolLimits
) -> str:
    """what grep answers: a count, one `path:line: text` per match up to the cap, what was left out"""
    if not matches:
        report = [f"no matches for {pattern!r} in {plural(searched, 'file')}"]
    else:
        files = len({name for name, _, _ in matches})
        report = [f"{plural(len(matches), 'match', 'matches')} for {pattern!r} in {plural(files, 'file')}:"]
        # a name holding a newline or ':' is quoted: it cannot pass for another match
        report += [f"{show_name(n)}:{k}: {_clip(t, limits)}" for n, k, t in matches[: limits.max_matches]]
    if len(matches) > limits.max_matches:
        report.append(
            f"[... {len(matches) - limits.max_matches} more matches not shown; "
            "use a more specific pattern or a file_glob]"
        )
    if skipped:
        names = ", ".join(map(show_name, skipped[:3])) + (", ..." if len(skipped) > 3 else "")
        report.append(f"(skipped {plural(len(skipped), 'file')}: binary, not UTF-8 or too large: {names})")
    return "\n".join(report)


def _clip(line: str, limits: ToolLimits) -> str:
    line = line.rstrip()
    if len(line) <= limits.max_line_chars:
        return line
    return line[: limits.max_line_chars] + f" [... {len(line) - limits.max_line_chars} characters cut]"
