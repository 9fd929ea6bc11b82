"""lesson 04: one model call of run_agent, recorded as a Turn from the SDK's raw HTTP exchange."""

from __future__ import annotations

import time
from typing import Any

import httpx2
import openai
from openai.types.chat import ChatCompletion

from .trace import Trace, Turn

__all__ = ["call_model"]


def call_model(client: openai.OpenAI, trace: Trace, **request: Any) -> ChatCompletion:
    """client.chat.completions.create(**request), with the exchange appended to `trace`

    The SDK's `with_raw_response` hands back the HTTP request and response it used: the turn keeps
    their bodies as they crossed the wire (never the headers, so a saved trace holds no API key).
    A call the server refuses (openai.APIStatusError) is recorded too, then raised.
    """
    started = time.perf_counter()
    try:
        raw = client.chat.completions.with_raw_response.create(**request)
    except openai.APIStatusError as error:
        trace.turns.append(_turn(len(trace), error.response.request, error.response, started))
        raise
    completion: ChatCompletion = raw.parse()
    trace.turns.append(_turn(len(trace), raw.http_request, raw.http_response, started))
    return completion


def _turn(index: int, request: httpx2.Request, response: httpx2.Response, started: float) -> Turn:
    return Turn(
        index,
        request.method,
        str(request.url),
        status=response.status_code,
        sent=request.content,
        received=response.read(),
        elapsed_ms=(time.perf_counter() - started) * 1000,
    )
