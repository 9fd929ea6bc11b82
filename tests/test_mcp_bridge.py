"""Tests for agent_core.mcp_bridge: an MCP server's tools in the dispatcher, against real servers (lesson
10)."""

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from mcp.server.mcpserver import MCPServer

from agent_core import mock
from agent_core.dispatch import ToolRegistry, is_error
from agent_core.loop import run_agent
from agent_core.mcp_bridge import (
    WEATHER_SERVER,
    MCPServerError,
    add_server_tools,
    connect,
    connect_stdio,
    openai_name,
    result_text,
    to_openai_tool,
    to_tool_message,
)
from agent_core.mcp_servers.weather import make_server


def call(name, **arguments):
    return {
        "id": "call_1",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }


@pytest.fixture(scope="module")
def stdio_weather():
    with connect_stdio(WEATHER_SERVER) as connection:
        yield connection


# --- against the real server, run as a subprocess over stdio -------------------------------------


def test_stdio_session_starts_with_the_initialize_handshake(stdio_weather):
    first, reply, initialized = stdio_weather.wire[:3]
    assert (first.direction, first.message["method"], first.message["id"]) == ("->", "initialize", 1)
    project = tomllib.loads((Path(__file__).parent.parent / "pyproject.toml").read_text())["project"]
    assert first.message["params"]["clientInfo"] == {"name": "agent-core", "version": project["version"]}
    assert reply.direction == "<-" and reply.message["id"] == 1
    assert reply.message["result"]["serverInfo"] == {"name": "weather", "version": "1.0.0"}
    assert reply.message["result"]["protocolVersion"] == first.message["params"]["protocolVersion"]
    assert initialized.message == {"jsonrpc": "2.0", "method": "notifications/initialized"}


def test_stdio_tools_become_definitions_with_required_and_enum(stdio_weather):
    registry = ToolRegistry()
    add_server_tools(registry, stdio_weather)
    assert registry.names == ["forecast", "weather_alerts"]
    parameters = registry["forecast"].definition["function"]["parameters"]
    assert parameters["required"] == ["city"]
    assert parameters["properties"]["unit"]["enum"] == ["celsius", "fahrenheit"]
    listed = [m.message for m in stdio_weather.wire if m.message.get("method") == "tools/list"]
    assert listed, "tools/list went over the wire"


def test_stdio_call_sends_tools_call_and_returns_structured_content_as_json(stdio_weather):
    registry = ToolRegistry()
    add_server_tools(registry, stdio_weather)
    message = registry.dispatch(call("forecast", city="Oslo", unit="fahrenheit"))
    assert json.loads(message["content"]) == {
        "city": "Oslo",
        "sky": "light rain",
        "temperature": 49.1,
        "unit": "fahrenheit",
        "rain_chance": 0.8,
    }
    sent = [m.message for m in stdio_weather.wire if m.message.get("method") == "tools/call"][-1]
    assert sent["params"] == {"name": "forecast", "arguments": {"city": "Oslo", "unit": "fahrenheit"}}
    answer = next(
        m.message for m in stdio_weather.wire if m.message.get("id") == sent["id"] and "result" in m.message
    )
    assert answer["result"]["isError"] is False


def test_stdio_tool_failure_is_an_error_observation_with_the_servers_text(stdio_weather):
    registry = ToolRegistry()
    add_server_tools(registry, stdio_weather)
    observation = registry.run(call("forecast", city="Paris"))
    assert observation.is_error and observation.error_type == "tool_error"
    assert "no forecast for 'Paris'; the cities I know are Lisbon, Oslo, Tokyo" in observation.content


def test_arguments_against_the_servers_schema_are_refused_before_the_server_is_called(stdio_weather):
    registry = ToolRegistry()
    add_server_tools(registry, stdio_weather)
    calls_before = sum(m.message.get("method") == "tools/call" for m in stdio_weather.wire)
    observation = registry.run(call("forecast", city="Oslo", unit="kelvin"))
    assert observation.error_type == "invalid_arguments"
    assert '"kelvin" is not one of "celsius", "fahrenheit"' in observation.content
    assert sum(m.message.get("method") == "tools/call" for m in stdio_weather.wire) == calls_before


def test_a_hanging_server_gives_a_timeout_observation_and_keeps_serving_other_calls():
    with connect_stdio(WEATHER_SERVER, "--fault", "hang", timeout=1) as connection:
        registry = ToolRegistry()
        add_server_tools(registry, connection)
        observation = registry.run(call("forecast", city="Oslo"))
        assert observation.is_error
        assert observation.content == (
            "ERROR: the MCP server 'weather' did not answer tools/call 'forecast' within 1 s, so the "
            "request was cancelled. Try again later, or another approach."
        )
        cancelled = [
            m.message for m in connection.wire if m.message.get("method") == "notifications/cancelled"
        ]
        assert cancelled and cancelled[0]["params"]["requestId"] > 0
        assert registry.dispatch(call("weather_alerts", city="Lisbon"))["content"].startswith("Heat warning")


def test_a_server_that_dies_mid_call_gives_an_observation_then_fails_fast():
    with connect_stdio(WEATHER_SERVER, "--fault", "crash", timeout=5) as connection:
        registry = ToolRegistry()
        add_server_tools(registry, connection)
        first = registry.run(call("forecast", city="Oslo"))
        assert first.is_error
        assert "stopped during tools/call 'forecast' (connection closed)" in first.content
        assert "weather backend: segmentation fault" in first.content  # its stderr, kept
        second = registry.run(call("weather_alerts", city="Oslo"))
        assert "is not connected any more" in second.content


def test_a_script_that_is_not_a_server_is_a_clear_error(tmp_path):
    script = tmp_path / "not_a_server.py"
    script.write_text("import sys\nprint('hello', file=sys.stderr)\n")
    with pytest.raises(MCPServerError, match="could not start a session .* last words on stderr: hello"):
        connect_stdio(script, timeout=5)


# --- in memory --------------------------------------------------------------------------------


def test_the_loop_runs_on_the_mock_with_mcp_tools():
    with connect(make_server()) as connection:
        registry = ToolRegistry()
        add_server_tools(registry, connection)
        run = run_agent(mock.client(mock.DescriptionReader()), 'Tomorrow\'s forecast for "Oslo"?', registry)
    assert run.stop_reason == "answered"
    assert run.messages[2]["content"] == json.dumps(
        {"city": "Oslo", "sky": "light rain", "temperature": 9.5, "unit": "celsius", "rain_chance": 0.8}
    )
    assert run.trace[0].request["tools"][0]["function"]["name"] == "forecast"


def marine_server(log):
    server = MCPServer("marine", log_level="CRITICAL")

    @server.tool(name="forecast", structured_output=False)
    def marine_forecast(area: str) -> str:
        """Sea state and wind for a sea area."""
        log.append(area)
        return f"{area}: waves 2 m, wind 20 knots"

    return server


def test_a_name_clash_is_refused_and_a_prefix_maps_back_to_each_servers_name():
    log = []
    with connect(make_server()) as weather, connect(marine_server(log)) as marine:
        registry = ToolRegistry()
        add_server_tools(registry, weather)
        with pytest.raises(
            ValueError, match="a tool named 'forecast' is already registered.*prefix='marine'"
        ):
            add_server_tools(registry, marine)
        registry = ToolRegistry()
        add_server_tools(registry, weather, prefix="weather")
        add_server_tools(registry, marine, prefix="marine")
        assert registry.names == ["weather__forecast", "weather__weather_alerts", "marine__forecast"]
        assert registry.dispatch(call("marine__forecast", area="Viking"))["content"] == (
            "Viking: waves 2 m, wind 20 knots"
        )
        sent = [m.message for m in marine.wire if m.message.get("method") == "tools/call"]
        assert sent[-1]["params"]["name"] == "forecast"
        assert log == ["Viking"]


def test_only_adds_the_tools_named():
    with connect(make_server()) as connection:
        registry = ToolRegistry()
        add_server_tools(registry, connection, only=["weather_alerts"])
        assert registry.names == ["weather_alerts"]


# --- the conversions ----------------------------------------------------------------------------


def test_to_openai_tool_copies_the_input_schema_whole():
    schema = {
        "type": "object",
        "properties": {
            "party": {"type": "object", "properties": {"size": {"type": "integer"}}, "required": ["size"]}
        },
        "required": ["party"],
    }
    mcp_tool = {
        "name": "book",
        "description": "Book a table.",
        "inputSchema": schema,
        "annotations": {"x": 1},
    }
    definition = to_openai_tool(mcp_tool)
    assert definition == {
        "type": "function",
        "function": {"name": "book", "description": "Book a table.", "parameters": schema},
    }
    definition["function"]["parameters"]["required"].append("oops")
    assert schema["required"] == ["party"], "the server's schema is copied, not shared"


def test_to_openai_tool_leaves_out_a_missing_description_and_renames():
    definition = to_openai_tool({"name": "a.b", "inputSchema": {"type": "object"}}, name="a_b")
    assert definition["function"] == {"name": "a_b", "parameters": {"type": "object"}}


def test_openai_name_fits_the_chat_completions_pattern():
    assert openai_name("files.read") == "files_read"
    assert openai_name("read", prefix="files") == "files__read"
    assert len(openai_name("x" * 128)) == 64


def test_result_text_sends_structured_content_as_json_instead_of_its_text_fallback():
    structured = {"city": "Oslo", "humidity": 0.93}
    duplicate = {
        "content": [{"type": "text", "text": json.dumps(structured, indent=2)}],
        "structuredContent": structured,
    }
    assert result_text(duplicate) == ('{"city": "Oslo", "humidity": 0.93}', False)
    summary = {"content": [{"type": "text", "text": "Oslo: damp"}], "structuredContent": structured}
    assert result_text(summary) == ('{"city": "Oslo", "humidity": 0.93}', False)


def test_result_text_joins_blocks_and_describes_what_a_tool_message_cannot_carry():
    result = {
        "content": [
            {"type": "text", "text": "radar:"},
            {"type": "image", "data": "AAAA", "mimeType": "image/png"},
            {"type": "resource_link", "uri": "file:///radar.png", "name": "radar.png"},
            {"type": "resource", "resource": {"uri": "file:///notes.txt", "text": "notes"}},
        ]
    }
    text, failed = result_text(result)
    assert not failed
    assert text.splitlines() == [
        "radar:",
        "[image image/png, about 3 bytes: not shown, a tool message carries text only]",
        "[resource file:///radar.png: radar.png]",
        "notes",
    ]


def test_to_tool_message_marks_errors_as_the_dispatcher_does():
    failed = to_tool_message("call_9", {"content": [{"type": "text", "text": "boom"}], "isError": True})
    assert failed == {"role": "tool", "tool_call_id": "call_9", "content": "ERROR: boom"}
    assert is_error(failed)
    empty = to_tool_message("call_9", {"content": [], "isError": True})
    assert empty["content"] == "ERROR: the tool reported an error without a message"


def test_a_stdio_server_does_not_inherit_the_clients_api_keys(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-not-for-servers")
    script = tmp_path / "env_server.py"
    script.write_text(
        "import os\nfrom mcp.server.mcpserver import MCPServer\n"
        "server = MCPServer('env', log_level='CRITICAL')\n"
        "@server.tool(structured_output=False)\n"
        "def key() -> str:\n"
        "    '''The OpenAI key this server sees.'''\n"
        "    return os.environ.get('OPENAI_API_KEY', "
        "'none')\nserver.run()\n"
    )
    with connect_stdio(script) as connection:
        assert result_text(connection.call_tool("key", {})) == ("none", False)


def test_a_program_that_forgets_to_close_its_connection_still_exits():
    code = (
        "from agent_core.mcp_bridge import connect\n"
        "from agent_core.mcp_servers.weather import make_server\n"
        "print(connect(make_server()).list_tools()[0]['name'])\n"
    )
    finished = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert (finished.returncode, finished.stdout) == (0, "forecast\n")


def test_a_closed_connection_says_so():
    connection = connect(make_server())
    connection.close()
    with pytest.raises(
        MCPServerError, match="'weather' is not connected any more \\(the connection was closed\\)"
    ):
        connection.list_tools()
