"""lesson 08: what went wrong talking to a model server, in one sentence, and what to do about it (the
providers)."""

from __future__ import annotations

import re

import openai

__all__ = ["explain_api_error"]

# OpenAI and vLLM: "The model `x` does not exist..."; Ollama: 'model "x" not found, try pulling it first'
_MODEL_MISSING = re.compile(r"\bmodel\b.*\b(does not exist|not found)", re.IGNORECASE | re.DOTALL)


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
    return _refusal_advice(error)


def _refusal_advice(error: openai.APIStatusError) -> str:
    """what an HTTP error status from the server means, and what to change"""
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
    return _server_failure_advice(error, said)


def _server_failure_advice(error: openai.APIStatusError, said: str) -> str:
    """a server that cannot call tools, or failed, or refused a field"""
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
    return str(message).split("\n(agent_core mock hint:")[0]
