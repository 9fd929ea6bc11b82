"""The coding agent's tools: read, search, write and run, confined to one workspace (lesson 07)."""

from __future__ import annotations

import difflib
import fnmatch
import functools
import os
import re
import stat
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

try:
    import regex
except ImportError:  # the browser edition (no WebAssembly wheel): `re`, whose matching cannot be stopped
    regex = None

from agent_core._browser import needs_local_install
from agent_core.coding.sandbox import SandboxLimits, run_sandboxed
from agent_core.coding.workspace import copy_project, diff, show_name, snapshot, unsafe_path, walk_files
from agent_core.dispatch import ERROR_PREFIX
from agent_core.schema import Tool

_PATTERN_ERRORS = (re.error, regex.error) if regex else (re.error,)

__all__ = ["Workspace", "ToolLimits", "ToolError", "CORE_TOOLS", "ALL_TOOLS"]

CORE_TOOLS = ("read_file", "grep", "write_file", "run_command")
ALL_TOOLS = (*CORE_TOOLS, "list_dir", "edit_file")


@dataclass(frozen=True)
class ToolLimits:
    """the limits of the file tools"""

    max_file_bytes: int = 200_000
    """read_file, grep, edit_file and write_file refuse files bigger than this"""
    max_matches: int = 50
    """grep shows at most this many matching lines and counts the rest"""
    max_listed: int = 200
    """list_dir shows at most this many files and counts the rest"""
    max_line_chars: int = 300
    """grep cuts matching lines longer than this"""
    max_search_seconds: float = 5.0
    """grep gives up on a pattern that takes longer than this (catastrophic backtracking)"""


class ToolError(Exception):
    """a bad tool call; the tool hands it back to the model as an 'ERROR: ...' observation"""


def _observation(method: Callable[..., str]) -> Callable[..., str]:
    """a tool never raises: a ToolError or an OS error becomes an 'ERROR: ...' observation"""

    @functools.wraps(method)
    def tool(self: Workspace, *args: Any, **kwargs: Any) -> str:
        try:
            self._check_root()
            return method(self, *args, **kwargs)
        except ToolError as error:
            return f"{ERROR_PREFIX}{error}"
        except OSError as error:  # e.g. permission denied: say it, without the absolute path
            return ERROR_PREFIX + str(error).replace(str(self.root) + os.sep, "")

    return tool


class Workspace:
    """one project directory: every tool reads, writes and runs only inside it"""

    def __init__(
        self,
        root: Path | str,
        limits: ToolLimits | None = None,
        sandbox: SandboxLimits | None = None,
    ):
        # the search's time limit and every command need what the browser lacks (regex, processes): say so
        # here, before a learner meets a search that never ends
        needs_local_install(
            "A workspace runs commands in processes and limits each search's time", "07 or 12"
        )
        self.root = Path(root).resolve()
        if not self.root.is_dir():
            raise NotADirectoryError(f"a workspace needs an existing directory, not {root}")
        self.limits = limits or ToolLimits()
        self.sandbox = sandbox or SandboxLimits()
        info = self.root.stat()
        self._root_id = (info.st_dev, info.st_ino)  # the folder itself, whatever its name leads to later
        self.start = snapshot(self.root)  # what diff() compares against
        self.files_read: set[str] = set()  # paths read_file has shown to the model
        self.files_written: set[str] = set()  # paths changed by write_file or edit_file

    @classmethod
    def from_project(cls, name: str, dest_parent: Path | str | None = None, **options: Any) -> Workspace:
        """a workspace on a fresh copy of a practice project (see list_projects())"""
        return cls(copy_project(name, dest_parent), **options)

    def tools(self, *names: str) -> list[Tool]:
        """the tools bound to this workspace: the four core ones, or the named"""
        chosen = names or CORE_TOOLS
        unknown = [name for name in chosen if name not in ALL_TOOLS]
        if unknown:
            raise ValueError(f"unknown tool name(s) {unknown}; choose from {list(ALL_TOOLS)}")
        return [self._tool(name) for name in chosen]

    def _tool(self, name: str) -> Tool:
        method = getattr(self, name)
        if name == "run_command":
            # it kills its command at the command's timeout: a dispatcher waits that long (and a
            # little more, for the kill), so the model hears the sandbox's own message
            return Tool(method, writes=True, timeout=self.sandbox.max_timeout + 5)
        return Tool(method, writes=name in ("write_file", "edit_file"))

    def diff(self) -> str:
        """the full unified diff of every change since this workspace was opened ("" if none)"""
        try:
            self._check_root()
        except ToolError as error:
            raise RuntimeError(f"no diff: {error}") from None
        return diff(self.start, self.root)

    def _check_root(self) -> None:
        """ToolError unless the workspace folder is still the folder it was, not a symlink in its place

        root was resolved once; a command can later move the folder away and put a symlink (or
        another folder) under its name, and every path below it would then lead elsewhere.
        """
        try:
            info = os.lstat(self.root)
        except OSError:
            info = None
        if info is None or stat.S_ISLNK(info.st_mode) or (info.st_dev, info.st_ino) != self._root_id:
            raise ToolError(
                "the workspace folder was removed or replaced (by a symbolic link or another folder) "
                "since the tools were given it, so no tool can use it any more. Say so in your answer"
            )

    def __repr__(self) -> str:
        return f"Workspace({str(self.root)!r})"

    # --- the tools: their docstrings are the descriptions the model reads -----------------------

    @_observation
    def read_file(self, path: str, start_line: int | None = None, end_line: int | None = None) -> str:
        """Read a text file of the project, with a line number in front of every line.

        Use it before you change a file and before you quote or cite any line of it. For a
        long file, read just the part you need with start_line and end_line.

        Args:
            path: File path relative to the project root, e.g. "app/roles.py".
            start_line: First line to show, counting from 1. Leave it out to start at line 1.
            end_line: Last line to show (included). Leave it out to read to the end.
        """
        file = self._existing_file(path)
        shown = self._show(file)
        lines = self._read_text(file).splitlines()
        total = len(lines)
        first = _line_number(start_line, "start_line", default=1)
        last = _line_number(end_line, "end_line", default=max(total, first))
        if last < first:
            raise ToolError(f"end_line ({last}) is before start_line ({first})")
        if total == 0:
            self.files_read.add(shown)
            return f"{shown} (empty file, 0 lines)"
        if first > total:
            raise ToolError(f"start_line {first} is past the end: {shown} has {total} lines")
        last = min(last, total)
        width = max(4, len(str(last)))
        body = "\n".join(f"{n:>{width}} | {lines[n - 1]}" for n in range(first, last + 1))
        self.files_read.add(shown)
        return f"{shown} (lines {first}-{last} of {total})\n{body}"

    @_observation
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
        if not isinstance(pattern, str) or not pattern:
            raise ToolError("pattern must be a non-empty regular expression, e.g. 'def main'")
        try:
            re.compile(pattern)  # Python's own messages for a bad pattern
            # the `regex` package matches the same syntax, and can stop: the model's pattern may
            # backtrack for ever, e.g. "(a|a)+$", and `re` holds the GIL while it does
            compiled = regex.compile(pattern) if regex else re.compile(pattern)
        except _PATTERN_ERRORS as error:
            raise ToolError(
                f"invalid regular expression {pattern!r}: {error}. Put a backslash before "
                "special characters you mean literally, e.g. '\\(' for '('"
            ) from None
        if file_glob is not None and (not isinstance(file_glob, str) or not file_glob):
            raise ToolError(f"file_glob must be a pattern like '*.py', got {file_glob!r}")
        files = [(n, p) for n, p in walk_files(self.root) if _glob_matches(n, file_glob)]
        if not files:
            return f"no matches: no file matches file_glob {file_glob!r}"
        shown: list[str] = []
        total, files_with_matches, skipped = 0, set(), []
        deadline = time.monotonic() + self.limits.max_search_seconds
        for name, path in files:
            text = self._searchable_text(path)
            if text is None:
                skipped.append(name)
                continue
            for number, line in enumerate(text.splitlines(), start=1):
                if self._search(compiled, line, deadline, pattern):
                    total += 1
                    files_with_matches.add(name)
                    if len(shown) < self.limits.max_matches:
                        # a name holding a newline or ':' is quoted: it cannot pass for another match
                        shown.append(f"{show_name(name)}:{number}: {self._clip(line)}")
        if total == 0:
            report = [f"no matches for {pattern!r} in {_plural(len(files), 'file')}"]
        else:
            count = _plural(total, "match", "matches")
            report = [f"{count} for {pattern!r} in {_plural(len(files_with_matches), 'file')}:"]
            report += shown
        if total > len(shown):
            report.append(
                f"[... {total - len(shown)} more matches not shown; "
                "use a more specific pattern or a file_glob]"
            )
        if skipped:
            names = ", ".join(map(show_name, skipped[:3])) + (", ..." if len(skipped) > 3 else "")
            report.append(
                f"(skipped {_plural(len(skipped), 'file')}: binary, not UTF-8 or too large: {names})"
            )
        return "\n".join(report)

    @_observation
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
        data = _encode(content)
        self._check_size(len(data), "content")
        file = self._resolve(path, writing=True)
        if file.is_dir():
            raise ToolError(f"{path!r} is a folder; give the path of a file inside it")
        existed = file.exists()
        if existed and not file.is_file():
            raise ToolError(f"{path!r} is not a regular file (a device or a pipe)")
        old_size = file.stat().st_size if existed else 0
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_bytes(data)
        shown = self._show(file)
        self.files_written.add(shown)
        written = f"{_plural(len(data), 'byte')}, {_plural(len(content.splitlines()), 'line')}"
        if existed:
            return f"wrote {shown}: {written} (replaced {_plural(old_size, 'byte')})"
        return f"created {shown}: {written}"

    @_observation
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

    @_observation
    def list_dir(self, path: str = ".") -> str:
        """List every file under a folder of the project, with its size.

        Use it to see how the project is laid out before searching or reading. Hidden folders
        (.git...) and caches are left out.

        Args:
            path: Folder relative to the project root, e.g. "app". Leave it out to list
                the whole project.
        """
        folder = self._resolve(path)
        if not folder.exists():
            raise ToolError(self._missing(path))
        if not folder.is_dir():
            raise ToolError(f"{path!r} is a file, not a folder; use read_file to read it")
        shown = self._show(folder)
        prefix = "" if shown == "." else shown + "/"
        files = walk_files(folder)
        listed = files[: self.limits.max_listed]
        report = [f"{_plural(len(files), 'file')} under {prefix or './'}"]
        report += [f"{show_name(prefix + name)}  ({_plural(p.stat().st_size, 'byte')})" for name, p in listed]
        if len(files) > len(listed):
            report.append(f"[... {len(files) - len(listed)} more files not shown; list a subfolder]")
        return "\n".join(report)

    @_observation
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
        file = self._existing_file(path, writing=True)
        shown = self._show(file)
        text = self._read_text(file)
        count = text.count(old_text)
        if count == 0:
            raise ToolError(
                f"old_text was not found in {shown}. It must match the file exactly, "
                "indentation included and without line numbers: read the file again and copy it"
            )
        if count > 1:
            starts = _lines_where(text, old_text)
            where = ", ".join(map(str, starts[:10])) + (", ..." if len(starts) > 10 else "")
            raise ToolError(
                f"old_text appears {count} times in {shown} (lines {where}); include more "
                "surrounding lines so that it appears exactly once"
            )
        if old_text == new_text:
            raise ToolError("old_text and new_text are the same; nothing would change")
        data = _encode(text.replace(old_text, new_text, 1))
        self._check_size(len(data), "the edited file")
        file.write_bytes(data)
        self.files_written.add(shown)
        line = _lines_where(text, old_text)[0]
        old_lines, new_lines = len(old_text.splitlines()), len(new_text.splitlines())
        return (
            f"edited {shown} at line {line}: replaced {_plural(old_lines, 'line')} "
            f"with {_plural(new_lines, 'line')}"
        )

    # --- helpers ---------------------------------------------------------------------------------

    def _resolve(self, path: object, writing: bool = False) -> Path:
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
        problem = unsafe_path(self.root, path, real, writing)  # .git, hidden folders, hard links
        if problem:
            raise ToolError(problem)
        return real

    def _existing_file(self, path: str, writing: bool = False) -> Path:
        file = self._resolve(path, writing)
        if not file.exists():
            raise ToolError(self._missing(path))
        if file.is_dir():
            raise ToolError(f"{path!r} is a folder, not a file; use list_dir({path!r}) to see its files")
        if not file.is_file():
            raise ToolError(
                f"{path!r} is not a regular file (a device or a pipe); only text files can be read"
            )
        return file

    def _missing(self, path: str) -> str:
        known = [name for name, _ in walk_files(self.root)]
        close = difflib.get_close_matches(PurePosixPath(path).as_posix(), known, n=3, cutoff=0.6)
        hint = f" Did you mean {' or '.join(map(repr, close))}?" if close else ""
        return f"{path!r} does not exist.{hint} Use list_dir or grep to find the right path."

    def _read_text(self, file: Path) -> str:
        shown = self._show(file)
        size = file.stat().st_size
        if size > self.limits.max_file_bytes:
            raise ToolError(
                f"{shown} is {size:,} bytes, over the {self.limits.max_file_bytes:,}-byte "
                "limit for one file; look at parts of it with run_command, e.g. "
                f'"sed -n \'1,80p\' {shown}" or "grep -n WORD {shown}"'
            )
        data = file.read_bytes()
        if b"\0" in data:
            raise ToolError(f"{shown} is a binary file (it contains NUL bytes); only text files can be read")
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise ToolError(
                f"{shown} is not UTF-8 text (byte 0x{data[error.start]:02x} "
                f"at offset {error.start}); "
                "only UTF-8 text files can be read"
            ) from None

    def _search(self, compiled: Any, line: str, deadline: float, pattern: str) -> bool:
        if regex is None:  # `re` has no timeout: a pattern that backtracks for ever hangs the search
            return compiled.search(line) is not None
        try:
            return compiled.search(line, timeout=max(deadline - time.monotonic(), 0.001)) is not None
        except TimeoutError:
            raise ToolError(
                f"the search for {pattern!r} took more than {self.limits.max_search_seconds:g} "
                "seconds and was stopped: the pattern backtracks too much (nested repeats like "
                "'(a+)+' or '(a|a)*'). Search for a simpler pattern, e.g. a plain word"
            ) from None

    def _searchable_text(self, file: Path) -> str | None:
        try:
            return self._read_text(file)
        except ToolError:
            return None

    def _check_size(self, size: int, what: str) -> None:
        if size > self.limits.max_file_bytes:
            raise ToolError(
                f"{what} is {size:,} bytes, over the {self.limits.max_file_bytes:,}-byte limit for one file"
            )

    def _show(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def _clip(self, line: str) -> str:
        line = line.rstrip()
        if len(line) <= self.limits.max_line_chars:
            return line
        return (
            line[: self.limits.max_line_chars]
            + f" [... {len(line) - self.limits.max_line_chars} characters cut]"
        )


def _line_number(value: object, name: str, default: int) -> int:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise ToolError(f"{name} must be a whole number like 10, got {value!r}")
    if value < 1:
        raise ToolError(f"{name} must be 1 or more (lines are numbered from 1), got {value}")
    return value


def _glob_matches(name: str, file_glob: str | None) -> bool:
    """'*.py' matches at any depth; 'tests/*.py' matches the path from the root"""
    if file_glob is None:
        return True
    return fnmatch.fnmatchcase(name, file_glob) or fnmatch.fnmatchcase(PurePosixPath(name).name, file_glob)


def _lines_where(text: str, snippet: str) -> list[int]:
    """the line numbers where each occurrence of snippet starts"""
    starts, at = [], text.find(snippet)
    while at != -1:
        starts.append(text.count("\n", 0, at) + 1)
        at = text.find(snippet, at + len(snippet))
    return starts


def _encode(text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise ToolError(f"the text cannot be saved as UTF-8: {error.reason}") from None


def _plural(count: int, word: str, plural: str | None = None) -> str:
    return f"{count:,} {word if count == 1 else plural or word + 's'}"
