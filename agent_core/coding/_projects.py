"""lesson 07: practice projects for the coding agent: fresh copies, snapshots and the full diff.

A folder is walked as the tools see it (`_confinement.walk`: no symlinks followed, hidden folders skipped).
"""

from __future__ import annotations

import difflib
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from ._confinement import is_skipped_dir, show_name, walk, walk_files

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

__all__ = [
    "list_projects",
    "copy_project",
    "project_files",
    "snapshot",
    "Link",
    "diff",
    "FileChanges",
    "changes_by_file",
]


def _projects() -> Traversable:
    return resources.files("agent_core.coding") / "projects"


def list_projects() -> list[str]:
    """the names of the practice projects shipped with the package"""
    return sorted(p.name for p in _projects().iterdir() if p.is_dir() and not is_skipped_dir(p.name))


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
            if not is_skipped_dir(item.name):
                _copy_tree(item, dest / item.name)
        elif not item.name.endswith(".pyc"):
            (dest / item.name).write_bytes(item.read_bytes())


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
    for folder, _, _, links in walk(root):
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
                if not is_skipped_dir(child.name):
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


def _lines(data: bytes | None) -> list[str]:
    return [] if data is None else data.decode("utf-8", errors="replace").splitlines(keepends=True)


def _end_line(line: str) -> str:
    return line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"


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
