"""Checks for lesson 08's exercises: choosing a backend, finding where two requests differ."""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

from ..providers import BackendError, backend_from_env
from ..replay import first_difference
from . import Verdict, verdict

__all__ = [
    "check_settings",
    "check_find_difference",
    "SETUPS",
    "SHELL",
    "DIFFERENCE_CASES",
]


# --- Exercise 8.1 ---------------------------------------------------------------------------

SETUPS = {
    "ollama": "Ollama on this machine (its OpenAI-compatible API is http://localhost:11434/v1), "
    "with the model qwen2.5:7b",
    "vllm": "a vLLM server at http://gpu-box:8000/v1 serving Qwen/Qwen2.5-7B-Instruct, started "
    "with --api-key team-key-123",
    "openai": "OpenAI itself, with the model gpt-4.1 (write the key as sk-placeholder)",
    "mock": "the mock model with the calculator policy, although the shell has OPENAI_API_KEY set",
}

# what the learner's shell already has set for the "mock" setup (a placeholder, never a real key)
SHELL = {"OPENAI_API_KEY": "sk-placeholder-from-the-shell"}

# setup -> what backend_from_env must make of it: kind, base_url, model, api_key, policy (None: any)
_WANTED: dict[str, dict[str, Any]] = {
    "ollama": {"kind": "compatible", "base_url": "http://localhost:11434/v1", "model": "qwen2.5:7b"},
    "vllm": {
        "kind": "compatible",
        "base_url": "http://gpu-box:8000/v1",
        "model": "Qwen/Qwen2.5-7B-Instruct",
        "api_key": "team-key-123",
    },
    "openai": {"kind": "openai", "model": "gpt-4.1", "api_key": "sk-placeholder"},
    "mock": {"kind": "mock", "policy": "calculator"},
}

_KIND_HINT = {
    "compatible": "a server is chosen by its URL: AGENT_CORE_BASE_URL",
    "openai": "OpenAI is chosen by a key with no base URL: OPENAI_API_KEY",
    "mock": "AGENT_CORE_BACKEND=mock chooses the mock even when a key is set",
}
_KIND_NAME = {
    "compatible": "an OpenAI-compatible server",
    "openai": "OpenAI",
    "mock": "the mock model",
}


def check_settings(settings: Any) -> Verdict:
    """Exercise 8.1: {setup: environment variables}; each must make backend_from_env choose the setup"""
    if not isinstance(settings, Mapping):
        return verdict(
            "8.1",
            [f"settings should be a dict {{setup: {{variable: value}}}}, not {type(settings).__name__}"],
            "",
        )
    problems = [f"keep the setup {name!r} in settings" for name in SETUPS if name not in settings]
    problems += [
        f"{name!r} is not one of the setups: {', '.join(SETUPS)}" for name in settings if name not in SETUPS
    ]
    for name in SETUPS:
        if name in settings:
            problems += _check_setting(name, settings[name])
    return verdict(
        "8.1",
        problems,
        "each environment chooses the backend it describes, and the model name is set in one place.",
    )


def _check_setting(name: str, env: Any) -> list[str]:
    where = f"{name!r}"
    if not isinstance(env, Mapping):
        return [f"{where}: give a dict of environment variables, not {type(env).__name__}"]
    wrong_types = [key for key, value in env.items() if not (isinstance(key, str) and isinstance(value, str))]
    if wrong_types:
        return [f"{where}: environment variables are strings; {wrong_types[0]!r} is not set to a string"]
    full = {**SHELL, **env} if name == "mock" else dict(env)
    try:
        backend = backend_from_env(full)
    except BackendError as error:
        return [f"{where}: {error}"]
    wanted = _WANTED[name]
    if backend.kind != wanted["kind"]:
        given = " and ".join(sorted(env))
        given = f"{given} set" if given else "nothing set"
        if name == "mock":
            given += f" (and the shell's {', '.join(SHELL)})"
        return [
            f"{where}: with {given}, client_from_env() would talk to {_KIND_NAME[backend.kind]}, "
            f"but the setup is {_KIND_NAME[wanted['kind']]} ({_KIND_HINT[wanted['kind']]})"
        ]
    problems = []
    if "base_url" in wanted and backend.base_url != wanted["base_url"]:
        advice = (
            " (an OpenAI-compatible base URL ends in /v1)" if not backend.base_url.endswith("/v1") else ""
        )
        problems.append(
            f"{where}: the base URL is {backend.base_url}; the setup says {wanted['base_url']}{advice}"
        )
    if "model" in wanted and backend.model != wanted["model"]:
        problems.append(
            f"{where}: the model would be {backend.model!r}; the setup says {wanted['model']!r} "
            "(AGENT_CORE_MODEL)"
        )
    if "api_key" in wanted and backend.api_key != wanted["api_key"]:
        problems.append(
            f"{where}: the server wants the key {wanted['api_key']!r}, and this environment "
            + ("sends no key" if backend.api_key is None else "sends another one")
        )
    if "policy" in wanted and backend.policy != wanted["policy"]:
        problems.append(
            f"{where}: the mock's policy would be {backend.policy!r}; the setup wants "
            f"{wanted['policy']!r} (AGENT_CORE_MOCK_POLICY)"
        )
    return problems


# --- Exercise 8.2 ---------------------------------------------------------------------------

_ADD_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "add",
        "description": "Add two numbers: a + b.",
        "parameters": {
            "type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
            "required": ["a", "b"],
        },
    },
}
_DIVIDE_TOOL = copy.deepcopy(_ADD_TOOL)
_DIVIDE_TOOL["function"].update(name="divide", description="Divide a by b: a / b.")


def _request(**changes: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": "mock-model",
        "messages": [
            {"role": "user", "content": "5 + 8/12"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "divide", "arguments": '{"a": 8, "b": 12}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": "0.6666666666666666"},
        ],
        "tools": [_ADD_TOOL, _DIVIDE_TOOL],
        "temperature": 0,
    }
    body.update(changes)
    return body


def _changed_arguments() -> dict[str, Any]:
    body = _request()
    body["messages"][1]["tool_calls"][0]["function"]["arguments"] = '{"a": 8, "b": 21}'
    return body


def _changed_question() -> dict[str, Any]:
    body = _request()
    body["messages"][0]["content"] = "5 + 8 / 12"
    return body


def _without(key: str) -> dict[str, Any]:
    body = _request()
    del body[key]
    return body


# (name, recorded request, received request); every pair differs in at most one place
DIFFERENCE_CASES: tuple[tuple[str, dict[str, Any], dict[str, Any]], ...] = (
    ("the same request", _request(), _request()),
    ("the question written with spaces", _request(), _changed_question()),
    ("a different argument inside a tool call", _request(), _changed_arguments()),
    ("a tool left out", _request(), _request(tools=[_ADD_TOOL])),
    ("an option only the new request has", _request(), {**_request(), "parallel_tool_calls": False}),
    ("an option the new request left out", _request(), _without("temperature")),
    ("0 written as 0.0", _request(), _request(temperature=0.0)),
)


def check_find_difference(find_difference: Callable[[Any, Any], Any]) -> Verdict:
    """Exercise 8.2: find_difference(recorded, received) -> the path of the first difference, or None"""
    problems, missed = [], []
    for name, recorded, received in DIFFERENCE_CASES:
        found = first_difference(recorded, received)
        expected = found[0] if found else None
        try:
            answer = find_difference(copy.deepcopy(recorded), copy.deepcopy(received))
        except Exception as error:  # the learner's code: report it, never crash the notebook
            problems.append(f"{name}: find_difference raised {type(error).__name__}: {error}")
            continue
        if answer == expected:
            continue
        missed.append(name)
        if expected is None:
            problems.append(f"{name}: the two requests are equal, so return None; you returned {answer!r}")
        elif answer is None:
            problems.append(f"{name}: the requests differ, but find_difference returned None")
        elif not isinstance(answer, str):
            problems.append(f"{name}: return the path as a string like 'messages[0].content', not {answer!r}")
        elif expected.startswith(answer):
            problems.append(
                f"{name}: {answer!r} holds the difference, but go deeper: the path should lead to the "
                f"value that differs, {expected!r}"
            )
        else:
            problems.append(f"{name}: you returned {answer!r}; the first difference is at {expected!r}")
    if "0 written as 0.0" in missed:
        problems.append(
            "in Python 0 == 0.0, but in JSON they are different text: compare the types too, "
            "as type(a) is type(b)"
        )
    return verdict(
        "8.2",
        problems,
        f"find_difference names the first difference in all {len(DIFFERENCE_CASES)} cases, as Replay does.",
    )
