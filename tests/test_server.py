"""The mock model's HTTP server: the real SDK, urllib and a real subprocess, over 127.0.0.1 sockets."""

import json
import os
import select
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from contextlib import contextmanager
from http.client import HTTPConnection
from pathlib import Path

import openai
import pytest
from calculator_tools import add, divide

from agent_core import cli, mock
from agent_core.loop import run_agent
from agent_core.mock.server import MockServer, ServerStartError, masked_key, policy_by_name, serve
from agent_core.providers import client_from_env

COMMAND = str(Path(sys.executable).parent / "agent-core")
NO_KEYS = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI", "ANTHROPIC", "AGENT_CORE"))}


@contextmanager
def sdk(server_or_url, api_key="x"):
    """a real SDK client for the server, recording its calls; closed (with its sockets) on exit"""
    base_url = getattr(server_or_url, "base_url", server_or_url)
    env = {"AGENT_CORE_BASE_URL": base_url, "AGENT_CORE_API_KEY": api_key}
    with client_from_env(env, max_retries=0) as client:
        yield client


def http(method, url, body=None, headers=None):
    """one raw HTTP request, as curl would send it: (status, headers, body bytes)"""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        with error:
            return error.code, error.headers, error.read()


def test_the_sdk_runs_the_calculator_agent_over_a_real_socket():
    with serve(mock.Calculator()) as server, sdk(server) as client:
        run = run_agent(client, "5 + 8/12", [add, divide])
    assert server.base_url.startswith("http://127.0.0.1:") and server.port > 0
    assert run.stop_reason == "answered" and run.model_calls == 3
    assert run.answer == "5 + 8/12 = 5.666666666666667"
    assert all(turn.url == server.base_url + "/chat/completions" for turn in run.trace)


def test_over_http_the_answers_are_those_of_the_in_process_mock():
    in_process = run_agent(mock.client(mock.Calculator()), "4+2 and 7+8", [add])
    with serve(mock.Calculator()) as server, sdk(server) as client:
        over_http = run_agent(client, "4+2 and 7+8", [add])
    assert [t.response for t in over_http.trace] == [t.response for t in in_process.trace]


def test_kept_alive_requests_are_answered_without_waiting_for_the_clients_acknowledgement():
    """a response's headers and body leave in one go: with Nagle's algorithm on, the body waited for
    the client's delayed acknowledgement of the headers (at least 40 ms on Linux, 200 ms on Windows),
    and 20 calls in a row took at least 0.8 s"""
    body = json.dumps({"model": "mock", "messages": [{"role": "user", "content": "4+2"}]})
    with serve(mock.Calculator()) as server:
        connection = HTTPConnection(server.host, server.port, timeout=10)
        try:
            started = time.perf_counter()
            for _ in range(20):
                connection.request("POST", "/v1/chat/completions", body, {"Content-Type": "application/json"})
                response = connection.getresponse()
                assert response.status == 200 and json.loads(response.read())["choices"]
            took = time.perf_counter() - started
        finally:
            connection.close()
    assert took < 0.6, f"20 calls on one connection took {took:.2f} s"


def test_a_streamed_reply_arrives_as_chunks_the_sdk_reassembles():
    messages = [{"role": "user", "content": "5 + 8/12"}]
    tools = run_agent(mock.client(), "hi", [add, divide]).tools.definitions
    with serve(mock.Calculator()) as server, sdk(server) as client:
        stream = client.chat.completions.create(
            model="mock-model",
            messages=messages,
            tools=tools,
            stream=True,
            stream_options={"include_usage": True},
        )
        chunks = list(stream)
    calls = [c.choices[0].delta.tool_calls[0] for c in chunks if c.choices and c.choices[0].delta.tool_calls]
    assert calls[0].function.name == "divide" and calls[0].id.startswith("call_")
    assert json.loads("".join(c.function.arguments for c in calls)) == {"a": 8, "b": 12}
    assert chunks[-1].usage.total_tokens > 0
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "tool_calls"


def test_a_streamed_reply_is_sent_with_chunked_transfer_encoding():
    body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "4+2"}]}
    with serve(mock.Calculator()) as server:
        status, headers, content = http("POST", server.base_url + "/chat/completions", body)
    assert status == 200
    assert headers["Transfer-Encoding"] == "chunked"
    assert headers["Content-Type"] == "text/event-stream"
    events = content.decode().split("\n\n")
    assert events[0].startswith("data: {") and events[-2] == "data: [DONE]"


def test_a_protocol_mistake_arrives_as_bad_request_error_with_the_real_text():
    orphan = [{"role": "tool", "tool_call_id": "call_1", "content": "6"}]
    with serve() as server, sdk(server) as client:
        with pytest.raises(openai.BadRequestError) as caught:
            client.chat.completions.create(model="mock-model", messages=orphan)
    assert caught.value.status_code == 400
    assert "messages with role 'tool' must be a response to a preceeding message" in caught.value.message


def test_raw_http_gets_models_completions_and_errors():
    with serve() as server:
        status, _, models = http("GET", server.base_url + "/models")
        hello = {"model": "mock-model", "messages": [{"role": "user", "content": "hello"}]}
        ok, headers, completion = http("POST", server.base_url + "/chat/completions", hello)
        missing, _, _ = http("GET", server.base_url + "/embeddings")
        broken, _, refusal = http("POST", server.base_url + "/chat/completions", {"model": "m"})
    assert status == 200 and json.loads(models)["data"][0]["id"] == "mock-model"
    assert ok == 200 and headers["Content-Type"] == "application/json"
    assert json.loads(completion)["choices"][0]["message"]["content"].startswith("Hello from the mock model")
    assert missing == 404
    assert broken == 400 and json.loads(refusal)["error"]["message"].startswith("Missing required parameter")


def test_a_form_encoded_body_gets_openais_not_json_400():
    form = b"model=mock-model&messages=hello"
    with serve() as server:
        connection = HTTPConnection("127.0.0.1", server.port, timeout=30)
        connection.request(
            "POST", "/v1/chat/completions", form, {"Content-Type": "application/x-www-form-urlencoded"}
        )
        answer = connection.getresponse()
        error = json.loads(answer.read())["error"]
        connection.close()
    assert answer.status == 400 and error["type"] == "invalid_request_error"
    assert error["message"].startswith("We could not parse the JSON body of your request.")


def test_a_taken_port_gives_a_clear_message():
    with serve() as server:
        with pytest.raises(ServerStartError) as caught:
            MockServer(port=server.port)
    assert str(caught.value) == (
        f"port {server.port} is already in use on 127.0.0.1; pick another with --port (0 picks a free one)"
    )


def test_leaving_the_with_block_closes_the_socket():
    with serve() as server:
        assert http("GET", server.base_url + "/models")[0] == 200
    with pytest.raises(urllib.error.URLError):
        http("GET", server.base_url + "/models")
    MockServer(port=server.port).close()  # the port is free again


def test_with_an_api_key_a_wrong_key_gets_openais_401():
    key = "sk-mock-0123456789abcdef"
    with serve(api_key=key) as server:
        with sdk(server) as wrong, pytest.raises(openai.AuthenticationError) as caught:
            wrong.chat.completions.create(model="mock-model", messages=[{"role": "user", "content": "hi"}])
        with sdk(server, api_key=key) as right:
            assert right.models.list().data[0].id == "mock-model"
        status, _, body = http("GET", server.base_url + "/models")
    assert caught.value.code == "invalid_api_key"
    assert "Incorrect API key provided: *. You can find your API key at" in caught.value.message
    assert status == 401 and "You didn't provide an API key" in json.loads(body)["error"]["message"]


def test_a_key_in_a_401_message_is_masked_as_openai_masks_it():
    assert masked_key("sk-proj-abcdefghijklmnop1234") == "sk-proj-" + "*" * 16 + "1234"
    assert masked_key("short") == "*****"


def test_with_a_model_list_another_model_gets_404_model_not_found():
    with serve(models=["small-model"]) as server, sdk(server) as client:
        served = [m.id for m in client.models.list()]
        with pytest.raises(openai.NotFoundError) as caught:
            client.chat.completions.create(model="big-model", messages=[{"role": "user", "content": "hi"}])
    assert served == ["small-model"]
    assert caught.value.code == "model_not_found"
    assert "The model `big-model` does not exist or you do not have access to it." in caught.value.message


def test_past_the_rate_limit_a_request_gets_429_with_retry_after():
    hello = [{"role": "user", "content": "hi"}]
    with serve(rate_limit=1) as server, sdk(server) as client:
        client.chat.completions.create(model="mock-model", messages=hello)
        with pytest.raises(openai.RateLimitError) as caught:
            client.chat.completions.create(model="mock-model", messages=hello)
    assert caught.value.code == "rate_limit_exceeded"
    assert "on requests per min (RPM): Limit 1, Used 1, Requested 1." in caught.value.message
    assert 1 <= int(caught.value.response.headers["retry-after"]) <= 60


def test_policies_are_chosen_by_name():
    assert isinstance(policy_by_name("Calculator"), mock.Calculator)
    with pytest.raises(ValueError, match="choose one of: echo, calculator"):
        policy_by_name("oracle")


def test_serve_mock_runs_as_a_process_and_stops_cleanly_on_ctrl_c():
    process = subprocess.Popen(
        [COMMAND, "serve-mock", "--port", "0", "--policy", "calculator"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=NO_KEYS,
    )
    try:
        ready, _, _ = select.select([process.stdout], [], [], 60)
        assert ready, "the server printed nothing within 60 s"
        first_line = process.stdout.readline()
        base_url = first_line.split(" at ")[1].split()[0]
        with sdk(base_url) as client:
            run = run_agent(client, "4+2", [add])
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    finally:
        process.kill()
        process.wait()
    assert first_line.startswith("mock model serving at http://127.0.0.1:")
    assert run.answer == "4 + 2 = 6"
    assert process.returncode == 0
    assert "mock server stopped" in out
    assert "POST /v1/chat/completions -> 200" in err
    assert "warning" not in err  # 127.0.0.1: this machine only


def test_serve_mock_on_a_taken_port_exits_with_the_message(capsys):
    with serve() as server:
        status = cli.main(["serve-mock", "--port", str(server.port)])
    assert status == 2
    assert (
        f"port {server.port} is already in use on 127.0.0.1; pick another with --port"
        in capsys.readouterr().err
    )


def test_with_cors_a_browser_preflight_is_allowed_and_every_answer_says_so():

    with MockServer(cors=True).start() as server:
        connection = HTTPConnection("127.0.0.1", server.port, timeout=10)
        preflight = {
            "Origin": "http://127.0.0.1:9",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization,content-type",
        }
        connection.request("OPTIONS", "/v1/chat/completions", headers=preflight)
        answer = connection.getresponse()
        answer.read()
        assert answer.status == 204
        assert answer.getheader("Access-Control-Allow-Origin") == "*"
        assert answer.getheader("Access-Control-Allow-Headers") == "authorization,content-type"
        assert "POST" in answer.getheader("Access-Control-Allow-Methods")
        connection.request("GET", "/v1/models", headers={"Origin": "http://127.0.0.1:9"})
        answer = connection.getresponse()
        answer.read()
        assert answer.status == 200 and answer.getheader("Access-Control-Allow-Origin") == "*"
        connection.close()


def test_without_cors_no_cors_header_is_sent_and_a_preflight_gets_405():

    with MockServer().start() as server:
        connection = HTTPConnection("127.0.0.1", server.port, timeout=10)
        connection.request("OPTIONS", "/v1/chat/completions", headers={"Origin": "http://127.0.0.1:9"})
        answer = connection.getresponse()
        answer.read()
        assert answer.status == 405 and answer.getheader("Access-Control-Allow-Origin") is None
        connection.close()
