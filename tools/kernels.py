"""Kernels on Unix sockets of their own: for the test suite (conftest.py) and `tools/notebooks.py run`.

jupyter_client picks a kernel's TCP ports by binding free ones and releasing them; the kernel binds
them a moment later. Two kernels starting at once (pytest-xdist runs a notebook on every core) can
pick the same port, and one dies with "Kernel died before replying to kernel_info"
(jupyter/jupyter_client#487); and every kernel on TCP warns that its traffic is not encrypted. So
on Linux and macOS each kernel gets Unix sockets instead, under a name made for it alone (zmq's ipc
transport). Windows has no ipc transport in every zmq build: there kernels keep TCP.
"""

from __future__ import annotations

import os
import tempfile
import uuid
from pathlib import Path

from jupyter_client.manager import KernelManager

__all__ = ["OwnSocketsKernelManager", "kernel_manager_class"]


class OwnSocketsKernelManager(KernelManager):
    """a KernelManager whose kernel listens on Unix sockets named for it alone"""

    def __init__(self, **kwargs: object) -> None:
        # a Unix socket's path has a limit of about 100 bytes: a long TMPDIR gives way to /tmp
        folder = tempfile.gettempdir()
        name = Path(folder if len(folder) <= 64 else "/tmp") / f"nb-{uuid.uuid4().hex[:12]}"
        super().__init__(transport="ipc", ip=str(name), **kwargs)


def kernel_manager_class() -> type[KernelManager]:
    """OwnSocketsKernelManager where Unix sockets exist, jupyter_client's own elsewhere"""
    return OwnSocketsKernelManager if os.name == "posix" else KernelManager
