"""run_agent under hostile text and servers: it never crashes, and it sends through the caller's client."""

import http.server
import json
import os
import sys
import threading

import httpx2
import openai
import pytest
from calculator_tools import add

from agent_core import mock, render
from agent_core.coding import Workspace, copy_project
from agent_core.dispatch import ToolRegistry
from agent_core.loop import run_agent
from agent_core.trace import Trace


class EditedReplies(httpx2.BaseTransport):
    """the mock model behind a server that changes each reply's JSON before sending it"""

    def __init__(self, policy, edit):
        self.inner = mock.transport(policy)
        self.edit = edit
        self.requests = 0

    def handle_request(self, request):
        self.requests += 1
        response = self.inner.handle_request(request)
        body = json.loads(response.read())
        text = json.dumps(self.edit(body))  # ensure_ascii: a surrogate travels as its "\ud800" escape
        return httpx2.Response(
            response.status_code, headers={"content-type": "application/json"}, content=text.encode("ascii")
        )


def client_with(transport):
    """an SDK client over `transport`; run_agent records its calls itself"""
    return openai.OpenAI(
        api_key="sk-test",
        base_url=mock.BASE_URL,
        http_client=httpx2.Client(transport=transport),
        max_retries=0,
    )


def first_call(body):
    return body["choices"][0]["message"]["tool_calls"][0]["function"]


def echo(text: str) -> str:
    """Say the text back."""
    return text


# --- text that is not valid UTF-8 ------------------------------------------------------------------


@pytest.mark.skipif(sys.platform != "linux", reason="macOS and Windows refuse file names that are not UTF-8")
def test_a_file_name_that_is_not_utf8_does_not_crash_the_next_model_call(tmp_path):
    root = copy_project("discount", tmp_path)
    with open(os.path.join(os.fsencode(root), b"caf\xe9.txt"), "wb") as file:
        file.write(b"menu\n")
    client = mock.client(mock.Script(mock.call("list_dir"), "There are 5 files."))
    run = run_agent(client, "List the files.", ToolRegistry(Workspace(root).tools("list_dir")))
    assert run.stop_reason == "answered" and run.answer == "There are 5 files."
    listing = run.messages[-2]["content"]
    assert '"caf\\udce9.txt"  (5 bytes)' in listing  # the byte the name had, as an escape the model can read
    sent = run.trace[1].request["messages"][-1]["content"]
    assert sent == listing
    saved = tmp_path / "run.json"
    run.trace.save(saved)
    assert Trace.load(saved) == run.trace


def test_a_lone_surrogate_in_a_tool_result_is_escaped():
    def odd_name() -> str:
        """Return a name decoded from bytes that are not UTF-8."""
        return os.fsdecode(b"caf\xe9")

    client = mock.client(mock.Script(mock.call("odd_name"), "Done."))
    run = run_agent(client, "Name it.", [odd_name])
    assert run.stop_reason == "answered"
    assert run.messages[-2]["content"] == "caf\\udce9"


def test_a_model_reply_with_a_lone_surrogate_does_not_crash_the_next_call(tmp_path):
    def add_surrogates(body):
        message = body["choices"][0]["message"]
        if message.get("tool_calls"):
            message["content"] = "thinking \ud800"
            first_call(body)["arguments"] = '{"text": "x\ud800"}'
        return body

    transport = EditedReplies(mock.Script(mock.call("echo", text="x"), "Done."), add_surrogates)
    run = run_agent(client_with(transport), "Echo x.", [echo])
    assert run.stop_reason == "answered" and transport.requests == 2
    assistant = run.messages[1]
    assert assistant["content"] == "thinking \\ud800"
    assert assistant["tool_calls"][0]["function"]["arguments"] == '{"text": "x\\ud800"}'
    assert run.trace[0].reply["content"] == "thinking \\ud800"  # the trace holds it escaped too
    run.trace.save(tmp_path / "run.json")
    assert Trace.load(tmp_path / "run.json") == run.trace
    with open(tmp_path / "printed.txt", "w", encoding="utf-8") as file:  # a terminal or a log file
        terminal = render.console(color=False)
        terminal.file = file
        render.print_trace(run.trace, console=terminal)
    assert "thinking \\ud800" in (tmp_path / "printed.txt").read_text(encoding="utf-8")


def test_a_task_with_a_lone_surrogate_is_sent():
    run = run_agent(mock.client(mock.Script("Read it.")), "What is caf\udce9?")
    assert run.stop_reason == "answered"
    assert run.trace[0].request["messages"][-1]["content"] == "What is caf\\udce9?"


# --- a server that sends arguments that are not a string -------------------------------------------


@pytest.mark.parametrize("arguments", [5, None, [1, 2], {"a": 1, "b": 2}])
def test_arguments_that_are_not_a_string_do_not_crash_the_run(arguments):
    def break_arguments(body):
        if body["choices"][0]["message"].get("tool_calls"):
            first_call(body)["arguments"] = arguments
        return body

    transport = EditedReplies(mock.Script(mock.call("add", a=1, b=2), "Done."), break_arguments)
    run = run_agent(client_with(transport), "Add 1 and 2.", ToolRegistry([add]))
    assert run.stop_reason == "answered" and transport.requests == 2
    sent_back = run.trace[1].request["messages"][1]["tool_calls"][0]["function"]["arguments"]
    assert isinstance(sent_back, str)  # the API accepts only a JSON string there
    result = run.messages[-2]["content"]
    if isinstance(arguments, dict):  # some servers send the object itself: it is used
        assert result == "3"
    elif arguments is None:  # no arguments at all: the missing ones are named
        assert result.startswith(
            "ERROR: the arguments for 'add' do not match its parameters:\n"
            "- 'a': missing (required), 'b': missing (required)"
        )
    else:
        assert result.startswith("ERROR: the arguments for 'add' must be a JSON object")


def test_a_tool_name_that_is_not_a_string_does_not_crash_the_run():
    def break_name(body):
        if body["choices"][0]["message"].get("tool_calls"):
            first_call(body)["name"] = 5
        return body

    transport = EditedReplies(mock.Script(mock.call("add", a=1, b=2), "Done."), break_name)
    run = run_agent(client_with(transport), "Add 1 and 2.", ToolRegistry([add]))
    assert run.stop_reason == "answered"
    assert run.messages[-2]["content"].startswith("ERROR: there is no tool named '5'.")


# --- the caller's HTTP client is the one that sends ------------------------------------------------


class Counting(httpx2.BaseTransport):
    """a custom transport of the caller's: counts what goes through it"""

    def __init__(self, inner):
        self.inner, self.seen = inner, []

    def handle_request(self, request):
        self.seen.append(request.url.path)
        return self.inner.handle_request(request)


def test_run_agent_records_through_the_callers_own_transport():
    counting = Counting(mock.transport(mock.Calculator()))
    caller = openai.OpenAI(
        api_key="sk-test",
        base_url=mock.BASE_URL,
        http_client=httpx2.Client(transport=counting),
        max_retries=0,
    )
    run = run_agent(caller, "4 + 2", ToolRegistry([add]))
    assert run.answer == "4 + 2 = 6"
    assert (
        counting.seen
        == ["/v1/chat/completions"] * 2
        == [t.url.removeprefix("http://mock.agent-core.invalid") for t in run.trace]
    )
    assert len(run.trace) == 2 and run.trace[0].request["messages"][0]["content"] == "4 + 2"
    assert (
        run_agent(caller, "4 + 2", ToolRegistry([add])).answer == "4 + 2 = 6"
    )  # the caller's client still works


class MockBehindAProxy(http.server.BaseHTTPRequestHandler):
    """an HTTP proxy on 127.0.0.1 that answers every request it forwards with the mock model"""

    seen: list = []

    def do_POST(self):  # noqa: N802 (the name http.server calls)
        MockBehindAProxy.seen.append(self.path)  # a proxy receives the absolute URL
        body = self.rfile.read(int(self.headers["Content-Length"]))
        request = httpx2.Request(
            "POST", self.path, content=body, headers={"content-type": "application/json"}
        )
        answer = mock.transport(mock.Calculator()).handle_request(request)
        content = answer.read()
        self.send_response(answer.status_code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(content)))
        self.end_headers()
        self.wfile.write(content)

    def log_message(self, *args):
        pass


def test_run_agent_keeps_the_proxy_the_environment_sets(monkeypatch):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), MockBehindAProxy)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy", "HTTPS_PROXY", "https_proxy"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{server.server_address[1]}")
        MockBehindAProxy.seen = []
        with openai.OpenAI(
            api_key="sk-test", base_url="http://model.example.invalid/v1", max_retries=0
        ) as caller:
            run = run_agent(caller, "4 + 2", ToolRegistry([add]))
        assert run.answer == "4 + 2 = 6"
        assert MockBehindAProxy.seen == ["http://model.example.invalid/v1/chat/completions"] * 2
        assert len(run.trace) == 2
    finally:
        server.shutdown()
        server.server_close()
