"""The coding agent's workspace (lesson 07): one project folder, and the tools that may not leave it.

Read this first, then agent.py. Beneath: `_confinement.py` (what inside the folder is still refused, its
files as the tools see them), `_grep.py`, `sandbox.py` (`SANDBOX.md`: what it misses), `_projects.py`."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any, Self

from .._browser import needs_local_install
from ..schema import Tool
from ._confinement import (
    ProjectFolder,
    ToolError,
    ToolLimits,
    encode,
    line_number,
    observation,
    plural,
    show_name,
    walk_files,
)
from ._grep import Search, glob_matches, grep_report
from ._projects import copy_project, diff, list_projects, project_files, snapshot
from .sandbox import SandboxLimits, run_sandboxed

__all__ = ["Workspace", "CORE_TOOLS", "ALL_TOOLS", "ToolError", "ToolLimits"]
__all__ += ["copy_project", "diff", "list_projects", "project_files", "snapshot"]  # practice projects

CORE_TOOLS = ("read_file", "grep", "write_file", "run_command")
ALL_TOOLS = (*CORE_TOOLS, "list_dir", "edit_file")


class Workspace:
    """one project directory: every tool reads, writes and runs only inside it.
    Workspace(root) or Workspace.from_project(name)"""

    def __init__(
        self, root: Path | str, limits: ToolLimits | None = None, sandbox: SandboxLimits | None = None
    ) -> None:
        # the search's time limit and every command need what the browser lacks (regex, processes)
        needs_local_install(
            "A workspace runs commands in processes and limits each search's time", "07 or 12"
        )
        self.folder = ProjectFolder(root, limits)  # the folder the tools may not leave
        self.root, self.limits = self.folder.root, self.folder.limits
        self.sandbox = sandbox or SandboxLimits()
        self.start = snapshot(self.root)  # what diff() compares against
        self.files_read: set[str] = set()  # paths read_file has shown to the model
        self.files_written: set[str] = set()  # paths changed by write_file or edit_file

    @classmethod
    def from_project(cls, name: str, dest_parent: Path | str | None = None, **options: Any) -> Self:
        """a workspace on a fresh copy of a practice project (see list_projects()): limits, sandbox"""
        return cls(copy_project(name, dest_parent), **options)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self.root)!r})"

    def diff(self) -> str:
        """the full unified diff of every change since this workspace was opened ("" if none)"""
        try:
            self.folder.check_root()
        except ToolError as error:
            raise RuntimeError(f"no diff: {error}") from None
        return diff(self.start, self.root)

    def tools(self, *names: str) -> list[Tool]:
        """the tools bound to this workspace: the four core ones, or the named"""
        methods: dict[str, Callable[..., str]] = {"read_file": self.read_file, "grep": self.grep}
        methods |= {"write_file": self.write_file, "run_command": self.run_command}
        methods |= {"list_dir": self.list_dir, "edit_file": self.edit_file}
        unknown = [name for name in names if name not in methods]
        if unknown:
            raise ValueError(f"unknown tool name(s) {unknown}; choose from {list(ALL_TOOLS)}")
        return [Tool(methods[name]) for name in names or CORE_TOOLS]

    # --- confinement: a path the model gives, resolved inside the folder or refused -----------------

    def resolve(self, path: object, writing: bool = False) -> Path:
        """the real path of `path` inside the workspace; ToolError for anything that leaves it"""
        if not isinstance(path, str) or not path.strip():
            raise ToolError(
                "path must be a non-empty path relative to the project root, like "
                f"'app/main.py'; got {path!r}"
            )
        if "\0" in path:
            raise ToolError("path contains a NUL character; give a plain path like 'app/main.py'")
        if os.path.isabs(path):
            raise ToolError(
                f"{path!r} is an absolute path; paths are relative to the project root, like 'app/main.py'"
            )
        candidate = self.root / path
        if not Path(os.path.normpath(candidate)).is_relative_to(self.root):
            raise ToolError(f"{path!r} is outside the workspace: '..' cannot go above the project root")
        try:
            real = candidate.resolve()  # follows every symlink on the way
        except (OSError, RuntimeError):
            raise ToolError(f"{path!r} cannot be resolved (a symlink loop?)") from None
        if not real.is_relative_to(self.root):
            raise ToolError(
                f"{path!r} leads outside the workspace through a symbolic link; it cannot be used"
            )
        problem = self.folder.refused(path, real, writing)  # .git, hidden folders, hard links
        if problem:
            raise ToolError(problem)
        return real

    def existing_file(self, path: str, writing: bool = False) -> Path:
        """the real path of an existing regular file inside the workspace; ToolError otherwise"""
        file = self.resolve(path, writing)
        if not file.exists():
            raise ToolError(self.folder.missing(path))
        if file.is_dir():
            raise ToolError(f"{path!r} is a folder, not a file; use list_dir({path!r}) to see its files")
        if not file.is_file():
            raise ToolError(
                f"{path!r} is not a regular file (a device or a pipe); only text files can be read"
            )
        return file

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
        shown, lines = self.folder.show(file), self.folder.read_text(file).splitlines()
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
                lines = self.folder.read_text(path).splitlines()
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
        self.folder.check_size(len(data), "content")
        file = self.resolve(path, writing=True)
        if file.is_dir():
            raise ToolError(f"{path!r} is a folder; give the path of a file inside it")
        if file.exists() and not file.is_file():
            raise ToolError(f"{path!r} is not a regular file (a device or a pipe)")
        replaced = f" (replaced {plural(file.stat().st_size, 'byte')})" if file.exists() else ""
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_bytes(data)
        self.files_written.add(shown := self.folder.show(file))
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

    @observation
    def list_dir(self, path: str = ".") -> str:
        """List every file under a folder of the project, with its size.

        Use it to see how the project is laid out before searching or reading. Hidden folders
        (.git...) and caches are left out.

        Args:
            path: Folder relative to the project root, e.g. "app". Leave it out to list
                the whole project.
        """
        folder = self.resolve(path)
        if not folder.exists():
            raise ToolError(self.folder.missing(path))
        if not folder.is_dir():
            raise ToolError(f"{path!r} is a file, not a folder; use read_file to read it")
        shown = self.folder.show(folder)
        prefix = "" if shown == "." else shown + "/"
        files = walk_files(folder)
        listed = files[: self.limits.max_listed]
        report = [f"{plural(len(files), 'file')} under {prefix or './'}"]
        report += [f"{show_name(prefix + name)}  ({plural(p.stat().st_size, 'byte')})" for name, p in listed]
        if len(files) > len(listed):
            report.append(f"[... {len(files) - len(listed)} more files not shown; list a subfolder]")
        return "\n".join(report)

    @observation
    def edit_file(self, path: str, old_text: str, new_text: str) -> str:
        """Replace one exact piece of a file with new text; the rest of the file stays as it is.

        Use it for small changes. old_text must appear exactly once in the file, character
        for character (indentation included, without read_file's line numbers); include a
        few surrounding lines if it is not unique.

        Args:
            path: File path relative to the project root, e.g. "app/roles.py".
            old_text: The exact text to replace, copied from the file.
            new_text: The text to put in its place.
        """
        for name, value in (("old_text", old_text), ("new_text", new_text)):
            if not isinstance(value, str):
                raise ToolError(f"{name} must be a string, not {type(value).__name__}")
        if not old_text:
            raise ToolError("old_text is empty; copy the exact lines to replace from the file")
        file = self.existing_file(path, writing=True)
        shown = self.folder.show(file)
        text = self.folder.read_text(file)
        line = _the_one_place(text, old_text, shown)
        if old_text == new_text:
            raise ToolError("old_text and new_text are the same; nothing would change")
        data = encode(text.replace(old_text, new_text, 1))
        self.folder.check_size(len(data), "the edited file")
        file.write_bytes(data)
        self.files_written.add(shown)
        old_lines, new_lines = len(old_text.splitlines()), len(new_text.splitlines())
        return (
            f"edited {shown} at line {line}: replaced {plural(old_lines, 'line')} "
            f"with {plural(new_lines, 'line')}"
        )


def _the_one_place(text: str, snippet: str, shown: str) -> int:
    """the line where snippet starts in text; ToolError unless it appears exactly once"""
    starts, at = [], text.find(snippet)
    while at != -1:
        starts.append(text.count("\n", 0, at) + 1)
        at = text.find(snippet, at + len(snippet))
    if not starts:
        raise ToolError(
            f"old_text was not found in {shown}. It must match the file exactly, "
            "indentation included and without line numbers: read the file again and copy it"
        )
    if len(starts) > 1:
        where = ", ".join(map(str, starts[:10])) + (", ..." if len(starts) > 10 else "")
        raise ToolError(
            f"old_text appears {len(starts)} times in {shown} (lines {where}); include more "
            "surrounding lines so that it appears exactly once"
        )
    return starts[0]
