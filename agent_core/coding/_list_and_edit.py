"""The two tools beyond the core four: list_dir and edit_file (lesson 07)."""

from __future__ import annotations

from ._confinement import ProjectFolder, ToolError, encode, observation, plural
from ._walk import show_name, walk_files

__all__ = ["ListAndEdit"]


class ListAndEdit(ProjectFolder):
    """a project folder with list_dir and edit_file; their docstrings are what the model reads"""

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
            raise ToolError(self.missing(path))
        if not folder.is_dir():
            raise ToolError(f"{path!r} is a file, not a folder; use read_file to read it")
        shown = self.show(folder)
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
        shown = self.show(file)
        text = self.read_text(file)
        line = _the_one_place(text, old_text, shown)
        if old_text == new_text:
            raise ToolError("old_text and new_text are the same; nothing would change")
        data = encode(text.replace(old_text, new_text, 1))
        self.check_size(len(data), "the edited file")
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
