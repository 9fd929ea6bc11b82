"""lesson 10: the MCP session behind the bridge: the SDK's asynchronous Client entered on the event loop
the bridge starts, each request waited for, and the words for a server that hangs, dies, or answers
what cannot be read."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

import anyio.from_thread
import mcp_types
from mcp import Client, MCPError

from .._shared import one_line
from ..dispatch import ToolFailure
from ._process import ServerProcess
from ._wire import short

__all__ = ["MCPServerError", "BlockingSession", "PageLimit", "reason_of"]

T = TypeVar("T")


class MCPServerError(ToolFailure):
    """the server could not answer: it stopped, hung past the timeout, or refused the request"""


class BlockingSession:
    """the SDK's Client, entered on an event loop on a background thread; each request waits for
    its answer, and a failure becomes an MCPServerError that says what happened"""

    def __init__(
        self,
        client: Client,
        portal: anyio.from_thread.BlockingPortal,
        name: str,
        unreadable: list[str],
        process: ServerProcess | None,
    ) -> None:
        self.name, self.unreadable, self.process = name, unreadable, process
        self.stopped: str | None = None  # why the session ended, once it has
        self._portal: anyio.from_thread.BlockingPortal | None = portal
        self._context = self._portal.wrap_async_context_manager(client)
        try:
            self._context.__enter__()
        except BaseException as error:
            self._portal.call(self._portal.stop, True)
            self._portal = None
            reason = f"{reason_of(error)}{self._unreadable_words()}{self._last_words()}"
            self._let_go()
            raise MCPServerError(
                f"could not start a session with the MCP server {name!r}: {reason}"
            ) from None

    def request(self, what: str, send: Callable[[], Awaitable[T]], waited: float) -> T:
        """run `send()` on the session's event loop and wait for its result"""
        if self.stopped or self._portal is None:
            raise MCPServerError(
                f"the MCP server {self.name!r} is not connected any more ({self.stopped}). Carry on without "
                "its tools."
            )
        unreadable_before = len(self.unreadable)
        try:
            return self._portal.call(send)
        except MCPError as error:
            if error.error.code == mcp_types.REQUEST_TIMEOUT:
                raise self._timed_out(what, waited, self.unreadable[unreadable_before:]) from None
            if error.error.code == mcp_types.CONNECTION_CLOSED:
                self.stopped = f"it stopped during {what}"
                raise MCPServerError(
                    f"the MCP server {self.name!r} stopped during {what} (connection closed); "
                    f"its tools cannot be called any more{self._last_words()}. Carry on without them."
                ) from None
            raise MCPServerError(
                f"the MCP server {self.name!r} refused {what}: {error.error.message} (JSON-RPC error "
                f"{error.error.code})"
            ) from None
        except Exception as error:  # a reply that is JSON-RPC but not the result MCP defines
            raise MCPServerError(
                f"the MCP server {self.name!r} answered {what} with a reply that is not a valid MCP "
                f"result: {short(reason_of(error), 300)}. Try another approach."
            ) from None

    def _timed_out(self, what: str, waited: float, unreadable: list[str]) -> MCPServerError:
        if unreadable:  # it answered, but not in JSON-RPC
            lines = "1 line that is" if len(unreadable) == 1 else f"{len(unreadable)} lines that are"
            return MCPServerError(
                f"the MCP server {self.name!r} sent no reply to {what} that could be read within "
                f"{waited:g} s: it wrote {lines} not JSON-RPC, the last: {unreadable[-1]}. The request "
                "was cancelled; try another approach."
            )
        return MCPServerError(
            f"the MCP server {self.name!r} did not answer {what} within {waited:g} s, "
            "so the request was cancelled. Try again later, or another approach."
        )

    def close(self) -> None:
        """end the session (and stop a subprocess server)"""
        if self._portal is None:
            return
        try:
            self._context.__exit__(None, None, None)
        except Exception:  # a server that already died cannot be shut down politely
            pass
        finally:
            self._portal.call(self._portal.stop, True)
            self._portal = None
            self.stopped = "the connection was closed"
            self._let_go()

    def _let_go(self) -> None:
        if self.process is not None:
            self.process.stop()

    def _unreadable_words(self) -> str:
        """the last line the server wrote to stdout that was not JSON-RPC, if there was one"""
        return f". It wrote on stdout what is not JSON-RPC: {self.unreadable[-1]}" if self.unreadable else ""

    def _last_words(self) -> str:
        return self.process.last_words() if self.process is not None else ""


class PageLimit:
    """the pages of a list (tools/list) a server may send: at most `pages`, each cursor once"""

    def __init__(self, server: str, pages: int) -> None:
        self.server, self.pages, self.seen = server, pages, set[str]()

    def next(self, cursor: str, items: int) -> str:
        """the cursor, when the page after it may be read (`items` read so far); else MCPServerError"""
        if cursor in self.seen:
            raise MCPServerError(
                f"the MCP server {self.server!r} sent the tools/list cursor {short(cursor)} twice, "
                "so its list of tools would never end; it was not read."
            )
        self.seen.add(cursor)
        if len(self.seen) >= self.pages:
            raise MCPServerError(
                f"the MCP server {self.server!r} still had more tools after {self.pages} pages of "
                f"tools/list ({items} tools so far), so the list was not read to its end and none were taken."
            )
        return cursor


def reason_of(error: BaseException) -> str:
    """an error in one line; a group around one error is that error"""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return one_line(error, empty=type(error).__name__)
