"""Tools from an MCP server: its tool list becomes the dispatcher's tools, its results tool messages
(lesson 10).

The trick: the MCP SDK is asynchronous, and the dispatcher calls tools from ordinary code. So the
session lives on an event loop on a background thread of its own (`event_loop_thread`, below), and
every request crosses to it through an anyio portal and waits there for its answer: to the dispatcher,
`connection.call_tool(...)` is a plain function call.

Beneath it, one concern each:
- `_session.py`: the SDK's session on that loop; the words for a hung, dead or garbled server
- `_wire.py`: each JSON-RPC message recorded as it crosses (`connection.wire`), noise kept aside
- `_process.py`: a stdio server's process: its stderr kept, what it left running stopped
- `_schemas.py`: a server's schema refused when unusable, outlined, applied whole in the call
- `_names.py`: MCP names that cannot be tool names, or clash, refused
- `_content.py`: content blocks that are not text (images, resources) as text
"""

from __future__ import annotations

from .._browser import needs_local_install

# before the imports the browser edition lacks (mcp, regex): one clear line there, not a traceback
needs_local_install("MCP's stdio servers run as processes", "10")

import copy
import functools
import json
import queue
import re
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import anyio
import anyio.from_thread
import mcp_types
from mcp import Client, Implementation
from mcp.client import Transport
from mcp.client._memory import InMemoryTransport  # the SDK's in-process transport (a private module)
from mcp.server.mcpserver import MCPServer

from .._guard_calls import readonly_from_annotations
from ..dispatch import ERROR_PREFIX, ToolFailure, ToolRegistry
from ..schema import Tool
from ._content import block_text
from ._names import refuse_clashes
from ._process import ServerProcess
from ._schemas import check_arguments, outline, usable_schema
from ._session import BlockingSession, MCPServerError, PageLimit
from ._wire import RecordingMCPTransport, WireMessage, as_json

__all__ = ["MCPConnection", "MCPServerError", "MCPToolError", "ServerTool", "WireMessage", "connect"]
__all__ += ["connect_stdio", "add_server_tools", "writing_tools", "to_openai_tool", "to_tool_message"]
__all__ += ["result_text", "openai_name", "DEFAULT_MCP_CALL_TIMEOUT", "MAX_PAGES", "WEATHER_SERVER"]
__all__ += ["event_loop_thread"]

DEFAULT_MCP_CALL_TIMEOUT = 10.0  # seconds a server may take to answer one tool call
STARTUP_TIMEOUT = 30.0  # seconds for the handshake and tools/list: a server may take seconds to start
MAX_PAGES = 100  # pages of tools/list read at most: a server that always says "more" is stopped there
WEATHER_SERVER = (
    Path(__file__).parent.parent / "mcp_servers" / "weather.py"
)  # the lesson's server, as a script
# the version written out, not read from the installed package, so the wire is the same everywhere
CLIENT_INFO = Implementation(name="agent-core", version="0.2.0")


def event_loop_thread() -> anyio.from_thread.BlockingPortal:
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


class MCPToolError(ToolFailure):
    """the tool ran and reported a failure (`isError: true`); the message is its text"""


class MCPConnection:
    """a live MCP client session, usable from ordinary (synchronous) code such as the dispatcher;
    `wire` holds every JSON-RPC message sent and received"""

    def __init__(
        self,
        transport: Transport,
        *,
        name: str,
        timeout: float = DEFAULT_MCP_CALL_TIMEOUT,
        process: ServerProcess | None = None,
    ) -> None:
        self.name = name
        self.timeout = timeout  # seconds for one tool call; then it is cancelled
        self.wire: list[WireMessage] = []
        self.unreadable: list[str] = []  # lines from the server that were not JSON-RPC messages
        # mode="legacy": the initialize handshake every MCP server understands; cache=None: every
        # request goes over the wire
        self._client = Client(
            RecordingMCPTransport(transport, self.wire, self.unreadable),
            mode="legacy",
            client_info=CLIENT_INFO,
            read_timeout_seconds=max(timeout, STARTUP_TIMEOUT),
            cache=None,
        )
        # the async SDK on its own event loop thread; each request below waits there for its answer
        self._session = BlockingSession(self._client, event_loop_thread(), name, self.unreadable, process)

    def list_tools(self) -> list[dict[str, Any]]:
        """every tool the server offers (tools/list, page by page), as JSON"""
        tools: list[dict[str, Any]] = []
        pages = PageLimit(self.name, MAX_PAGES)  # refuses a list that never ends
        cursor: str | None = None
        while True:
            send = functools.partial(self._client.list_tools, cursor=cursor)
            page = self._session.request("tools/list", send, max(self.timeout, STARTUP_TIMEOUT))
            tools += [as_json(tool) for tool in page.tools]
            if not page.next_cursor:
                return tools
            cursor = pages.next(page.next_cursor, len(tools))

    def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """one tools/call; the result as JSON. Raises MCPServerError if no result came back"""
        send = functools.partial(self._client.call_tool, name, arguments, read_timeout_seconds=self.timeout)
        return as_json(self._session.request(f"tools/call {name!r}", send, self.timeout))

    @property
    def stopped(self) -> str | None:
        """why the connection ended, once it has"""
        return self._session.stopped

    def close(self) -> None:
        """end the session (and stop a subprocess server)"""
        self._session.close()

    def __enter__(self) -> MCPConnection:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"MCPConnection({self.name!r})"


def connect(server: MCPServer, *, timeout: float = DEFAULT_MCP_CALL_TIMEOUT) -> MCPConnection:
    """connect to an MCPServer object in this process, over in-memory streams"""
    return MCPConnection(InMemoryTransport(server), name=server.name, timeout=timeout)


def connect_stdio(
    script: str | Path, *args: str, name: str | None = None, timeout: float = DEFAULT_MCP_CALL_TIMEOUT
) -> MCPConnection:
    """start a Python MCP server script as a subprocess (the same Python as this one) and connect
    over its stdin and stdout; its stderr is kept to explain a crash"""
    process = ServerProcess(script, args)
    return MCPConnection(
        process.transport(), name=name or Path(script).stem, timeout=timeout, process=process
    )


# --- definitions and results: MCP JSON -> Chat Completions JSON -----------------------------


def to_openai_tool(tool: mcp_types.Tool | dict[str, Any], name: str | None = None) -> dict[str, Any]:
    """an MCP tool (from tools/list) -> a Chat Completions tool definition; name= to rename it"""
    mcp_tool = as_json(tool)
    function: dict[str, Any] = {"name": name or mcp_tool["name"]}
    if mcp_tool.get("description"):
        function["description"] = mcp_tool["description"]
    # the same JSON Schema under another key: required, enum, nested objects all carry over
    function["parameters"] = copy.deepcopy(
        mcp_tool.get("inputSchema") or {"type": "object", "properties": {}}
    )
    return {"type": "function", "function": function}


def result_text(result: mcp_types.CallToolResult | dict[str, Any]) -> tuple[str, bool]:
    """an MCP tool result (from tools/call) -> (the text for the model, whether it is an error)

    structuredContent, when there is some, is the result, as JSON: its text blocks are then only the
    fallback the spec asks for (https://modelcontextprotocol.io/specification/2025-06-18/server/tools#structured-content).
    Otherwise each content block becomes a line of text."""
    answer = as_json(result)
    structured = answer.get("structuredContent")
    if structured is not None:
        text = json.dumps(structured, ensure_ascii=False)
    else:
        text = "\n".join(block_text(block) for block in answer.get("content") or [])
    failed = bool(answer.get("isError"))
    if failed and not text:
        text = "the tool reported an error without a message"
    return text, failed


def to_tool_message(tool_call_id: str, result: mcp_types.CallToolResult | dict[str, Any]) -> dict[str, Any]:
    """an MCP tool result -> the `tool` message answering the call (errors start with ERROR: )"""
    text, failed = result_text(result)
    return {"role": "tool", "tool_call_id": tool_call_id, "content": ERROR_PREFIX + text if failed else text}


def openai_name(tool_name: str, prefix: str | None = None) -> str:
    """the name a model may call, `prefix__name` with a prefix: MCP allows A-Z a-z 0-9 _ - . and up
    to 128 characters (SEP-986), Chat Completions only letters, digits, '_' and '-', at most 64"""
    name = f"{prefix}__{tool_name}" if prefix else tool_name
    return re.sub(r"[^a-zA-Z0-9_-]", "_", name)[:64]


# --- the server's tools in the dispatcher ------------------------------------------------------


class ServerTool(Tool):
    """a tool an MCP server offers: the model reads the server's schema, whole; the dispatcher checks
    each argument's name, JSON type and enum, and the call the whole schema, under its time limit"""

    def __init__(
        self, connection: MCPConnection, mcp_tool: dict[str, Any], name: str, schema: dict[str, Any]
    ) -> None:
        self.connection, self.mcp_name, self.server_schema = connection, mcp_tool["name"], schema
        self.read_only: bool = readonly_from_annotations(mcp_tool.get("annotations"))
        """the server says the tool only reads (readOnlyHint): a hint, which a server may get wrong"""
        # a Tool needs a description; MCP's is optional
        description = mcp_tool.get("description") or mcp_tool.get("title")
        super().__init__(
            self.call_server,
            name=name,
            description=description or f"the tool {self.mcp_name!r} of {connection.name}",
        )

    def read_parameters(self, parameter_docs: dict[str, str]) -> dict[str, Any]:
        return outline(self.server_schema)  # what the dispatcher checks before the call

    @property
    def definition(self) -> dict[str, Any]:
        definition = super().definition
        definition["function"]["parameters"] = copy.deepcopy(self.server_schema)
        return definition

    def call_server(self, **arguments: Any) -> str:
        """check the arguments against the server's whole schema, call the tool, return its text"""
        check_arguments(self.name, self.server_schema, arguments, self.connection.timeout)
        text, failed = result_text(self.connection.call_tool(self.mcp_name, arguments))
        if failed:
            raise MCPToolError(text)
        return text


def add_server_tools(
    registry: ToolRegistry,
    connection: MCPConnection,
    *,
    prefix: str | None = None,
    only: Iterable[str] | None = None,
) -> list[ServerTool]:
    """register the server's tools (or `only` those named) in the registry; returns the new tools

    prefix: call them `prefix__name`, so two servers' tools of the same name can both be added.
    A name already in the registry is refused (ValueError), never silently replaced; so is a tool
    whose schema cannot be used. Either way nothing is added.
    """
    wanted = None if only is None else set(only)
    tools: list[ServerTool] = []
    for mcp_tool in connection.list_tools():
        own_name = mcp_tool.get("name")
        if wanted is not None and own_name not in wanted:
            continue
        name = openai_name(own_name, prefix) if isinstance(own_name, str) else ""
        refuse_clashes(name, own_name, connection.name, {t.name: t.mcp_name for t in tools}, registry)
        tools.append(ServerTool(connection, mcp_tool, name, usable_schema(connection.name, mcp_tool)))
    for tool in tools:  # the connection's own timeout cancels the request; the registry's only stops waiting
        registry.add(tool, timeout=connection.timeout + 5)
    return tools


def writing_tools(tools: Iterable[Tool]) -> list[str]:
    """the names of the server tools among `tools` (a registry, or add_server_tools' list) that may
    change things, whatever their prefix: for Permissions(writing_tools=...) (lesson 05)"""
    return [tool.name for tool in tools if isinstance(tool, ServerTool) and not tool.read_only]
