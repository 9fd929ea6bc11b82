"""Guardrails against a model or server that games them: renamed writing tools, repeats spelled differently
under one id, text that hides from the person approving."""

import json

import httpx2
import openai
from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations

from agent_core import mock
from agent_core.dispatch import ToolRegistry
from agent_core.guardrails import Approval, LoopDetector, Permissions, TerminalApproval
from agent_core.loop import run_agent
from agent_core.mcp_bridge import add_server_tools, connect, writing_tools
from agent_core.trace import RecordingHTTPTransport, Trace


class SameIds(httpx2.BaseTransport):
    """the mock model behind a server that gives every tool call the id "call_same" """

    def __init__(self, policy):
        self.inner = mock.transport(policy)

    def handle_request(self, request):
        response = self.inner.handle_request(request)
        body = json.loads(response.read())
        for choice in body.get("choices", []):
            for tool_call in choice["message"].get("tool_calls") or []:
                tool_call["id"] = "call_same"
        return httpx2.Response(
            response.status_code,
            headers={"content-type": "application/json"},
            content=json.dumps(body).encode(),
        )


def client_over(transport):
    trace = Trace()
    http = httpx2.Client(transport=RecordingHTTPTransport(transport, trace))
    client = openai.OpenAI(api_key="sk-test", base_url=mock.BASE_URL, http_client=http, max_retries=0)
    client.trace = trace
    return client


def add(a: float, b: float) -> float:
    """Add two numbers."""
    return a + b


REPEATS = mock.Script(
    mock.call("add", a=1, b=2),
    mock.call("add", {"a": 1.0, "b": 2}),
    mock.call("add", '{"b": 2e0,  "a": 1.00}'),
    "3",
)


def test_the_loop_detector_sees_one_call_spelled_three_ways_under_one_id():
    run = run_agent(client_over(SameIds(REPEATS)), "1 + 2?", [add], guardrails=[LoopDetector(max_repeats=1)])
    ids = [c["id"] for m in run.messages if m["role"] == "assistant" for c in m.get("tool_calls") or []]
    assert ids == ["call_same"] * 3
    tool_results = [m["content"] for m in run.messages if m["role"] == "tool"]
    assert tool_results[0] == "3"
    assert tool_results[1].startswith("ERROR: you already called add with exactly these arguments once")
    assert run.stop_reason == "repeated_call"


def test_the_loop_detector_counts_parallel_repeats_in_one_reply():
    policy = mock.Script([mock.call("add", a=1, b=2), mock.call("add", a=1.0, b=2.0)], "3")
    run = run_agent(mock.client(policy), "1 + 2?", [add], guardrails=[LoopDetector(max_repeats=1)])
    tool_results = [m["content"] for m in run.messages if m["role"] == "tool"]
    assert tool_results[0] == "3" and tool_results[1].startswith("ERROR: you already called add")


def test_the_approval_prompt_shows_hidden_characters_escaped():
    def send_email(to: str, subject: str) -> str:
        """Send an email."""
        return "sent"

    shown = []
    hidden = "Invoice \u202efdp.exe\u200b \x1b[2K done"
    policy = mock.Script(mock.call("send_email", to="ana@example.com", subject=hidden), "Sent.")
    decide = TerminalApproval(input=lambda prompt: "n", print=shown.append)
    run_agent(mock.client(policy), "Mail Ana.", [send_email], guardrails=[Approval(decide)])
    assert shown == [
        'The agent wants to run: send_email(to="ana@example.com", '
        'subject="Invoice \\u202efdp.exe\\u200b \\u001b[2K done")'
    ]


def test_a_writing_mcp_tool_is_refused_read_only_under_any_prefix():
    received = []
    server = MCPServer("files", log_level="CRITICAL")

    @server.tool()
    def write_file(path: str, content: str) -> str:
        """Write a file."""
        received.append(path)
        return "written"

    @server.tool(annotations=ToolAnnotations(readOnlyHint=True))
    def read_file(path: str) -> str:
        """Read a file."""
        return "the text"

    with connect(server) as files:
        registry = ToolRegistry()
        add_server_tools(registry, files, prefix="files")
        policy = mock.Script(
            [
                mock.call("files__write_file", path="notes.txt", content="x"),
                mock.call("files__read_file", path="a.txt"),
            ],
            "Done.",
        )
        read_only = Permissions(read_only=True, writing_tools=writing_tools(registry))
        run = run_agent(mock.client(policy), "Tidy up.", registry, guardrails=[read_only])
    results = [m["content"] for m in run.messages if m["role"] == "tool"]
    assert results[0].startswith("ERROR: this run is read-only and 'files__write_file' changes things")
    assert results[1] == '{"result": "the text"}'
    assert received == []
