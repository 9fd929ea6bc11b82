"""The coding agent (lesson 07): a model, the workspace's tools, the guards against its bad habits, a verdict.

Read workspace.py first. Beneath: `_verdict.py` (the project's original tests run on the agent's code),
`_coding_run.py` (a run's record, what each guard caught), `_observations.py` (the tools' answers read)."""

from __future__ import annotations

import fnmatch
import functools
import re
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._stop_reasons import StopReason
from ..dispatch import Observation, ToolRegistry
from ..guardrails import WRITING_TOOLS, AnswerCheck, Permissions, VerifyBeforeDone
from ..loop import AgentRun, Guardrail, run_agent
from ..schema import Tool
from ._coding_run import CodingRun
from ._observations import grep_matches, read_view, steady_timings
from ._projects import FileChanges, changes_by_file
from ._verdict import TEST_FILES, TestRun, project_tests
from .sandbox import SandboxLimits
from .tiny_project import DISCOUNT_TASK
from .workspace import ALL_TOOLS, CORE_TOOLS, ToolError, ToolLimits, Workspace

__all__ = [
    "Workspace", "ToolLimits", "ToolError", "SandboxLimits", "CORE_TOOLS", "ALL_TOOLS", "WRITING_TOOLS",
    "TASKS", "SYSTEM", "MAX_TURNS", "TEST_FILES", "steady_timings", "coding_tools", "coding_registry",
    "fresh_workspace", "TestRun", "project_tests", "coding_guards", "CodingRun", "run_coding_agent",
    "Citation", "citations", "shown_lines", "ClaimsCheck", "DiffReview", "EXPECTED_FILES", "FileChanges",
    "changes_by_file",
]  # fmt: skip

TASKS = {
    "discount": DISCOUNT_TASK,
    "users_api": (
        "GET /users?role=editor answers 500 instead of listing the editors. Find the bug and fix it."
    ),
}
SYSTEM = (
    "You are a coding agent working in a project folder. Use the tools to read, search, change "
    "and run. The tests say what the code must do: do not change them. Read a file before you "
    "change it or cite it. When the tests pass, answer with a short summary of what you changed."
)
MAX_TURNS = 20  # a hard cap on model calls: the careful runs need 5 and 11


def coding_tools(workspace: Workspace, *names: str, steady: bool = True) -> list[Tool]:
    """the workspace's tools (the four core ones, or the named); steady=True passes run_command's
    output through steady_timings before the model sees it, so a run is the same every time"""
    tools = workspace.tools(*names)
    return [Tool(_steady(t)) if steady and t.name == "run_command" else t for t in tools]


def _steady(run_command: Tool) -> Callable[..., str]:
    @functools.wraps(run_command.function, updated=())  # its name, docstring and signature
    def steady_run_command(*args: Any, **kwargs: Any) -> str:
        return steady_timings(run_command(*args, **kwargs))

    return steady_run_command


def coding_registry(workspace: Workspace, *names: str, steady: bool = True) -> ToolRegistry:
    """coding_tools() in a ToolRegistry that waits for run_command past its longest timeout (and 5 s
    for the kill): it kills its command itself, so the model hears the sandbox's own message"""
    registry = ToolRegistry()
    for tool in coding_tools(workspace, *names, steady=steady):
        registry.add(tool, timeout=workspace.sandbox.max_timeout + 5 if tool.name == "run_command" else None)
    return registry


def fresh_workspace(project: str, parent: Path | str | None = None) -> Workspace:
    """a Workspace on a new copy of a practice project, in a new folder under parent (or the system's temp)"""
    return Workspace.from_project(project, tempfile.mkdtemp(prefix="run-", dir=parent))


def run_coding_agent(
    project: str | Workspace,
    client: Any,
    *,
    guarded: bool = False,
    guardrails: Sequence[Guardrail] = (),
    task: str | None = None,
    tool_names: Sequence[str] = CORE_TOOLS,
    max_turns: int = MAX_TURNS,
    steady: bool = True,
    verdict: bool = True,
) -> CodingRun:
    """run a coding agent on a practice project (a name: a fresh copy; or a Workspace)

    `client` is the model: an openai.OpenAI, e.g. mock.client(CarefulFixer()). guarded=True adds
    coding_guards() before `guardrails`. The task defaults to the project's entry in TASKS.
    Returns the run, the full diff and (verdict=True) the project's own tests run on the final code.
    """
    workspace = project if isinstance(project, Workspace) else fresh_workspace(project)
    name = workspace.root.name
    guards = [*(coding_guards(workspace, name) if guarded else []), *guardrails]
    tools = coding_registry(workspace, *tool_names, steady=steady)
    run = run_agent(client, task or TASKS[name], tools, system=SYSTEM, max_turns=max_turns, guardrails=guards)
    tests = project_tests(workspace, name) if verdict else None
    return CodingRun(name, workspace, run, guards, workspace.diff(), tests)


# --- what the model was shown, and what its answer cites (exercise 7.2) ------------------------------


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


# --- the guards: one per bad habit ------------------------------------------------------------------

EXPECTED_FILES = {"discount": ["discount.py"], "users_api": ["app/*.py"]}
"""the files each task may change; DiffReview flags changes anywhere else"""


def _reject_or_stop(guard: AnswerCheck, feedback: str, problems: list[str]) -> str:
    return guard.reject(
        feedback,
        f"Stopped: the answer was rejected {guard.max_rejections} times for the same "
        f"reason and the model did not fix it: {problems[0]}",
    )


class ClaimsCheck(AnswerCheck):
    """rejects a final answer that cites file lines the model was never shown in this run

    "Shown" means returned by read_file (or listed by grep) during the run; a quote in
    backticks right after the citation must match what that line said.
    """

    reason: StopReason = "unverified_claims"

    def __init__(self, max_rejections: int = 2) -> None:
        super().__init__(max_rejections=max_rejections)

    def problems(self, run: AgentRun, answer: str) -> list[str]:
        shown = shown_lines(run.observations)
        problems = []
        for citation in citations(answer):
            files = [path for path in shown if path == citation.path or path.endswith("/" + citation.path)]
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

    def rejected(self, problems: list[str]) -> str:
        listed = "\n".join(f"- {problem}" for problem in problems)
        feedback = (
            "Your answer points at code you have not looked at:\n"
            f"{listed}\n"
            "Read the file with read_file before you cite or quote it, check what the line "
            "really says, and then answer again."
        )
        return _reject_or_stop(self, feedback, problems)


class DiffReview(AnswerCheck):
    """reads the full diff of the workspace when the model says it is done

    Flags a comment line that was removed (and not put back elsewhere), and a change to any
    file that does not match `expected_files` (glob patterns; None accepts every file).
    The feedback shows the model the whole diff, as a reviewer would read it.
    """

    reason: StopReason = "diff_review"

    def __init__(
        self,
        workspace: Workspace,
        expected_files: Iterable[str] | None = None,
        max_rejections: int = 2,
    ) -> None:
        super().__init__(max_rejections=max_rejections)
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

    def rejected(self, problems: list[str]) -> str:
        listed = "\n".join(f"- {problem}" for problem in problems)
        feedback = (
            "Before accepting your answer I read the full diff of your changes. It changes "
            f"things the task did not ask for:\n{listed}\n"
            "Put back what the fix does not need, keep only the fix, and answer again. "
            f"The diff:\n{self.last_diff}"
        )
        return _reject_or_stop(self, feedback, problems)

    def __repr__(self) -> str:
        return f"DiffReview(expected_files={self.expected_files!r})"


def coding_guards(workspace: Workspace, project: str | None = None) -> list[Guardrail]:
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
        Permissions(protected=TEST_FILES),
        ClaimsCheck(max_rejections=1),
        DiffReview(workspace, EXPECTED_FILES.get(project), max_rejections=1),
        VerifyBeforeDone(tests_pass, max_rejections=1),
    ]
