"""Practice projects for the coding agent: fresh copies, snapshots and the full diff (lesson 07)."""

from __future__ import annotations

import difflib
import json
import os
import stat
import tempfile
from collections.abc import Iterator, Mapping
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

__all__ = [
    "list_projects",
    "copy_project",
    "snapshot",
    "diff",
    "project_files",
    "walk_files",
    "unsafe_path",
    "Link",
    "show_name",
]

SKIPPED_DIRS = {"__pycache__", "node_modules"}
VCS_DIRS = {".git", ".hg", ".svn", ".bzr"}  # version control: hooks and config run commands
# characters HFS+ (macOS) ignores in names, so ".g\u200cit" is ".git" there (git's is_hfs_dotgit)
_IGNORED_BY_HFS = dict.fromkeys(
    map(
        ord,
        "\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u206a\u206b\u206c\u206d\u206e\u206f\ufeff",
    )
)


def _is_skipped_dir(name: str) -> bool:
    """directories the tools never look into: hidden ones (.git, .pytest_cache...) and caches"""
    return name.startswith(".") or name in SKIPPED_DIRS


def unsafe_path(root: Path, path: str, real: Path, writing: bool) -> str | None:
    """why the file tools must not use `path` (resolved to `real`, inside root); None if they may

    - Version-control metadata (.git, .hg, .svn, .bzr), read or written: a hook or a config
      entry such as core.fsmonitor planted there runs on your next `git status`, outside every
      limit, and a remote URL there may hold a token. Names are compared as Windows and macOS
      compare them: case-folded, without trailing dots and spaces, an NTFS stream (":...") or
      the characters HFS+ ignores, and "git~1" (the NTFS short name of .git), as git's own
      is_ntfs_dotgit() and is_hfs_dotgit() do (CVE-2014-9390, CVE-2019-1352).
    - Writing into a hidden folder or a cache (.github, .vscode, .husky, __pycache__...): editors,
      CI and hook managers run what is there, and diff() does not show it, so nobody reviews it.
    - A regular file with a hard link outside the workspace: the same file under another name,
      so reading or writing it reaches outside, as a symlink would. st_nlink counts a file's
      names; if the workspace holds fewer of them, one is elsewhere.
    """
    inside = real.relative_to(root).parts
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
            if _is_skipped_dir(_as_windows_and_macos_see_it(name)):
                return (
                    f"{path!r} is inside the hidden or cache folder {name!r}: editors, CI and git hooks "
                    "run files from such folders, and the review diff does not show them, so the "
                    "tools do not write there"
                )
    if _has_link_outside(root, real):
        return (
            f"{path!r} is a hard link to a file that also has a name outside the workspace; like a "
            "symbolic link leading out, it cannot be used"
        )
    return None


def _as_windows_and_macos_see_it(name: str) -> str:
    return name.translate(_IGNORED_BY_HFS).split(":", 1)[0].rstrip(". ").casefold()


def _has_link_outside(root: Path, file: Path) -> bool:
    """True if a regular file has more names (hard links) than the workspace holds"""
    try:
        info = file.lstat()
    except OSError:
        return False  # it does not exist (yet)
    if not stat.S_ISREG(info.st_mode) or info.st_nlink <= 1:
        return False
    names_inside = 0
    for folder, _, files, _ in _walk(root, skip_hidden=False):  # symlinks are not followed
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


def _projects() -> Traversable:
    return resources.files("agent_core.coding") / "projects"


def list_projects() -> list[str]:
    """the names of the practice projects shipped with the package"""
    return sorted(p.name for p in _projects().iterdir() if p.is_dir() and not _is_skipped_dir(p.name))


def copy_project(name: str, dest_parent: Path | str | None = None) -> Path:
    """copy a practice project into a fresh temporary folder (or to dest_parent/name); return it"""
    if name not in list_projects():
        raise ValueError(f"no practice project named {name!r}; choose one of {list_projects()}")
    if dest_parent is None:
        dest = Path(tempfile.mkdtemp(prefix="agent-workspace-")) / name
    else:
        dest = Path(dest_parent) / name
        if dest.exists():
            raise FileExistsError(f"{dest} already exists: remove it or choose another dest_parent")
    _copy_tree(_projects() / name, dest)
    return dest


def _copy_tree(source: Traversable, dest: Path) -> None:
    dest.mkdir(parents=True)
    for item in source.iterdir():
        if item.is_dir():
            if not _is_skipped_dir(item.name):
                _copy_tree(item, dest / item.name)
        elif not item.name.endswith(".pyc"):
            (dest / item.name).write_bytes(item.read_bytes())


def _walk(root: Path, skip_hidden: bool = True) -> Iterator[tuple[str, list[str], list[str], list[str]]]:
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
            dirs = [d for d in dirs if not _is_skipped_dir(d)]
        yield folder, dirs, files, links
        pending += [os.path.join(folder, d) for d in reversed(sorted(dirs))]


def walk_files(root: Path) -> list[tuple[str, Path]]:
    """(relative posix path, path) of every regular file under root, sorted by path

    Hidden directories and caches are skipped, and so are symlinks (they may point anywhere)
    and hard links to files with a name outside root (see unsafe_path).
    """
    found = []
    for folder, _, files, _ in _walk(root):
        for name in files:
            path = Path(folder, name)
            try:
                regular = path.is_file() and not _has_link_outside(root, path)
            except OSError:  # e.g. a path longer than the system allows
                continue
            if regular:
                found.append((path.relative_to(root).as_posix(), path))
    return sorted(found)


class Link(bytes):
    """a symbolic link in a snapshot: its target, as bytes; never equal to a file with that text"""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Link) and bytes(self) == bytes(other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = bytes.__hash__

    def __repr__(self) -> str:
        return f"Link({os.fsdecode(bytes(self))!r})"


def snapshot(root: Path | str) -> dict[str, bytes]:
    """every file under root as {relative path: bytes}, sorted by path: what diff() compares

    A symbolic link is there too, as a Link holding its target: the tools never follow one,
    but Python, pytest and your editor do, so a link the agent made must show in the diff.
    """
    root = Path(root)
    files: dict[str, bytes] = {}
    for name, path in walk_files(root):
        try:
            files[name] = path.read_bytes()
        except OSError:  # it went away, or cannot be read: not part of the snapshot
            continue
    for folder, _, _, links in _walk(root):
        for name in links:
            path = Path(folder, name)
            try:
                files[path.relative_to(root).as_posix()] = Link(os.fsencode(os.readlink(path)))
            except OSError:
                continue
    return dict(sorted(files.items()))


def project_files(name: str) -> dict[str, bytes]:
    """the pristine files of a practice project, as a snapshot (read from the package)"""
    if name not in list_projects():
        raise ValueError(f"no practice project named {name!r}; choose one of {list_projects()}")
    files: dict[str, bytes] = {}

    def collect(item: Traversable, prefix: str) -> None:
        for child in item.iterdir():
            if child.is_dir():
                if not _is_skipped_dir(child.name):
                    collect(child, f"{prefix}{child.name}/")
            elif not child.name.endswith(".pyc"):
                files[prefix + child.name] = child.read_bytes()

    collect(_projects() / name, "")
    return dict(sorted(files.items()))


def diff(before: Path | str | Mapping[str, bytes], after: Path | str | Mapping[str, bytes]) -> str:
    """a unified diff (like `git diff`) from one directory or snapshot to another; "" if equal"""
    old = before if isinstance(before, Mapping) else snapshot(before)
    new = after if isinstance(after, Mapping) else snapshot(after)
    parts: list[str] = []
    for name in sorted(old.keys() | new.keys()):
        a, b = old.get(name), new.get(name)
        if a == b and type(a) is type(b):
            continue
        if isinstance(a, Link) or isinstance(b, Link):
            parts.append(f"Symbolic link {show_name(name)}: {_kind(a)} -> {_kind(b)}\n")
            continue
        if b"\0" in (a or b"") or b"\0" in (b or b""):
            parts.append(f"Binary file {show_name(name)} differs\n")
            continue
        lines = difflib.unified_diff(
            _lines(a),
            _lines(b),
            fromfile=show_name(f"a/{name}") if a is not None else "/dev/null",
            tofile=show_name(f"b/{name}") if b is not None else "/dev/null",
        )
        parts.extend(_end_line(line) for line in lines)
    return "".join(parts)


def _kind(data: bytes | None) -> str:
    if data is None:
        return "(none)"
    if isinstance(data, Link):
        return f"link to {show_name(os.fsdecode(bytes(data)))}"
    return f"a file of {len(data):,} bytes"


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


def _lines(data: bytes | None) -> list[str]:
    return [] if data is None else data.decode("utf-8", errors="replace").splitlines(keepends=True)


def _end_line(line: str) -> str:
    return line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
