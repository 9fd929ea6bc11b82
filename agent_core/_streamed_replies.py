"""lesson 00: a streamed reply in the trace: its bytes recorded as the SDK reads them (sync or async),
then assembled into the one response they stand for."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import httpx2

__all__ = ["RecordedStream", "assemble_stream"]


class RecordedStream(httpx2.SyncByteStream, httpx2.AsyncByteStream):
    """passes a streamed body through untouched, and hands what was read to `finish` once, at the end"""

    def __init__(self, response: httpx2.Response, finish: Callable[[bytes], None]):
        self.response, self.finish = response, finish
        self.received = bytearray()
        self.finished = False
        self.chunks: Iterator[bytes] | AsyncIterator[bytes] | None = None  # the body, read once

    @classmethod
    def wrap(
        cls, response: httpx2.Response, request: httpx2.Request, finish: Callable[[bytes], None]
    ) -> httpx2.Response:
        """the same response, its body passed through a RecordedStream"""
        return httpx2.Response(
            response.status_code,
            headers=response.headers,
            stream=cls(response, finish),
            request=request,
            extensions=response.extensions,
        )

    def __iter__(self) -> Iterator[bytes]:
        if self.chunks is None:  # one pass over the body: a second reader (a drain) goes on from there
            stream = self.response.stream
            assert isinstance(stream, httpx2.SyncByteStream)  # as httpx2.Client asserts of a transport's
            self.chunks = iter(stream)
        assert isinstance(self.chunks, Iterator)
        for chunk in self.chunks:
            self.received.extend(chunk)
            yield chunk
        self._finish()

    async def __aiter__(self) -> AsyncIterator[bytes]:
        if self.chunks is None:  # the SDK drains a stream it stopped reading at [DONE]: go on, not again
            stream = self.response.stream
            assert isinstance(stream, httpx2.AsyncByteStream)  # as httpx2.AsyncClient asserts
            self.chunks = aiter(stream)
        assert isinstance(self.chunks, AsyncIterator)
        async for chunk in self.chunks:
            self.received.extend(chunk)
            yield chunk
        self._finish()

    def close(self) -> None:
        self._finish()  # the SDK may stop reading at `data: [DONE]` and close early
        self.response.close()

    async def aclose(self) -> None:
        self._finish()
        await self.response.aclose()

    def _finish(self) -> None:
        if not self.finished:
            self.finished = True
            self.finish(bytes(self.received))


def assemble_stream(events: str) -> dict[str, Any]:
    """rebuild one chat.completion dict from the server-sent chunks of a streamed reply

    A Responses API stream ends with an event that carries the whole response: that is returned.
    """
    completion: dict[str, Any] = {}
    message: dict[str, Any] = {"role": "assistant", "content": None}
    calls: dict[int, dict[str, Any]] = {}
    finish_reason = None
    whole_response: dict[str, Any] | None = None
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
            _add_delta(message, calls, choice.get("delta", {}))
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


def _add_delta(message: dict[str, Any], calls: dict[int, dict[str, Any]], delta: dict[str, Any]) -> None:
    """one chunk's delta added to the message and tool calls assembled so far"""
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
