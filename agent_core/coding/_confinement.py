"""lesson 07: the folder the coding tools may not leave: what inside it is still refused (version control,
hidden folders for writing, hard links leading out), its files walked without following a symlink, text
read within limits, a tool's failure as an observation (Workspace.resolve() in workspace.py uses it)."""

from __future__ import annotations

import difflib
import functools
import json
import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Concatenate, ParamSpec, Protocol, TypeVar

from .._shared import failure

__all__ = [
    "ToolError",
    "ToolLimits",
    "ProjectFolder",
    "InFolder",
    "observation",
    "line_number",
    "encode",
    "plural",
]
__all__ += [
    "VCS_DIRS",
    "SKIPPED_DIRS",
    "is_skipped_dir",
    "walk",
    "walk_files",
    "has_link_outside",
    "show_name",
]

P = ParamSpec("P")

VCS_DIRS = {".git", ".hg", ".svn", ".bzr"}  # version control: hooks and config run commands
# characters HFS+ (macOS) ignores in names, so ".g\u200cit" is ".git" there (git's is_hfs_dotgit)
_IGNORED_BY_HFS = dict.fromkeys(
    map(
        ord,
        "\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u206a\u206b\u206c\u206d\u206e\u206f\ufeff",
    )
)

SKIPPED_DIRS = {"__pycache__", "node_modules"}


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
    """one project directory, resolved once: its limits, whether it is still the same folder, what inside
    it is refused, and its text files read within limits"""

    def __init__(self, root: Path | str, limits: ToolLimits | None = None) -> None:
        self.root = Path(root).resolve()
        if not self.root.is_dir():
            raise NotADirectoryError(f"a workspace needs an existing directory, not {root}")
        self.limits = limits or ToolLimits()
        info = self.root.stat()
        self._root_id = (info.st_dev, info.st_ino)  # the folder itself, whatever its name leads to later

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

    def refused(self, path: str, real: Path, writing: bool) -> str | None:
        """why the file tools must not use `path` (resolved to `real`, inside root); None if they may

        - Version-control metadata (.git, .hg, .svn, .bzr), read or written: a hook or a config
          entry such as core.fsmonitor planted there runs on your next `git status`, outside every
          limit, and a remote URL there may hold a token. Names are compared as Windows and macOS
          compare them: case-folded, without trailing dots and spaces, an NTFS stream (":...") or
          the characters HFS+ ignores, and "git~1" (the NTFS short name of .git), as git's own
          is_ntfs_dotgit() and is_hfs_dotgit() do (CVE-2014-9390, CVE-2019-1352).
        - Writing into a hidden folder or a cache (.github, .vscode, .husky, __pycache__...): editors,
          CI and hook managers run what is there, and diff() does not show it, so nobody reviews it.
        - A regular file with a hard link outside the workspace (see has_link_outside).
        """
        inside = real.relative_to(self.root).parts
        asked = [part for part in path.replace("\\", "/").split("/") if part not in ("", ".")]
        for name in [*asked, *inside]:
            folded = _as_windows_and_macos_see_it(name)
            if folded in VCS_DIRS or (folded.startswith("git~") and folded[4:].isdigit()):
                return (
                    f"{path!r} is inside version-control metadata ({name}): hooks and config there run "
                    "commands outside the sandbox the next time git (or hg, svn) is used, so the tools "
                    "never touch it. Change the project's files instead"
                )
        if writing:
            for name in inside[:-1]:
                if is_skipped_dir(_as_windows_and_macos_see_it(name)):
                    return (
                        f"{path!r} is inside the hidden or cache folder {name!r}: editors, CI and git hooks "
                        "run files from such folders, and the review diff does not show them, so the "
                        "tools do not write there"
                    )
        if has_link_outside(self.root, real):
            return (
                f"{path!r} is a hard link to a file that also has a name outside the workspace; like a "
                "symbolic link leading out, it cannot be used"
            )
        return None

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


class InFolder(Protocol):
    """what a tool's owner has: the folder its tools are confined to"""

    @property
    def folder(self) -> ProjectFolder: ...


Owner = TypeVar("Owner", bound=InFolder)


def observation(method: Callable[Concatenate[Owner, P], str]) -> Callable[Concatenate[Owner, P], str]:
    """a tool never raises: a ToolError or an OS error becomes an 'ERROR: ...' observation"""

    @functools.wraps(method)
    def tool(self: Owner, /, *args: P.args, **kwargs: P.kwargs) -> str:
        try:
            self.folder.check_root()
            return method(self, *args, **kwargs)
        except ToolError as error:
            return failure(str(error))
        except OSError as error:  # e.g. permission denied: say it, without the absolute path
            return failure(str(error).replace(str(self.folder.root) + os.sep, ""))

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


def _as_windows_and_macos_see_it(name: str) -> str:
    return name.translate(_IGNORED_BY_HFS).split(":", 1)[0].rstrip(". ").casefold()


# --- the files under a folder as the tools see them ----------------------------------------


def is_skipped_dir(name: str) -> bool:
    """directories the tools never look into: hidden ones (.git, .pytest_cache...) and caches"""
    return name.startswith(".") or name in SKIPPED_DIRS


def walk(root: Path, skip_hidden: bool = True) -> Iterator[tuple[str, list[str], list[str], list[str]]]:
    """(folder, its folders, its other files, its symlinks) for root and every folder under it

    Like os.walk, but with a list instead of recursion, so a tree thousands of folders deep is
    walked too, and symlinks in a list of their own, never followed. A folder that cannot be
    listed (no permission, a path longer than the system allows) is passed over, as os.walk does.
    """
    pending = [os.fspath(root)]
    while pending:
        folder = pending.pop()
        dirs, files, links = [], [], []
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    try:
                        if entry.is_symlink():
                            links.append(entry.name)
                        elif entry.is_dir(follow_symlinks=False):
                            dirs.append(entry.name)
                        else:
                            files.append(entry.name)
                    except OSError:
                        continue
        except OSError:
            continue
        if skip_hidden:
            dirs = [d for d in dirs if not is_skipped_dir(d)]
        yield folder, dirs, files, links
        pending += [os.path.join(folder, d) for d in reversed(sorted(dirs))]


def walk_files(root: Path) -> list[tuple[str, Path]]:
    """(relative posix path, path) of every regular file under root, sorted by path

    Hidden directories and caches are skipped, and so are symlinks (they may point anywhere)
    and hard links to files with a name outside root (see has_link_outside).
    """
    found = []
    for folder, _, files, _ in walk(root):
        for name in files:
            path = Path(folder, name)
            try:
                regular = path.is_file() and not has_link_outside(root, path)
            except OSError:  # e.g. a path longer than the system allows
                continue
            if regular:
                found.append((path.relative_to(root).as_posix(), path))
    return sorted(found)


def has_link_outside(root: Path, file: Path) -> bool:
    """True if a regular file has more names (hard links) than the workspace holds

    The same file under another name: reading or writing it reaches outside, as a symlink would.
    st_nlink counts a file's names; if the workspace holds fewer of them, one is elsewhere.
    """
    try:
        info = file.lstat()
    except OSError:
        return False  # it does not exist (yet)
    if not stat.S_ISREG(info.st_mode) or info.st_nlink <= 1:
        return False
    names_inside = 0
    for folder, _, files, _ in walk(root, skip_hidden=False):  # symlinks are not followed
        for name in files:
            try:
                other = os.lstat(os.path.join(folder, name))
            except OSError:
                continue
            if (other.st_dev, other.st_ino) == (info.st_dev, info.st_ino):
                names_inside += 1
                if names_inside == info.st_nlink:
                    return False
    return True


def show_name(name: str) -> str:
    """a file name as tools show it: as it is, or quoted with escapes when it holds a character
    that could pass for the next line or the next field (newline, ':', invisible ones), as git's
    core.quotePath quotes names"""
    if name.isprintable() and not any(char in name for char in ':"\\'):
        return name
    escaped = "".join(
        char if char.isprintable() and char not in '"\\' else json.dumps(char)[1:-1] for char in name
    )
    return f'"{escaped}"'
