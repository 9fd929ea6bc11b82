"""The mock model's one router: every endpoint's request in, the policy's answer out in that API's terms
(every lesson)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import httpx2

from .._shared import DEFAULT_MODEL
from ._completions import build_completion, to_event_stream
from .anthropic_messages import CountTokensEndpoint, MessagesEndpoint
from .caching import PromptCache
from .policy import Policy, PolicyLike, as_policy, last_user_text
from .protocol import ProtocolError, check_no_extra_fields, check_request, invalid_type, missing_parameter
from .request_options import policy_view
from .responses_api import ResponsesEndpoint
from .wire import CREATED, Endpoint, Response, error_response, json_response, model_card

__all__ = [
    "MockModel",
    "ChatCompletions",
    "Echo",
    "DEFAULT_MODEL",
    "to_event_stream",
    "answer",
    "CREATED",
    "MODELS",
]

MODELS = (DEFAULT_MODEL,)  # what GET /v1/models lists; any model name is accepted in a request
MAX_DEPTH = (
    100  # arrays and objects nested deeper get a 400: the mock's own limit, below Python's recursion limit
)


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
    """the mock model: every endpoint's request is answered here, in process or behind the HTTP server

    One router for every endpoint: the request is read by its API's rules and translated into a
    Chat Completions request, the policy answers that (answer() below), and the chat.completion is
    translated back into the API's own response. Errors come back in the API's own shape.
    """

    def __init__(
        self,
        policy: PolicyLike | None = None,
        *,
        check_protocol: bool = True,
        reject_unknown_fields: bool = False,
        models: Sequence[str] = MODELS,
    ):
        self.policy: Policy = as_policy(policy) if policy is not None else Echo()
        self.check_protocol = check_protocol  # the real API's protocol checks
        self.reject_unknown_fields = (
            reject_unknown_fields  # also refuse unknown message fields, like some OpenAI-compatible servers
        )
        self.models = tuple(models)  # what GET /v1/models lists
        self.cache = PromptCache()  # the prefixes this model has seen: usage reports cached tokens
        chat = ChatCompletions(
            self.cache, check_protocol=check_protocol, reject_unknown_fields=reject_unknown_fields
        )
        self.endpoints: dict[str, Endpoint] = {  # path suffix -> the API that answers it
            "/chat/completions": chat,
            "/responses": ResponsesEndpoint(chat, check_protocol=check_protocol),
            "/messages": MessagesEndpoint(self.cache, check_protocol=check_protocol),
            "/messages/count_tokens": CountTokensEndpoint(check_protocol=check_protocol),
        }

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        """the httpx2 transport handler: one HTTP request in, one HTTP response out"""
        status, headers, content = self.respond(
            request.method, request.url.path, request.read(), request.headers
        )
        return httpx2.Response(status, headers=headers, content=content)

    def respond(
        self, method: str, path: str, body: bytes, headers: Mapping[str, str] | None = None
    ) -> Response:
        """status, headers and body bytes for one request; shared by the in-process and HTTP server"""
        path = path.split("?", 1)[0].rstrip("/")
        endpoint = next((e for suffix, e in self.endpoints.items() if path.endswith(suffix)), None)
        if endpoint is None:
            return self._models(method, path)
        if method != "POST":
            return endpoint.refuse(ProtocolError(f"Invalid method for URL ({method} {path})", status=405))
        try:
            request = json.loads(body or b"null")
        except (ValueError, RecursionError):  # RecursionError: arrays in arrays deeper than Python can follow
            request = None
        try:
            if (
                body.count(b"[") + body.count(b"{") > MAX_DEPTH and _depth(request) > MAX_DEPTH
            ):  # counts first: fast
                raise ProtocolError(
                    f"The request body is nested more than {MAX_DEPTH} levels deep.",
                    hint="The mock refuses JSON nested this deep before reading it; real requests are "
                    "shallow.",
                )
            try:
                chat_request = endpoint.read(
                    request, headers or {}
                )  # the API's checks; its request as Chat Completions
            except (TypeError, KeyError, AttributeError, ValueError) as error:  # shapes the checks skipped
                raise _unreadable(error) from error
            completion = answer(self.policy, chat_request) if endpoint.calls_model else None
            return endpoint.write(request, chat_request, completion)  # the answer in the API's own terms
        except ProtocolError as error:
            return endpoint.refuse(error)

    def _models(self, method: str, path: str) -> Response:
        """GET /v1/models and GET /v1/models/{id}; any other path gets a 404"""
        if method == "GET" and path.endswith("/models"):
            return json_response(200, {"object": "list", "data": [model_card(m) for m in self.models]})
        if method == "GET" and "/models/" in path:  # any model name is accepted, so any is known
            return json_response(200, model_card(path.rsplit("/models/", 1)[1]))
        return error_response(
            ProtocolError(
                f"Invalid URL ({method} {path})",
                status=404,
                hint="The mock serves POST /v1/chat/completions, POST /v1/responses, POST /v1/messages, "
                "POST /v1/messages/count_tokens, GET /v1/models and GET /v1/models/{id}.",
            )
        )


class ChatCompletions:
    """POST /v1/chat/completions: the request is already the one the policy reads"""

    calls_model = True

    def __init__(
        self, cache: PromptCache, *, check_protocol: bool = True, reject_unknown_fields: bool = False
    ):
        self.cache = cache
        self.check_protocol = check_protocol
        self.reject_unknown_fields = reject_unknown_fields

    def read(self, request: Any, headers: Mapping[str, str] | None = None) -> dict[str, Any]:
        """the request itself, once it passes the real API's checks"""
        if self.check_protocol:
            _check_tool_call_fields(request)
            check_request(request)
        if self.reject_unknown_fields:
            check_no_extra_fields(request)
        checked: dict[str, Any] = request  # the checks above refuse anything but a request object
        return checked

    def write(
        self, request: dict[str, Any], chat_request: dict[str, Any], completion: dict[str, Any]
    ) -> Response:
        """the completion, with the prompt cache's count, as JSON or as a stream"""
        self.count_cached_tokens(chat_request, completion)
        if request.get("stream"):
            include_usage = bool((request.get("stream_options") or {}).get("include_usage"))
            return 200, {"content-type": "text/event-stream"}, to_event_stream(completion, include_usage)
        return json_response(200, completion)

    def refuse(self, error: ProtocolError) -> Response:
        return error_response(error)

    def count_cached_tokens(self, chat_request: dict[str, Any], completion: dict[str, Any]) -> None:
        """OpenAI's prompt caching: usage.prompt_tokens_details.cached_tokens, from this model's cache"""
        cached = self.cache.cached_tokens(chat_request["messages"], chat_request.get("tools"))
        completion["usage"]["prompt_tokens_details"]["cached_tokens"] = cached


def _unreadable(error: Exception) -> ProtocolError:
    """the 400 for a request whose shape the mock cannot read, in words, not a Python error's text"""
    if isinstance(error, KeyError):
        problem = f'it has no "{error.args[0]}" where the mock reads one'
    elif isinstance(error, ValueError) and not isinstance(error, UnicodeError):
        problem = str(error)  # formats.py's own sentence, e.g. about content it does not translate
    else:
        problem = "a field holds another type of value than the API defines"
    return ProtocolError(
        f"The mock could not read this request: {problem}.",
        hint="The real API would refuse it too; check the fields against the API reference.",
    )


def _check_tool_call_fields(request: Any) -> None:
    """each tool call of an assistant message has a string id and function name (check_request, which
    compares and counts them, checks the rest)"""
    messages = request.get("messages") if isinstance(request, dict) else None
    for i, message in enumerate(messages if isinstance(messages, list) else []):
        calls = message.get("tool_calls") if isinstance(message, dict) else None
        for j, call in enumerate(calls if isinstance(calls, list) else []):
            function = call.get("function") if isinstance(call, dict) else None
            if isinstance(call, dict) and "id" in call:
                _check_string(f"messages[{i}].tool_calls[{j}].id", call["id"])
            if isinstance(function, dict):
                _check_string(f"messages[{i}].tool_calls[{j}].function.name", function.get("name"))


def _check_string(where: str, value: Any) -> None:
    if value is None:
        raise missing_parameter(
            where, hint="Copy each tool call as the model sent it: an id, and a function with a name."
        )
    if not isinstance(value, str):
        raise invalid_type(where, "a string", value, hint="A tool call's id and name are strings.")


def _depth(value: Any) -> int:
    """how deep arrays and objects nest in a JSON value (counted without recursion)"""
    deepest, stack = 0, [(value, 1)]
    while stack:
        value, depth = stack.pop()
        children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else None
        if children is not None:
            deepest = max(deepest, depth)
            stack.extend((child, depth + 1) for child in children)
    return deepest


def answer(policy: Policy, request: dict[str, Any]) -> dict[str, Any]:
    """the chat.completion for a checked request: the policy's reply, as the request's options allow

    MockModel.respond calls it for every endpoint (Chat Completions, Responses, Anthropic Messages):
    a ProtocolError is a refusal to send back; any other failure of the policy becomes a 500.
    """
    try:
        reply = policy(policy_view(request))
    except ProtocolError:
        raise
    except Exception as error:  # a policy bug or an exhausted script: say so, as a server error
        raise ProtocolError(
            f"The mock policy {type(policy).__name__} failed: {type(error).__name__}: {error}",
            status=500,
            type="server_error",
            hint="This is the mock's policy, not your request: see the message above.",
        ) from error
    return build_completion(request, reply)
