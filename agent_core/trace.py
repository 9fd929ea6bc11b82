"""The wire trace: every model call's exact request and response JSON, recorded at the transport
(every lesson).

Beneath it: `_body_text.py` reads a body as JSON or text and escapes lone surrogates so every text prints;
`_streamed_replies.py` records a streamed reply and assembles it into one response; `formats/responses.py`
(lesson 09) reads a Responses API turn as Chat messages; `_cassette_checks.py` (lesson 08) says what is
wrong with a file that is not a cassette.
"""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2

from ._body_text import escape_surrogates, escaped, json_or_text, may_hold_surrogates
from ._cassette_checks import CassetteError, check_cassette, read_cassette
from ._streamed_replies import RecordedStream, assemble_stream
from .formats.responses import responses_messages, responses_reply

__all__ = [
    "Turn",
    "Trace",
    "RecordingHTTPTransport",
    "json_or_text",
    "escape_surrogates",
    "escaped",
    "CassetteError",
]

CASSETTE_VERSION = 1
RESPONSES_USAGE = ("input_tokens", "output_tokens", "total_tokens")  # a Responses turn's token names


class Turn:
    """one model call: the request JSON sent and the response JSON received (a recording keeps the bytes
    that crossed the wire, `sent` and `received`, and parses each when first read: recording stays cheap)"""

    def __init__(
        self,
        index: int,
        method: str,
        url: str,
        request: Any = None,
        status: int = 0,
        response: Any = None,
        stream: bool = False,
        elapsed_ms: float = 0.0,
        *,
        sent: bytes = b"",
        received: bytes = b"",
    ):
        self.index, self.method, self.url, self.status = index, method, url, status
        self.stream, self.elapsed_ms = stream, elapsed_ms
        self.sent, self.received = sent, received
        if request is not None or not sent:
            self.request = request
        if response is not None or not received:
            self.response = response

    @functools.cached_property
    def request(self) -> Any:
        return json_or_text(self.sent)

    @functools.cached_property
    def response(self) -> Any:
        if self.stream:
            completion = assemble_stream(self.received.decode("utf-8", errors="replace"))
            return escaped(completion) if may_hold_surrogates(self.received) else completion
        return json_or_text(self.received)

    def streamed(self, received: bytes, started: float) -> None:
        """a streamed reply's bytes, once the SDK has read them (`started`: perf_counter() at the call)"""
        self.received = received
        vars(self).pop("response", None)  # parsed from `received` when first read
        self.elapsed_ms = (time.perf_counter() - started) * 1000

    def __repr__(self) -> str:
        return f"Turn(index={self.index}, {self.method} {self.url}, status={self.status})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Turn) and self.to_dict() == other.to_dict()

    @property
    def messages(self) -> list[dict[str, Any]]:
        """the message list this call sent (the whole history, every time; a Responses API call's
        `input` items read as Chat Completions messages)"""
        if not isinstance(self.request, dict):
            return []
        if "messages" not in self.request and "input" in self.request:
            return responses_messages(self.request)
        messages: list[dict[str, Any]] = self.request.get("messages", [])
        return messages

    @property
    def reply(self) -> dict[str, Any] | None:
        """the assistant message the model answered with (None for an error)"""
        if isinstance(self.response, dict) and self.response.get("object") == "response":
            return responses_reply(self.response)
        try:
            message: dict[str, Any] = self.response["choices"][0]["message"]
            return message
        except (KeyError, IndexError, TypeError):
            return None

    @property
    def finish_reason(self) -> str | None:
        try:
            reason: str | None = self.response["choices"][0]["finish_reason"]
            return reason
        except (KeyError, IndexError, TypeError):
            return None

    @property
    def usage(self) -> dict[str, Any] | None:
        return self.response.get("usage") if isinstance(self.response, dict) else None

    @property
    def error(self) -> dict[str, Any] | None:
        """the API's error object, when the call was refused"""
        if isinstance(self.response, dict) and "error" in self.response:
            error: dict[str, Any] = self.response["error"]
            return error
        return None

    def to_dict(self, timings: bool = True) -> dict[str, Any]:
        data = {
            "index": self.index,
            "method": self.method,
            "url": self.url,
            "stream": self.stream,
            "status": self.status,
            "request": self.request,
            "response": self.response,
        }
        if timings:
            data["elapsed_ms"] = round(self.elapsed_ms, 3)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Turn:
        return cls(
            index=data["index"],
            method=data.get("method", "POST"),
            url=data["url"],
            request=data["request"],
            status=data["status"],
            response=data["response"],
            stream=data.get("stream", False),
            elapsed_ms=data.get("elapsed_ms", 0.0),
        )


@dataclass
class Trace:
    """the turns of a conversation with a model, in order; saves to and loads from a JSON cassette"""

    turns: list[Turn] = field(default_factory=list)
    # for a slice made by since(): the turn just before it, so its first turn's new messages are right
    before: Turn | None = field(default=None, repr=False, compare=False)

    def __len__(self) -> int:
        return len(self.turns)

    def __iter__(self) -> Iterator[Turn]:
        return iter(self.turns)

    def __getitem__(self, index: int) -> Turn:
        return self.turns[index]

    def since(self, start: int) -> Trace:
        """a new Trace with the turns from index `start` on (e.g. one agent run's calls)"""
        first, _, _ = slice(start, None).indices(len(self.turns))
        return Trace(self.turns[first:], before=self.turns[first - 1] if first else None)

    def new_messages(self, index: int) -> list[dict[str, Any]]:
        """the messages of turn `index` that the previous turn did not send"""
        current = self.turns[index].messages
        previous_turn = self.turns[index - 1] if index else self.before
        if previous_turn is None:
            return list(current)
        previous = previous_turn.messages
        same = 0
        while same < min(len(previous), len(current)) and previous[same] == current[same]:
            same += 1
        return list(current[same:])

    def total_usage(self) -> dict[str, int]:
        """prompt, completion and total tokens summed over every turn that reported usage"""
        totals = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
        for turn in self.turns:
            usage = turn.usage or {}
            for key, responses_key in zip(totals, RESPONSES_USAGE, strict=True):
                totals[key] += usage.get(key, usage.get(responses_key, 0))
        return totals

    def to_dict(self, timings: bool = True) -> dict[str, Any]:
        return {"version": CASSETTE_VERSION, "turns": [t.to_dict(timings) for t in self.turns]}

    def to_json(self, timings: bool = True, indent: int | None = 2) -> str:
        # a lone surrogate (a server's "\ud800") cannot be written as UTF-8: its JSON escape is
        return escape_surrogates(json.dumps(self.to_dict(timings), indent=indent, ensure_ascii=False))

    def save(self, path: str | Path, timings: bool = True) -> Path:
        """write the trace as a JSON cassette"""
        Path(path).write_text(self.to_json(timings) + "\n", encoding="utf-8")
        return Path(path)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Trace:
        """a Trace from a cassette's JSON; CassetteError says in one line what is wrong with it"""
        check_cassette(data, CASSETTE_VERSION)
        return cls([Turn.from_dict(t) for t in data["turns"]])

    @classmethod
    def load(cls, path: str | Path) -> Trace:
        """read a JSON cassette written by save(); CassetteError says in one line what is wrong"""
        return cls([Turn.from_dict(t) for t in read_cassette(path, CASSETTE_VERSION)["turns"]])


class RecordingHTTPTransport(httpx2.BaseTransport, httpx2.AsyncBaseTransport):
    """wraps a transport and records each call's request and response JSON into a Trace; serves
    httpx2.Client and httpx2.AsyncClient alike, as its inner transport does"""

    def __init__(self, inner: httpx2.BaseTransport | httpx2.AsyncBaseTransport, trace: Trace | None = None):
        self.inner = inner
        self.trace = trace if trace is not None else Trace()

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        if not isinstance(self.inner, httpx2.BaseTransport):
            raise TypeError(
                f"{type(self.inner).__name__} is an async transport: use it with httpx2.AsyncClient"
            )
        started, sent = time.perf_counter(), request.read()
        return self._record(request, sent, self.inner.handle_request(request), started)

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        if not isinstance(self.inner, httpx2.AsyncBaseTransport):
            raise TypeError(f"{type(self.inner).__name__} is a sync transport: use it with httpx2.Client")
        started, sent = time.perf_counter(), await request.aread()
        response = await self.inner.handle_async_request(request)
        if not response.headers.get("content-type", "").startswith("text/event-stream"):
            await response.aread()
        return self._record(request, sent, response, started)

    def _record(
        self, request: httpx2.Request, sent: bytes, response: httpx2.Response, started: float
    ) -> httpx2.Response:
        # bodies only, never headers: a saved trace (a cassette) cannot hold an API key
        streamed = response.headers.get("content-type", "").startswith("text/event-stream")
        turn = Turn(
            index=len(self.trace.turns),
            method=request.method,
            url=str(request.url),
            status=response.status_code,
            stream=streamed,
            sent=sent,
            received=b"" if streamed else response.read(),
        )
        self.trace.turns.append(turn)
        if streamed:  # recorded once the SDK has read it
            return RecordedStream.wrap(response, request, functools.partial(turn.streamed, started=started))
        turn.elapsed_ms = (time.perf_counter() - started) * 1000
        return response

    def close(self) -> None:
        if isinstance(self.inner, httpx2.BaseTransport):
            self.inner.close()

    async def aclose(self) -> None:
        if isinstance(self.inner, httpx2.AsyncBaseTransport):
            await self.inner.aclose()
