"""lesson 10: MCP wire recording: every JSON-RPC message as it crosses the transport, in the JSON shape
the wire carries, and the lines a server wrote that were not JSON-RPC."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import anyio
import pydantic
from mcp.client import Transport
from mcp.shared.message import SessionMessage

from .._shared import one_line

__all__ = ["WireMessage", "RecordingMCPTransport", "as_json", "short"]


@dataclass(frozen=True)
class WireMessage:
    """one JSON-RPC message as it crossed the transport: sent by the client (->) or received (<-)"""

    direction: str
    message: dict[str, Any]

    def __str__(self) -> str:
        return f"{self.direction} {json.dumps(self.message, ensure_ascii=False)}"


def as_json(obj: pydantic.BaseModel | dict[str, Any]) -> dict[str, Any]:
    """the JSON shape of an SDK object (camelCase keys, as on the wire), or the dict itself"""
    if isinstance(obj, pydantic.BaseModel):
        return obj.model_dump(by_alias=True, exclude_none=True, mode="json")
    return obj


def short(text: object, limit: int = 120) -> str:
    """text (or the repr of anything else) quoted, cut to `limit` characters"""
    text = text if isinstance(text, str) else repr(text)
    if len(text) <= limit:
        return repr(text)
    return repr(text[:limit]) + f"... ({len(text) - limit:,} more characters)"


class RecordingMCPTransport:
    """wraps a transport; appends every message that goes through it to `wire`, and every line
    that is not a JSON-RPC message to `unreadable`"""

    def __init__(self, inner: Transport, wire: list[WireMessage], unreadable: list[str]) -> None:
        self.inner, self.wire, self.unreadable = inner, wire, unreadable

    async def __aenter__(self) -> tuple[_RecordingRead, _RecordingWrite]:
        read, write = await self.inner.__aenter__()
        return _RecordingRead(read, self.wire, self.unreadable), _RecordingWrite(write, self.wire)

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> bool | None:
        return await self.inner.__aexit__(kind, error, traceback)


class _RecordingRead:
    def __init__(self, stream: Any, wire: list[WireMessage], unreadable: list[str]) -> None:
        self.stream, self.wire, self.unreadable = stream, wire, unreadable

    @property
    def last_context(self) -> Any:
        # the SDK's own protocol (mcp.shared._stream_protocols.ReadStream): it looks for the
        # sender's context on the stream it was given, which is this one
        return getattr(self.stream, "last_context", None)

    async def receive(self) -> SessionMessage | Exception:
        item: SessionMessage | Exception = await self.stream.receive()
        if isinstance(item, SessionMessage):
            self.wire.append(WireMessage("<-", as_json(item.message)))
        else:  # a line that is not a JSON-RPC message; the SDK skips it
            self.unreadable.append(_unreadable_line(item))
        return item

    def __aiter__(self) -> _RecordingRead:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self.stream.aclose()

    async def __aenter__(self) -> _RecordingRead:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


class _RecordingWrite:
    def __init__(self, stream: Any, wire: list[WireMessage]) -> None:
        self.stream, self.wire = stream, wire

    async def send(self, item: SessionMessage) -> None:
        self.wire.append(WireMessage("->", as_json(item.message)))
        await self.stream.send(item)

    async def aclose(self) -> None:
        await self.stream.aclose()

    async def __aenter__(self) -> _RecordingWrite:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


def _unreadable_line(error: Exception) -> str:
    """the line the server wrote that could not be read, shortened; the parser's error holds it"""
    if isinstance(error, pydantic.ValidationError) and error.errors():
        return short(error.errors()[0]["input"])
    return short(one_line(error, empty=type(error).__name__))


class _QuietParseErrors(logging.Filter):
    """the SDK logs a traceback for each stdout line that is not JSON-RPC; the connection keeps the
    lines in `unreadable` instead, and says so when a request gets no readable reply"""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith("Failed to parse JSONRPC message")


logging.getLogger("mcp.client.stdio").addFilter(_QuietParseErrors())
