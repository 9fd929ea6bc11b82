"""The project folder the coding tools are confined to: paths resolved inside it or refused, text files read
and written within limits, a tool's failure turned into an observation (lesson 07)."""

from __future__ import annotations

import difflib
import functools
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, Concatenate, ParamSpec, Self, TypeVar

from .._browser import needs_local_install
from .._shared import failure
from ._path_rules import unsafe_path
from ._walk import walk_files
from .sandbox import SandboxLimits
from .workspace import copy_project, diff, snapshot

__all__ = ["ToolError", "ToolLimits", "ProjectFolder", "observation", "line_number", "encode", "plural"]

P = ParamSpec("P")


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


class ProjectFolder:
    """one project directory, resolved once: its limits, what it held at the start, and its paths"""

    def __init__(
        self, root: Path | str, limits: ToolLimits | None = None, sandbox: SandboxLimits | None = None
    ) -> None:
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
    def from_project(cls, name: str, dest_parent: Path | str | None = None, **options: Any) -> Self:
        """a workspace on a fresh copy of a practice project (see list_projects())"""
        return cls(copy_project(name, dest_parent), **options)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self.root)!r})"

    def diff(self) -> str:
        """the full unified diff of every change since this workspace was opened ("" if none)"""
        try:
            self.check_root()
        except ToolError as error:
            raise RuntimeError(f"no diff: {error}") from None
        return diff(self.start, self.root)

    def check_root(self) -> None:
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
        problem = unsafe_path(self.root, path, real, writing)  # .git, hidden folders, hard links
        if problem:
            raise ToolError(problem)
        return real

    def existing_file(self, path: str, writing: bool = False) -> Path:
        """the real path of an existing regular file inside the workspace; ToolError otherwise"""
        file = self.resolve(path, writing)
        if not file.exists():
            raise ToolError(self.missing(path))
        if file.is_dir():
            raise ToolError(f"{path!r} is a folder, not a file; use list_dir({path!r}) to see its files")
        if not file.is_file():
            raise ToolError(
                f"{path!r} is not a regular file (a device or a pipe); only text files can be read"
            )
        return file

    def missing(self, path: str) -> str:
        """'path' does not exist, with the closest names that do"""
        known = [name for name, _ in walk_files(self.root)]
        close = difflib.get_close_matches(PurePosixPath(path).as_posix(), known, n=3, cutoff=0.6)
        hint = f" Did you mean {' or '.join(map(repr, close))}?" if close else ""
        return f"{path!r} does not exist.{hint} Use list_dir or grep to find the right path."

    def read_text(self, file: Path) -> str:
        """the file's text; ToolError when it is too large, binary or not UTF-8"""
        shown = self.show(file)
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

    def check_size(self, size: int, what: str) -> None:
        """ToolError when text about to be written is larger than one file may be"""
        if size > self.limits.max_file_bytes:
            raise ToolError(
                f"{what} is {size:,} bytes, over the {self.limits.max_file_bytes:,}-byte limit for one file"
            )

    def show(self, path: Path) -> str:
        """a path as the model sees it: relative to the project root, with '/'"""
        return path.relative_to(self.root).as_posix()


Folder = TypeVar("Folder", bound="ProjectFolder")


def observation(method: Callable[Concatenate[Folder, P], str]) -> Callable[Concatenate[Folder, P], str]:
    """a tool never raises: a ToolError or an OS error becomes an 'ERROR: ...' observation"""

    @functools.wraps(method)
    def tool(self: Folder, /, *args: P.args, **kwargs: P.kwargs) -> str:
        try:
            self.check_root()
            return method(self, *args, **kwargs)
        except ToolError as error:
            return failure(str(error))
        except OSError as error:  # e.g. permission denied: say it, without the absolute path
            return failure(str(error).replace(str(self.root) + os.sep, ""))

    return tool


def line_number(value: object, name: str, default: int) -> int:
    """a line number the model gave (None: the default); ToolError unless a whole number from 1"""
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise ToolError(f"{name} must be a whole number like 10, got {value!r}")
    if value < 1:
        raise ToolError(f"{name} must be 1 or more (lines are numbered from 1), got {value}")
    return value


def encode(text: str) -> bytes:
    """the text as UTF-8 bytes; ToolError when it cannot be (a lone surrogate)"""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise ToolError(f"the text cannot be saved as UTF-8: {error.reason}") from None


def plural(count: int, word: str, plural: str | None = None) -> str:
    """'1 file', '3 files', '2 matches'"""
    return f"{count:,} {word if count == 1 else plural or word + 's'}"
