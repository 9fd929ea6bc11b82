"""Cassettes: record a run against any model once, then replay it offline, request by request (lesson 08).

Beneath it: `_cassette_checks.py` says in one line what makes a file something other than a cassette
(Trace.load() refuses with it); `_replayed_answers.py` sends a recorded response again, streamed or not.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx2
import openai

from ._cassette_checks import CassetteError
from ._replayed_answers import answer, check_resendable
from .mock.protocol import ProtocolError
from .trace import RecordingHTTPTransport, Trace, Turn, json_or_text

__all__ = [
    "Replay",
    "ReplayClient",
    "client",
    "first_difference",
    "show_cassette",
    "load_cassette",
    "CassetteError",
    "MISSING",
]


class _Missing:
    def __repr__(self) -> str:
        return "(absent)"


MISSING: Any = _Missing()  # stands for a field one side has and the other does not


def first_difference(recorded: Any, received: Any, path: str = "") -> tuple[str, Any, Any] | None:
    """where two JSON values first differ: (path like "messages[3].content", recorded, received)

    None if they are equal. A missing key or list item shows as MISSING; 1 and 1.0, or 1 and
    true, count as different, because they are different JSON.
    """
    if isinstance(recorded, dict) and isinstance(received, dict):
        for key in [*recorded, *(k for k in received if k not in recorded)]:
            where = f"{path}.{key}" if path else str(key)
            found = first_difference(recorded.get(key, MISSING), received.get(key, MISSING), where)
            if found:
                return found
        return None
    if isinstance(recorded, list) and isinstance(received, list):
        for i in range(max(len(recorded), len(received))):
            mine = recorded[i] if i < len(recorded) else MISSING
            theirs = received[i] if i < len(received) else MISSING
            found = first_difference(mine, theirs, f"{path}[{i}]")
            if found:
                return found
        return None
    if type(recorded) is not type(received) or recorded != received:
        return path or "(the whole body)", recorded, received
    return None


class Replay:
    """answers each request with the next recorded response, if it is the recorded request

    Has the same respond(method, path, body) as MockModel, so it can stand behind the
    in-process transport (replay.client) or the HTTP server (agent-core serve-mock --cassette).
    """

    def __init__(self, trace: Trace):
        self.turns: list[Turn] = list(trace.turns)
        self.position = 0  # the turn the next request must match
        self._lock = threading.Lock()  # a server's clients take their turns one at a time
        check_resendable(self.turns)

    @classmethod
    def load(cls, path: str | Path) -> Replay:
        """read a cassette written by Trace.save(); CassetteError says in one line what is wrong"""
        trace = load_cassette(path)
        try:
            return cls(trace)
        except CassetteError as error:
            raise CassetteError(f"cannot read the cassette {str(path)!r}: {error}") from None

    @property
    def remaining(self) -> int:
        return len(self.turns) - self.position

    @property
    def model(self) -> str | None:
        """the model name the recording used; pass it as model= so requests match"""
        for turn in self.turns:
            if isinstance(turn.request, dict) and turn.request.get("model"):
                model: str = turn.request["model"]
                return model
        return None

    @property
    def base_url(self) -> str | None:
        """the base URL the recording talked to (the first turn's URL without its endpoint)"""
        if not self.turns:
            return None
        url = self.turns[0].url
        endpoint = _endpoint(urlsplit(url).path)
        return url[: -len(endpoint) - 1] if url.endswith("/" + endpoint) else url

    def reset(self) -> None:
        """start again from the first turn"""
        self.position = 0

    def respond(
        self, method: str, path: str, body: bytes, headers: Mapping[str, str] | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        """the recorded response for this request, or a 400 that shows how the request differs"""
        try:
            received = json_or_text(body)
            with self._lock:
                turn = self._next_turn(method, path, received)
        except ProtocolError as error:
            return 400, {"content-type": "application/json"}, json.dumps(error.body()).encode()
        return answer(turn)

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        """the httpx2 transport handler, as in MockModel"""
        status, headers, content = self.respond(request.method, request.url.path, request.read())
        return httpx2.Response(status, headers=headers, content=content)

    def _next_turn(self, method: str, path: str, received: Any) -> Turn:
        if self.position >= len(self.turns):
            raise ProtocolError(
                f"The cassette has {len(self.turns)} turn(s) and all were replayed; this request "
                f"would be turn {self.position + 1}.",
                code="cassette_exhausted",
                hint="This run makes more model calls than the recorded one. Record the cassette "
                "again, or call reset() on the Replay to start over.",
            )
        turn = self.turns[self.position]
        expected = f"{turn.method} {_endpoint(urlsplit(turn.url).path)}"
        which = f"turn {self.position + 1} of the cassette (trace[{self.position}])"
        if f"{method} {_endpoint(path)}" != expected:
            raise ProtocolError(
                f"This request is {method} {_endpoint(path)}, but {which} is {expected}.",
                code="replay_mismatch",
                hint="Replay answers the recorded requests, in the recorded order.",
            )
        difference = first_difference(turn.request, received)
        if difference is not None:
            where, mine, theirs = difference
            raise ProtocolError(
                f"This request differs from {which} at {where}:\n"
                f"  recorded: {_show(mine)}\n  received: {_show(theirs)}",
                param=where,
                code="replay_mismatch",
                hint="Replay answers only the exact requests it recorded. Send the same model, "
                "messages, tools and options, or record the cassette again.",
            )
        self.position += 1
        return turn


def load_cassette(path: str | Path) -> Trace:
    """read a cassette file, checking its shape first; CassetteError says what is wrong"""
    return Trace.load(path)


class ReplayClient(openai.OpenAI):
    """the openai.OpenAI that client() makes: the same client, plus its Trace and its Replay"""

    trace: Trace
    replay: Replay


def client(
    cassette: Replay | Trace | str | Path,
    *,
    trace: Trace | None = None,
    max_retries: int = openai.DEFAULT_MAX_RETRIES,
) -> ReplayClient:
    """a real openai.OpenAI whose answers come from a cassette; its calls are recorded in `.trace`

    The client's base_url is the recorded one, so the new trace equals the cassette turn for
    turn; nothing leaves this process. max_retries: as in the recording run (the SDK's default),
    so that recorded retries are replayed too.
    """
    if isinstance(cassette, Replay):
        replay = cassette
    elif isinstance(cassette, Trace):
        replay = Replay(cassette)
    else:
        replay = Replay.load(cassette)
    trace = trace if trace is not None else Trace()
    recording = RecordingHTTPTransport(httpx2.MockTransport(replay.handle), trace)
    sdk_client = ReplayClient(
        api_key="replay-key-not-secret",
        base_url=replay.base_url or "http://replay.agent-core.invalid/v1",
        http_client=httpx2.Client(transport=recording),
        max_retries=max_retries,
    )
    sdk_client.trace = trace
    sdk_client.replay = replay
    return sdk_client


def _endpoint(path: str) -> str:
    """the API endpoint of a URL path: "/v1/chat/completions" and "/api/v1/chat/completions" ->
    "chat/completions" """
    path = path.rstrip("/")
    return path.rsplit("/v1/", 1)[-1] if "/v1/" in path else path.lstrip("/")


def _show(value: Any, limit: int = 300) -> str:
    text = repr(value) if value is MISSING else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def show_cassette(path: str | Path, as_json: bool = False, console: Any = None) -> int:
    """`agent-core replay CASSETTE`: print every recorded turn (as_json: the cassette's raw JSON)"""
    try:
        trace = Trace(Replay.load(path).turns)  # what cannot be replayed is refused here too
    except CassetteError as error:
        print(f"agent-core replay: {error}", file=sys.stderr)
        return 2
    if as_json:
        print(trace.to_json(timings=False))
    else:
        from .render import print_trace

        print_trace(trace, console=console, json=True)
    return 0
