"""Practice projects for the coding agent: fresh copies, snapshots and the full diff (lesson 07)."""

from __future__ import annotations

import difflib
import os
import tempfile
from collections.abc import Mapping
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
    "is_skipped_dir",
]

SKIPPED_DIRS = {"__pycache__", "node_modules"}


def is_skipped_dir(name: str) -> bool:
    """directories the tools never look into: hidden ones (.git, .pytest_cache...) and caches"""
    return name.startswith(".") or name in SKIPPED_DIRS


def _projects() -> Traversable:
    return resources.files("agent_core.coding") / "projects"


def list_projects() -> list[str]:
    """the names of the practice projects shipped with the package"""
    return sorted(
        p.name for p in _projects().iterdir() if p.is_dir() and not is_skipped_dir(p.name)
    )


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


def walk_files(root: Path) -> list[tuple[str, Path]]:
    """(relative posix path, path) of every regular file under root, sorted by path

    Hidden directories and caches are skipped, and so are symlinks (they may point anywhere).
    """
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not is_skipped_dir(d)]
        for name in files:
            path = Path(folder, name)
            if path.is_file() and not path.is_symlink():
                found.append((path.relative_to(root).as_posix(), path))
    return sorted(found)


def snapshot(root: Path | str) -> dict[str, bytes]:
    """every file under root as {relative path: bytes}, sorted by path: what diff() compares"""
    return {name: path.read_bytes() for name, path in walk_files(Path(root))}


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
        if a == b:
            continue
        if b"\0" in (a or b"") or b"\0" in (b or b""):
            parts.append(f"Binary file {name} differs\n")
            continue
        lines = difflib.unified_diff(
            _lines(a),
            _lines(b),
            fromfile=f"a/{name}" if a is not None else "/dev/null",
            tofile=f"b/{name}" if b is not None else "/dev/null",
        )
        parts.extend(_end_line(line) for line in lines)
    return "".join(parts)


def _lines(data: bytes | None) -> list[str]:
    return [] if data is None else data.decode("utf-8", errors="replace").splitlines(keepends=True)


def _end_line(line: str) -> str:
    return line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
