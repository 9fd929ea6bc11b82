"""The test suite's one piece of setup: notebooks start their kernels one at a time across pytest-xdist workers."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

# jupyter_client picks a kernel's ports by binding free ones and releasing them; the kernel binds
# them a moment later. Two kernels starting at once can pick the same port, and one dies with
# "Kernel died before replying to kernel_info" (jupyter/jupyter_client#487; wandb/wandb#8835 takes
# the same turn-taking lock). Each notebook starts its kernel in its first cell's setup.
LOCK = Path(tempfile.gettempdir()) / "agent-core-kernel-start.lock"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    starts_a_kernel = type(item).__name__ == "IPyNbCell" and getattr(item.parent, "kernel", "") is None
    if not starts_a_kernel:
        yield
        return
    with open(LOCK, "a+b") as lock:
        _hold(lock.fileno())
        try:
            yield
        finally:
            _release(lock.fileno())


if os.name == "nt":
    import msvcrt

    def _hold(fd: int) -> None:
        while True:
            try:
                msvcrt.locking(fd, msvcrt.LK_LOCK, 1)  # retries for 10 s, then raises
                return
            except OSError:
                continue

    def _release(fd: int) -> None:
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _hold(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_EX)

    def _release(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)
