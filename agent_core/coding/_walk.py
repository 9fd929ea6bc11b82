"""The files under a folder as the coding tools see them: walked without recursion or symlinks, hidden
folders, caches and hard links leading out left out, names quoted when they could mislead (lesson 07)."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path

__all__ = ["SKIPPED_DIRS", "is_skipped_dir", "walk", "walk_files", "has_link_outside", "show_name"]

SKIPPED_DIRS = {"__pycache__", "node_modules"}


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
