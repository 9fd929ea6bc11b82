"""Checks for lesson 08's exercises: choosing a backend, finding where two requests differ, Anthropic by hand."""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

from ..formats import ERROR_PREFIX, to_anthropic
from ..providers import BackendError, backend_from_env
from ..replay import first_difference
from . import Verdict, verdict

__all__ = [
    "check_settings",
    "check_find_difference",
    "check_anthropic",
    "SETUPS",
    "SHELL",
    "DIFFERENCE_CASES",
    "CONVERSATION",
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

_ADD_TOOL = {
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


# (name, recorded request, received request); every pair differs in at most one place
DIFFERENCE_CASES: tuple[tuple[str, dict[str, Any], dict[str, Any]], ...] = (
    ("the same request", _request(), _request()),
    ("the question written with spaces", _request(), _changed_question()),
    ("a different argument inside a tool call", _request(), _changed_arguments()),
    ("a tool left out", _request(), _request(tools=[_ADD_TOOL])),
    ("an option only the new request has", _request(), {**_request(), "parallel_tool_calls": False}),
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


# --- Exercise 8.3 ---------------------------------------------------------------------------

_ZERO_DIVISION = (
    f"{ERROR_PREFIX}the tool 'divide' raised ZeroDivisionError: division by zero. Check the arguments "
    "and call it again, or try another approach."
)

CONVERSATION: list[dict[str, Any]] = [
    {"role": "system", "content": "You are a careful assistant. Use the tools for arithmetic."},
    {"role": "user", "content": "What are 8/12 and 1/0?"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_a",
                "type": "function",
                "function": {"name": "divide", "arguments": '{"a": 8, "b": 12}'},
            },
            {
                "id": "call_b",
                "type": "function",
                "function": {"name": "divide", "arguments": '{"a": 1, "b": 0}'},
            },
        ],
    },
    {"role": "tool", "tool_call_id": "call_a", "content": "0.6666666666666666"},
    {"role": "tool", "tool_call_id": "call_b", "content": _ZERO_DIVISION},
    {"role": "user", "content": "If one of them failed, say why in one sentence."},
]


def check_anthropic(request: Any) -> Verdict:
    """Exercise 8.3: CONVERSATION written by hand as an Anthropic request body {system, messages}"""
    try:
        problems = _anthropic_problems(request)
    except Exception as error:  # a shape the rules below did not foresee: say so, never crash
        problems = [
            f"the check could not read your request ({type(error).__name__}: {error}); "
            "compare its shape with the example above"
        ]
    return verdict(
        "8.3",
        problems,
        "system on top, results as tool_result blocks in ONE user message before the text, "
        "arguments as objects, and the failure marked is_error.",
    )


def _anthropic_problems(request: Any) -> list[str]:
    if not isinstance(request, Mapping):
        return [f"request should be a dict with 'system' and 'messages', not {type(request).__name__}"]
    problems = []
    system = CONVERSATION[0]["content"]
    messages = request.get("messages")
    if not isinstance(messages, list):
        return ["request['messages'] should be the list of messages"]
    roles = [m.get("role") if isinstance(m, Mapping) else None for m in messages]
    if "system" in roles:
        problems.append(
            "Anthropic has no 'system' role: put the system prompt in the top-level 'system' field "
            "and leave it out of messages"
        )
    wrong_system = (
        []
        if request.get("system") == system
        else [f"request['system'] should be the system prompt, {system!r}"]
    )
    if "tool" in roles:
        problems.append(
            "Anthropic has no 'tool' role: a tool result is a {'type': 'tool_result', ...} block in "
            "the content of a 'user' message"
        )
    strange = sorted({str(r) for r in roles if r not in ("user", "assistant", "system", "tool")})
    if strange:
        problems.append(f"every message needs a role, 'user' or 'assistant'; found {', '.join(strange)}")
    if problems:
        return wrong_system + problems
    for i in range(1, len(roles)):
        if roles[i] == roles[i - 1]:
            return wrong_system + [
                f"messages[{i - 1}] and messages[{i}] are both {roles[i]!r} messages: all the results "
                "of one turn, and any text after them, go in ONE user message"
            ]
    if roles != ["user", "assistant", "user"]:
        return wrong_system + [
            f"the roles should be user, assistant, user (the question, the two calls, their results "
            f"with the note); yours are {', '.join(map(str, roles)) or 'empty'}"
        ]
    problems += _assistant_problems(_blocks(messages[1]["content"]))
    problems += _results_problems(_blocks(messages[2]["content"]))
    if problems or wrong_system:
        return wrong_system + problems
    expected = _normal(to_anthropic(CONVERSATION))
    difference = first_difference(expected, _normal({"system": request.get("system"), "messages": messages}))
    if difference:
        where, wanted, got = difference
        problems.append(f"at {where}: expected {wanted!r}, found {got!r}")
    return problems


def _blocks(content: Any) -> list[Any]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return list(content) if isinstance(content, list) else [content]


def _assistant_problems(blocks: list[Any]) -> list[str]:
    calls = CONVERSATION[2]["tool_calls"]
    uses = [b for b in blocks if isinstance(b, Mapping) and b.get("type") == "tool_use"]
    if len(uses) != len(calls):
        return [
            f"the assistant message should hold {len(calls)} tool_use blocks, one per call; it has {len(uses)}"
        ]
    problems = []
    for use, call in zip(uses, calls, strict=True):
        if use.get("id") != call["id"]:
            problems.append(
                f"a tool_use block keeps the call's id as 'id': {call['id']!r}, not {use.get('id')!r}"
            )
        if use.get("name") != call["function"]["name"]:
            problems.append(f"tool_use {call['id']}: 'name' should be {call['function']['name']!r}")
        if isinstance(use.get("input"), str):
            problems.append(
                f"tool_use {call['id']}: 'input' is an object, {use['input']} without the quotes, "
                "not the JSON string Chat Completions sends"
            )
        elif "input" not in use:
            problems.append(f"tool_use {call['id']}: the arguments go in 'input', as an object")
    return problems


def _results_problems(blocks: list[Any]) -> list[str]:
    results = [b for b in blocks if isinstance(b, Mapping) and b.get("type") == "tool_result"]
    answers = {r.get("tool_use_id"): r for r in results}
    problems = []
    for message in CONVERSATION[3:5]:
        call_id = message["tool_call_id"]
        result = answers.get(call_id)
        if result is None:
            problems.append(
                f"the last user message has no tool_result with tool_use_id {call_id!r}: every call "
                "is answered, and all the answers of one turn travel in one user message"
            )
            continue
        failed = message["content"].startswith(ERROR_PREFIX)
        if failed and result.get("is_error") is not True:
            problems.append(f"the result for {call_id} is a failure: mark it with 'is_error': True")
        if not failed and result.get("is_error"):
            problems.append(f"the result for {call_id} worked: it must not say is_error")
        if _text(result.get("content")) != message["content"]:
            problems.append(f"the tool_result for {call_id} should carry the tool's text as 'content'")
    kinds = [b.get("type") if isinstance(b, Mapping) else None for b in blocks]
    if (
        "text" in kinds
        and "tool_result" in kinds
        and kinds.index("text") < max(i for i, kind in enumerate(kinds) if kind == "tool_result")
    ):
        problems.append("in a user message the tool_result blocks come first, then the text")
    if "text" not in kinds:
        problems.append("the person's note goes in the same user message, as a text block after the results")
    return problems


def _text(content: Any) -> Any:
    if isinstance(content, list) and all(isinstance(b, Mapping) and b.get("type") == "text" for b in content):
        return "".join(b.get("text", "") for b in content)
    return content


def _normal(request: Mapping[str, Any]) -> dict[str, Any]:
    """the same request however it is spelled: lone text as a string, is_error only when true"""
    messages = []
    for message in request["messages"]:
        blocks = []
        for block in _blocks(message.get("content")):
            block = dict(block)
            if block.get("type") == "tool_result":
                block["content"] = _text(block.get("content"))
                if not block.get("is_error"):
                    block.pop("is_error", None)
            blocks.append(block)
        results = sorted(
            (b for b in blocks if b.get("type") == "tool_result"), key=lambda b: str(b.get("tool_use_id"))
        )
        blocks = results + [b for b in blocks if b.get("type") != "tool_result"]  # results pair by id
        messages.append({"role": message.get("role"), "content": blocks})
    return {"system": request.get("system"), "messages": messages}
