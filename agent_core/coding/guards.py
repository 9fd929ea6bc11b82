"""Detectors for a coding agent's bad habits: citing unread lines, unrequested changes (lesson 07).

Beneath it: `_citations.py` reads the line citations in an answer; `_verdict.py` runs the project's
original tests on the agent's code, for VerifyBeforeDone.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable

from .._stop_reasons import StopReason
from ..dispatch import Observation
from ..guardrails import Permissions, RejectThenStop, VerifyBeforeDone
from ..loop import AgentRun, Guardrail
from ._citations import Citation, citations
from ._confinement import ProjectFolder
from ._observations import grep_matches, read_view
from ._verdict import TEST_FILES, project_tests
from ._projects import FileChanges, changes_by_file

__all__ = [
    "AnswerCheck",
    "Citation",
    "citations",
    "shown_lines",
    "ClaimsCheck",
    "FileChanges",
    "changes_by_file",
    "DiffReview",
    "EXPECTED_FILES",
    "WRITING_TOOLS",
    "coding_guards",
]

EXPECTED_FILES = {"discount": ["discount.py"], "users_api": ["app/*.py"]}
"""the files each task may change; DiffReview flags changes anywhere else"""
WRITING_TOOLS = ("write_file", "edit_file", "run_command")
"""the workspace's tools that change things: Permissions(read_only=True) refuses them"""


class AnswerCheck(RejectThenStop):
    """a judge of the final answer that keeps what it caught in the current run; rejects, then stops"""

    def __init__(self, max_rejections: int = 2) -> None:
        super().__init__(max_rejections)
        self.caught: list[str] = []
        """every problem found in this run's answers, in order"""

    def start(self, run: AgentRun) -> None:
        super().start(run)
        self.caught = []

    def problems(self, run: AgentRun, answer: str) -> list[str]:
        """what is wrong with this answer ([] if nothing)"""
        raise NotImplementedError

    def feedback(self, problems: list[str]) -> str:
        """what the model is told about those problems"""
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


class ClaimsCheck(AnswerCheck):
    """rejects a final answer that cites file lines the model was never shown in this run

    "Shown" means returned by read_file (or listed by grep) during the run; a quote in
    backticks right after the citation must match what that line said.
    """

    reason: StopReason = "unverified_claims"

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


class DiffReview(AnswerCheck):
    """reads the full diff of the workspace when the model says it is done

    Flags a comment line that was removed (and not put back elsewhere), and a change to any
    file that does not match `expected_files` (glob patterns; None accepts every file).
    The feedback shows the model the whole diff, as a reviewer would read it.
    """

    reason: StopReason = "diff_review"

    def __init__(
        self,
        workspace: ProjectFolder,
        expected_files: Iterable[str] | None = None,
        max_rejections: int = 2,
    ) -> None:
        super().__init__(max_rejections)
        self.workspace = workspace
        self.expected_files = None if expected_files is None else list(expected_files)
        self.last_diff = ""
        """the diff the last review read"""

    def start(self, run: AgentRun) -> None:
        super().start(run)
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


# --- lesson 07's guards together --------------------------------------------------------------------


def coding_guards(workspace: ProjectFolder, project: str | None = None) -> list[Guardrail]:
    """lesson 07's guardrails, one per bad habit

    - Permissions: the tests and their settings are read-only (the test editor);
    - ClaimsCheck: no citing lines that were never shown (the hallucinator);
    - DiffReview: no deleted comments, no changes outside the task's files (the comment deleter);
    - VerifyBeforeDone: "done" is accepted only when the project's own tests pass.
    """
    project = project or workspace.root.name

    def tests_pass() -> tuple[bool, str]:
        tests = project_tests(workspace, project)
        return tests.passed, tests.output

    return [
        Permissions(protected=TEST_FILES, writing_tools=WRITING_TOOLS),
        ClaimsCheck(max_rejections=1),
        DiffReview(workspace, EXPECTED_FILES.get(project), max_rejections=1),
        VerifyBeforeDone(tests_pass, max_rejections=1),
    ]
