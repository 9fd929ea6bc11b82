"""lesson 10: a stdio MCP server's process: started with this Python, its stderr kept to explain a
crash, and whatever it left running stopped when the connection closes."""

from __future__ import annotations

import os
import signal
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from mcp import StdioServerParameters, stdio_client
from mcp.client import Transport

__all__ = ["ServerProcess"]

# The SDK keeps the process it starts to itself; this one-line launcher writes down its own pid and
# then becomes the server (exec keeps the pid), so the connection knows which process group to stop.
_LAUNCH = (
    "import os, sys; open(sys.argv[1], 'w').write(str(os.getpid())); "
    "os.execv(sys.executable, [sys.executable, *sys.argv[2:]])"
)


class ServerProcess:
    """a Python MCP server script, run as a subprocess by the SDK's stdio transport"""

    def __init__(self, script: str | Path, args: Sequence[str]) -> None:
        self.errlog = tempfile.TemporaryFile("w+", encoding="utf-8")  # the server's stderr
        # sys.executable: `python` may not exist or be another Python, on Windows especially
        command = [str(script), *args]
        self._pidfile: Path | None = None
        if sys.platform != "win32":  # Windows: the SDK's job object ends the server's children
            handle, name = tempfile.mkstemp(prefix="mcp-server-", suffix=".pid")
            os.close(handle)
            self._pidfile = Path(name)
            command = ["-c", _LAUNCH, name, *command]
        # no env=: the SDK passes on only what a process needs (PATH, HOME...), not the API keys
        self.parameters = StdioServerParameters(command=sys.executable, args=command)

    def transport(self) -> Transport:
        """the SDK's stdio transport: it starts the process, and talks over its stdin and stdout"""
        return stdio_client(self.parameters, errlog=self.errlog)

    def last_words(self) -> str:
        """the last line the server wrote to stderr, if it wrote any"""
        if self.errlog.closed:
            return ""
        self.errlog.flush()
        self.errlog.seek(0)
        lines = [line.strip() for line in self.errlog.read().splitlines() if line.strip()]
        return f". Its last words on stderr: {lines[-1]}" if lines else ""

    def stop(self) -> None:
        """kill whatever the server process started and left running, and let go of its files

        The SDK starts a server in a process group of its own, and kills the group only when the
        server itself does not exit (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#shutdown);
        a server that exits at once leaves its children running. A child that started a session
        of its own has left the group: not reached.
        """
        self.errlog.close()
        if self._pidfile is None:
            return
        pid = self._pidfile.read_text().strip()
        self._pidfile.unlink(missing_ok=True)
        self._pidfile = None
        if not pid:  # the process never started
            return
        try:
            os.killpg(int(pid), signal.SIGKILL)  # the server leads its group: its pid is the group's id
        except (ProcessLookupError, PermissionError):
            pass  # nothing left in the group
