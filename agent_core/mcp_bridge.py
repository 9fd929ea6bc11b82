"""Tools from an MCP server: its tool list becomes the dispatcher's tools, its results tool messages (lesson 10)."""

from __future__ import annotations

import copy
import json
import queue
import re
import sys
import tempfile
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import anyio.from_thread
import mcp_types
from mcp import Client, Implementation, MCPError, StdioServerParameters, stdio_client
from mcp.client._memory import InMemoryTransport  # the SDK's in-process transport (a private module)

from .dispatch import ERROR_PREFIX, ToolFailure, ToolRegistry
from .schema import TOOL_NAME_PATTERN, Tool

__all__ = [
    "MCPConnection",
    "MCPServerError",
    "MCPToolError",
    "WireMessage",
    "connect",
    "connect_stdio",
    "add_server_tools",
    "to_openai_tool",
    "to_tool_message",
    "result_text",
    "openai_name",
    "DEFAULT_MCP_CALL_TIMEOUT",
    "WEATHER_SERVER",
]

DEFAULT_MCP_CALL_TIMEOUT = 10.0  # seconds a server may take to answer one tool call
STARTUP_TIMEOUT = 30.0  # seconds for the handshake and tools/list: a server may take seconds to start
WEATHER_SERVER = Path(__file__).parent / "mcp_servers" / "weather.py"  # the lesson's server, as a script
CLIENT_INFO = Implementation(name="agent-core", version="0.1.0")  # fixed, so the wire is the same everywhere


class MCPServerError(ToolFailure):
    """the server could not answer: it stopped, hung past the timeout, or refused the request"""


class MCPToolError(ToolFailure):
    """the tool ran and reported a failure (`isError: true`); the message is its text"""


# --- definitions and results: MCP JSON -> Chat Completions JSON -----------------------------


def to_openai_tool(tool: Any, name: str | None = None) -> dict[str, Any]:
    """an MCP tool (from tools/list) -> a Chat Completions tool definition; name= to rename it"""
    tool = _json(tool)
    function: dict[str, Any] = {"name": name or tool["name"]}
    if tool.get("description"):
        function["description"] = tool["description"]
    # the same JSON Schema under another key: required, enum, nested objects all carry over
    function["parameters"] = copy.deepcopy(tool.get("inputSchema") or {"type": "object", "properties": {}})
    return {"type": "function", "function": function}


def result_text(result: Any) -> tuple[str, bool]:
    """an MCP tool result (from tools/call) -> (the text for the model, whether it is an error)

    structuredContent, when there is some, is the result: sent as JSON. Its text blocks then are
    only the fallback the spec asks for: "a tool that returns structured content SHOULD also
    return the serialized JSON in a TextContent block" (MCP specification 2025-06-18,
    https://modelcontextprotocol.io/specification/2025-06-18/server/tools#structured-content).
    Otherwise each content block becomes a line of text.
    """
    result = _json(result)
    structured = result.get("structuredContent")
    if structured is not None:
        text = json.dumps(structured, ensure_ascii=False)
    else:
        text = "\n".join(_block_text(block) for block in result.get("content") or [])
    failed = bool(result.get("isError"))
    if failed and not text:
        text = "the tool reported an error without a message"
    return text, failed


def to_tool_message(tool_call_id: str, result: Any) -> dict[str, Any]:
    """an MCP tool result -> the `tool` message answering the call (errors start with ERROR: )"""
    text, failed = result_text(result)
    return {"role": "tool", "tool_call_id": tool_call_id, "content": ERROR_PREFIX + text if failed else text}


def openai_name(tool_name: str, prefix: str | None = None) -> str:
    """the name a model may call, `prefix__name` with a prefix

    MCP allows A-Z a-z 0-9 _ - . and up to 128 characters (SEP-986,
    https://modelcontextprotocol.io/specification/2025-11-25/server/tools#tool-names); Chat
    Completions only letters, digits, '_' and '-', at most 64 (schema.TOOL_NAME_PATTERN).
    """
    name = f"{prefix}__{tool_name}" if prefix else tool_name
    name = re.sub(r"[^a-zA-Z0-9_-]", "_", name)[:64]
    return name


def _block_text(block: dict[str, Any]) -> str:
    """one content block as text: a tool message carries text only"""
    kind = block.get("type")
    if kind == "text":
        return block.get("text", "")
    if kind in ("image", "audio"):
        size = len(block.get("data", "")) * 3 // 4
        return f"[{kind} {block.get('mimeType', '')}, about {size:,} bytes: not shown, a tool message carries text only]"
    if kind == "resource_link":
        return f"[resource {block.get('uri')}: {block.get('name', '')}]"
    if kind == "resource":
        resource = block.get("resource") or {}
        if "text" in resource:
            return resource["text"]
        return f"[resource {resource.get('uri')}: binary, not shown]"
    return json.dumps(block, ensure_ascii=False)


def _json(obj: Any) -> dict[str, Any]:
    """the JSON shape of an SDK object (camelCase keys, as on the wire), or the dict itself"""
    if hasattr(obj, "model_dump"):
        return obj.model_dump(by_alias=True, exclude_none=True, mode="json")
    return obj


# --- the wire ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class WireMessage:
    """one JSON-RPC message as it crossed the transport: sent by the client (->) or received (<-)"""

    direction: str
    message: dict[str, Any]

    def __str__(self) -> str:
        return f"{self.direction} {json.dumps(self.message, ensure_ascii=False)}"


class _RecordingTransport:
    """wraps a transport; appends every message that goes through it to `wire`"""

    def __init__(self, inner: Any, wire: list[WireMessage]):
        self.inner, self.wire = inner, wire

    async def __aenter__(self) -> tuple[Any, Any]:
        read, write = await self.inner.__aenter__()
        return _RecordingRead(read, self.wire), _RecordingWrite(write, self.wire)

    async def __aexit__(self, *exc_info: Any) -> Any:
        return await self.inner.__aexit__(*exc_info)


class _RecordingRead:
    def __init__(self, stream: Any, wire: list[WireMessage]):
        self.stream, self.wire = stream, wire

    @property
    def last_context(self) -> Any:  # the SDK reads the sender's context from the stream it was given
        return getattr(self.stream, "last_context", None)

    async def receive(self) -> Any:
        item = await self.stream.receive()
        if hasattr(item, "message"):
            self.wire.append(WireMessage("<-", _json(item.message)))
        return item

    def __aiter__(self) -> _RecordingRead:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self.stream.aclose()

    async def __aenter__(self) -> _RecordingRead:
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.aclose()


class _RecordingWrite:
    def __init__(self, stream: Any, wire: list[WireMessage]):
        self.stream, self.wire = stream, wire

    async def send(self, item: Any) -> None:
        self.wire.append(WireMessage("->", _json(item.message)))
        await self.stream.send(item)

    async def aclose(self) -> None:
        await self.stream.aclose()

    async def __aenter__(self) -> _RecordingWrite:
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.aclose()


# --- a connection usable from ordinary code ------------------------------------------------------


class MCPConnection:
    """a live MCP client session, usable from ordinary (synchronous) code such as the dispatcher

    The SDK is asynchronous; the session runs in an event loop on a background thread, and each
    method waits for its answer. `wire` holds every JSON-RPC message sent and received.
    """

    def __init__(self, transport: Any, *, name: str, timeout: float = DEFAULT_MCP_CALL_TIMEOUT, errlog: Any = None):
        self.name = name
        self.timeout = timeout  # seconds for one tool call; then it is cancelled
        self.wire: list[WireMessage] = []
        self.stopped: str | None = None  # why the connection ended, once it has
        self._errlog = errlog
        # mode="legacy": the initialize handshake every MCP server understands; cache=None: every
        # request goes over the wire
        client = Client(
            _RecordingTransport(transport, self.wire),
            mode="legacy",
            client_info=CLIENT_INFO,
            read_timeout_seconds=max(timeout, STARTUP_TIMEOUT),
            cache=None,
        )
        portal = _start_event_loop()
        self._client_context = portal.wrap_async_context_manager(client)
        try:
            self._client = self._client_context.__enter__()
        except BaseException as error:
            portal.call(portal.stop, True)
            reason = f"{_reason(error)}{self._last_words()}"
            if errlog is not None:
                errlog.close()
            raise MCPServerError(
                f"could not start a session with the MCP server {name!r}: {reason}"
            ) from None
        self._portal = portal

    @property
    def server_info(self) -> dict[str, Any]:
        return _json(self._client.server_info) if self._client.server_info else {}

    def list_tools(self) -> list[dict[str, Any]]:
        """every tool the server offers (tools/list, page by page), as JSON"""
        tools, cursor = [], None
        while True:
            page = self._request("tools/list", self._client.list_tools, cursor=cursor)
            tools += [_json(tool) for tool in page.tools]
            cursor = page.next_cursor
            if not cursor:
                return tools

    def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """one tools/call; the result as JSON. Raises MCPServerError if no result came back"""
        result = self._request(
            f"tools/call {name!r}", self._client.call_tool, name, arguments, read_timeout_seconds=self.timeout
        )
        return _json(result)

    def _request(self, what: str, method: Any, *args: Any, **kwargs: Any) -> Any:
        if self.stopped:
            raise MCPServerError(
                f"the MCP server {self.name!r} is not connected any more ({self.stopped}). Carry on without its tools."
            )
        try:
            return self._portal.call(lambda: method(*args, **kwargs))
        except MCPError as error:
            if error.error.code == mcp_types.REQUEST_TIMEOUT:
                waited = kwargs.get("read_timeout_seconds") or max(self.timeout, STARTUP_TIMEOUT)
                raise MCPServerError(
                    f"the MCP server {self.name!r} did not answer {what} within {waited:g} s, "
                    "so the request was cancelled. Try again later, or another approach."
                ) from None
            if error.error.code == mcp_types.CONNECTION_CLOSED:
                self.stopped = f"it stopped during {what}"
                raise MCPServerError(
                    f"the MCP server {self.name!r} stopped during {what} (connection closed); "
                    f"its tools cannot be called any more{self._last_words()}. Carry on without them."
                ) from None
            raise MCPServerError(
                f"the MCP server {self.name!r} refused {what}: {error.error.message} (JSON-RPC error {error.error.code})"
            ) from None

    def _last_words(self) -> str:
        """the last line the server wrote to stderr, if it wrote any"""
        if self._errlog is None:
            return ""
        self._errlog.flush()
        self._errlog.seek(0)
        lines = [line.strip() for line in self._errlog.read().splitlines() if line.strip()]
        return f". Its last words on stderr: {lines[-1]}" if lines else ""

    def close(self) -> None:
        """end the session (and stop a subprocess server)"""
        if self._portal is None:
            return
        try:
            self._client_context.__exit__(None, None, None)
        except Exception:  # a server that already died cannot be shut down politely
            pass
        finally:
            self._portal.call(self._portal.stop, True)
            self._portal = None
            self.stopped = "the connection was closed"
            if self._errlog is not None:
                self._errlog.close()

    def __enter__(self) -> MCPConnection:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"MCPConnection({self.name!r})"


def _start_event_loop() -> anyio.from_thread.BlockingPortal:
    """an event loop on a daemon thread, and the portal through which other threads call into it

    anyio's start_blocking_portal() uses a thread that Python waits for at exit, so a program
    that forgot close() would never end; a daemon thread does not hold it up.
    """
    ready: queue.Queue[anyio.from_thread.BlockingPortal] = queue.Queue()

    async def serve() -> None:
        async with anyio.from_thread.BlockingPortal() as portal:
            ready.put(portal)
            await portal.sleep_until_stopped()

    threading.Thread(target=anyio.run, args=(serve,), name="mcp-connection", daemon=True).start()
    return ready.get()


def connect(server: Any, *, timeout: float = DEFAULT_MCP_CALL_TIMEOUT) -> MCPConnection:
    """connect to an MCPServer object in this process, over in-memory streams"""
    return MCPConnection(InMemoryTransport(server), name=server.name, timeout=timeout)


def connect_stdio(
    script: str | Path, *args: str, name: str | None = None, timeout: float = DEFAULT_MCP_CALL_TIMEOUT
) -> MCPConnection:
    """start a Python MCP server script as a subprocess (the same Python as this one) and connect
    over its stdin and stdout; its stderr is kept to explain a crash"""
    # sys.executable: `python` may not exist or be another Python, on Windows especially
    # no env=: the SDK passes on only what a process needs (PATH, HOME...), not the API keys
    parameters = StdioServerParameters(command=sys.executable, args=[str(script), *args])
    errlog = tempfile.TemporaryFile("w+", encoding="utf-8")
    return MCPConnection(
        stdio_client(parameters, errlog=errlog),
        name=name or Path(script).stem,
        timeout=timeout,
        errlog=errlog,
    )


# --- the server's tools in the dispatcher ------------------------------------------------------


def add_server_tools(
    registry: ToolRegistry,
    connection: MCPConnection,
    *,
    prefix: str | None = None,
    only: Iterable[str] | None = None,
) -> list[Tool]:
    """register the server's tools (or `only` those named) in the registry; returns the new Tools

    prefix: call them `prefix__name`, so two servers' tools of the same name can both be added.
    A name already in the registry is refused (ValueError), never silently replaced.
    """
    wanted = None if only is None else set(only)
    added = []
    for mcp_tool in connection.list_tools():
        if wanted is not None and mcp_tool["name"] not in wanted:
            continue
        definition = to_openai_tool(mcp_tool, name=openai_name(mcp_tool["name"], prefix))["function"]
        if not TOOL_NAME_PATTERN.match(definition["name"]):
            raise ValueError(f"the MCP tool name {mcp_tool['name']!r} cannot be made into a tool name")
        if definition["name"] in registry:
            raise ValueError(
                f"a tool named {definition['name']!r} is already registered, so the MCP server "
                f"{connection.name!r} cannot add its own; add this server's tools with a prefix "
                f"(prefix={connection.name!r}) or leave one of them out (only=...)"
            )
        function = _calls_server(connection, mcp_tool["name"])
        added.append(
            registry.add(
                Tool(
                    function,
                    name=definition["name"],
                    # a Tool needs a description; MCP's is optional
                    description=definition.get("description")
                    or mcp_tool.get("title")
                    or f"the tool {mcp_tool['name']!r} of {connection.name}",
                    parameters=definition["parameters"],
                ),
                # the connection's own timeout cancels the request; the registry's would only stop waiting
                timeout=connection.timeout + 5,
            )
        )
    return added


def _calls_server(connection: MCPConnection, tool_name: str) -> Any:
    """a function that calls the tool on the server (by its MCP name) and returns its text"""

    def call(**arguments: Any) -> str:
        text, failed = result_text(connection.call_tool(tool_name, arguments))
        if failed:
            raise MCPToolError(text)
        return text

    call.__name__ = call.__qualname__ = tool_name.replace(".", "_")
    return call


def _reason(error: BaseException) -> str:
    while len(getattr(error, "exceptions", ())) == 1:  # an exception group around one error
        error = error.exceptions[0]
    return " ".join(str(error).split()) or type(error).__name__
