"""lesson 08: a recorded turn's response sent again: its JSON, its text, or a streamed reply's
server-sent events (the replay)."""

from __future__ import annotations

import json

from ._cassette_checks import CassetteError
from ._shared import escape_surrogates
from .mock._response_events import response_events
from .mock.model import to_event_stream
from .trace import Turn

__all__ = ["answer", "check_resendable", "RETRIED_STATUSES"]

RETRIED_STATUSES = {408, 409, 429}  # and every 5xx: the statuses the SDK retries by itself


def answer(turn: Turn) -> tuple[int, dict[str, str], bytes]:
    """status, headers and body that send a recorded turn's response again"""
    headers: dict[str, str] = {}
    if turn.status in RETRIED_STATUSES or turn.status >= 500:
        headers["retry-after-ms"] = "1"  # the recording holds the SDK's retries; replay them fast
    if turn.stream and isinstance(turn.response, dict):
        headers["content-type"] = "text/event-stream"
        if turn.response.get("object") == "response":  # the Responses API's stream (lesson 09)
            return turn.status, headers, response_events(turn.response)
        completion = {"system_fingerprint": None, **turn.response}
        return turn.status, headers, to_event_stream(completion, include_usage="usage" in completion)
    if isinstance(turn.response, str):
        headers["content-type"] = "text/plain; charset=utf-8"
        return turn.status, headers, escape_surrogates(turn.response).encode()
    headers["content-type"] = "application/json"
    text = "" if turn.response is None else json.dumps(turn.response, ensure_ascii=False)
    return turn.status, headers, escape_surrogates(text).encode()


def check_resendable(turns: list[Turn]) -> None:
    """CassetteError unless every streamed turn has what sending it again chunk by chunk needs"""
    for number, turn in enumerate(turns, 1):
        if turn.stream:
            try:
                answer(turn)
            except KeyError as error:
                raise CassetteError(
                    f'turn {number}\'s streamed response cannot be sent again: it has no "{error.args[0]}"'
                ) from None
            except (IndexError, TypeError, AttributeError, ValueError):
                raise CassetteError(
                    f"turn {number}'s streamed response cannot be sent again: one of the fields a stream "
                    "sends (choices, message, tool_calls, output) is empty or of another type"
                ) from None
