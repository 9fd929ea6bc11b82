"""The wire trace: every model call's exact request and response JSON, recorded at the transport
(every lesson)."""

from __future__ import annotations

import copy
import functools
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
import openai

from ._messages import from_responses

__all__ = [
    "Turn",
    "Trace",
    "RecordingTransport",
    "recorded",
    "trace_of",
    "json_or_text",
    "escape_surrogates",
    "escaped",
    "CassetteError",
]

CASSETTE_VERSION = 1


class Turn:
    """one model call: the request JSON sent and the response JSON received

    A recording keeps the bodies as the bytes that crossed the wire (`sent`, `received`) and
    parses each the first time it is read, so recording stays cheap.
    """

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
            completion = _assemble_stream(self.received.decode("utf-8", errors="replace"))
            return escaped(completion) if _may_hold_surrogates(self.received) else completion
        return json_or_text(self.received)

    def __repr__(self) -> str:
        return f"Turn(index={self.index}, {self.method} {self.url}, status={self.status})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Turn) and self.to_dict() == other.to_dict()

    @property
    def messages(self) -> list[dict[str, Any]]:
        """the message list this call sent (the whole history, every time)

        A Responses API call sends `instructions` and `input` items instead: they are read as the
        Chat Completions messages that say the same (only the new items, after previous_response_id).
        """
        if not isinstance(self.request, dict):
            return []
        if "messages" not in self.request and "input" in self.request:
            return _as_chat_messages(self.request)
        return self.request.get("messages", [])

    @property
    def reply(self) -> dict[str, Any] | None:
        """the assistant message the model answered with (None for an error)"""
        if isinstance(self.response, dict) and self.response.get("object") == "response":
            replies = _as_chat_messages({"input": self.response.get("output") or []})
            return replies[0] if len(replies) == 1 else None
        try:
            return self.response["choices"][0]["message"]
        except (KeyError, IndexError, TypeError):
            return None

    @property
    def finish_reason(self) -> str | None:
        try:
            return self.response["choices"][0]["finish_reason"]
        except (KeyError, IndexError, TypeError):
            return None

    @property
    def usage(self) -> dict[str, Any] | None:
        return self.response.get("usage") if isinstance(self.response, dict) else None

    @property
    def error(self) -> dict[str, Any] | None:
        """the API's error object, when the call was refused"""
        if isinstance(self.response, dict) and "error" in self.response:
            return self.response["error"]
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
            for key, responses_key in zip(
                totals, ("input_tokens", "output_tokens", "total_tokens"), strict=True
            ):
                totals[key] += usage.get(key, usage.get(responses_key, 0))  # a Responses turn's names
        return totals

    def to_dict(self, timings: bool = True) -> dict[str, Any]:
        return {"version": CASSETTE_VERSION, "turns": [t.to_dict(timings) for t in self.turns]}

    def to_json(self, timings: bool = True, indent: int | None = 2) -> str:
        text = json.dumps(self.to_dict(timings), indent=indent, ensure_ascii=False)
        # a lone surrogate (a server's "\ud800") cannot be written as UTF-8: write its JSON escape
        return text.encode("utf-8", "backslashreplace").decode("utf-8")

    def save(self, path: str | Path, timings: bool = True) -> Path:
        """write the trace as a JSON cassette"""
        path = Path(path)
        path.write_text(self.to_json(timings) + "\n", encoding="utf-8")
        return path

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Trace:
        """a Trace from a cassette's JSON; CassetteError says in one line what is wrong with it"""
        problem = _cassette_problem(data)
        if problem is not None:
            raise CassetteError(f"this is not a cassette: {problem}")
        return cls([Turn.from_dict(t) for t in data["turns"]])

    @classmethod
    def load(cls, path: str | Path) -> Trace:
        """read a JSON cassette written by save(); CassetteError says in one line what is wrong"""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
            problem = _cassette_problem(data)
        except UnicodeDecodeError:
            problem = "it is not UTF-8 text"
        except OSError as error:
            problem = error.strerror or str(error)
        except RecursionError:
            problem = f"it is nested too deeply (more than {MAX_DEPTH} levels) to be a recorded request"
        except ValueError as error:
            problem = f"it is not JSON ({error})"
        if problem is not None:
            raise CassetteError(f"cannot read the cassette {str(path)!r}: {problem}")
        return cls([Turn.from_dict(t) for t in data["turns"]])


class CassetteError(ValueError):
    """a file that is not a cassette Trace.save() could have written; the message says why, in one line"""


MAX_DEPTH = 100  # a recorded request or response nested deeper than this is not one an API sent
_TURN_FIELDS: dict[str, tuple[type, ...]] = {  # a cassette turn's fields and the JSON types each may have
    "index": (int,),
    "url": (str,),
    "status": (int,),
    "request": (dict, str),  # a body that was not JSON is kept as its text
    "response": (dict, str, type(None)),
}
_OPTIONAL_FIELDS: dict[str, tuple[type, ...]] = {
    "method": (str,),
    "stream": (bool,),
    "elapsed_ms": (int, float),
}


def _cassette_problem(data: Any) -> str | None:
    """what makes `data` something other than a cassette; None if its shape is right"""
    if not isinstance(data, dict):
        return f'it holds {_kind(data)}; a cassette is a JSON object with "version" and "turns"'
    if data.get("version") != CASSETTE_VERSION:
        return (
            f"it has version {_short(data.get('version'))}; this agent_core reads version "
            f"{CASSETTE_VERSION}. Record it again with this version."
        )
    turns = data.get("turns")
    if not isinstance(turns, list):
        return f'its "turns" is {_kind(turns)}; it must be a list of recorded turns'
    for number, turn in enumerate(turns, 1):
        if not isinstance(turn, dict):
            return f"turn {number} is {_kind(turn)}; each turn is an object with {', '.join(_TURN_FIELDS)}"
        for name, kinds in [*_TURN_FIELDS.items(), *_OPTIONAL_FIELDS.items()]:
            if name not in turn:
                if name in _TURN_FIELDS:
                    return f'turn {number} has no "{name}"'
                continue
            value = turn[name]
            if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
                wanted = " or ".join(_kind(kind()) for kind in kinds)
                return f'turn {number}: "{name}" is {_kind(value)}, not {wanted}'
        if not 100 <= turn["status"] <= 599:
            return f'turn {number}: "status" is {turn["status"]}, not an HTTP status (100 to 599)'
        problem = _wire_problem(turn)
        if problem:
            return f"turn {number}: {problem}"
    deepest = _depth(data)
    if deepest > MAX_DEPTH:
        return f"it is nested {deepest} levels deep; a recorded request is not (at most {MAX_DEPTH})"
    return None


_NULL = type(None)
_MESSAGE: dict[str, tuple[type, ...]] = {  # the fields of a message the library reads
    "": (dict,),
    "role": (str,),
    "content": (str, list, _NULL),
    "content.*": (dict,),
    "refusal": (str, _NULL),
    "tool_call_id": (str,),
    "tool_calls": (list, _NULL),
    "tool_calls.*": (dict,),
    "tool_calls.*.id": (str,),
    "tool_calls.*.function": (dict,),
    "tool_calls.*.function.name": (str,),
    "tool_calls.*.function.arguments": (str,),
}
_REQUEST = {
    "model": (str, _NULL),
    "messages": (list,),
    **{f"messages.*{'.' if key else ''}{key}": kinds for key, kinds in _MESSAGE.items()},
    "tools": (list, _NULL),
    "tools.*": (dict,),
    "tools.*.function": (dict, _NULL),
    "input": (str, list, _NULL),
    "previous_response_id": (str, _NULL),
}
_USAGE = ("prompt_tokens", "completion_tokens", "total_tokens", "input_tokens", "output_tokens")
_RESPONSE = {
    "object": (str, _NULL),
    "usage": (dict, _NULL),
    **{f"usage.{key}": (int,) for key in _USAGE},
    "choices": (list,),
    "choices.*": (dict,),
    **{f"choices.*.message{'.' if key else ''}{key}": kinds for key, kinds in _MESSAGE.items()},
    "choices.*.finish_reason": (str, _NULL),
    "choices.*.index": (int,),
    "output": (list,),
    "output.*": (dict,),
    "output.*.type": (str,),
    "output.*.content": (list,),
    "output.*.content.*": (dict,),
}


def _wire_problem(turn: dict[str, Any]) -> str | None:
    """the first recorded field the library reads that has the wrong type; None if all are right
    (a field that is absent is fine)"""
    request, response = turn["request"], turn["response"]
    if isinstance(request, dict):
        problem = _fields_problem(request, _REQUEST, "request")
        if problem:
            return problem
    if isinstance(response, dict):
        problem = _fields_problem(response, _RESPONSE, "response")
        if problem:
            return problem
    return None


def _fields_problem(value: Any, fields: dict[str, tuple[type, ...]], where: str) -> str | None:
    for path, kinds in fields.items():
        for shown, found in _at(value, path.split("."), where):
            if not isinstance(found, kinds) or (isinstance(found, bool) and bool not in kinds):
                wanted = " or ".join(dict.fromkeys(_kind(kind()) for kind in kinds))
                return f"{shown} is {_kind(found)}, not {wanted}"
    return None


def _at(value: Any, keys: list[str], shown: str) -> Iterator[tuple[str, Any]]:
    """every value at a path like "messages.*.content" ("*": each item of a list), with its name"""
    if not keys or keys == [""]:
        yield shown, value
        return
    key, rest = keys[0], keys[1:]
    if key == "*" and isinstance(value, list):
        for index, item in enumerate(value):
            yield from _at(item, rest, f"{shown}[{index}]")
    elif key != "*" and isinstance(value, dict) and key in value:
        yield from _at(value[key], rest, f"{shown}.{key}")


def _depth(value: Any) -> int:
    """how deeply lists and objects nest in a JSON value (counted without recursion)"""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        deepest = max(deepest, level)
        stack.extend((child, level + 1) for child in children if isinstance(child, (dict, list)))
    return deepest


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "true or false"
    names = {dict: "an object", list: "a list", str: "a string", int: "a number", float: "a number"}
    return "null" if value is None else names.get(type(value), type(value).__name__)


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."


class RecordingTransport(httpx2.BaseTransport):
    """wraps a transport and records each call's request and response JSON into a Trace"""

    def __init__(self, inner: httpx2.BaseTransport, trace: Trace | None = None):
        self.inner = inner
        self.trace = trace if trace is not None else Trace()

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        # bodies only, never headers: a saved trace (a cassette) cannot hold an API key
        started = time.perf_counter()
        sent = request.read()
        response = self.inner.handle_request(request)
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
        if not streamed:
            turn.elapsed_ms = (time.perf_counter() - started) * 1000
            return response
        return httpx2.Response(
            response.status_code,
            headers=response.headers,
            stream=_RecordedStream(response, turn, started),
            request=request,
            extensions=response.extensions,
        )

    def close(self) -> None:
        self.inner.close()


class _RecordedStream(httpx2.SyncByteStream):
    """passes a streamed body through untouched, and records it once it has been read"""

    def __init__(self, response: httpx2.Response, turn: Turn, started: float):
        self.response, self.turn, self.started = response, turn, started
        self.received = bytearray()
        self.finished = False

    def __iter__(self) -> Iterator[bytes]:
        stream = self.response.stream
        assert isinstance(
            stream, httpx2.SyncByteStream
        )  # as httpx2.Client asserts of what a transport returns
        for chunk in stream:
            self.received.extend(chunk)
            yield chunk
        self._finish()

    def close(self) -> None:
        self._finish()  # the SDK may stop reading at `data: [DONE]` and close early
        self.response.close()

    def _finish(self) -> None:
        if not self.finished:
            self.finished = True
            self.turn.received = bytes(self.received)
            vars(self.turn).pop("response", None)  # parsed from `received` when first read
            self.turn.elapsed_ms = (time.perf_counter() - self.started) * 1000


def _assemble_stream(events: str) -> dict[str, Any]:
    """rebuild one chat.completion dict from the server-sent chunks of a streamed reply

    A Responses API stream ends with an event that carries the whole response: that is returned.
    """
    completion: dict[str, Any] = {}
    message: dict[str, Any] = {"role": "assistant", "content": None}
    calls: dict[int, dict[str, Any]] = {}
    finish_reason = None
    whole_response = None
    for line in events.splitlines():
        if not line.startswith("data:") or line.strip() == "data: [DONE]":
            continue
        chunk = json.loads(line[len("data:") :])
        if str(chunk.get("type", "")).startswith("response."):  # a Responses API event
            whole_response = chunk.get("response", whole_response)
            continue
        for key in ("id", "created", "model", "system_fingerprint"):
            completion.setdefault(key, chunk.get(key))
        if chunk.get("usage"):
            completion["usage"] = chunk["usage"]
        for choice in chunk.get("choices", []):
            delta = choice.get("delta", {})
            if delta.get("content") is not None:
                message["content"] = (message["content"] or "") + delta["content"]
            for part in delta.get("tool_calls") or []:
                slot = calls.setdefault(
                    part["index"], {"id": None, "type": "function", "function": {"name": "", "arguments": ""}}
                )
                slot["id"] = part.get("id") or slot["id"]
                function = part.get("function") or {}
                slot["function"]["name"] += function.get("name") or ""
                slot["function"]["arguments"] += function.get("arguments") or ""
            finish_reason = choice.get("finish_reason") or finish_reason
    if whole_response is not None:
        return whole_response
    if calls:
        message["tool_calls"] = [calls[i] for i in sorted(calls)]
    completion.update(
        object="chat.completion",
        choices=[{"index": 0, "message": message, "finish_reason": finish_reason}],
    )
    return completion


def _as_chat_messages(request: dict[str, Any]) -> list[dict[str, Any]]:
    """Responses items as Chat Completions messages; [] when they are not items formats can read"""
    try:
        return from_responses(request)
    except (KeyError, TypeError, ValueError, AttributeError):
        return []


def json_or_text(body: bytes) -> Any:
    """a body as JSON when it is JSON, else as text (None when empty)"""
    if not body:
        return None
    try:
        parsed = json.loads(body)
    except ValueError:
        return body.decode("utf-8", errors="replace")
    return escaped(parsed) if _may_hold_surrogates(body) else parsed


def _may_hold_surrogates(body: bytes) -> bool:
    """whether JSON text has an escape like "\\ud800", which decodes to a lone surrogate (that no
    terminal or file can print) unless a second one follows to make a pair"""
    return b"\\ud" in body or b"\\uD" in body


def escape_surrogates(text: str) -> str:
    """text that can be sent and printed as UTF-8: a lone surrogate becomes its escape, e.g. '\\udcff'

    A file name with a byte that is not UTF-8 reaches Python as a lone surrogate (PEP 383), and a
    server's JSON "\\ud800" decodes to one; the SDK's `.encode()` of the next request would raise
    UnicodeEncodeError on it.
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def escaped(value: Any) -> Any:
    """a JSON-like value with escape_surrogates applied to every string in it"""
    if isinstance(value, str):
        return escape_surrogates(value)
    if isinstance(value, dict):
        return {escaped(key): escaped(item) for key, item in value.items()}
    if isinstance(value, list):
        return [escaped(item) for item in value]
    return value


def trace_of(client: openai.OpenAI) -> Trace | None:
    """the Trace a client records into, if it was made by mock.client() or recorded()"""
    return getattr(client, "trace", None)


def recorded(client: openai.OpenAI, trace: Trace | None = None) -> openai.OpenAI:
    """a copy of a client whose every call is recorded; its Trace is `.trace`

    The copy sends through the client's own HTTP client: its transport, the proxies it took from
    the environment, its headers and its timeouts. Like the SDK's `with_options()` copies, it
    shares them: closing either closes both.
    """
    existing = trace_of(client)
    if existing is not None and trace is None:
        return client
    trace = trace if trace is not None else Trace()
    original = client._client
    if not isinstance(original, httpx2.Client):  # the legacy httpx package's client: record on a new one
        copy_of_client = client.with_options(
            http_client=httpx2.Client(transport=RecordingTransport(httpx2.HTTPTransport(), trace))
        )
        copy_of_client.trace = trace
        return copy_of_client
    http_client = copy.copy(original)  # shares everything with the caller's HTTP client...
    # ... but each transport it sends through is wrapped in a recorder (httpx2 keeps the default
    # transport in _transport, and one per proxied URL pattern in _mounts; None means the default)
    http_client._transport = RecordingTransport(original._transport, trace)
    http_client._mounts = {
        pattern: None if mounted is None else RecordingTransport(mounted, trace)
        for pattern, mounted in original._mounts.items()
    }
    # the SDK's client closes its transports when collected: the copy keeps the original alive
    http_client._recording_for = original  # type: ignore[attr-defined]
    copy_of_client = client.with_options(http_client=http_client)
    copy_of_client.trace = trace  # type: ignore[attr-defined]  # trace_of() reads it back
    return copy_of_client
