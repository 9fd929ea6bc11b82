"""Running a shell command with a time limit, an output cap and a clean environment (lesson 07)."""

from __future__ import annotations

import codecs
import os
import queue
import signal
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._browser import needs_local_install

try:
    import resource
except ImportError:  # Windows has no resource limits (and no /bin/sh)
    resource = None  # type: ignore[assignment]
if sys.platform != "win32":
    import select  # on Windows select() takes sockets only, not pipes

__all__ = ["SandboxLimits", "CommandResult", "OutputCap", "sandbox_env", "run_sandboxed"]

SHELL = "/bin/sh"
LIMITS_SCRIPT = Path(__file__).with_name("_limits.py")  # lowers the limits, then becomes the shell
READ_CHUNK_BYTES = 64 * 1024
POLL_SECONDS = 0.05
PORTABLE_SWITCH = "AGENT_CORE_SANDBOX"  # =portable runs the Windows way on any system (for tests)
RUN_MARKER = "AGENT_CORE_SANDBOX_RUN"  # portable way: every process of one command inherits this id


@dataclass(frozen=True)
class SandboxLimits:
    """the limits every sandboxed command runs under"""

    max_timeout: float = 120
    """the longest timeout (seconds) a command may ask for"""
    max_output_chars: int = 10_000
    """output kept: the first half and the last half; a marker replaces the middle"""
    cpu_seconds: int = 60
    """CPU time per process (RLIMIT_CPU); the timeout usually ends a busy loop first"""
    memory_bytes: int = 1024**3
    """address space per process (RLIMIT_AS): asking for more fails (MemoryError in Python)"""
    extra_processes: int = 256
    """processes a command may add to the user's count (RLIMIT_NPROC; Linux ignores it for root)"""
    file_size_bytes: int = 10 * 1024**2
    """the largest file a command may write (RLIMIT_FSIZE)"""


@dataclass(frozen=True)
class CommandResult:
    """what one command did: its exit code (None if it timed out) and its capped output"""

    command: str
    timeout: float
    exit_code: int | None
    timed_out: bool
    output: str
    chars_cut: int

    def observation(self) -> str:
        """the text a model reads: a status line, then the output"""
        if self.timed_out:
            status = f"timed out after {self.timeout:g}s; process group killed"
        elif self.exit_code is not None and self.exit_code < 0:
            status = f"exit code: {self.exit_code} (killed by {_signal_name(-self.exit_code)})"
        else:
            status = f"exit code: {self.exit_code}"
        return f"{status}\n{self.output or '(no output)'}"


class OutputCap:
    """keeps the first and the last characters of a stream and counts the ones in between"""

    def __init__(self, max_chars: int):
        if max_chars < 2:
            raise ValueError(f"max_chars must be at least 2, got {max_chars}")
        self.head_size = max_chars // 2
        self.tail_size = max_chars - self.head_size
        self.head = ""
        self.tail = ""
        self.total = 0

    def add(self, text: str) -> None:
        self.total += len(text)
        room = self.head_size - len(self.head)
        if room > 0:
            self.head += text[:room]
            text = text[room:]
        if text:
            self.tail = (self.tail + text)[-self.tail_size :]

    @property
    def chars_cut(self) -> int:
        return self.total - len(self.head) - len(self.tail)

    def text(self) -> str:
        if self.chars_cut == 0:
            return self.head + self.tail
        return f"{self.head}\n[... {self.chars_cut} characters cut ...]\n{self.tail}"


def sandbox_env(home: Path) -> dict[str, str]:
    """the whole environment of a sandboxed command: nothing from os.environ but PATH

    On Windows also what programs there cannot start without (SYSTEMROOT, COMSPEC, PATHEXT,
    TEMP, TMP), USERPROFILE (Windows' HOME) set to the workspace, and UTF-8 output for Python.
    """
    python_dir = os.path.dirname(sys.executable)  # `python` is the interpreter running this code
    windows: dict[str, str] = {}
    if sys.platform == "win32":
        windows = {
            name: os.environ[name]
            for name in ("SYSTEMROOT", "COMSPEC", "PATHEXT", "TEMP", "TMP")
            if name in os.environ
        }
        windows |= {"USERPROFILE": str(home), "PYTHONUTF8": "1"}
    return windows | {
        "PATH": os.pathsep.join([python_dir, os.environ.get("PATH", os.defpath)]),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TERM": "dumb",
        "NO_COLOR": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",
        "PYTHONUNBUFFERED": "1",  # stdout and stderr then interleave in the order they happened
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",  # the course's own pytest plugins stay out
    }


def run_sandboxed(
    command: str, cwd: Path, timeout: float, limits: SandboxLimits = SandboxLimits()
) -> CommandResult:
    """run `/bin/sh -c command` in cwd: no stdin, clean env, resource limits, killed at timeout

    On Windows (or with AGENT_CORE_SANDBOX=portable) the portable way runs it instead.
    """
    needs_local_install("Running a command starts a process", "07")
    if sys.platform == "win32" or os.environ.get(PORTABLE_SWITCH) == "portable":
        return _run_portable(command, cwd, timeout, limits)
    process = subprocess.Popen(
        [*_with_limits(limits), SHELL, "-c", command],
        cwd=cwd,
        env=sandbox_env(cwd),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # the command leads a new process group: one killpg ends it all
    )
    assert process.stdout is not None
    pipe = process.stdout.fileno()
    output = OutputCap(limits.max_output_chars)
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    deadline = time.monotonic() + timeout
    timed_out = False
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            chunk = _read_chunk(pipe, min(left, POLL_SECONDS))
            if chunk is None:  # quiet for a moment: has the shell finished?
                if process.poll() is not None:
                    break  # yes; whatever it left running in the background still holds the pipe
            elif chunk:
                output.add(decoder.decode(chunk))
            else:  # end of output: every process holding the pipe has closed it
                try:
                    process.wait(timeout=max(deadline - time.monotonic(), 0))
                except subprocess.TimeoutExpired:
                    timed_out = True
                break
    finally:
        _kill_process_group(process.pid)  # also ends anything left running in the background
        process.wait()
        _drain(pipe, output, decoder)
        output.add(decoder.decode(b"", final=True))
        process.stdout.close()
    return _result(command, timeout, timed_out, process.returncode, output)


def _run_portable(
    command: str, cwd: Path, timeout: float, limits: SandboxLimits = SandboxLimits()
) -> CommandResult:
    """the Windows way: the system shell (cmd.exe there), a thread reading the output, and at the
    end every process that carries this run's id in its environment killed; no resource limits"""
    import psutil  # finds processes by their environment on Windows, macOS and Linux alike

    run_id = uuid.uuid4().hex
    process = subprocess.Popen(
        command,
        shell=True,  # cmd.exe /c on Windows (COMSPEC), /bin/sh -c elsewhere
        cwd=cwd,
        env={**sandbox_env(cwd), RUN_MARKER: run_id},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        creationflags=getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0),  # Ctrl-C in Jupyter stays out
    )
    assert process.stdout is not None
    chunks: queue.Queue[bytes] = queue.Queue()
    threading.Thread(target=_pump, args=(process.stdout, chunks), daemon=True).start()
    output = OutputCap(limits.max_output_chars)
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    deadline = time.monotonic() + timeout
    timed_out = ended = False
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            try:
                chunk = chunks.get(timeout=min(left, POLL_SECONDS))
            except queue.Empty:  # quiet for a moment: has the shell finished?
                if process.poll() is not None:
                    break  # yes; whatever it left running in the background still holds the pipe
                continue
            if chunk:
                output.add(decoder.decode(chunk))
            else:  # end of output: every process holding the pipe has closed it
                ended = True
                try:
                    process.wait(timeout=max(deadline - time.monotonic(), 0))
                except subprocess.TimeoutExpired:
                    timed_out = True
                break
    finally:
        _kill_run(psutil, process.pid, run_id)  # the shell, its children, and what they left behind
        process.wait()
        drain_until = time.monotonic() + 0.5  # an escaped process may hold the pipe: wait only so long
        while not ended and (left := drain_until - time.monotonic()) > 0:
            try:
                chunk = chunks.get(timeout=left)
            except queue.Empty:
                break
            if not chunk:
                break
            output.add(decoder.decode(chunk))
        output.add(decoder.decode(b"", final=True))
    return _result(command, timeout, timed_out, process.returncode, output)


def _result(
    command: str, timeout: float, timed_out: bool, returncode: int, output: OutputCap
) -> CommandResult:
    """what either way of running reports: no exit code when the command was killed at its timeout"""
    return CommandResult(
        command=command,
        timeout=timeout,
        exit_code=None if timed_out else returncode,
        timed_out=timed_out,
        output=output.text(),
        chars_cut=output.chars_cut,
    )


def _pump(pipe: Any, chunks: queue.Queue[bytes]) -> None:
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
        return process.status() != psutil.STATUS_ZOMBIE  # a zombie has ended; only its parent's wait is due
    except psutil.Error:
        return False


def _read_chunk(pipe: int, wait: float) -> bytes | None:
    """up to one chunk from the pipe; b"" at its end; None if nothing arrived within `wait`"""
    ready, _, _ = select.select([pipe], [], [], wait)
    return os.read(pipe, READ_CHUNK_BYTES) if ready else None


def _drain(pipe: int, output: OutputCap, decoder: codecs.IncrementalDecoder) -> None:
    """read what is left in the pipe, for at most half a second (an escaped process may hold it)"""
    deadline = time.monotonic() + 0.5
    while (left := deadline - time.monotonic()) > 0:
        chunk = _read_chunk(pipe, left)
        if not chunk:
            return
        output.add(decoder.decode(chunk))


def _kill_process_group(group_id: int) -> None:
    try:
        os.killpg(group_id, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass  # the group is already gone


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _with_limits(limits: SandboxLimits) -> list[str]:
    """the start of the command line that lowers the limits and then runs the rest (_limits.py)"""
    max_processes = _processes_of_this_user()
    if max_processes is not None:
        max_processes += limits.extra_processes  # RLIMIT_NPROC counts ALL of the user's processes
    numbers = [limits.cpu_seconds, limits.memory_bytes, limits.file_size_bytes]
    numbers.append(-1 if max_processes is None else max_processes)
    return [sys.executable, "-I", "-S", str(LIMITS_SCRIPT), *map(str, numbers), "--"]


def _processes_of_this_user() -> int | None:
    """how many processes this user runs now (Linux /proc); None where we cannot tell"""
    proc = Path("/proc")
    if resource is None or not proc.is_dir():
        return None
    uid, count = os.getuid(), 0
    for entry in proc.iterdir():
        try:
            if entry.name.isdigit() and entry.stat().st_uid == uid:
                count += 1
        except OSError:
            pass  # the process ended while we counted
    return count
