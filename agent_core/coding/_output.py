"""lesson 07: a command's output as the sandbox reads it: chunks until the end or the deadline, only its first
and last characters kept."""

from __future__ import annotations

import codecs
import subprocess
import time
from collections.abc import Callable

from .._shared import keep_ends

__all__ = ["OutputCap", "NextChunk", "read_until_done", "drain"]

POLL_SECONDS = 0.05

NextChunk = Callable[[float], "bytes | None"]
"""wait at most this many seconds for output: a chunk of it, b"" at its end, None if none came"""


class OutputCap:
    """keeps the first and the last characters of a stream and counts the ones in between"""

    def __init__(self, max_chars: int) -> None:
        if max_chars < 2:
            raise ValueError(f"max_chars must be at least 2, got {max_chars}")
        self.head_size = max_chars // 2
        self.tail_size = max_chars - self.head_size
        self.head = ""
        self.tail = ""
        self.total = 0

    def add(self, text: str) -> None:
        self.total += len(text)
        if text:  # once cut, head and tail stay apart: more text always cuts again
            self.head, _, self.tail = keep_ends(self.head + self.tail + text, self.head_size + self.tail_size)

    @property
    def chars_cut(self) -> int:
        return self.total - len(self.head) - len(self.tail)

    def text(self) -> str:
        if self.chars_cut == 0:
            return self.head + self.tail
        return f"{self.head}\n[... {self.chars_cut} characters cut ...]\n{self.tail}"


def read_until_done(
    next_chunk: NextChunk,
    process: subprocess.Popen[bytes],
    output: OutputCap,
    decoder: codecs.IncrementalDecoder,
    deadline: float,
) -> tuple[bool, bool]:
    """read the command's output until the shell has finished or the deadline passed

    Returns (timed_out, ended); ended: every process holding the pipe closed it, nothing is left.
    """
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return True, False
        chunk = next_chunk(min(left, POLL_SECONDS))
        if chunk is None:  # quiet for a moment: has the shell finished?
            if process.poll() is not None:
                return False, False  # yes; whatever it left running in the background still holds the pipe
        elif chunk:
            output.add(decoder.decode(chunk))
        else:  # end of output: every process holding the pipe has closed it
            try:
                process.wait(timeout=max(deadline - time.monotonic(), 0))
            except subprocess.TimeoutExpired:
                return True, True
            return False, True


def drain(next_chunk: NextChunk, output: OutputCap, decoder: codecs.IncrementalDecoder) -> None:
    """read what is left of the output, for at most half a second (an escaped process may hold the pipe)"""
    deadline = time.monotonic() + 0.5
    while (left := deadline - time.monotonic()) > 0:
        chunk = next_chunk(left)
        if not chunk:
            break
        output.add(decoder.decode(chunk))
    output.add(decoder.decode(b"", final=True))
