"""One Chat Completions response as the Responses, Anthropic or Ollama response that says the same thing,
and the stop reasons between them (lesson 09; the mock answers every API with these)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from .._messages import as_dict, text_of
from ._arguments import arguments_text
from .anthropic import assistant_blocks
from .ollama import ollama_assistant

__all__ = [
    "completion_to_responses",
    "completion_to_anthropic",
    "completion_to_ollama",
    "to_anthropic_stop_reason",
    "from_anthropic_stop_reason",
]

_RESPONSES_STATUS: dict[str, tuple[str, dict[str, str] | None]] = {
    "stop": ("completed", None),
    "tool_calls": ("completed", None),
    "length": ("incomplete", {"reason": "max_output_tokens"}),
    "content_filter": ("incomplete", {"reason": "content_filter"}),
}
_ANTHROPIC_STOP_REASONS = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "length": "max_tokens",
    "content_filter": "refusal",
}
_FINISH_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "refusal": "content_filter",
}


def _choice(completion: Any) -> tuple[dict[str, Any], dict[str, Any], str]:
    """a Chat Completions response -> (the response dict, its first message, its finish_reason)"""
    completion = as_dict(completion)
    choice = completion["choices"][0]
    return completion, as_dict(choice["message"]), choice.get("finish_reason") or "stop"


def completion_to_responses(completion: Any) -> dict[str, Any]:
    """a Chat Completions response -> the Responses API response that says the same thing"""
    completion, message, finish_reason = _choice(completion)
    if finish_reason not in _RESPONSES_STATUS:
        raise ValueError(f"no Responses status for finish_reason {finish_reason!r}")
    status, incomplete_details = _RESPONSES_STATUS[finish_reason]
    response: dict[str, Any] = {
        "id": f"resp_{completion['id']}",
        "object": "response",
        "created_at": completion.get("created"),
        "model": completion.get("model"),
        "status": status,
        "incomplete_details": incomplete_details,
        "output": _responses_output(completion["id"], message),
    }
    if usage := completion.get("usage"):
        response["usage"] = {
            "input_tokens": usage["prompt_tokens"],
            "output_tokens": usage["completion_tokens"],
            "total_tokens": usage["total_tokens"],
        }
    return response


def _responses_output(completion_id: str, message: dict[str, Any]) -> list[dict[str, Any]]:
    """an assistant message -> Responses output items: a message with its text, a function_call per call"""
    output: list[dict[str, Any]] = []
    if text_of(message.get("content")):
        output.append(
            {
                "type": "message",
                "id": f"msg_{completion_id}",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": text_of(message["content"]), "annotations": []}],
            }
        )
    for call in message.get("tool_calls") or []:
        output.append(
            {
                "type": "function_call",
                "id": f"fc_{call['id']}",  # Responses gives every item an id of its own
                "call_id": call["id"],
                "name": call["function"]["name"],
                "arguments": arguments_text(call),
                "status": "completed",
            }
        )
    return output


def to_anthropic_stop_reason(finish_reason: str) -> str:
    """Chat Completions finish_reason -> Anthropic stop_reason ("tool_calls" -> "tool_use"...)"""
    if finish_reason not in _ANTHROPIC_STOP_REASONS:
        raise ValueError(
            f"no Anthropic stop_reason for finish_reason {finish_reason!r}; "
            f"known: {', '.join(_ANTHROPIC_STOP_REASONS)}"
        )
    return _ANTHROPIC_STOP_REASONS[finish_reason]


def from_anthropic_stop_reason(stop_reason: str) -> str:
    """Anthropic stop_reason -> Chat Completions finish_reason ("end_turn" -> "stop"...)"""
    if stop_reason not in _FINISH_REASONS:
        raise ValueError(
            f"no Chat Completions finish_reason for stop_reason {stop_reason!r}; "
            f"known: {', '.join(_FINISH_REASONS)}"
        )
    return _FINISH_REASONS[stop_reason]


def completion_to_anthropic(completion: Any) -> dict[str, Any]:
    """a Chat Completions response -> the Anthropic Messages response that says the same thing"""
    completion, message, finish_reason = _choice(completion)
    response: dict[str, Any] = {
        "id": completion["id"],
        "type": "message",
        "role": "assistant",
        "model": completion.get("model"),
        "content": assistant_blocks(message),
        "stop_reason": to_anthropic_stop_reason(finish_reason),
        "stop_sequence": None,
    }
    if usage := completion.get("usage"):
        response["usage"] = {
            "input_tokens": usage["prompt_tokens"],
            "output_tokens": usage["completion_tokens"],
        }
    return response


def completion_to_ollama(completion: Any) -> dict[str, Any]:
    """a Chat Completions response -> the Ollama /api/chat response (stream: false) that says the same"""
    completion, message, finish_reason = _choice(completion)
    created = datetime.fromtimestamp(completion.get("created", 0), tz=UTC)
    response: dict[str, Any] = {
        "model": completion.get("model"),
        "created_at": created.isoformat().replace("+00:00", "Z"),
        "message": ollama_assistant(message),
        "done": True,
        # Ollama says "stop" after tool calls too: the presence of tool_calls is the signal.
        "done_reason": "length" if finish_reason == "length" else "stop",
    }
    if usage := completion.get("usage"):
        response["prompt_eval_count"] = usage["prompt_tokens"]
        response["eval_count"] = usage["completion_tokens"]
    return response
