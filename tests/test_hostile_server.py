"""The mock server under hostile HTTP: crowds, huge bodies, broken framing, odd methods, bad text."""

import http.client
import json
import random
import select
import socket
import threading
import time
from pathlib import Path

import anthropic
import httpx2
import openai
import pytest

from agent_core import mock
from agent_core.mock.server import MockServer, serve
from agent_core.tokens import count_text, encoding

CHAT = "/v1/chat/completions"


def chat_body(text: str) -> bytes:
    return json.dumps({"model": "mock-model", "messages": [{"role": "user", "content": text}]}).encode()


def raw_request(server, data: bytes, method: str = "POST", timeout: float = 10):
    """send bytes exactly as given on a fresh connection; (status, headers, body) of the answer"""
    with socket.create_connection((server.host, server.port), timeout=timeout) as sock:
        sock.sendall(data)
        response = http.client.HTTPResponse(sock, method=method)
        response.begin()
        return response.status, response.headers, response.read()


def request_bytes(method: str, path: str, headers: dict[str, str], body: bytes = b"") -> bytes:
    lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", *(f"{k}: {v}" for k, v in headers.items())]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def error_message(body: bytes) -> str:
    payload = json.loads(body)
    return payload["error"]["message"]


def test_200_clients_connecting_at_once_are_all_answered():
    answered, failed = [], []
    start = threading.Barrier(200)

    def client():
        start.wait()
        try:
            connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=20)
            connection.request("GET", "/v1/models")
            answered.append(connection.getresponse().status)
            connection.close()
        except OSError as error:
            failed.append(repr(error))

    with serve() as server:
        threads = [threading.Thread(target=client) for _ in range(200)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert failed == []
    assert answered == [200] * 200


def test_100_clients_that_connect_before_the_server_accepts_all_get_in_and_are_answered():
    # the kernel completes connections up to the listen backlog by itself; past it, it drops them
    server = MockServer()
    sockets = [socket.socket() for _ in range(100)]
    try:
        for sock in sockets:
            sock.setblocking(False)
            sock.connect_ex((server.host, server.port))
        deadline = time.monotonic() + 10  # generous for a loaded machine: the loop ends once all are taken
        pending = set(sockets)
        while pending and time.monotonic() < deadline:
            _, writable, _ = select.select([], list(pending), [], 0.1)
            pending -= {sock for sock in writable if sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0}
        assert len(pending) == 0, (
            f"{len(pending)} of 100 connections were not taken while the server was busy"
        )
        server.start()
        for sock in sockets:
            sock.setblocking(True)
            sock.settimeout(10)
            sock.sendall(request_bytes("GET", "/v1/models", {"Connection": "close"}))
        statuses = []
        for sock in sockets:
            response = http.client.HTTPResponse(sock, method="GET")
            response.begin()
            statuses.append(response.status)
            response.read()
        assert statuses == [200] * 100
    finally:
        for sock in sockets:
            sock.close()
        server.close()


def test_a_4_mb_message_of_one_letter_does_not_hold_up_a_small_request():
    big_answer = {}

    def send_big():
        big_answer["status"] = raw_request(
            server, request_bytes("POST", CHAT, {"Content-Length": str(len(big))}, big), timeout=60
        )[0]

    big = chat_body("a" * 4_000_000)
    with serve() as server:
        sender = threading.Thread(target=send_big)
        sender.start()
        time.sleep(0.3)  # the big one is being read and answered
        with openai.OpenAI(base_url=server.base_url, api_key="x", max_retries=0, timeout=5) as client:
            small = client.chat.completions.create(
                model="mock-model", messages=[{"role": "user", "content": "hi"}]
            )
        sender.join()
    assert "'hi'" in small.choices[0].message.content
    assert big_answer["status"] == 200


def test_a_body_over_the_limit_gets_openai_s_413_through_the_sdk():
    with MockServer(max_body_bytes=100_000).start() as server:
        with openai.OpenAI(base_url=server.base_url, api_key="x", max_retries=0) as client:
            with pytest.raises(openai.APIStatusError) as refused:
                client.chat.completions.create(
                    model="mock-model", messages=[{"role": "user", "content": "x " * 60_000}]
                )
            fine = client.chat.completions.create(
                model="mock-model", messages=[{"role": "user", "content": "ok"}]
            )
    assert refused.value.status_code == 413
    assert "Request Entity Too Large" in refused.value.message
    assert "up to 100,000 bytes" in refused.value.message
    assert fine.choices[0].finish_reason == "stop"


def test_a_body_over_the_default_limit_is_refused_without_being_kept():
    with serve() as server:
        too_big = server.max_body_bytes + 1
        status, headers, body = raw_request(
            server, request_bytes("POST", CHAT, {"Content-Length": str(too_big)}, b"x" * too_big)
        )
    assert status == 413
    assert headers["Connection"] == "close"
    assert error_message(body).startswith("Request Entity Too Large")


def test_the_anthropic_endpoint_refuses_a_big_body_with_anthropic_s_413():
    with MockServer(max_body_bytes=100_000).start() as server:
        with anthropic.Anthropic(base_url=server.url, api_key="x", max_retries=0) as client:
            with pytest.raises(anthropic.APIStatusError) as refused:
                client.messages.create(
                    model="claude-mock", max_tokens=100, messages=[{"role": "user", "content": "x " * 60_000}]
                )
    assert refused.value.status_code == 413
    assert refused.value.body["error"]["type"] == "request_too_large"
    assert refused.value.body["error"]["message"].startswith("Request exceeds the maximum size")


@pytest.mark.parametrize("length", ["abc", "-1", "1e3", "12, 13"])
def test_a_content_length_that_is_not_a_number_gets_a_json_400(length):
    with serve() as server:
        status, headers, body = raw_request(server, request_bytes("POST", CHAT, {"Content-Length": length}))
    assert status == 400
    assert headers["Content-Type"] == "application/json"
    assert repr(length) in error_message(body)


def test_a_chunked_body_is_read_and_answered():
    body = chat_body("hello in chunks")
    chunked = b"".join(f"{len(part):x}\r\n".encode() + part + b"\r\n" for part in (body[:10], body[10:]))
    with serve() as server:
        status, _, answer = raw_request(
            server, request_bytes("POST", CHAT, {"Transfer-Encoding": "chunked"}, chunked + b"0\r\n\r\n")
        )
    assert status == 200
    assert "'hello in chunks'" in json.loads(answer)["choices"][0]["message"]["content"]


@pytest.mark.parametrize(
    "headers, body, status, words",
    [
        ({"Transfer-Encoding": "chunked"}, b"zz\r\n{}\r\n0\r\n\r\n", 400, "chunk size"),
        ({"Transfer-Encoding": "chunked"}, b"2\r\n{}x\r\n0\r\n\r\n", 400, "not followed by CRLF"),
        ({"Transfer-Encoding": "chunked", "Content-Length": "2"}, b"2\r\n{}\r\n0\r\n\r\n", 400, "both"),
        ({"Transfer-Encoding": "gzip"}, b"", 501, "not supported"),
    ],
)
def test_broken_framing_gets_a_json_error_and_the_connection_closes(headers, body, status, words):
    with serve() as server:
        got, answer_headers, answer = raw_request(server, request_bytes("POST", CHAT, headers, body))
    assert got == status
    assert answer_headers["Connection"] == "close"
    assert words in error_message(answer)


@pytest.mark.parametrize("method", ["PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"])
def test_a_method_the_api_does_not_answer_gets_a_json_405(method):
    with serve() as server:
        status, headers, body = raw_request(
            server, request_bytes(method, CHAT, {"Content-Length": "0"}), method
        )
    assert status == 405
    assert headers["Allow"] == "GET, POST"
    assert error_message(body) == f"Invalid method for URL ({method} {CHAT})"


def test_head_gets_a_405_without_a_body():
    with serve() as server:
        status, headers, body = raw_request(server, request_bytes("HEAD", "/v1/models", {}), "HEAD")
    assert status == 405
    assert headers["Content-Type"] == "application/json"
    assert body == b""


def test_an_unknown_method_gets_a_json_501_not_an_html_page():
    with serve() as server:
        status, headers, body = raw_request(server, request_bytes("BREW", CHAT, {}), "BREW")
    assert status == 501
    assert headers["Content-Type"] == "application/json"
    assert "BREW" in error_message(body)


def test_a_lone_surrogate_escape_in_the_body_is_answered():
    # the SDK cannot send one (it encodes strictly), but curl or another language can
    body = b'{"model": "mock-model", "messages": [{"role": "user", "content": "half a pair: \\ud800"}]}'
    with serve() as server:
        status, _, answer = raw_request(
            server, request_bytes("POST", CHAT, {"Content-Length": str(len(body))}, body)
        )
    assert status == 200
    completion = json.loads(answer)
    assert "half a pair: \\ud800" in completion["choices"][0]["message"]["content"]  # Echo shows repr()
    assert completion["usage"]["prompt_tokens"] > 0


@pytest.mark.parametrize(
    ("path", "extra", "said"),
    [
        (
            CHAT,
            {"messages": [{"role": "user", "content": "hi"}]},
            "Unrecognized request argument supplied: \ud800x",
        ),
        ("/v1/responses", {"input": "hi"}, "Unknown parameter: '\ud800x'"),
    ],
)
def test_an_unknown_field_named_with_a_lone_surrogate_gets_a_400_on_every_endpoint(path, extra, said):
    # the error names the field, so the answer carries the lone surrogate back, as its JSON escape
    body = json.dumps({"model": "mock-model", **extra, "\ud800x": 1}).encode()
    with serve() as server:
        status, _, answer = raw_request(
            server, request_bytes("POST", path, {"Content-Length": str(len(body))}, body)
        )
    assert status == 400
    assert said in json.loads(answer)["error"]["message"]


@pytest.mark.parametrize("stream", [False, True])
def test_a_reply_with_a_lone_surrogate_reaches_the_sdk_over_http(stream):
    with serve(mock.Script("half a pair: \ud800")) as server:
        with openai.OpenAI(base_url=server.base_url, api_key="x", max_retries=0) as client:
            answer = client.chat.completions.create(
                model="mock-model", messages=[{"role": "user", "content": "hi"}], stream=stream
            )
            if stream:
                text = "".join(chunk.choices[0].delta.content or "" for chunk in answer if chunk.choices)
            else:
                text = answer.choices[0].message.content
    assert text == "half a pair: \ud800"


def test_the_in_process_client_answers_with_a_lone_surrogate_too():
    client = mock.client(mock.Script("half a pair: \ud800"))
    reply = client.chat.completions.create(model="mock-model", messages=[{"role": "user", "content": "hi"}])
    assert reply.choices[0].message.content == "half a pair: \ud800"


def test_long_text_is_counted_exactly_and_a_long_run_of_one_letter_in_pieces():
    exact = encoding().encode_ordinary
    rng = random.Random(11)
    pieces = [
        "word",
        " Word",
        "  ",
        "\n",
        "\n\n",
        "\t",
        "42",
        "1234",
        ".",
        ",\n",
        "'s",
        "-",
        "é",
        "日本",
        "\r\n",
        " \n",
        "__",
    ]
    texts = [Path(__file__).read_text() * 8, json.dumps({"log": ["GET /x 200"] * 3000})]
    texts += ["".join(rng.choice(pieces) for _ in range(rng.randint(6_000, 12_000))) for _ in range(20)]
    for text in texts:
        assert len(text) > 10_000  # longer than one piece
        assert count_text(text) == len(exact(text))
    assert count_text("a" * 80_000) == len(exact("a" * 80_000)) == 10_000
    assert count_text("a" * 4_000_000) == 500_000  # 400 pieces of 10,000 letters, 1,250 tokens each


# --- no request makes the server answer 500: valid bodies with one part replaced by junk, from a fixed seed
# ---

FUZZ_TOOL = {
    "name": "add",
    "description": "Add.",
    "input_schema": {"type": "object", "properties": {"a": {"type": "number"}}},
}
VALID_BODIES = {
    "/v1/chat/completions": {
        "model": "m",
        "max_tokens": 50,
        "tools": [{"type": "function", "function": {**FUZZ_TOOL, "parameters": FUZZ_TOOL["input_schema"]}}],
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "What is 2 + 3?"},
        ],
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": "a", "schema": {"type": "object"}},
        },
    },
    "/v1/responses": {
        "model": "m",
        "max_output_tokens": 50,
        "instructions": "Be brief.",
        "store": True,
        "input": [{"role": "user", "content": [{"type": "input_text", "text": "What is 2 + 3?"}]}],
        "tools": [{"type": "function", "name": "add", "parameters": FUZZ_TOOL["input_schema"]}],
        "text": {"format": {"type": "json_schema", "name": "a", "schema": {"type": "object"}}},
    },
    "/v1/messages": {
        "model": "m",
        "max_tokens": 50,
        "system": [{"type": "text", "text": "Be brief."}],
        "tools": [FUZZ_TOOL],
        "tool_choice": {"type": "auto"},
        "output_config": {"format": {"type": "json_schema", "schema": {"type": "object"}}},
        "messages": [{"role": "user", "content": [{"type": "text", "text": "What is 2 + 3?"}]}],
    },
    "/v1/messages/count_tokens": {
        "model": "m",
        "system": "Be brief.",
        "tools": [FUZZ_TOOL],
        "messages": [{"role": "user", "content": [{"type": "text", "text": "What is 2 + 3?"}]}],
    },
}
JUNK = [
    None,
    0,
    -1,
    1.5,
    10**30,
    -(10**30),
    "",
    "x",
    "\ud800",
    True,
    [],
    {},
    [None],
    {"type": "unknown"},
    {"type": "text"},
    [{"type": "tool_result"}],
    "a" * 10_000,
]


def places(value, path=()):
    """every path to a value inside a JSON value"""
    yield path
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in items:
        yield from places(child, (*path, key))


def replaced(value, path, new):
    if not path:
        return new
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[path[0]] = replaced(value[path[0]], path[1:], new)
    return copy


def malformed_bodies(seed, count):
    rng = random.Random(seed)
    for _ in range(count):
        path = rng.choice(list(VALID_BODIES))
        body = VALID_BODIES[path]
        for _ in range(rng.choice((1, 1, 2, 3))):
            where = rng.choice(list(places(body)))
            body = replaced(body, where, rng.choice(JUNK + ["DEEP"]))
        content = json.dumps(body).encode("utf-8", "surrogatepass")
        depth = rng.choice((50, 150, 3000))  # arrays in arrays, deeper than Python's json module can write
        yield path, content.replace(b'"DEEP"', b"[" * depth + b"]" * depth)


def test_no_malformed_request_makes_the_server_answer_500():
    answers = []
    with serve(mock.Calculator()) as server, httpx2.Client(base_url=server.url, timeout=30) as client:
        for path, content in malformed_bodies(seed=23, count=300):
            response = client.post(path, content=content, headers={"content-type": "application/json"})
            answers.append((path, response.status_code))
            assert response.status_code < 500, (path, content[:300], response.text[:300])
            error = response.json() if response.status_code >= 400 else None
            if error is not None:  # each API's own error shape
                assert (
                    ("type" in error and "error" in error) if "/messages" in path else set(error) == {"error"}
                )
    assert {status for _, status in answers} >= {200, 400}  # both kinds of answer were reached
