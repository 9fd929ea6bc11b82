"""lesson 07: the sandbox the Windows way (it runs on any system): the system shell, a thread reading the
output, every process carrying the run's id in its environment killed at the end; no resource limits."""

from __future__ import annotations

import codecs
import io
import queue
import subprocess
import threading
import time
import uuid
from pathlib import Path
from typing import Any

from ._output import OutputCap, drain, read_until_done

__all__ = ["RUN_MARKER", "run_portable"]

READ_CHUNK_BYTES = 64 * 1024
RUN_MARKER = "AGENT_CORE_SANDBOX_RUN"  # every process of one command inherits this id


def run_portable(
    command: str, cwd: Path, env: dict[str, str], timeout: float, output: OutputCap
) -> tuple[bool, int]:
    """run `command` in the system shell (cmd.exe on Windows); (timed_out, the shell's exit code)"""
    import psutil  # finds processes by their environment on Windows, macOS and Linux alike

    run_id = uuid.uuid4().hex
    process = subprocess.Popen(
        command,
        shell=True,  # cmd.exe /c on Windows (COMSPEC), /bin/sh -c elsewhere
        cwd=cwd,
        env={**env, RUN_MARKER: run_id},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        creationflags=getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0),  # Ctrl-C in Jupyter stays out
    )
    assert process.stdout is not None
    chunks: queue.Queue[bytes] = queue.Queue()
    threading.Thread(target=_pump, args=(process.stdout, chunks), daemon=True).start()
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def next_chunk(wait: float) -> bytes | None:
        try:
            return chunks.get(timeout=wait)
        except queue.Empty:
            return None

    timed_out = ended = False
    try:
        timed_out, ended = read_until_done(next_chunk, process, output, decoder, time.monotonic() + timeout)
    finally:
        _kill_run(psutil, process.pid, run_id)  # the shell, its children, and what they left behind
        process.wait()
        drain((lambda wait: b"") if ended else next_chunk, output, decoder)
    return timed_out, process.returncode


def _pump(pipe: io.BufferedReader, chunks: queue.Queue[bytes]) -> None:
    """read the pipe until its end, chunk by chunk, into the queue; b"" marks the end"""
    try:
        while chunk := pipe.read1(READ_CHUNK_BYTES):
            chunks.put(chunk)
    except (OSError, ValueError):
        pass
    finally:
        chunks.put(b"")
        pipe.close()


def _kill_run(psutil: Any, shell_pid: int, run_id: str) -> None:
    """kill the shell, its descendants, and every process whose environment carries run_id

    A child the shell left in the background is no longer its descendant once the shell ends;
    it still has the environment it inherited, unless it replaced it (`env -i`, exec with a new one).
    """
    victims = []
    try:
        shell = psutil.Process(shell_pid)
        victims = [shell, *shell.children(recursive=True)]
    except psutil.Error:
        pass  # the shell has ended
    known = {p.pid for p in victims}
    for candidate in psutil.process_iter():
        if candidate.pid in known:
            continue
        try:
            if candidate.environ().get(RUN_MARKER) == run_id:
                victims.append(candidate)
        except psutil.Error:
            pass  # another user's process, or it just ended
    for victim in victims:
        try:
            victim.kill()
        except psutil.Error:
            pass
    give_up = time.monotonic() + 1
    while victims and time.monotonic() < give_up:  # a killed process ends a moment later
        victims = [v for v in victims if _still_running(psutil, v)]
        time.sleep(0.01)


def _still_running(psutil: Any, process: Any) -> bool:
    try:
        return bool(process.status() != psutil.STATUS_ZOMBIE)  # a zombie has ended; its parent's wait is due
    except psutil.Error:
        return False
