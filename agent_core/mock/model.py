"""The mock model's HTTP side: a request body in, a genuine Chat Completions response out (every lesson)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import httpx2

from .policy import Policy, PolicyLike, Reply, as_policy, last_user_text
from .protocol import ProtocolError, check_no_extra_fields, check_request
from .tokens import count_reply, count_request

__all__ = ["MockModel", "Echo", "CREATED", "SYSTEM_FINGERPRINT", "MODELS"]

CREATED = 1767225600  # 2026-01-01T00:00:00Z: a fixed clock, so every run prints the same JSON
SYSTEM_FINGERPRINT = "fp_mock0001"
MODELS = ("mock-model",)  # what GET /v1/models lists; any model name is accepted in a request


class Echo(Policy):
    """the default policy: a plain text reply saying what it received"""

    def reply(self, request: dict[str, Any]) -> str:
        messages = request["messages"]
        tools = request.get("tools") or []
        said = last_user_text(request) or "(nothing)"
        return (
            f"Hello from the mock model. I received {len(messages)} message(s) and "
            f"{len(tools)} tool(s). Your last message was: {said!r}"
        )


class MockModel:
    """answers Chat Completions requests with a policy, after the real API's protocol checks"""

    def __init__(self, policy: PolicyLike | None = None, *, strict: bool = True, picky: bool = False):
        self.policy: Policy = as_policy(policy) if policy is not None else Echo()
        self.strict = strict  # the real API's protocol checks
        self.picky = picky  # also refuse unknown message fields, like some OpenAI-compatible servers

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        """the httpx2 transport handler: one HTTP request in, one HTTP response out"""
        status, headers, content = self.respond(request.method, request.url.path, request.read())
        return httpx2.Response(status, headers=headers, content=content)

    def respond(self, method: str, path: str, body: bytes) -> tuple[int, dict[str, str], bytes]:
        """status, headers and body bytes for one request; shared by the in-process and HTTP server"""
        path = path.rstrip("/")
        if method == "GET" and path.endswith("/models"):
            return _json_response(200, {"object": "list", "data": [_model_card(m) for m in MODELS]})
        if not path.endswith("/chat/completions"):
            return _error_response(
                ProtocolError(
                    f"Invalid URL ({method} {path})",
                    status=404,
                    hint="The mock serves POST /v1/chat/completions and GET /v1/models.",
                )
            )
        if method != "POST":
            return _error_response(ProtocolError(f"Invalid method for URL ({method} {path})", status=405))
        try:
            request = json.loads(body or b"null")
        except ValueError:
            request = None
        try:
            if self.strict:
                check_request(request)
            if self.picky:
                check_no_extra_fields(request)
            reply = self.policy(request)
        except ProtocolError as error:
            return _error_response(error)
        except Exception as error:  # a policy bug or an exhausted script: say so, as a server error
            return _error_response(
                ProtocolError(
                    f"The mock policy {type(self.policy).__name__} failed: {type(error).__name__}: {error}",
                    status=500,
                    type="server_error",
                    hint="This is the mock's policy, not your request: see the message above.",
                )
            )
        completion = build_completion(request, reply)
        if request.get("stream"):
            include_usage = bool((request.get("stream_options") or {}).get("include_usage"))
            return 200, {"content-type": "text/event-stream"}, to_event_stream(completion, include_usage)
        return _json_response(200, completion)


def build_completion(request: dict[str, Any], reply: Reply) -> dict[str, Any]:
    """the chat.completion object for a reply; ids derive from a hash of request and reply"""
    seed = json.dumps([request, reply.content, [(c.name, c.arguments_json()) for c in reply.tool_calls]],
                      sort_keys=True, ensure_ascii=False)
    digest = hashlib.sha256(seed.encode("utf-8", "surrogatepass")).hexdigest()  # a lone surrogate too
    message: dict[str, Any] = {"role": "assistant", "content": reply.content, "refusal": None}
    tool_calls = [
        {
            "id": "call_" + hashlib.sha256(f"{digest}:{i}".encode()).hexdigest()[:24],
            "type": "function",
            "function": {"name": c.name, "arguments": c.arguments_json()},
        }
        for i, c in enumerate(reply.tool_calls)
    ]
    if tool_calls:
        message["tool_calls"] = tool_calls
    prompt_tokens = count_request(request["messages"], request.get("tools"))
    completion_tokens = count_reply(reply.content, tool_calls)
    return {
        "id": "chatcmpl-" + digest[:29],
        "object": "chat.completion",
        "created": CREATED,
        "model": request["model"],
        "choices": [
            {"index": 0, "message": message, "logprobs": None, "finish_reason": reply.stop_reason}
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
        "system_fingerprint": SYSTEM_FINGERPRINT,
    }


def stream_chunks(completion: dict[str, Any], include_usage: bool = False) -> list[dict[str, Any]]:
    """the chat.completion.chunk objects a streaming API sends for this completion"""
    base = {k: completion[k] for k in ("id", "created", "model", "system_fingerprint")}
    base["object"] = "chat.completion.chunk"
    message = completion["choices"][0]["message"]

    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        return {**base, "choices": [{"index": 0, "delta": delta, "logprobs": None,
                                     "finish_reason": finish_reason}]}

    chunks = [chunk({"role": "assistant", "content": "" if message["content"] is not None else None,
                     "refusal": None})]
    for piece in _pieces(message["content"] or ""):
        chunks.append(chunk({"content": piece}))
    for index, tool_call in enumerate(message.get("tool_calls", [])):
        function = tool_call["function"]
        chunks.append(chunk({"tool_calls": [{"index": index, "id": tool_call["id"], "type": "function",
                                             "function": {"name": function["name"], "arguments": ""}}]}))
        for piece in _pieces(function["arguments"]):
            chunks.append(chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}))
    chunks.append(chunk({}, completion["choices"][0]["finish_reason"]))
    if include_usage:
        for c in chunks:
            c["usage"] = None
        chunks.append({**base, "choices": [], "usage": completion["usage"]})
    return chunks


def to_event_stream(completion: dict[str, Any], include_usage: bool = False) -> bytes:
    """server-sent events: one `data:` line per chunk, then `data: [DONE]`"""
    lines = [f"data: {json.dumps(c, ensure_ascii=False)}\n\n" for c in stream_chunks(completion, include_usage)]
    return ("".join(lines) + "data: [DONE]\n\n").encode("utf-8", "backslashreplace")


def _pieces(text: str, size: int = 16) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def _model_card(name: str) -> dict[str, Any]:
    return {"id": name, "object": "model", "created": CREATED, "owned_by": "agent-core"}


def _json_response(status: int, payload: dict[str, Any]) -> tuple[int, dict[str, str], bytes]:
    # a lone surrogate (sent as "\ud800") goes back as the same JSON escape, not as invalid UTF-8
    return status, {"content-type": "application/json"}, json.dumps(payload, ensure_ascii=False).encode(
        "utf-8", "backslashreplace"
    )


def _error_response(error: ProtocolError) -> tuple[int, dict[str, str], bytes]:
    return _json_response(error.status, error.body())
