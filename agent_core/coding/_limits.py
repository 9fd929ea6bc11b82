"""lesson 07: lower this process's resource limits, then become the command (the sandbox, not on Windows).

    python -I -S _limits.py CPU_SECONDS MEMORY_BYTES FILE_SIZE_BYTES MAX_PROCESSES -- /bin/sh -c COMMAND

`run_sandboxed` starts this script, and the script replaces itself with the shell (os.execv): same
process id, process group and output pipe, with the limits already in place, so nothing the
command starts runs without them. A fresh interpreter with only the standard library (-I -S)
costs a few milliseconds. The other way, subprocess's preexec_fn, sets them between fork and exec
in a copy of the whole parent: a notebook kernel of a few hundred megabytes, whose pages are then
copied as it goes on running; and the subprocess documentation warns that preexec_fn can deadlock
when the parent runs threads, as the dispatcher does.

MAX_PROCESSES -1 leaves RLIMIT_NPROC alone (where the count of the user's processes is unknown).
"""

import os
import resource
import signal
import sys

__all__ = ["lower_limit", "main"]


def lower_limit(name: str, value: int) -> None:
    """lower one resource limit if this OS has it and allows it (macOS refuses RLIMIT_AS)"""
    which = getattr(resource, name, None)
    if which is None:
        return
    try:
        _, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        resource.setrlimit(which, (value, value))
    except (ValueError, OSError):
        pass


def main(argv: list[str]) -> None:
    cpu_seconds, memory_bytes, file_size_bytes, max_processes = (int(arg) for arg in argv[1:5])
    if argv[5] != "--" or len(argv) < 7:
        sys.exit("usage: _limits.py CPU_SECONDS MEMORY_BYTES FILE_SIZE_BYTES MAX_PROCESSES -- PROGRAM ARG...")
    lower_limit("RLIMIT_CPU", cpu_seconds)
    lower_limit("RLIMIT_AS", memory_bytes)
    lower_limit("RLIMIT_FSIZE", file_size_bytes)
    lower_limit("RLIMIT_CORE", 0)
    if max_processes >= 0:
        lower_limit("RLIMIT_NPROC", max_processes)
    # Python ignores these two signals, and an ignored signal stays ignored across exec: put back
    # their default, as subprocess does for its children (restore_signals), so that `yes | head`
    # ends quietly and a file over the size limit stops its writer
    for name in ("SIGPIPE", "SIGXFSZ"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_DFL)
    os.execv(argv[6], argv[6:])


if __name__ == "__main__":
    main(sys.argv)
