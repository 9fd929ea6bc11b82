"""Paths inside the workspace the file tools still refuse: version-control metadata, hidden folders
(for writing), hard links leading out (lesson 07)."""

from __future__ import annotations

from pathlib import Path

from ._walk import has_link_outside, is_skipped_dir

__all__ = ["VCS_DIRS", "unsafe_path"]

VCS_DIRS = {".git", ".hg", ".svn", ".bzr"}  # version control: hooks and config run commands
# characters HFS+ (macOS) ignores in names, so ".g\u200cit" is ".git" there (git's is_hfs_dotgit)
_IGNORED_BY_HFS = dict.fromkeys(
    map(
        ord,
        "\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u206a\u206b\u206c\u206d\u206e\u206f\ufeff",
    )
)


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
    - A regular file with a hard link outside the workspace (see has_link_outside).
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
            if is_skipped_dir(_as_windows_and_macos_see_it(name)):
                return (
                    f"{path!r} is inside the hidden or cache folder {name!r}: editors, CI and git hooks "
                    "run files from such folders, and the review diff does not show them, so the "
                    "tools do not write there"
                )
    if has_link_outside(root, real):
        return (
            f"{path!r} is a hard link to a file that also has a name outside the workspace; like a "
            "symbolic link leading out, it cannot be used"
        )
    return None


def _as_windows_and_macos_see_it(name: str) -> str:
    return name.translate(_IGNORED_BY_HFS).split(":", 1)[0].rstrip(". ").casefold()
