"""Running a shell command with a time limit, an output cap and a clean environment (lesson 07).

Beneath it: `_output.py` reads the output (until the end or the deadline, the middle cut);
`_limits.py` lowers the resource limits, then becomes the shell; `_sandbox_portable.py` is the
Windows way (no process groups, no resource limits). What it does not stop: `SANDBOX.md`.
"""

from __future__ import annotations

import codecs
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from .._browser import needs_local_install
from ._output import OutputCap, drain, read_until_done
from ._sandbox_portable import run_portable

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
PORTABLE_SWITCH = "AGENT_CORE_SANDBOX"  # =portable runs the Windows way on any system (for tests)


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


def run_sandboxed(
    command: str, cwd: Path, timeout: float, limits: SandboxLimits = SandboxLimits()
) -> CommandResult:
    """run `/bin/sh -c command` in cwd: no stdin, clean env, resource limits, killed at timeout

    On Windows (or with AGENT_CORE_SANDBOX=portable) the portable way runs it instead.
    """
    needs_local_install("Running a command starts a process", "07")
    output = OutputCap(limits.max_output_chars)
    if sys.platform == "win32" or os.environ.get(PORTABLE_SWITCH) == "portable":
        timed_out, returncode = run_portable(command, cwd, sandbox_env(cwd), timeout, output)
    else:
        timed_out, returncode = _run_in_process_group(command, cwd, timeout, limits, output)
    return CommandResult(
        command=command,
        timeout=timeout,
        exit_code=None if timed_out else returncode,
        timed_out=timed_out,
        output=output.text(),
        chars_cut=output.chars_cut,
    )


def _run_in_process_group(
    command: str, cwd: Path, timeout: float, limits: SandboxLimits, output: OutputCap
) -> tuple[bool, int]:
    """the POSIX way: its own process group, killed whole at the end; (timed_out, exit code)"""
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
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def next_chunk(wait: float) -> bytes | None:
        ready, _, _ = select.select([pipe], [], [], wait)
        return os.read(pipe, READ_CHUNK_BYTES) if ready else None

    timed_out = False
    try:
        timed_out, _ = read_until_done(next_chunk, process, output, decoder, time.monotonic() + timeout)
    finally:
        _kill_process_group(process.pid)  # also ends anything left running in the background
        process.wait()
        drain(next_chunk, output, decoder)
        process.stdout.close()
    return timed_out, process.returncode


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
