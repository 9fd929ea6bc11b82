"""The coding agent (lesson 07): four tools confined to one project folder, and a model that uses them.

Read this first. Beneath it, one module each:
- `_folder.py`: the folder the tools may not leave: paths resolved inside it, text read within limits
- `_path_rules.py`: paths inside it still refused: version control, hidden folders, hard links
- `_walk.py`: the files under a folder as the tools see them, and their names as shown
- `_grep.py`: grep's search under a time limit, and its capped report
- `_list_and_edit.py`: list_dir and edit_file, the two tools beyond these four
- `sandbox.py`: run_command's time limit, output cap and clean environment (`SANDBOX.md`: what it misses)
- `_output.py`: a command's output read until its end or the deadline, its middle cut
- `_limits.py`: the script that lowers a command's resource limits, then becomes its shell
- `_sandbox_portable.py`: the sandbox the Windows way
- `workspace.py`: practice projects, snapshots, the full diff
- `guards.py`: detectors of the agent's bad habits; `_citations.py`: the lines an answer cites
- `_verdict.py`: the project's original tests run on the agent's code
- `_coding_run.py`: one run's record, and what each guardrail caught
- `_observations.py`: the tools' answers read back (pytest reports, steady timings)
"""

from __future__ import annotations

import functools
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..dispatch import ToolRegistry
from ..loop import Guardrail, run_agent
from ..schema import Tool
from ._coding_run import CodingRun
from ._confinement import ToolError, ToolLimits, encode, line_number, observation, plural
from ._grep import Search, glob_matches, grep_report
from ._list_and_edit import ListAndEdit
from ._observations import steady_timings
from ._verdict import TEST_FILES, TestRun, project_tests
from ._walk import walk_files
from .guards import WRITING_TOOLS, coding_guards
from .sandbox import SandboxLimits, run_sandboxed
from .tiny_project import DISCOUNT_TASK

__all__ = [
    "Workspace", "ToolLimits", "ToolError", "SandboxLimits", "CORE_TOOLS", "ALL_TOOLS", "WRITING_TOOLS",
    "TASKS", "SYSTEM", "MAX_TURNS", "TEST_FILES", "steady_timings", "coding_tools", "coding_registry",
    "fresh_workspace", "TestRun", "project_tests", "coding_guards", "CodingRun", "run_coding_agent",
]  # fmt: skip

CORE_TOOLS = ("read_file", "grep", "write_file", "run_command")
ALL_TOOLS = (*CORE_TOOLS, "list_dir", "edit_file")  # WRITING_TOOLS, those that change things: guards.py


class Workspace(ListAndEdit):
    """one project directory: every tool reads, writes and runs only inside it. Workspace(root) or
    Workspace.from_project(name); the folder, its limits and diff() are a ProjectFolder (_folder.py)"""

    def tools(self, *names: str) -> list[Tool]:
        """the tools bound to this workspace: the four core ones, or the named"""
        methods: dict[str, Callable[..., str]] = {"read_file": self.read_file, "grep": self.grep}
        methods |= {"write_file": self.write_file, "run_command": self.run_command}
        methods |= {"list_dir": self.list_dir, "edit_file": self.edit_file}
        unknown = [name for name in names if name not in methods]
        if unknown:
            raise ValueError(f"unknown tool name(s) {unknown}; choose from {list(ALL_TOOLS)}")
        return [Tool(methods[name]) for name in names or CORE_TOOLS]

    # --- the four tools: their docstrings are the descriptions the model reads ---------------------

    @observation
    def read_file(self, path: str, start_line: int | None = None, end_line: int | None = None) -> str:
        """Read a text file of the project, with a line number in front of every line.

        Use it before you change a file and before you quote or cite any line of it. For a
        long file, read just the part you need with start_line and end_line.

        Args:
            path: File path relative to the project root, e.g. "app/roles.py".
            start_line: First line to show, counting from 1. Leave it out to start at line 1.
            end_line: Last line to show (included). Leave it out to read to the end.
        """
        file = self.existing_file(path)
        shown, lines = self.show(file), self.read_text(file).splitlines()
        first = line_number(start_line, "start_line", default=1)
        last = line_number(end_line, "end_line", default=max(len(lines), first))
        if last < first:
            raise ToolError(f"end_line ({last}) is before start_line ({first})")
        if lines and first > len(lines):
            raise ToolError(f"start_line {first} is past the end: {shown} has {len(lines)} lines")
        self.files_read.add(shown)
        if not lines:
            return f"{shown} (empty file, 0 lines)"
        last = min(last, len(lines))
        width = max(4, len(str(last)))
        body = "\n".join(f"{n:>{width}} | {lines[n - 1]}" for n in range(first, last + 1))
        return f"{shown} (lines {first}-{last} of {len(lines)})\n{body}"

    @observation
    def grep(self, pattern: str, file_glob: str | None = None) -> str:
        """Search the project's text files for a regular expression, line by line.

        Use it to find where something is defined or used before reading whole files. A
        specific pattern (a function or constant name) works better than a common word, which
        matches everywhere. Python regex syntax, case-sensitive (start with (?i) to ignore
        case). Answers one `path:line: text` per match, sorted by path and line; hidden
        folders such as .git are not searched.

        Args:
            pattern: Regular expression to look for, e.g. "def final_price" or "ROLES\\s*=".
            file_glob: Only search files whose path matches this pattern, e.g. "*.py" or
                "tests/*.py". Leave it out to search every file.
        """
        search = Search(pattern, self.limits.max_search_seconds)  # ToolError for a broken pattern
        if file_glob is not None and (not isinstance(file_glob, str) or not file_glob):
            raise ToolError(f"file_glob must be a pattern like '*.py', got {file_glob!r}")
        files = [(name, path) for name, path in walk_files(self.root) if glob_matches(name, file_glob)]
        if not files:
            return f"no matches: no file matches file_glob {file_glob!r}"
        matches, skipped = [], []
        for name, path in files:
            try:
                lines = self.read_text(path).splitlines()
            except ToolError:  # binary, not UTF-8 or too large: named at the end
                skipped.append(name)
                continue
            matches += [(name, n, line) for n, line in enumerate(lines, start=1) if search.found(line)]
        return grep_report(pattern, len(files), matches, skipped, self.limits)

    @observation
    def write_file(self, path: str, content: str) -> str:
        """Create a file, or replace everything in an existing one, with `content`.

        Read the file first: whatever is not in `content` is lost, comments included. For a
        small change to an existing file prefer edit_file. Missing folders are created.

        Args:
            path: File path relative to the project root, e.g. "app/roles.py".
            content: The complete new text of the file.
        """
        if not isinstance(content, str):
            raise ToolError(f"content must be a string (the whole file), not {type(content).__name__}")
        data = encode(content)
        self.check_size(len(data), "content")
        file = self.resolve(path, writing=True)
        if file.is_dir():
            raise ToolError(f"{path!r} is a folder; give the path of a file inside it")
        if file.exists() and not file.is_file():
            raise ToolError(f"{path!r} is not a regular file (a device or a pipe)")
        replaced = f" (replaced {plural(file.stat().st_size, 'byte')})" if file.exists() else ""
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_bytes(data)
        self.files_written.add(shown := self.show(file))
        written = f"{plural(len(data), 'byte')}, {plural(len(content.splitlines()), 'line')}"
        return f"wrote {shown}: {written}{replaced}" if replaced else f"created {shown}: {written}"

    @observation
    def run_command(self, command: str, timeout: float = 30) -> str:
        """Run a shell command in the project root and return its exit code and output.

        Use it to run the tests (e.g. "python -m pytest -q") and other checks. The command
        runs in the system shell (/bin/sh; cmd.exe on Windows), gets no input (nothing
        interactive), sees no secrets in its environment and is killed, with everything it
        started, after `timeout` seconds.
        Standard output and error come back together; a long output is cut in the middle.

        Args:
            command: The shell command, e.g. "python -m pytest -q".
            timeout: Seconds to wait before killing the command.
        """
        if not isinstance(command, str) or not command.strip():
            raise ToolError("command must be a non-empty shell command, e.g. 'python -m pytest -q'")
        longest = self.sandbox.max_timeout
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout <= longest:
            raise ToolError(
                f"timeout must be a number of seconds above 0 and at most {longest:g}, got {timeout!r}"
            )
        try:
            result = run_sandboxed(command, self.root, float(timeout), self.sandbox)
        except (OSError, ValueError, subprocess.SubprocessError) as error:
            raise ToolError(f"the command could not be started: {error}") from None
        return result.observation().replace(str(self.root), ".")  # no machine-specific paths


# --- the agent: a model, these tools, lesson 07's guardrails and a verdict ---------------------------

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
