"""The mock model over real HTTP: an OpenAI-compatible server on your own machine (lesson 08)."""

from __future__ import annotations

import errno
import ipaddress
import json
import math
import re
import signal
import socket
import socketserver
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol, TextIO, runtime_checkable

from .._browser import needs_local_install
from .anthropic_messages import AnthropicError, anthropic_error_response, check_api_key
from .calculator import Calculator
from .model import MODELS, Echo, MockModel
from .policy import Policy, PolicyLike
from .protocol import ProtocolError
from .wire import Response, error_response, is_anthropic, json_response

__all__ = [
    "MockServer",
    "serve",
    "run",
    "Responder",
    "ServerStartError",
    "POLICIES",
    "policy_by_name",
    "masked_key",
    "start_up_lines",
    "LOCALHOST",
    "DEFAULT_PORT",
]

LOCALHOST = "127.0.0.1"
DEFAULT_PORT = 8000
MAX_BODY_BYTES = 8 * 1024**2  # a bigger request body gets a 413 (Anthropic's real limit is 32 MB)
MODEL_PATHS = (
    "/chat/completions",
    "/responses",
    "/messages",
)  # the requests that call the model: rate-limited
METHODS = ("GET", "POST")  # the methods the API answers; any other gets a 405
POLICIES: dict[str, Callable[[], Policy]] = {"echo": Echo, "calculator": Calculator}


@runtime_checkable
class Responder(Protocol):
    """anything that answers one HTTP request: MockModel, or a Replay of a cassette"""

    def respond(
        self, method: str, path: str, body: bytes, headers: Mapping[str, str] | None = None
    ) -> Response: ...


class ServerStartError(OSError):
    """the server could not listen where it was asked to (port taken, not allowed, unknown host)"""


def policy_by_name(name: str) -> Policy:
    """a fresh mock policy by its name: "echo" or "calculator" """
    try:
        return POLICIES[name.strip().lower()]()
    except KeyError:
        raise ValueError(
            f"there is no mock policy named {name!r}; choose one of: {', '.join(POLICIES)}"
        ) from None


def masked_key(key: str) -> str:
    """a key as OpenAI's 401 message shows it: first 8 and last 4 characters; a short key fully hidden"""
    if len(key) <= 12:
        return "*" * len(key)
    return key[:8] + "*" * (len(key) - 12) + key[-4:]


class MockServer:
    """an OpenAI-compatible HTTP server that answers with a MockModel (or a Replay)

    The socket is bound when the object is made, so `base_url` is known at once (port 0 means
    any free port). start() serves in a background thread; serve_forever() in this one.
    """

    def __init__(
        self,
        model: Responder | PolicyLike | None = None,
        *,
        host: str = LOCALHOST,
        port: int = 0,
        api_key: str | None = None,
        models: Sequence[str] | None = None,
        rate_limit: int | None = None,
        log: TextIO | None = None,
        max_body_bytes: int = MAX_BODY_BYTES,
        cors: bool = False,
    ):
        needs_local_install("serve() starts an HTTP server on a network port", "06 or 08")
        self.model = model if isinstance(model, Responder) else MockModel(model, models=models or MODELS)
        self.api_key = api_key  # when set, a request without this Bearer key gets OpenAI's 401
        self.models = tuple(models) if models else None  # when set, any other model name gets a 404
        self.rate_limit = rate_limit  # model requests per minute; the next one gets a 429
        self.log = log  # where to print one line per request (None: quiet)
        self.max_body_bytes = max_body_bytes  # a bigger request body gets a 413
        self.cors = cors  # answer browsers on other origins (the browser edition): CORS headers, preflights
        self._lock = threading.Lock()  # guards the rate limit's count
        self._minute_started: float | None = None
        self._used_this_minute = 0
        self._http = _bind(self, host, port)
        self._thread: threading.Thread | None = None
        self._closed = False

    @property
    def host(self) -> str:
        host = self._http.server_address[0]
        assert isinstance(host, str)  # an AF_INET or AF_INET6 address: (host, port, ...)
        return host

    @property
    def port(self) -> int:
        return self._http.server_address[1]

    @property
    def url(self) -> str:
        """where the server listens, e.g. http://127.0.0.1:8000"""
        host = {"0.0.0.0": LOCALHOST, "::": "::1"}.get(self.host, self.host)
        return f"http://[{host}]:{self.port}" if ":" in host else f"http://{host}:{self.port}"

    @property
    def base_url(self) -> str:
        """what to pass as openai.OpenAI(base_url=...): the url with /v1"""
        return self.url + "/v1"

    def start(self) -> MockServer:
        """serve in a background thread; returns at once"""
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._http.serve_forever,
                args=(0.05,),
                name=f"mock-server-{self.port}",
                daemon=True,
            )
            self._thread.start()
        return self

    def serve_forever(self) -> None:
        """serve in this thread until KeyboardInterrupt (Ctrl-C); the socket is closed on the way out"""
        try:
            self._http.serve_forever(poll_interval=0.2)
        finally:
            self._close_socket()

    def close(self) -> None:
        """stop serving, end open connections, close the socket"""
        if self._thread is not None:
            self._http.shutdown()
            self._thread.join()
            self._thread = None
        self._close_socket()

    def __enter__(self) -> MockServer:
        return self.start()

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<MockServer {self.base_url}>"

    def answer(self, method: str, path: str, headers: Mapping[str, str], body: bytes) -> Response:
        """what is about HTTP first (the key, the served models, the rate limit), then the model's answer"""
        path = path.split("?", 1)[0]
        anthropic = is_anthropic(path)
        try:
            if anthropic:
                bearer = (headers.get("Authorization") or "").removeprefix("Bearer ") or None
                check_api_key(self.api_key, headers.get("x-api-key") or bearer)
                if not isinstance(self.model, MockModel):  # only the mock model has Anthropic's API
                    raise AnthropicError(
                        f"Not found: {path}",
                        hint="A replayed cassette answers the Chat Completions requests it recorded; "
                        "serve a policy to use the Anthropic SDK.",
                        status=404,
                        type="not_found_error",
                    )
            else:
                self._check_key(headers.get("Authorization") or headers.get("authorization"))
            if method == "GET" and "/models/" in path:
                self._check_model(path.rstrip("/").rsplit("/models/", 1)[1])
            if method == "POST" and path.rstrip("/").endswith(MODEL_PATHS):
                model = _model_of(body)
                self._check_model(model, anthropic)
                wait = self._spend_one_request()
                if wait is not None:
                    return self._too_many_requests(model, wait, anthropic)
        except ProtocolError as error:
            return anthropic_error_response(error) if anthropic else error_response(error)
        return self.model.respond(method, path, body, headers)  # the policy decides one request at a time

    def _check_key(self, authorization: str | None) -> None:
        if self.api_key is None:
            return
        if not authorization or not authorization.startswith("Bearer "):
            raise ProtocolError(
                "You didn't provide an API key. You need to provide your API key in an Authorization "
                "header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password "
                "field (with blank username) if you're accessing the API from your browser and are "
                "prompted for a username and password. You can obtain an API key from "
                "https://platform.openai.com/account/api-keys.",
                status=401,
                hint="This mock server was started with an API key: send it as api_key=... .",
            )
        given = authorization[len("Bearer ") :]
        if given != self.api_key:
            raise ProtocolError(
                f"Incorrect API key provided: {masked_key(given)}. You can find your API key at "
                "https://platform.openai.com/account/api-keys.",
                status=401,
                code="invalid_api_key",
                hint="Use the key this mock server was started with (--api-key).",
            )

    def _check_model(self, model: str | None, anthropic: bool = False) -> None:
        if self.models is None or model is None or model in self.models:
            return
        if anthropic:
            # Anthropic's 404 names only the model: {"type": "not_found_error", "message": "model: sonnet4"}
            # (as pasted in anthropics/claude-code#5349)
            raise AnthropicError(
                f"model: {model}",
                hint=f"This server serves: {', '.join(self.models)}.",
                status=404,
                type="not_found_error",
            )
        raise ProtocolError(
            f"The model `{model}` does not exist or you do not have access to it.",
            status=404,
            code="model_not_found",
            hint=f"This server serves: {', '.join(self.models)}.",
        )

    def _spend_one_request(self) -> int | None:
        """count a model request against this minute's allowance: None if it fits, else seconds to wait"""
        if self.rate_limit is None:
            return None
        with self._lock:
            now = time.monotonic()
            if self._minute_started is None or now - self._minute_started >= 60:
                self._minute_started, self._used_this_minute = now, 0
            if self._used_this_minute < self.rate_limit:
                self._used_this_minute += 1
                return None
            return max(1, math.ceil(60 - (now - self._minute_started)))

    def _too_many_requests(self, model: str | None, wait: int, anthropic: bool) -> Response:
        """the real API's 429, in its own words and headers"""
        if anthropic:
            # Anthropic's 429 text, as pasted in OpenHands/OpenHands#9259 and Trae-AI/TRAE#625
            # (there for input tokens per minute; here the limit is on requests)
            error: ProtocolError = AnthropicError(
                "This request would exceed the rate limit for your organization (org-agent-core-mock) "
                f"of {self.rate_limit:,} requests per minute. For details, refer to: "
                "https://docs.anthropic.com/en/api/rate-limits. You can see the response headers for "
                "current usage. Please reduce the prompt length or the maximum tokens requested, or "
                "try again later. You may also contact sales at https://www.anthropic.com/contact-sales "
                "to discuss your options for a rate limit increase.",
                hint=f"This mock server allows {self.rate_limit} requests per minute (--rate-limit).",
                status=429,
                type="rate_limit_error",
            )
            limits = {
                "anthropic-ratelimit-requests-limit": str(self.rate_limit),
                "anthropic-ratelimit-requests-remaining": "0",
            }
        else:
            error = ProtocolError(
                f"Rate limit reached for {model} in organization org-agent-core-mock on requests per min "
                f"(RPM): Limit {self.rate_limit}, Used {self.rate_limit}, Requested 1. Please try again in "
                f"{wait}s. Visit https://platform.openai.com/account/rate-limits to learn more.",
                status=429,
                type="requests",
                code="rate_limit_exceeded",
                hint=f"This mock server allows {self.rate_limit} chat requests per minute (--rate-limit).",
            )
            limits = {
                "x-ratelimit-limit-requests": str(self.rate_limit),
                "x-ratelimit-remaining-requests": "0",
                "x-ratelimit-reset-requests": f"{wait}s",
            }
        status, headers, content = error_response(error)
        return status, {**headers, "retry-after": str(wait), **limits}, content

    def _close_socket(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._http.end_connections()
        self._http.server_close()


class _HTTPServer(ThreadingHTTPServer):
    allow_reuse_port = False  # a second server on the same port must fail, not share it
    request_queue_size = 1024  # listen backlog: 200 clients connecting at once all get in (default 5)

    def __init__(self, mock: MockServer, host: str, port: int):
        self.mock = mock
        self.connections: set[socket.socket] = set()
        self.connections_lock = threading.Lock()
        if ":" in host:
            self.address_family = socket.AF_INET6
        super().__init__((host, port), _Handler)

    def server_bind(self) -> None:
        socketserver.TCPServer.server_bind(self)  # HTTPServer's version also does a slow DNS lookup
        host, self.server_port = self.server_address[:2]
        assert isinstance(host, str)  # an AF_INET or AF_INET6 address: (host, port, ...)
        self.server_name = host

    def end_connections(self) -> None:
        """wake handler threads waiting on kept-alive connections, so server_close() can join them"""
        with self.connections_lock:
            for connection in self.connections:
                try:
                    connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], OSError):  # a client that went away is not news
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive and chunked streaming, as the SDK expects
    # TCP_NODELAY: a response's headers and body go out at once. With Nagle's algorithm the body
    # waited for the client to acknowledge the headers, which it delays by up to 40 ms: every answer
    # over HTTP took 44 ms on Linux
    disable_nagle_algorithm = True
    server_version = "agent-core-mock"
    timeout = 60  # an idle kept-alive connection is closed after this many seconds
    server: _HTTPServer

    def setup(self) -> None:
        super().setup()
        with self.server.connections_lock:
            self.server.connections.add(self.connection)

    def finish(self) -> None:
        with self.server.connections_lock:
            self.server.connections.discard(self.connection)
        super().finish()

    def do_GET(self) -> None:
        """every method arrives here: refuse what the API does not answer, read the body, answer"""
        if self.command == "OPTIONS" and self.server.mock.cors:  # a browser's preflight: what it may send
            self._send(204, {}, b"")
            return
        if self.command not in METHODS:
            path = self.path.split("?", 1)[0]
            self._refuse(
                405, f"Invalid method for URL ({self.command} {path})", {"Allow": ", ".join(METHODS)}
            )
            return
        body = self._read_body()
        if body is None:
            return  # refused, or the client went away
        try:
            # the request's email.message.Message is read as a Mapping: get() and items(), case-insensitive
            status, headers, content = self.server.mock.answer(
                self.command,
                self.path,
                self.headers,  # type: ignore[arg-type]
                body,
            )
        except Exception as error:  # a bug in the mock: the client still gets an answer, and the log says it
            self.log_message("%s %s failed: %s: %s", self.command, self.path, type(error).__name__, error)
            failure = ProtocolError(
                f"The mock server failed: {type(error).__name__}: {error}",
                status=500,
                type="server_error",
                hint="This is the mock, not your request.",
            )
            status, headers, content = (
                anthropic_error_response(failure) if self._is_anthropic() else error_response(failure)
            )
        self._send(status, headers, content)

    do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = do_TRACE = do_CONNECT = do_GET

    def _send(self, status: int, headers: Mapping[str, str], content: bytes) -> None:
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        if self.server.mock.cors:  # https://fetch.spec.whatwg.org/#http-cors-protocol
            self.send_header("Access-Control-Allow-Origin", "*")
            self.send_header("Access-Control-Allow-Methods", ", ".join(METHODS))
            # "*" would not cover Authorization: name what the browser asked for
            self.send_header(
                "Access-Control-Allow-Headers", self.headers.get("Access-Control-Request-Headers", "*")
            )
            self.send_header("Access-Control-Expose-Headers", "*")
            self.send_header("Access-Control-Allow-Private-Network", "true")  # a page served elsewhere
        content_type = next((v for k, v in headers.items() if k.lower() == "content-type"), "")
        if content_type.startswith("text/event-stream"):
            self._send_events(content)
            return
        self.send_header("Content-Length", str(len(content)))
        self.end_headers()
        if self.command != "HEAD":  # a response to HEAD never has a body
            self.wfile.write(content)

    def _read_body(self) -> bytes | None:
        """the request body, framed by Content-Length or chunked; None once a refusal is sent

        Framing follows RFC 9112 section 6: a request with both Transfer-Encoding and
        Content-Length, or a Content-Length that is not one number, is refused (400); a transfer
        coding other than chunked gets a 501.
        """
        limit = self.server.mock.max_body_bytes
        lengths = self.headers.get_all("Content-Length") or []
        coding = self.headers.get("Transfer-Encoding")
        if coding is not None:
            if lengths:
                self._refuse(400, "Bad request: both Transfer-Encoding and Content-Length are set; send one")
                return None
            if coding.strip().lower() != "chunked":
                self._refuse(
                    501, f"Transfer-Encoding {coding!r} is not supported; send chunked or Content-Length"
                )
                return None
            return self._read_chunked(limit)
        if not lengths:
            return b""
        if len(set(lengths)) > 1 or not re.fullmatch(r"[0-9]{1,18}", lengths[0].strip()):
            shown = ", ".join(map(repr, lengths))
            self._refuse(400, f"Bad request: Content-Length {shown} is not a number of bytes")
            return None
        length = int(lengths[0])
        if length > limit:
            self._refuse_too_large(length, limit)
            self._discard(length)  # read what the client still sends, so it can read the 413
            return None
        body = self.rfile.read(length)
        if len(body) < length:  # the client closed the connection before sending it all
            self.close_connection = True
            return None
        return body

    def _read_chunked(self, limit: int) -> bytes | None:
        body = bytearray()
        while True:
            size_line = self.rfile.readline(1024).split(b";", 1)[0].strip()  # size [; extensions]
            if not re.fullmatch(rb"[0-9a-fA-F]{1,8}", size_line):
                self._refuse(400, f"Bad request: {size_line[:40]!r} is not a chunk size (hex digits)")
                return None
            size = int(size_line, 16)
            if size == 0:
                break
            if len(body) + size > limit:
                self._refuse_too_large(len(body) + size, limit)
                return None
            chunk = self.rfile.read(size)
            if len(chunk) < size or self.rfile.read(2) != b"\r\n":
                self._refuse(400, "Bad request: a chunk is shorter than its size or not followed by CRLF")
                return None
            body += chunk
        for _ in range(100):  # trailer fields, ignored, up to the empty line
            if self.rfile.readline(8192) in (b"\r\n", b"\n", b""):
                break
        return bytes(body)

    def _discard(self, length: int) -> None:
        """read and drop up to `length` bytes (at most 256 MB): a client mid-upload then sees the answer"""
        left = min(length, 256 * 1024**2)
        while left > 0:
            data = self.rfile.read(min(left, 1024**2))
            if not data:
                return
            left -= len(data)

    def _refuse_too_large(self, size: int, limit: int) -> None:
        hint = f"This mock server accepts request bodies up to {limit:,} bytes; this one is {size:,}."
        if self._is_anthropic():
            # Anthropic's 413 body, as pasted in anthropics/anthropic-sdk-python#938
            self._refuse(413, "Request exceeds the maximum size", hint=hint, type="request_too_large")
        else:
            # OpenAI's edge answers an HTML page titled "413 Request Entity Too Large" (as pasted in
            # openai/codex#2908); the mock says the same words in OpenAI's JSON error shape
            self._refuse(413, "Request Entity Too Large", hint=hint)

    def _refuse(
        self,
        status: int,
        message: str,
        extra_headers: Mapping[str, str] | None = None,
        *,
        hint: str = "",
        type: str = "invalid_request_error",
    ) -> None:
        """answer with a JSON error (Anthropic's shape on /v1/messages, OpenAI's elsewhere) and close"""
        error_class = AnthropicError if self._is_anthropic() else ProtocolError
        status, headers, content = json_response(
            status, error_class(message, hint=hint, status=status, type=type).body()
        )
        self.close_connection = True  # what follows on this connection cannot be trusted to be a request
        self._send(status, {**headers, **(extra_headers or {}), "Connection": "close"}, content)

    def _is_anthropic(self) -> bool:
        return is_anthropic(getattr(self, "path", "").split("?", 1)[0])

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """errors http.server finds itself (a bad request line, too many headers, an unknown method): JSON
        too"""
        if not hasattr(self, "command") or self.command is None:
            self.command = ""  # the request line could not be read
        self._refuse(code, message or self.responses.get(code, ("Error",))[0])

    def _send_events(self, content: bytes) -> None:
        """one HTTP chunk per server-sent event, as a streaming API sends them"""
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        for event in content.split(b"\n\n"):
            if event:
                data = event + b"\n\n"
                self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.write(b"0\r\n\r\n")

    def log_request(self, code: Any = "-", size: Any = "-") -> None:
        self.log_message("%s %s -> %s", self.command, getattr(self, "path", "-"), code)

    def log_message(self, format: str, *args: Any) -> None:
        log = self.server.mock.log
        if log is not None:
            print(format % args, file=log, flush=True)


def _bind(mock: MockServer, host: str, port: int) -> _HTTPServer:
    try:
        return _HTTPServer(mock, host, port)
    except OSError as error:
        if error.errno == errno.EADDRINUSE:
            message = (
                f"port {port} is already in use on {host}; pick another with --port (0 picks a free one)"
            )
        elif error.errno == errno.EACCES:
            message = f"port {port} on {host} needs administrator rights; pick one above 1023 with --port"
        elif isinstance(error, socket.gaierror) or error.errno == errno.EADDRNOTAVAIL:
            message = f"cannot listen on host {host!r} ({error.strerror}); use {LOCALHOST}"
        else:
            raise
        problem = ServerStartError(message)
        problem.errno = error.errno
        raise problem from None


def serve(
    policy: Responder | PolicyLike | None = None,
    *,
    host: str = LOCALHOST,
    port: int = 0,
    check_protocol: bool = True,
    reject_unknown_fields: bool = False,
    api_key: str | None = None,
    models: Sequence[str] | None = None,
    rate_limit: int | None = None,
    log: TextIO | None = None,
) -> MockServer:
    """start the mock model's HTTP server in a background thread; use it in a `with` to stop it

    policy: a mock policy (default Echo), or a Replay to serve a cassette.
    port: 0 picks a free port; read it back from server.port or server.base_url.
    check_protocol, reject_unknown_fields: the MockModel's protocol checks (see mock.client).
    api_key, models, rate_limit: make the server refuse like a real one (401, 404, 429).
    """
    if isinstance(policy, Responder):
        model = policy
    else:
        model = MockModel(
            policy,
            check_protocol=check_protocol,
            reject_unknown_fields=reject_unknown_fields,
            models=models or MODELS,
        )
    server = MockServer(
        model, host=host, port=port, api_key=api_key, models=models, rate_limit=rate_limit, log=log
    )
    return server.start()


def run(
    *,
    host: str = LOCALHOST,
    port: int | None = None,
    policy: str = "echo",
    cassette: tuple[str, Responder] | None = None,
    api_key: str | None = None,
    models: Sequence[str] | None = None,
    rate_limit: int | None = None,
    reject_unknown_fields: bool = False,
    quiet: bool = False,
    cors: bool = False,
) -> int:
    """`agent-core serve-mock`: serve until Ctrl-C (or SIGTERM), then exit 0; 2 if it cannot start.
    With no port asked for: DEFAULT_PORT, or a free one (said) if another server holds it"""
    try:
        model: Responder
        if cassette:  # (file name, replay.Replay of it): the caller loads it, so the mock needs no replay
            what, model = (
                f"replaying {cassette[0]}: it answers only the recorded requests, in order",
                cassette[1],
            )
        else:
            model = MockModel(
                policy_by_name(policy), reject_unknown_fields=reject_unknown_fields, models=models or MODELS
            )
            what = POLICY_WORDS.get(policy, f"policy {policy}")
        options: dict[str, Any] = dict(
            host=host, api_key=api_key, models=models, rate_limit=rate_limit, cors=cors
        )
        log = None if quiet else sys.stderr
        try:
            server = MockServer(model, port=DEFAULT_PORT if port is None else port, log=log, **options)
        except OSError as error:
            if port is not None or error.errno != errno.EADDRINUSE:
                raise
            server = MockServer(model, port=0, log=log, **options)  # the room's web server, perhaps
            print(
                f"port {DEFAULT_PORT} is busy (another server holds it): serving on port {server.port}",
                flush=True,
            )
    except (OSError, ValueError, KeyError) as error:
        print(f"agent-core serve-mock: {error}", file=sys.stderr)
        return 2
    signal.signal(signal.SIGINT, signal.default_int_handler)  # even if started with Ctrl-C ignored
    signal.signal(signal.SIGTERM, _interrupt)
    if not ipaddress.ip_address(server.host).is_loopback:
        print("warning: other machines on the network can reach this server", file=sys.stderr, flush=True)
    print("\n".join(start_up_lines(server, what, anthropic=not cassette)), flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    print("mock server stopped", flush=True)
    return 0


POLICY_WORDS = {
    "echo": "policy echo: it repeats what it receives and never calls a tool; for tool calls, use "
    "--policy calculator",
    "calculator": "policy calculator: it calls the tools it is offered",
}
START_UP_WIDTH = 60  # the start-up message fits a narrow terminal


def start_up_lines(server: MockServer, what: str, anthropic: bool = True) -> list[str]:
    """what serve-mock prints once it listens: where, what answers, the endpoints, how to try and stop
    it; each line at most START_UP_WIDTH columns (a URL or file name longer than that stays whole)"""
    lines = [f"mock model serving at {server.base_url}"]
    if server.host in ("0.0.0.0", "::"):
        lines.append(f"  listening on every network address ({server.host}), port {server.port}")
    lines += textwrap.wrap(
        what,
        START_UP_WIDTH,
        initial_indent="  ",
        subsequent_indent="    ",
        break_long_words=False,
        break_on_hyphens=False,
    )
    lines += ["  OpenAI:    POST /v1/chat/completions", "             POST /v1/responses, GET /v1/models"]
    if anthropic:
        lines += ["  Anthropic: POST /v1/messages", "             POST /v1/messages/count_tokens"]
    lines.append(f"  try: curl {server.base_url}/models    stop: Ctrl-C")
    return lines


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def _model_of(body: bytes) -> str | None:
    try:
        request = json.loads(body or b"null")
    except (ValueError, RecursionError):  # not JSON, or nested too deep to read: the model's checks say so
        return None
    model = request.get("model") if isinstance(request, dict) else None
    return model if isinstance(model, str) else None
