"""A hostile MCP server: endless pages, schemas that point at the network or never end, replies that are not
JSON-RPC, children left behind."""

import http.server
import json
import os
import signal
import sys
import threading
import time

import pytest

from agent_core.dispatch import ToolRegistry, is_error
from agent_core.guardrails import Permissions
from agent_core.loop import AgentRun
from agent_core.mcp_bridge import MAX_PAGES, MCPServerError, add_server_tools, connect_stdio, writing_tools

# A server that speaks JSON-RPC over stdio by hand, so it can send what no SDK server would.
# Its behaviour comes from a JSON file: the tools it lists, what it answers, what it prints.
SERVER = r"""
import json, subprocess, sys, time
config = json.load(open(sys.argv[1]))
if config.get("child_pidfile"):
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    open(config["child_pidfile"], "w").write(str(child.pid))
def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()
for line in sys.stdin:
    request = json.loads(line)
    if "id" not in request:
        continue
    if config.get("noise"):
        print("serving... (a log line on stdout)", flush=True)
    method, reply = request["method"], {"jsonrpc": "2.0", "id": request["id"]}
    if method == "initialize":
        reply["result"] = {
            "protocolVersion": request["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "hostile", "version": "0"},
        }
    elif method == "tools/list":
        cursor = (request.get("params") or {}).get("cursor")
        reply["result"] = {"tools": [] if cursor else config["tools"]}
        if config.get("pages") == "endless":
            reply["result"]["nextCursor"] = str(int(cursor or 0) + 1)
        elif config.get("pages") == "same cursor":
            reply["result"]["nextCursor"] = "again"
    elif method == "tools/call":
        if "raw_reply" in config:
            sys.stdout.write(config["raw_reply"] + "\n")
            sys.stdout.flush()
            continue
        reply["result"] = config.get("result", {"content": [{"type": "text", "text": "done"}]})
    else:
        reply["error"] = {"code": -32601, "message": "no such method"}
    send(reply)
"""

OBJECT = {"type": "object", "properties": {"text": {"type": "string"}}}


def tool(name="echo", schema=OBJECT, **more):
    return {"name": name, "description": "Echo the text.", "inputSchema": schema, **more}


@pytest.fixture
def hostile(tmp_path):
    """connect_stdio to a hand-written server behaving as the keywords say; closed afterwards"""
    script = tmp_path / "hostile_server.py"
    script.write_text(SERVER)
    connections = []

    def start(tools=(), timeout=10.0, **config):
        path = tmp_path / f"config{len(connections)}.json"
        path.write_text(json.dumps({"tools": list(tools), **config}))
        connection = connect_stdio(script, str(path), name="hostile", timeout=timeout)
        connections.append(connection)
        return connection

    yield start
    for connection in connections:
        connection.close()


def call(name, **arguments):
    return {
        "id": "call_1",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }


# --- pages -----------------------------------------------------------------------------------


def test_a_tool_list_that_never_ends_is_refused_after_max_pages(hostile):
    connection = hostile([tool()], pages="endless")
    registry = ToolRegistry()
    with pytest.raises(MCPServerError, match=f"more tools after {MAX_PAGES} pages"):
        add_server_tools(registry, connection)
    assert len(registry) == 0
    assert sum(m.message.get("method") == "tools/list" for m in connection.wire) == MAX_PAGES


def test_a_cursor_sent_twice_ends_the_listing_at_once(hostile):
    connection = hostile([tool()], pages="same cursor")
    with pytest.raises(MCPServerError, match="cursor 'again' twice"):
        connection.list_tools()
    assert sum(m.message.get("method") == "tools/list" for m in connection.wire) == 2


# --- schemas -----------------------------------------------------------------------------------


class Listener:
    """a 127.0.0.1 HTTP server that records whether anything contacted it"""

    def __init__(self):
        self.contacted = []
        listener = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                listener.contacted.append(self.path)
                body = json.dumps({"type": "string"}).encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def listener():
    listening = Listener()
    yield listening
    listening.close()


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"text": {"$ref": "{url}/text.json"}}},
        {"$id": "{url}/root.json", "type": "object", "properties": {"text": {"$ref": "text.json"}}},
        {"type": "object", "properties": {"text": {"$dynamicRef": "{url}/text.json#meta"}}},
    ],
    ids=["absolute", "relative to $id", "dynamic"],
)
def test_a_schema_that_refers_to_an_address_is_refused_and_nothing_is_fetched(hostile, listener, schema):
    schema = json.loads(json.dumps(schema).replace("{url}", listener.url))
    connection = hostile([tool(schema=schema)])
    registry = ToolRegistry()
    with pytest.raises(ValueError, match="outside the schema; a schema is never fetched"):
        add_server_tools(registry, connection)
    assert len(registry) == 0
    assert listener.contacted == []


def test_a_schema_with_a_remote_id_but_local_references_works_without_fetching(hostile, listener):
    schema = {
        "$id": f"{listener.url}/root.json",
        "type": "object",
        "properties": {"text": {"$ref": "#/$defs/text"}},
        "$defs": {"text": {"type": "string", "maxLength": 5}},
    }
    registry = ToolRegistry()
    add_server_tools(registry, hostile([tool(schema=schema)]))
    assert registry.dispatch(call("echo", text="hi"))["content"] == "done"
    too_long = registry.dispatch(call("echo", text="much too long"))["content"]
    assert too_long.startswith("ERROR: the arguments for 'echo' do not match") and "is too long" in too_long
    assert listener.contacted == []


@pytest.mark.parametrize(
    ("schema", "words"),
    [
        (
            {"type": "object", "properties": {"text": {"type": "strnig"}}},
            "not valid JSON Schema (at properties/text/type",
        ),
        ({"type": "object", "properties": {"text": {"pattern": "("}}}, "not valid JSON Schema"),
        ({"type": "object", "properties": {"text": {"minLength": -1}}}, "not valid JSON Schema"),
    ],
    ids=["unknown type", "broken pattern", "negative length"],
)
def test_a_schema_with_invalid_keywords_is_refused_clearly_at_registration(hostile, schema, words):
    registry = ToolRegistry()
    connection = hostile([tool("fine"), tool(schema=schema)])
    with pytest.raises(ValueError, match="offers 'echo' with an input schema that") as refusal:
        add_server_tools(registry, connection)
    assert words in str(refusal.value) and "only=" in str(refusal.value)
    assert len(registry) == 0  # all or nothing: 'fine' was not added either
    add_server_tools(registry, connection, only=["fine"])
    assert registry.names == ["fine"]


def test_a_schema_for_something_other_than_an_object_fails_the_listing_clearly(hostile):
    with pytest.raises(
        MCPServerError, match="answered tools/list with a reply that is not a valid MCP result"
    ):
        add_server_tools(ToolRegistry(), hostile([tool(schema={"type": "array"})]))


def test_a_schema_that_refers_to_itself_without_end_is_an_observation(hostile):
    schema = {"type": "object", "properties": {"text": {"$ref": "#/properties/text"}}}
    registry = ToolRegistry()
    connection = hostile([tool(schema=schema)])
    add_server_tools(registry, connection)
    start = len(connection.wire)
    observation = registry.run(call("echo", text="hi"))
    assert observation.is_error and "refers to itself without end" in observation.content
    assert len(connection.wire) == start  # nothing was sent to the server


def test_a_reference_to_nothing_is_an_observation(hostile):
    schema = {"type": "object", "properties": {"text": {"$ref": "#/$defs/missing"}}}
    registry = ToolRegistry()
    add_server_tools(registry, hostile([tool(schema=schema)]))
    observation = registry.run(call("echo", text="hi"))
    assert observation.is_error and "cannot be applied" in observation.content


def test_a_catastrophic_pattern_is_stopped_within_the_call_timeout(hostile):
    schema = {"type": "object", "properties": {"text": {"type": "string", "pattern": "^(a|a)+$"}}}
    registry = ToolRegistry()
    connection = hostile([tool(schema=schema)], timeout=0.5)
    add_server_tools(registry, connection)
    start = time.monotonic()
    observation = registry.run(call("echo", text="a" * 40 + "!"))  # 2**40 ways to fail
    assert time.monotonic() - start < 15  # regex checks its clock now and then, not to the millisecond
    assert observation.is_error and "took more than 0.5 s" in observation.content
    assert registry.run(call("echo", text="aaa")).content == "done"  # the same pattern, quick input


def test_nested_arguments_are_checked_against_the_whole_schema_before_the_call(hostile):
    schema = {
        "type": "object",
        "properties": {
            "booking": {"type": "object", "properties": {"seats": {"type": "integer", "minimum": 1}}}
        },
        "required": ["booking"],
    }
    registry = ToolRegistry()
    connection = hostile([tool(schema=schema)])
    add_server_tools(registry, connection)
    start = len(connection.wire)
    observation = registry.run(call("echo", booking={"seats": 0}))
    assert observation.is_error and "'booking/seats': 0 is less than the minimum of 1" in observation.content
    assert len(connection.wire) == start
    missing = registry.run(call("echo"))
    assert missing.error_type == "invalid_arguments" and "'booking': missing (required)" in missing.content
    # the model reads the server's schema, whole
    assert registry["echo"].definition["function"]["parameters"] == schema


# --- names -----------------------------------------------------------------------------------


def test_two_tools_that_sanitise_to_one_name_are_refused_naming_both(hostile):
    registry = ToolRegistry()
    with pytest.raises(ValueError, match="'files.read' and 'files_read', which both become 'files_read'"):
        add_server_tools(registry, hostile([tool("files.read"), tool("files_read")]))
    assert len(registry) == 0


def test_two_long_names_cut_to_one_are_refused(hostile):
    long_a, long_b = "x" * 70 + "a", "x" * 70 + "b"
    with pytest.raises(ValueError, match="both become 'x{64}'"):
        add_server_tools(ToolRegistry(), hostile([tool(long_a), tool(long_b)]))


# --- replies -----------------------------------------------------------------------------------


def test_a_reply_that_is_not_json_rpc_is_reported_as_that(hostile, capfd):
    registry = ToolRegistry()
    add_server_tools(registry, hostile([tool()], timeout=1.0, raw_reply="OK, echoed it!"))
    content = registry.dispatch(call("echo", text="hi"))["content"]
    assert content.startswith(
        "ERROR: the MCP server 'hostile' sent no reply to tools/call 'echo' that could be read"
    )
    assert "1 line that is not JSON-RPC, the last: 'OK, echoed it!'" in content
    assert "did not answer" not in content
    assert "Traceback" not in capfd.readouterr().err


def test_a_reply_that_is_json_rpc_but_not_a_result_is_reported_as_that(hostile):
    registry = ToolRegistry()
    add_server_tools(registry, hostile([tool()], result={"content": "not a list"}))
    observation = registry.run(call("echo", text="hi"))
    assert observation.is_error and "with a reply that is not a valid MCP result" in observation.content


def test_noise_on_stdout_costs_no_traceback_and_the_calls_still_work(hostile, capfd):
    registry = ToolRegistry()
    connection = hostile([tool()], noise=True)
    add_server_tools(registry, connection)
    assert registry.dispatch(call("echo", text="hi"))["content"] == "done"
    assert connection.unreadable[-1] == "'serving... (a log line on stdout)'"
    assert "Traceback" not in capfd.readouterr().err


# --- processes -------------------------------------------------------------------------------


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.skipif(sys.platform == "win32", reason="process groups are POSIX")
def test_close_stops_every_process_the_server_started(hostile, tmp_path):
    pidfile = tmp_path / "child.pid"
    connection = hostile([tool()], child_pidfile=str(pidfile))
    child = int(pidfile.read_text())
    try:
        assert alive(child)
        connection.close()
        deadline = time.monotonic() + 5
        while alive(child) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not alive(child)
    finally:
        if alive(child):
            os.kill(child, signal.SIGKILL)


# --- annotations -------------------------------------------------------------------------------


@pytest.mark.parametrize("prefix", [None, "fs", "files_server"])
def test_annotations_reach_permissions_whatever_the_prefix(hostile, prefix):
    tools = [
        tool("write_file", annotations={"destructiveHint": True}),
        tool("notes", annotations={}),
        tool("read_file", annotations={"readOnlyHint": True}),
        tool("shifty", annotations={"readOnlyHint": True, "destructiveHint": True}),
    ]
    registry = ToolRegistry()
    added = add_server_tools(registry, hostile(tools), prefix=prefix)
    run = AgentRun(task="tidy up", messages=[], tools=registry)
    assert (
        writing_tools(registry)
        == writing_tools(added)
        == [t.name for t in added if t.mcp_name != "read_file"]
    )
    read_only = Permissions(read_only=True, writing_tools=writing_tools(registry))
    refused = {t.mcp_name for t in added if read_only.before_tool(run, call(t.name, text="x")) is not None}
    assert refused == {"write_file", "notes", "shifty"}


def test_a_failed_call_reaches_the_model_as_an_error(hostile):
    registry = ToolRegistry()
    add_server_tools(registry, hostile([tool()], result={"content": [], "isError": True}))
    assert is_error(registry.dispatch(call("echo", text="hi")))
