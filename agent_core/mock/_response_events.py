"""lesson 09: the Responses API's server-sent events for a finished response, one `event:` + `data:` pair
each: the mock's Responses API streams them, and a replayed cassette (lesson 08) sends them again."""

from __future__ import annotations

import json
from typing import Any

from .wire import pieces

__all__ = ["response_events"]


def response_events(response: dict[str, Any]) -> bytes:
    """the server-sent events the Responses API streams for this response, one `event:` + `data:` pair each"""
    events: list[dict[str, Any]] = []

    def emit(kind: str, **fields: Any) -> None:
        events.append({"type": kind, "sequence_number": len(events), **fields})

    started = {**response, "status": "in_progress", "completed_at": None, "output": [], "usage": None}
    started["incomplete_details"] = None
    emit("response.created", response=started)
    emit("response.in_progress", response=started)
    for index, item in enumerate(response["output"]):
        at = {"item_id": item["id"], "output_index": index}
        if item["type"] == "message":
            emit(
                "response.output_item.added",
                output_index=index,
                item={**item, "status": "in_progress", "content": []},
            )
            part = item["content"][0]
            emit("response.content_part.added", **at, content_index=0, part={**part, "text": ""})
            for piece in pieces(part["text"]):
                emit("response.output_text.delta", **at, content_index=0, delta=piece, logprobs=[])
            emit("response.output_text.done", **at, content_index=0, text=part["text"], logprobs=[])
            emit("response.content_part.done", **at, content_index=0, part=part)
        else:
            emit(
                "response.output_item.added",
                output_index=index,
                item={**item, "status": "in_progress", "arguments": ""},
            )
            for piece in pieces(item["arguments"]):
                emit("response.function_call_arguments.delta", **at, delta=piece)
            emit("response.function_call_arguments.done", **at, arguments=item["arguments"])
        emit("response.output_item.done", output_index=index, item=item)
    emit(
        "response.incomplete" if response["status"] == "incomplete" else "response.completed",
        response=response,
    )
    text = "".join(f"event: {e['type']}\ndata: {json.dumps(e, ensure_ascii=False)}\n\n" for e in events)
    return text.encode()
