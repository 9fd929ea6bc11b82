"""Detectors for a coding agent's bad habits: citing unread lines, unrequested changes (lesson 07)."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable
from dataclasses import dataclass

from agent_core.coding._observations import grep_matches, read_view
from agent_core.coding.tools import Workspace
from agent_core.dispatch import Observation
from agent_core.guardrails import RejectThenStop
from agent_core.loop import AgentRun

__all__ = [
    "Citation",
    "citations",
    "shown_lines",
    "ClaimsCheck",
    "FileChanges",
    "changes_by_file",
    "DiffReview",
]


class _AnswerCheck(RejectThenStop):
    """shared by the detectors: remember what was caught, reject, stop when ignored"""

    def __init__(self, max_rejections: int = 2):
        super().__init__(max_rejections)
        self.caught: list[str] = []

    def problems(self, run: AgentRun, answer: str) -> list[str]:
        raise NotImplementedError

    def feedback(self, problems: list[str]) -> str:
        raise NotImplementedError

    def check_answer(self, run: AgentRun, answer: str) -> str | None:
        problems = self.problems(run, answer)
        if not problems:
            return None
        self.caught += problems
        return self.reject(
            self.feedback(problems),
            f"Stopped: the answer was rejected {self.max_rejections} times for the same "
            f"reason and the model did not fix it: {problems[0]}",
        )


# --- ClaimsCheck -------------------------------------------------------------------------------


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


def shown_lines(observations: Iterable[Observation]) -> dict[str, dict[int, set[str]]]:
    """path -> line number -> every text the model was shown for that line (read_file or grep)"""
    shown: dict[str, dict[int, set[str]]] = {}
    for observation in observations:
        if observation.is_error:
            continue
        if observation.name == "read_file":
            view = read_view(observation.content)
            if view:
                for number, text in view.lines.items():
                    shown.setdefault(view.path, {}).setdefault(number, set()).add(text)
        elif observation.name == "grep":
            for path, number, text in grep_matches(observation.content)[1]:
                shown.setdefault(path, {}).setdefault(number, set()).add(text)
    return shown


def _same_file(cited: str, shown: str) -> bool:
    return shown == cited or shown.endswith("/" + cited)


class ClaimsCheck(_AnswerCheck):
    """rejects a final answer that cites file lines the model was never shown in this run

    "Shown" means returned by read_file (or listed by grep) during the run; a quote in
    backticks right after the citation must match what that line said.
    """

    reason = "unverified_claims"

    def problems(self, run: AgentRun, answer: str) -> list[str]:
        shown = shown_lines(run.observations)
        problems = []
        for citation in citations(answer):
            files = [path for path in shown if _same_file(citation.path, path)]
            if not files:
                problems.append(
                    f"you cite {citation.written!r}, but {citation.path} was never shown to you in this run"
                )
                continue
            seen = {n: t for path in files for n, t in shown[path].items()}
            unseen = [n for n in citation.lines() if n not in seen]
            if unseen:
                problems.append(
                    f"you cite {citation.written!r}, but line {unseen[0]} of {citation.path} "
                    "was never shown to you in this run"
                )
            elif citation.quote and not any(
                citation.quote.strip() in text for n in citation.lines() for text in seen[n]
            ):
                actual = " / ".join(sorted(seen[citation.first]))
                problems.append(
                    f"you quote {citation.written!r} as `{citation.quote}`, but that line "
                    f"reads `{actual.strip()}`"
                )
        return problems

    def feedback(self, problems: list[str]) -> str:
        listed = "\n".join(f"- {problem}" for problem in problems)
        return (
            "Your answer points at code you have not looked at:\n"
            f"{listed}\n"
            "Read the file with read_file before you cite or quote it, check what the line "
            "really says, and then answer again."
        )


# --- DiffReview --------------------------------------------------------------------------------


@dataclass(frozen=True)
class FileChanges:
    """the lines one file lost and gained in a unified diff"""

    path: str
    removed: tuple[str, ...]
    added: tuple[str, ...]


def changes_by_file(unified_diff: str) -> list[FileChanges]:
    """split a unified diff (as Workspace.diff() writes it) into the changes of each file"""
    files: list[FileChanges] = []
    path: str | None = None
    removed: list[str] = []
    added: list[str] = []
    for line in unified_diff.splitlines():
        if line.startswith("--- "):
            if path is not None:
                files.append(FileChanges(path, tuple(removed), tuple(added)))
            path, removed, added = line[4:].removeprefix("a/"), [], []
        elif line.startswith("+++ "):
            target = line[4:].removeprefix("b/")
            if target != "/dev/null":
                path = target  # a new file's "---" line says /dev/null
        elif line.startswith("-"):
            removed.append(line[1:])
        elif line.startswith("+"):
            added.append(line[1:])
    if path is not None:
        files.append(FileChanges(path, tuple(removed), tuple(added)))
    return files


class DiffReview(_AnswerCheck):
    """reads the full diff of the workspace when the model says it is done

    Flags a comment line that was removed (and not put back elsewhere), and a change to any
    file that does not match `expected_files` (glob patterns; None accepts every file).
    The feedback shows the model the whole diff, as a reviewer would read it.
    """

    reason = "diff_review"

    def __init__(
        self,
        workspace: Workspace,
        expected_files: Iterable[str] | None = None,
        max_rejections: int = 2,
    ):
        super().__init__(max_rejections)
        self.workspace = workspace
        self.expected_files = None if expected_files is None else list(expected_files)
        self.last_diff = ""

    def problems(self, run: AgentRun, answer: str) -> list[str]:
        return self.review()

    def review(self) -> list[str]:
        """the problems in the workspace's diff right now (also kept in last_diff)"""
        self.last_diff = self.workspace.diff()
        problems = []
        for change in changes_by_file(self.last_diff):
            if self.expected_files is not None and not any(
                fnmatch.fnmatchcase(change.path, pattern) for pattern in self.expected_files
            ):
                problems.append(
                    f"{change.path} was changed, but the task is about {', '.join(self.expected_files)} only"
                )
            kept = {line.strip() for line in change.added}
            for line in change.removed:
                if line.strip().startswith("#") and line.strip() not in kept:
                    problems.append(f"{change.path} lost the comment `{line.strip()}`")
        return problems

    def feedback(self, problems: list[str]) -> str:
        listed = "\n".join(f"- {problem}" for problem in problems)
        return (
            "Before accepting your answer I read the full diff of your changes. It changes "
            f"things the task did not ask for:\n{listed}\n"
            "Put back what the fix does not need, keep only the fix, and answer again. "
            f"The diff:\n{self.last_diff}"
        )

    def __repr__(self) -> str:
        return f"DiffReview(expected_files={self.expected_files!r})"
