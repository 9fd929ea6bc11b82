"""Choosing the model: the mock by default, OpenAI or any OpenAI-compatible server when configured
(lesson 08)."""

# The environment variables it reads, and what local servers do differently: docs/real_models.md.

from __future__ import annotations

from ._browser import needs_local_install

# the lesson's first library cell gives one clear line in the browser edition, instead of a
# lesson that half works there: later cells start servers and talk to real ones over the network
needs_local_install("Lesson 08 talks to servers over the network and records them", "08")

import os
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import httpx2
import openai

from . import mock
from ._api_errors import explain_api_error
from .mock.server import policy_by_name
from .trace import RecordingHTTPTransport, Trace

__all__ = [
    "Backend",
    "BackendClient",
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


class BackendClient(openai.OpenAI):
    """the openai.OpenAI that client_from_env() makes: the same client, plus the Backend it talks to and
    the Trace its calls go to"""

    backend: Backend
    trace: Trace


def client_from_env(
    env: Mapping[str, str] | None = None,
    *,
    policy: mock.PolicyLike | None = None,
    max_retries: int | None = None,
    timeout: float | None = None,
    trace: Trace | None = None,
) -> BackendClient:
    """an openai.OpenAI for the configured backend, recording every call in `client.trace`

    policy: the mock's policy when the mock is chosen (default: AGENT_CORE_MOCK_POLICY's).
    max_retries: the SDK's retries (default: the SDK's own for a real model, 0 for the mock).
    timeout: seconds per request (default: the SDK's).
    trace: the Trace to record into (default: a new one).
    `client.backend` is the Backend it was made from.
    """
    backend = backend_from_env(env)
    trace = trace if trace is not None else Trace()
    options: dict[str, Any] = {}
    sent_to: httpx2.BaseTransport
    if backend.kind == "mock":  # as mock.client() makes it
        sent_to = mock.transport(policy if policy is not None else policy_by_name(backend.policy))
        options.update(max_retries=max_retries or 0, _strict_response_validation=True)
        api_key = "mock-key-not-secret"
    else:
        sent_to = httpx2.HTTPTransport(proxy=_environment_proxy(backend.base_url))
        api_key = backend.api_key or NO_KEY
        if max_retries is not None:
            options["max_retries"] = max_retries
        if timeout is not None:
            options["timeout"] = timeout
    client = BackendClient(
        api_key=api_key,
        base_url=backend.base_url,
        http_client=openai.DefaultHttpxClient(transport=RecordingHTTPTransport(sent_to, trace)),
        **options,
    )
    client.backend, client.trace = backend, trace
    return client


def _environment_proxy(url: str) -> str | None:
    """the proxy the environment names for `url` (HTTPS_PROXY and the like, unless NO_PROXY covers it),
    as the SDK's own HTTP client would take it"""
    parts = urlsplit(url)
    if parts.hostname is None or urllib.request.proxy_bypass(parts.hostname):
        return None
    return urllib.request.getproxies().get(parts.scheme)


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
    if model is None and isinstance(client, BackendClient):
        model = client.backend.model
    if model and served and model not in served and f"{model}:latest" not in served:
        raise BackendError(
            f"The server at {client.base_url} does not serve the model {model!r}. It serves: "
            f"{', '.join(served)}. Set AGENT_CORE_MODEL to one of them (with Ollama, `ollama pull "
            f"{model}` first)."
        )
    return served
