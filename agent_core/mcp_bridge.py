"""Tools from an MCP server: its tool list becomes the dispatcher's tools, its results tool messages
(lesson 10)."""

from __future__ import annotations

from ._browser import needs_local_install

# before the imports the browser edition lacks (mcp, regex): one clear line there, not a traceback
needs_local_install("MCP's stdio servers run as processes", "10")

import copy
import json
import logging
import os
import queue
import re
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import anyio.from_thread
import mcp_types
import regex
from mcp import Client, Implementation, MCPError, StdioServerParameters, stdio_client
from mcp.client._memory import InMemoryTransport  # the SDK's in-process transport (a private module)

from ._guard_calls import readonly_from_annotations
from ._jsonschema import (
    NOTHING_TO_FETCH,
    Draft202012Validator,
    ValidationError,
    relevance,
)  # before jsonschema

# isort: split
from jsonschema.exceptions import SchemaError
from jsonschema.validators import extend

from .dispatch import ERROR_PREFIX, ToolFailure, ToolRegistry
from .schema import TOOL_NAME_PATTERN, Tool

__all__ = [
    "MCPConnection",
    "MCPServerError",
    "MCPToolError",
    "ServerTool",
    "WireMessage",
    "connect",
    "connect_stdio",
    "add_server_tools",
    "to_openai_tool",
    "to_tool_message",
    "result_text",
    "openai_name",
    "DEFAULT_MCP_CALL_TIMEOUT",
    "MAX_PAGES",
    "WEATHER_SERVER",
]

DEFAULT_MCP_CALL_TIMEOUT = 10.0  # seconds a server may take to answer one tool call
STARTUP_TIMEOUT = 30.0  # seconds for the handshake and tools/list: a server may take seconds to start
MAX_PAGES = 100  # pages of tools/list read at most: a server that always says "more" is stopped there
WEATHER_SERVER = Path(__file__).parent / "mcp_servers" / "weather.py"  # the lesson's server, as a script
# written out, not read from the installed package, so the wire is the same everywhere; a test keeps
# it equal to the version in pyproject.toml
CLIENT_INFO = Implementation(name="agent-core", version="0.2.0")


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
        return (
            f"[{kind} {block.get('mimeType', '')}, about {size:,} bytes: not shown, a tool message carries "
            "text only]"
        )
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

    def __init__(self, inner: Any, wire: list[WireMessage], unreadable: list[str]):
        self.inner, self.wire, self.unreadable = inner, wire, unreadable
        self.pid: int | None = None  # the server's process, when there is one

    async def __aenter__(self) -> tuple[Any, Any]:
        read, write = await self.inner.__aenter__()
        # the SDK keeps the process it started to itself; its stdio_client holds it as `process`
        frame = getattr(getattr(self.inner, "gen", None), "ag_frame", None)
        process = frame.f_locals.get("process") if frame is not None else None
        self.pid = getattr(process, "pid", None)
        return _RecordingRead(read, self.wire, self.unreadable), _RecordingWrite(write, self.wire)

    async def __aexit__(self, *exc_info: Any) -> Any:
        return await self.inner.__aexit__(*exc_info)


class _RecordingRead:
    def __init__(self, stream: Any, wire: list[WireMessage], unreadable: list[str]):
        self.stream, self.wire, self.unreadable = stream, wire, unreadable

    @property
    def last_context(self) -> Any:  # the SDK reads the sender's context from the stream it was given
        return getattr(self.stream, "last_context", None)

    async def receive(self) -> Any:
        item = await self.stream.receive()
        if hasattr(item, "message"):
            self.wire.append(WireMessage("<-", _json(item.message)))
        elif isinstance(item, Exception):  # a line that is not a JSON-RPC message; the SDK skips it
            self.unreadable.append(_unreadable_line(item))
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

    def __init__(
        self, transport: Any, *, name: str, timeout: float = DEFAULT_MCP_CALL_TIMEOUT, errlog: Any = None
    ):
        self.name = name
        self.timeout = timeout  # seconds for one tool call; then it is cancelled
        self.wire: list[WireMessage] = []
        self.stopped: str | None = None  # why the connection ended, once it has
        self.unreadable: list[str] = []  # lines from the server that were not JSON-RPC messages
        self._errlog = errlog
        # mode="legacy": the initialize handshake every MCP server understands; cache=None: every
        # request goes over the wire
        self._transport = _RecordingTransport(transport, self.wire, self.unreadable)
        client = Client(
            self._transport,
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
            self._stop_process_group()
            reason = f"{_reason(error)}{self._unreadable_words()}{self._last_words()}"
            if errlog is not None:
                errlog.close()
            raise MCPServerError(
                f"could not start a session with the MCP server {name!r}: {reason}"
            ) from None
        self._portal: anyio.from_thread.BlockingPortal | None = portal

    @property
    def server_info(self) -> dict[str, Any]:
        return _json(self._client.server_info) if self._client.server_info else {}

    def list_tools(self) -> list[dict[str, Any]]:
        """every tool the server offers (tools/list, page by page), as JSON"""
        tools, cursor, seen = [], None, set()
        for _ in range(MAX_PAGES):
            page = self._request("tools/list", self._client.list_tools, cursor=cursor)
            tools += [_json(tool) for tool in page.tools]
            cursor = page.next_cursor
            if not cursor:
                return tools
            if cursor in seen:
                raise MCPServerError(
                    f"the MCP server {self.name!r} sent the tools/list cursor {_short(cursor)} twice, "
                    "so its list of tools would never end; it was not read."
                )
            seen.add(cursor)
        raise MCPServerError(
            f"the MCP server {self.name!r} still had more tools after {MAX_PAGES} pages of tools/list "
            f"({len(tools)} tools so far), so the list was not read to its end and none were taken."
        )

    def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """one tools/call; the result as JSON. Raises MCPServerError if no result came back"""
        result = self._request(
            f"tools/call {name!r}", self._client.call_tool, name, arguments, read_timeout_seconds=self.timeout
        )
        return _json(result)

    def _request(self, what: str, method: Any, *args: Any, **kwargs: Any) -> Any:
        if self.stopped:
            raise MCPServerError(
                f"the MCP server {self.name!r} is not connected any more ({self.stopped}). Carry on without "
                "its tools."
            )
        unreadable_before = len(self.unreadable)
        assert self._portal is not None  # close() took it away, and said so in self.stopped
        try:
            return self._portal.call(lambda: method(*args, **kwargs))
        except MCPError as error:
            if error.error.code == mcp_types.REQUEST_TIMEOUT:
                waited = kwargs.get("read_timeout_seconds") or max(self.timeout, STARTUP_TIMEOUT)
                if len(self.unreadable) > unreadable_before:  # it answered, but not in JSON-RPC
                    raise MCPServerError(
                        f"the MCP server {self.name!r} sent no reply to {what} that could be read within "
                        f"{waited:g} s: it wrote {_lines(len(self.unreadable) - unreadable_before)} that "
                        f"{'is' if len(self.unreadable) - unreadable_before == 1 else 'are'} not JSON-RPC, "
                        f"the last: {self.unreadable[-1]}. The request was cancelled; try another approach."
                    ) from None
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
                f"the MCP server {self.name!r} refused {what}: {error.error.message} (JSON-RPC error "
                f"{error.error.code})"
            ) from None
        except Exception as error:  # a reply that is JSON-RPC but not the result MCP defines
            raise MCPServerError(
                f"the MCP server {self.name!r} answered {what} with a reply that is not a valid MCP "
                f"result: {_short(_reason(error), 300)}. Try another approach."
            ) from None

    def _unreadable_words(self) -> str:
        """the last line the server wrote to stdout that was not JSON-RPC, if there was one"""
        return f". It wrote on stdout what is not JSON-RPC: {self.unreadable[-1]}" if self.unreadable else ""

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
            self._stop_process_group()
            self.stopped = "the connection was closed"
            if self._errlog is not None:
                self._errlog.close()

    def _stop_process_group(self) -> None:
        """kill whatever the server process started and left running

        The SDK starts a server in a process group of its own, and kills the group only when the
        server itself does not exit (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#shutdown);
        a server that exits at once leaves its children running. Windows: the SDK's job object
        ends them all. A child that started a session of its own has left the group: not reached.
        """
        pid = self._transport.pid
        if pid is None or sys.platform == "win32":
            return
        try:
            os.killpg(pid, signal.SIGKILL)  # the server was the group's leader: its pid is the group's id
        except (ProcessLookupError, PermissionError):
            pass  # nothing left in the group

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


class ServerTool(Tool):
    """a tool an MCP server offers: the model reads the server's schema, whole

    The dispatcher checks only each argument's name, JSON type and enum before the call (fast, and
    what the lesson 03 messages explain); the whole schema is checked inside the call, under the
    call's time limit, with references resolved only inside the schema (never fetched) and
    patterns matched by `regex`, which can stop. A server chooses its schema: a pattern that
    takes minutes, or a reference to any address, must not hold up or steer the agent.
    """

    def __init__(
        self, connection: MCPConnection, mcp_tool: dict[str, Any], name: str, schema: dict[str, Any]
    ):
        self.server_schema = schema
        self.connection, self.mcp_name = connection, mcp_tool["name"]
        self.annotations = mcp_tool.get("annotations") or {}
        super().__init__(
            _calls_server(connection, mcp_tool["name"], name, schema),
            name=name,
            # a Tool needs a description; MCP's is optional
            description=mcp_tool.get("description")
            or mcp_tool.get("title")
            or f"the tool {mcp_tool['name']!r} of {connection.name}",
            parameters=_outline(schema),
            writes=_writes(mcp_tool),
        )

    @property
    def definition(self) -> dict[str, Any]:
        definition = super().definition
        definition["function"]["parameters"] = copy.deepcopy(self.server_schema)
        return definition


def _writes(mcp_tool: dict[str, Any]) -> bool:
    """whether Permissions(read_only=True) refuses the tool: unless its annotations say it only reads

    The one place where MCP's annotations become the registry's idea of a writing tool; the name
    the tool gets (a prefix) plays no part.
    """
    return not readonly_from_annotations(mcp_tool.get("annotations"))


def add_server_tools(
    registry: ToolRegistry,
    connection: MCPConnection,
    *,
    prefix: str | None = None,
    only: Iterable[str] | None = None,
) -> list[Tool]:
    """register the server's tools (or `only` those named) in the registry; returns the new Tools

    prefix: call them `prefix__name`, so two servers' tools of the same name can both be added.
    A name already in the registry is refused (ValueError), never silently replaced; so is a tool
    whose schema cannot be used. Either way nothing is added.
    """
    wanted = None if only is None else set(only)
    chosen: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}
    for mcp_tool in connection.list_tools():
        own_name = mcp_tool.get("name")
        if wanted is not None and own_name not in wanted:
            continue
        name = openai_name(own_name, prefix) if isinstance(own_name, str) else ""
        if not TOOL_NAME_PATTERN.match(name):
            raise ValueError(f"the MCP tool name {own_name!r} cannot be made into a tool name")
        if name in chosen:
            raise ValueError(
                f"the MCP server {connection.name!r} offers the tools {chosen[name][0]['name']!r} and "
                f"{own_name!r}, which both become {name!r} (a tool name has only letters, digits, '_' "
                "and '-', at most 64 of them); leave one of them out (only=...)"
            )
        if name in registry:
            raise ValueError(
                f"a tool named {name!r} is already registered, so the MCP server "
                f"{connection.name!r} cannot add its own; add this server's tools with a prefix "
                f"(prefix={connection.name!r}) or leave one of them out (only=...)"
            )
        chosen[name] = (mcp_tool, _usable_schema(connection, mcp_tool))
    # the connection's own timeout cancels the request; the registry's would only stop waiting
    return [
        registry.add(ServerTool(connection, mcp_tool, name, schema), timeout=connection.timeout + 5)
        for name, (mcp_tool, schema) in chosen.items()
    ]


def _usable_schema(connection: MCPConnection, mcp_tool: dict[str, Any]) -> dict[str, Any]:
    """the tool's inputSchema, when it is a JSON Schema this process can check on its own; else ValueError"""
    schema = mcp_tool.get("inputSchema") or {"type": "object", "properties": {}}
    refused = f"the MCP server {connection.name!r} offers {mcp_tool['name']!r} with an input schema that "
    leave_out = "; leave it out (only=...) or fix the server"
    if not isinstance(schema, dict) or schema.get("type", "object") != "object":
        raise ValueError(f"{refused}does not describe a JSON object of arguments{leave_out}")
    try:
        Draft202012Validator.check_schema(schema)
        references = list(_references(schema))
        patterns = list(_patterns(schema))
    except RecursionError:
        raise ValueError(f"{refused}is nested too deeply to read{leave_out}") from None
    except SchemaError as error:  # the schema breaks JSON Schema's own rules
        where = "/".join(str(part) for part in error.absolute_path) or "the top"
        raise ValueError(
            f"{refused}is not valid JSON Schema (at {where}: {_short(error.message, 200)}){leave_out}"
        ) from None
    for reference in references:
        if not reference.startswith("#"):
            raise ValueError(
                f"{refused}refers to {_short(reference)}, outside the schema; a schema is never "
                f"fetched from the network{leave_out}"
            )
    for pattern in patterns:
        try:
            regex.compile(pattern)
        except (regex.error, TypeError) as error:
            raise ValueError(
                f"{refused}has the pattern {_short(pattern)}, which regex cannot read ({error}){leave_out}"
            ) from None
    return schema


_VALUES = ("const", "enum", "default", "examples")  # keywords whose values are data, not schemas


def _references(schema: Any) -> Iterable[str]:
    """every $ref and $dynamicRef in a schema"""
    if isinstance(schema, list):
        for item in schema:
            yield from _references(item)
    elif isinstance(schema, dict):
        for key, value in schema.items():
            if key in ("$ref", "$dynamicRef") and isinstance(value, str):
                yield value
            elif key not in _VALUES:
                yield from _references(value)


def _patterns(schema: Any) -> Iterable[str]:
    """every regular expression in a schema: pattern values and patternProperties keys"""
    if isinstance(schema, list):
        for item in schema:
            yield from _patterns(item)
    elif isinstance(schema, dict):
        for key, value in schema.items():
            if key == "pattern" and isinstance(value, str):
                yield value
            elif key == "patternProperties" and isinstance(value, dict):
                yield from value
                yield from _patterns(list(value.values()))
            elif key not in _VALUES:
                yield from _patterns(value)


def _outline(schema: dict[str, Any]) -> dict[str, Any]:
    """what the dispatcher checks before the call: the arguments' names, and each one's JSON type
    and enum when the schema gives them plainly; the whole schema is checked in the call"""
    properties = schema["properties"] if isinstance(schema.get("properties"), dict) else {}
    outline: dict[str, Any] = {"type": "object", "properties": {}}
    for name, property_schema in properties.items():
        kept = {}
        if isinstance(property_schema, dict):
            kept = {key: property_schema[key] for key in ("type", "enum") if key in property_schema}
        outline["properties"][name] = kept
    required = schema.get("required")
    if isinstance(required, list) and all(name in properties for name in required):
        outline["required"] = required
    if schema.get("additionalProperties", True) is not False or "patternProperties" in schema:
        outline["additionalProperties"] = True  # the server may accept more: its schema decides
    return outline


def _safe_pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterable[ValidationError]:
    if validator.is_type(instance, "string") and not _search(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _safe_pattern_properties(
    validator: Any, patterns: dict[str, Any], instance: Any, schema: Any
) -> Iterable[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if _search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _safe_additional_properties(
    validator: Any, additional: Any, instance: Any, schema: Any
) -> Iterable[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    properties, patterns = schema.get("properties", {}), schema.get("patternProperties", {})
    extras = [key for key in instance if key not in properties and not any(_search(p, key) for p in patterns)]
    if validator.is_type(additional, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], additional, path=extra)
    elif not additional and extras:
        yield ValidationError(f"unexpected {', '.join(repr(extra) for extra in extras)} (not a parameter)")


_deadline = threading.local()  # when the check of the current call must end, per worker thread


def _search(pattern: str, text: str) -> bool:
    left = getattr(_deadline, "at", time.monotonic() + DEFAULT_MCP_CALL_TIMEOUT) - time.monotonic()
    # concurrent: the match lets go of the GIL, so the dispatcher keeps its own time limit too
    return regex.search(pattern, text, timeout=max(left, 0.001), concurrent=True) is not None


# the same validator with every regular expression matched by `regex`, which stops at a timeout
_ServerSchemaValidator = extend(
    Draft202012Validator,
    {
        "pattern": _safe_pattern,
        "patternProperties": _safe_pattern_properties,
        "additionalProperties": _safe_additional_properties,
    },
)


def _argument_problems(schema: dict[str, Any], arguments: dict[str, Any], seconds: float) -> list[str]:
    """what is wrong with the arguments under the server's whole schema; raises ToolFailure when
    the schema itself cannot be applied (in time, or at all)"""
    _deadline.at = time.monotonic() + seconds
    try:
        validator = _ServerSchemaValidator(schema, registry=NOTHING_TO_FETCH)
        errors = sorted(validator.iter_errors(arguments), key=relevance, reverse=True)
    except TimeoutError:
        raise ToolFailure(
            f"checking the arguments against the server's schema took more than {seconds:g} s (one of "
            "its patterns is too slow for them), so the call was not sent. Try shorter arguments, or another "
            "approach."
        ) from None
    except RecursionError:
        raise ToolFailure(
            "the server's schema for this tool refers to itself without end, so the arguments cannot be "
            "checked and the call was not sent. The tool cannot be used; try another approach."
        ) from None
    except Exception as error:  # a reference to nothing, or one outside the schema
        raise ToolFailure(
            f"the server's schema for this tool cannot be applied ({_short(_reason(error), 200)}), so the "
            "call was not sent. The tool cannot be used; try another approach."
        ) from None
    finally:
        del _deadline.at
    return list(dict.fromkeys(_explain(error) for error in errors))


def _explain(error: ValidationError) -> str:
    where = "/".join(str(part) for part in error.absolute_path)
    message = error.message if len(error.message) <= 200 else error.message[:200] + "..."
    return f"{repr(where) if where else 'the arguments'}: {message}"


def _calls_server(connection: MCPConnection, tool_name: str, name: str, schema: dict[str, Any]) -> Any:
    """a function that checks the arguments against the server's schema, calls the tool on the
    server (by its MCP name) and returns its text"""

    def call(**arguments: Any) -> str:
        problems = _argument_problems(schema, arguments, connection.timeout)
        if problems:
            raise ToolFailure(
                f"the arguments for {name!r} do not match its parameters:\n"
                + "\n".join(f"- {problem}" for problem in problems)
                + f"\nCall {name!r} again with corrected arguments; the server was not called."
            )
        text, failed = result_text(connection.call_tool(tool_name, arguments))
        if failed:
            raise MCPToolError(text)
        return text

    call.__name__ = call.__qualname__ = tool_name.replace(".", "_")
    return call


def _reason(error: BaseException) -> str:
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:  # a group around one error
        error = error.exceptions[0]
    return " ".join(str(error).split()) or type(error).__name__


def _short(text: Any, limit: int = 120) -> str:
    text = text if isinstance(text, str) else repr(text)
    return (
        repr(text)
        if len(text) <= limit
        else repr(text[:limit]) + f"... ({len(text) - limit:,} more characters)"
    )


def _lines(count: int) -> str:
    return "1 line" if count == 1 else f"{count} lines"


def _unreadable_line(error: Exception) -> str:
    """the line the server wrote that could not be read, shortened; the parser's error holds it"""
    errors = getattr(error, "errors", None)
    try:
        line = errors()[0]["input"] if callable(errors) else None
    except Exception:
        line = None
    return _short(line if line is not None else _reason(error))


class _QuietParseErrors(logging.Filter):
    """the SDK logs a traceback for each stdout line that is not JSON-RPC; the connection keeps the
    lines in `unreadable` instead, and says so when a request gets no readable reply"""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith("Failed to parse JSONRPC message")


logging.getLogger("mcp.client.stdio").addFilter(_QuietParseErrors())
