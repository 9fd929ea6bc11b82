"""lesson 00: the chat.completion the mock sends for a reply: its ids, usage, output cap and `n` choices,
and the chunks of its stream."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from ..tokens import count_reply, count_request, count_text, encoding
from .policy import Reply, ToolCall
from .request_options import honour
from .wire import CREATED, pieces

__all__ = ["build_completion", "to_event_stream", "SYSTEM_FINGERPRINT"]

SYSTEM_FINGERPRINT = "fp_mock0001"


def build_completion(request: dict[str, Any], reply: Reply) -> dict[str, Any]:
    """the chat.completion object for a reply; ids derive from a hash of request and reply

    The reply first goes through the request's options (request_options.honour); then it is cut
    at max_completion_tokens (or max_tokens) with finish_reason "length", and repeated for `n`
    choices (the mock is deterministic, so every choice says the same).
    """
    reply = honour(request, reply)
    seed = json.dumps(
        [request, reply.content, [(c.name, c.arguments_json()) for c in reply.tool_calls]],
        sort_keys=True,
        ensure_ascii=False,
    )
    digest = hashlib.sha256(seed.encode("utf-8", "surrogatepass")).hexdigest()  # a lone surrogate too
    limit = request.get("max_completion_tokens") or request.get("max_tokens")
    content, calls, finish_reason = reply.content, list(reply.tool_calls), reply.stop_reason
    if limit is not None and count_reply(content, [_wire(c) for c in calls]) > limit:
        content, calls = _truncate(content, calls, limit)
        finish_reason = "length"
    choices = [
        _choice(index, digest, content, calls, finish_reason) for index in range(request.get("n") or 1)
    ]
    prompt_tokens = count_request(request["messages"], request.get("tools"))
    completion_tokens = count_reply(content, [_wire(c) for c in calls]) * len(choices)
    if finish_reason == "length" and limit is not None:
        completion_tokens = limit * len(choices)  # the model stopped because it had produced `limit`
    return {
        "id": "chatcmpl-" + digest[:29],
        "object": "chat.completion",
        "created": CREATED,
        "model": request["model"],
        "choices": choices,
        "usage": _usage(prompt_tokens, completion_tokens),
        "system_fingerprint": SYSTEM_FINGERPRINT,
    }


def _choice(
    index: int, digest: str, content: str | None, calls: list[ToolCall], finish_reason: str
) -> dict[str, Any]:
    """one of the `n` choices: the same reply each time, its call ids salted by its index"""
    message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": None}
    salt = f"{digest}:" if index == 0 else f"{digest}:{index}:"
    tool_calls = [
        {"id": "call_" + hashlib.sha256(f"{salt}{i}".encode()).hexdigest()[:24], **_wire(c)}
        for i, c in enumerate(calls)
    ]
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {"index": index, "message": message, "logprobs": None, "finish_reason": finish_reason}


def _usage(prompt_tokens: int, completion_tokens: int) -> dict[str, Any]:
    """every usage field the real API sends, zeros included
    (platform.openai.com/docs/api-reference/chat/object)"""
    return {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
        "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
        "completion_tokens_details": {
            "reasoning_tokens": 0,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    }


def _wire(call: ToolCall) -> dict[str, Any]:
    return {"type": "function", "function": {"name": call.name, "arguments": call.arguments_json()}}


def _truncate(content: str | None, calls: list[ToolCall], limit: int) -> tuple[str | None, list[ToolCall]]:
    """the first `limit` tokens of the reply: its text first, then its calls' names and arguments"""
    tokens = encoding().encode_ordinary(content or "")
    if len(tokens) >= limit:
        return encoding().decode(tokens[:limit]), []
    budget, kept = limit - len(tokens), []
    for call in calls:
        name_tokens = count_text(call.name)
        arguments = encoding().encode_ordinary(call.arguments_json())
        if name_tokens + len(arguments) <= budget:
            kept.append(call)
            budget -= name_tokens + len(arguments)
            continue
        if name_tokens < budget:  # the call is cut inside its arguments, which are then not valid JSON
            kept.append(ToolCall(call.name, encoding().decode(arguments[: budget - name_tokens])))
        break
    return content, kept


def _stream_chunks(completion: dict[str, Any], include_usage: bool = False) -> list[dict[str, Any]]:
    """the chat.completion.chunk objects a streaming API sends for this completion"""
    base = {k: completion[k] for k in ("id", "created", "model", "system_fingerprint")}
    base["object"] = "chat.completion.chunk"

    def chunk(choice: int, delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        return {
            **base,
            "choices": [{"index": choice, "delta": delta, "logprobs": None, "finish_reason": finish_reason}],
        }

    chunks = []
    for choice in completion["choices"]:
        message, at = choice["message"], choice["index"]
        chunks.append(
            chunk(
                at,
                {
                    "role": "assistant",
                    "content": "" if message["content"] is not None else None,
                    "refusal": None,
                },
            )
        )
        for piece in pieces(message["content"] or ""):
            chunks.append(chunk(at, {"content": piece}))
        for index, tool_call in enumerate(message.get("tool_calls", [])):
            chunks += [chunk(at, {"tool_calls": [delta]}) for delta in _call_deltas(index, tool_call)]
        chunks.append(chunk(at, {}, choice["finish_reason"]))
    if include_usage:
        for c in chunks:
            c["usage"] = None
        chunks.append({**base, "choices": [], "usage": completion["usage"]})
    return chunks


def _call_deltas(index: int, tool_call: dict[str, Any]) -> list[dict[str, Any]]:
    """a tool call as it streams: its id and name first, then its arguments piece by piece"""
    function = tool_call["function"]
    first = {"index": index, "id": tool_call["id"], "type": "function"}
    first["function"] = {"name": function["name"], "arguments": ""}
    return [first] + [{"index": index, "function": {"arguments": p}} for p in pieces(function["arguments"])]


def to_event_stream(completion: dict[str, Any], include_usage: bool = False) -> bytes:
    """server-sent events: one `data:` line per chunk, then `data: [DONE]`"""
    lines = [
        f"data: {json.dumps(c, ensure_ascii=False)}\n\n" for c in _stream_chunks(completion, include_usage)
    ]
    return ("".join(lines) + "data: [DONE]\n\n").encode("utf-8", "backslashreplace")
