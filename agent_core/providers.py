"""Choosing the model: the mock by default, OpenAI or any OpenAI-compatible server when configured
(lesson 08)."""

# The environment variables it reads, and what local servers do differently: docs/real_models.md.

from __future__ import annotations

from ._browser import needs_local_install

# the lesson's first library cell gives one clear line in the browser edition, instead of a
# lesson that half works there: later cells start servers and talk to real ones over the network
needs_local_install("Lesson 08 talks to servers over the network and records them", "08")

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import openai

from . import mock
from .mock.server import policy_by_name
from .trace import recorded

__all__ = [
    "Backend",
    "BackendError",
    "backend_from_env",
    "client_from_env",
    "model_name",
    "describe_backend",
    "check_backend",
    "explain_api_error",
    "DEFAULT_OPENAI_MODEL",
    "OPENAI_BASE_URL",
]

DEFAULT_OPENAI_MODEL = "gpt-4.1-mini"  # the one place a real model's name is written down
OPENAI_BASE_URL = "https://api.openai.com/v1"
MOCK_MODEL = mock.DEFAULT_MODEL
KEY_VARIABLES = ("AGENT_CORE_API_KEY", "OPENAI_API_KEY")
NO_KEY = "no-key-needed"  # the SDK insists on some key; local servers ignore it
# OpenAI and vLLM: "The model `x` does not exist..."; Ollama: 'model "x" not found, try pulling it first'
_MODEL_MISSING = re.compile(r"\bmodel\b.*\b(does not exist|not found)", re.IGNORECASE | re.DOTALL)


class BackendError(RuntimeError):
    """the configured model cannot be used; the message says why and what to do"""


@dataclass(frozen=True)
class Backend:
    """which model a client talks to: kind ("mock", "openai", "compatible"), where, and which model"""

    kind: str
    model: str | None
    base_url: str
    api_key: str | None = field(default=None, repr=False)
    key_from: str | None = None  # the variable the key came from, so describe() can name it
    policy: str = "echo"  # the mock's policy, by name

    def describe(self) -> str:
        """one line for a learner: what answers, where, with which model; never the key itself"""
        if self.kind == "mock":
            return (
                f"the mock model (policy {self.policy}, model {self.model!r}): in this process, "
                "no key, no network"
            )
        model = repr(self.model) if self.model else "(none set: set AGENT_CORE_MODEL)"
        key = f"key from ${self.key_from}" if self.key_from else "no key"
        where = "OpenAI" if self.kind == "openai" else "an OpenAI-compatible server"
        return f"{where} at {self.base_url}, model {model}, {key}"


def backend_from_env(env: Mapping[str, str] | None = None) -> Backend:
    """read the environment variables above (or the mapping given) into a Backend"""
    env = os.environ if env is None else env
    model = env.get("AGENT_CORE_MODEL") or None
    choice = env.get("AGENT_CORE_BACKEND", "").strip().lower()
    if choice not in ("", "auto", "mock"):
        raise BackendError(
            f"AGENT_CORE_BACKEND={choice!r} is not understood: set it to 'mock' to force the mock, "
            "or leave it unset and configure AGENT_CORE_BASE_URL or OPENAI_API_KEY."
        )
    policy = env.get("AGENT_CORE_MOCK_POLICY") or "echo"
    base_url = env.get("AGENT_CORE_BASE_URL") or env.get("OPENAI_BASE_URL")
    key_from = next((name for name in KEY_VARIABLES if env.get(name)), None)
    if choice == "mock" or not (base_url or key_from):
        return Backend("mock", model or MOCK_MODEL, mock.BASE_URL, policy=policy)
    base_url = (base_url or OPENAI_BASE_URL).rstrip("/")
    kind = "openai" if urlsplit(base_url).hostname == "api.openai.com" else "compatible"
    if kind == "openai":
        model = model or DEFAULT_OPENAI_MODEL
    api_key = env[key_from] if key_from else None
    return Backend(kind, model, base_url, api_key=api_key, key_from=key_from, policy=policy)


def client_from_env(
    env: Mapping[str, str] | None = None,
    *,
    policy: mock.PolicyLike | None = None,
    max_retries: int | None = None,
    timeout: float | None = None,
) -> openai.OpenAI:
    """an openai.OpenAI for the configured backend, recording every call in `client.trace`

    policy: the mock's policy when the mock is chosen (default: AGENT_CORE_MOCK_POLICY's).
    max_retries: the SDK's retries (default: the SDK's own for a real model, 0 for the mock).
    timeout: seconds per request (default: the SDK's).
    `client.backend` is the Backend it was made from.
    """
    backend = backend_from_env(env)
    client: openai.OpenAI
    if backend.kind == "mock":
        client = mock.client(
            policy if policy is not None else policy_by_name(backend.policy),
            max_retries=max_retries or 0,
        )
    else:
        options: dict[str, Any] = {}
        if max_retries is not None:
            options["max_retries"] = max_retries
        if timeout is not None:
            options["timeout"] = timeout
        client = recorded(
            openai.OpenAI(api_key=backend.api_key or NO_KEY, base_url=backend.base_url, **options)
        )
    client.backend = backend  # type: ignore[attr-defined]  # which backend answers, for the lesson to print
    return client


def model_name(env: Mapping[str, str] | None = None) -> str:
    """the model name to pass as model=...; a clear error when a local server has none set"""
    backend = backend_from_env(env)
    if not backend.model:
        raise BackendError(
            f"No model is set for the server at {backend.base_url}. Set AGENT_CORE_MODEL to a model "
            "it serves (check_backend(client) lists them; with Ollama, `ollama list`)."
        )
    return backend.model


def describe_backend(env: Mapping[str, str] | None = None) -> str:
    """which model client_from_env() would talk to, in one line, without the key"""
    return backend_from_env(env).describe()


def check_backend(client: openai.OpenAI, model: str | None = None) -> list[str]:
    """ask the server which models it serves (GET /models); BackendError with a clear message if
    it cannot be reached, refuses the key, or does not serve `model` (default: the client's)"""
    try:
        served = [card.id for card in client.models.list()]
    except openai.APIError as error:
        raise BackendError(explain_api_error(error)) from error
    backend = getattr(client, "backend", None)
    model = model or (backend.model if backend is not None else None)
    if model and served and model not in served and f"{model}:latest" not in served:
        raise BackendError(
            f"The server at {client.base_url} does not serve the model {model!r}. It serves: "
            f"{', '.join(served)}. Set AGENT_CORE_MODEL to one of them (with Ollama, `ollama pull "
            f"{model}` first)."
        )
    return served


def explain_api_error(error: BaseException) -> str:
    """what went wrong talking to a model server, in a sentence, and what to do about it"""
    if isinstance(error, openai.APITimeoutError):
        return (
            f"The request to {_where(error)} timed out. A local model may still be loading into "
            "memory: try again, or pass a larger timeout= to client_from_env()."
        )
    if isinstance(error, openai.APIConnectionError):
        cause = f" ({error.__cause__})" if error.__cause__ else ""
        return (
            f"Could not connect to {_where(error)}{cause}. Is the server running? Check "
            "AGENT_CORE_BASE_URL: Ollama listens on http://localhost:11434/v1, vLLM on "
            "http://localhost:8000/v1, LM Studio on http://localhost:1234/v1."
        )
    if not isinstance(error, openai.APIStatusError):
        return f"{type(error).__name__}: {error}"
    said = f"{error.status_code}: {_server_message(error)}"
    if isinstance(error, openai.AuthenticationError):
        return (
            f"The server at {_where(error)} refused the API key ({said}). Check AGENT_CORE_API_KEY "
            "or OPENAI_API_KEY; a local server wants the key it was started with (vLLM --api-key)."
        )
    if isinstance(error, openai.PermissionDeniedError):
        return (
            f"The key works but may not use this model or endpoint ({said}). Pick a model your "
            "account can use (AGENT_CORE_MODEL)."
        )
    if isinstance(error, openai.NotFoundError):
        if error.code == "model_not_found" or _MODEL_MISSING.search(_server_message(error)):
            return (
                f"The server has no such model ({said}). Set AGENT_CORE_MODEL to a model it serves: "
                "check_backend(client) lists them; with Ollama, `ollama pull NAME` first."
            )
        return (
            f"{error.request.url} does not exist on this server ({said}). Check the base URL: "
            "OpenAI-compatible servers expect it to end in /v1."
        )
    if isinstance(error, openai.RateLimitError):
        if error.code == "insufficient_quota":
            return (
                f"The account has no credit left ({said}). Check its plan and billing, or use a local model."
            )
        return (
            f"Rate limited ({said}). The SDK already retried with back-off (max_retries); wait a "
            "little and run again, or make fewer calls (a lower max_turns)."
        )
    message = _server_message(error)
    if "enable-auto-tool-choice" in message:
        return (
            f"This vLLM server was started without tool calling ({said}). Restart it with "
            "--enable-auto-tool-choice --tool-call-parser <parser for your model> (see docs/real_models.md)."
        )
    if "does not support tools" in message:
        return (
            f"This model cannot call tools ({said}). Pick one that can: Ollama marks them with "
            "'tools' on ollama.com/search?c=tools."
        )
    if isinstance(error, openai.InternalServerError):
        return (
            f"The server failed ({said}); the SDK already retried. Try again; with a local server, "
            "read its log (out of memory? a crash parsing the model's tool call?)."
        )
    return f"The server refused the request ({said}). The message names the field to fix."


def _where(error: openai.APIError) -> str:
    url = error.request.url
    return f"{url.scheme}://{url.netloc.decode()}" if url.netloc else str(url)


def _server_message(error: openai.APIStatusError) -> str:
    """the server's own error text, first line only (the mock puts a learner's hint on the next)"""
    body = error.body
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        message = body["message"]
    elif isinstance(body, str) and body:
        message = body
    else:
        message = error.message
    return message.split("\n(agent_core mock hint:")[0]
