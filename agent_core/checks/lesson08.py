"""Checks for lesson 08's exercises: choosing a backend, recording a run, finding where two requests
differ."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable, Iterator, Mapping
from typing import Any, cast
from urllib.parse import urlsplit

import httpx2
import openai

from .. import mock
from .._i18n import N_, _
from ..loop import run_agent
from ..providers import OPENAI_BASE_URL, BackendError, backend_from_env
from ..replay import first_difference
from ..trace import RecordingHTTPTransport
from . import Verdict, verdict
from ._scenarios import Dimension, judge_scenarios, scenarios, smaller_lists

__all__ = [
    "DIFFERENCE_SPACE",
    "RECORD_SPACE",
    "SETTINGS_SPACE",
    "record_scenarios",
    "RECORD_SHAPES",
    "settings_scenarios",
    "SETTINGS_SHAPES",
    "check_settings",
    "check_recorder",
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
    # OpenAI itself is its API at https://api.openai.com/v1 (a key and no base URL choose it): the same
    # host with another path (/v2) is no API the SDK can talk to
    "openai": {
        "kind": "openai",
        "base_url": OPENAI_BASE_URL,
        "model": "gpt-4.1",
        "api_key": "sk-placeholder",
    },
    "mock": {"kind": "mock", "policy": "calculator"},
}

_KIND_HINT = {
    "compatible": N_("a server is chosen by its URL: AGENT_CORE_BASE_URL"),
    "openai": N_("OpenAI is chosen by a key with no base URL: OPENAI_API_KEY"),
    "mock": N_("AGENT_CORE_BACKEND=mock chooses the mock even when a key is set"),
}
_KIND_NAME = {
    "compatible": N_("an OpenAI-compatible server"),
    "openai": "OpenAI",
    "mock": N_("the mock model"),
}


_LOOPBACK = {"localhost", "127.0.0.1", "::1"}


def settings_scenarios() -> list[tuple[str, dict[str, Any]]]:
    """check 8.1's fixed cases: each setup with what backend_from_env must make of it (an answer, not code)"""
    return [(name, dict(wanted)) for name, wanted in _WANTED.items()]


def _host(case: tuple[str, dict[str, Any]]) -> str:
    return urlsplit(case[1].get("base_url", "")).hostname or ""


# the shapes lesson 08 names for choosing a backend, each among the setups (tests/test_check_shapes.py)
SETTINGS_SHAPES: dict[str, Callable[[tuple[str, dict[str, Any]]], bool]] = {
    "a server on this machine, whose URL can be written localhost or 127.0.0.1": lambda c: (
        _host(c) in _LOOPBACK
    ),
    "a server elsewhere that wants a key": lambda c: _host(c) not in ("", *_LOOPBACK) and "api_key" in c[1],
    "a local server, which has no default model": lambda c: c[1]["kind"] == "compatible" and "model" in c[1],
    "OpenAI itself: a key and no base URL": lambda c: c[1]["kind"] == "openai",
    "a model other than OpenAI's default": lambda c: c[1].get("model") not in (None, "gpt-4.1-mini"),
    "the mock although the shell has a key": lambda c: c[1]["kind"] == "mock" and bool(SHELL),
    "a mock policy other than the default (echo)": lambda c: c[1].get("policy") not in (None, "echo"),
    "OpenAI's whole URL, its path too, if one is written": lambda c: (
        c[1]["kind"] == "openai" and c[1].get("base_url") == OPENAI_BASE_URL
    ),
}


# what exercise 8.1's words say varies, each form among the setups (tests/test_input_space.py)
SETTINGS_SPACE: dict[str, Dimension[tuple[str, dict[str, Any]]]] = {
    "the setup": Dimension(
        "For each setup described below",
        {
            "a server on this machine": SETTINGS_SHAPES[
                "a server on this machine, whose URL can be written localhost or 127.0.0.1"
            ],
            "a server elsewhere": SETTINGS_SHAPES["a server elsewhere that wants a key"],
            "OpenAI": SETTINGS_SHAPES["OpenAI itself: a key and no base URL"],
            "OpenAI, at its whole URL": SETTINGS_SHAPES[
                "OpenAI's whole URL, its path too, if one is written"
            ],
            "the mock": lambda c: c[1]["kind"] == "mock",
        },
    ),
    "the shell's key": Dimension(
        "your shell already has `OPENAI_API_KEY` set (the check adds it), and the mock must win anyway",
        {
            "the mock, with the key set": SETTINGS_SHAPES["the mock although the shell has a key"],
            "a real backend, with the key set": lambda c: c[1]["kind"] != "mock",
        },
    ),
}


def check_settings(settings: Any) -> Verdict:
    """Exercise 8.1: {setup: environment variables}; each must make backend_from_env choose the setup
    (an answer, not code: no scenarios)"""
    if not isinstance(settings, Mapping):
        return verdict(
            "8.1",
            [
                _(
                    "settings should be a dict {{setup: {{variable: value}}}}, not {type}",
                    type=type(settings).__name__,
                )
            ],
            "",
        )
    problems = [
        _("keep the setup {name} in settings", name=repr(name)) for name in SETUPS if name not in settings
    ]
    problems += [
        _("{name} is not one of the setups: {setups}", name=repr(name), setups=", ".join(SETUPS))
        for name in settings
        if name not in SETUPS
    ]
    for name in SETUPS:
        if name in settings:
            problems += _check_setting(name, settings[name])
    return verdict(
        "8.1",
        problems,
        _("each environment chooses the backend it describes, and the model name is set in one place."),
    )


def _check_setting(name: str, env: Any) -> list[str]:
    where = f"{name!r}"
    if not isinstance(env, Mapping):
        return [
            _(
                "{where}: give a dict of environment variables, not {type}",
                where=where,
                type=type(env).__name__,
            )
        ]
    wrong_types = [key for key, value in env.items() if not (isinstance(key, str) and isinstance(value, str))]
    if wrong_types:
        return [
            _(
                "{where}: environment variables are strings; {key} is not set to a string",
                where=where,
                key=repr(wrong_types[0]),
            )
        ]
    full = {**SHELL, **env} if name == "mock" else dict(env)
    try:
        backend = backend_from_env(full)
    except BackendError as error:
        return [f"{where}: {error}"]
    wanted = _WANTED[name]
    if backend.kind != wanted["kind"]:
        names = _(" and ").join(sorted(env))
        if name == "mock":
            message = (
                N_(
                    "{where}: with nothing set (and the shell's {shell}), client_from_env() would talk to "
                    "{backend}, but the setup is {wanted} ({hint})"
                )
                if not names
                else N_(
                    "{where}: with {names} set (and the shell's {shell}), client_from_env() would talk to "
                    "{backend}, but the setup is {wanted} ({hint})"
                )
            )
        else:
            message = (
                N_(
                    "{where}: with nothing set, client_from_env() would talk to {backend}, but the setup is "
                    "{wanted} ({hint})"
                )
                if not names
                else N_(
                    "{where}: with {names} set, client_from_env() would talk to {backend}, but the setup is "
                    "{wanted} ({hint})"
                )
            )
        return [
            _(
                message,
                where=where,
                names=names,
                shell=", ".join(SHELL),
                backend=_(_KIND_NAME[backend.kind]),
                wanted=_(_KIND_NAME[wanted["kind"]]),
                hint=_(_KIND_HINT[wanted["kind"]]),
            )
        ]
    problems = []
    if "base_url" in wanted and not _same_url(backend.base_url, wanted["base_url"]):
        problems.append(
            _(
                "{where}: the base URL is {yours}; the setup says {wanted}",
                where=where,
                yours=backend.base_url,
                wanted=wanted["base_url"],
            )
            if backend.base_url.endswith("/v1")
            else _(
                "{where}: the base URL is {yours}; the setup says {wanted} (an OpenAI-compatible base URL "
                "ends in /v1)",
                where=where,
                yours=backend.base_url,
                wanted=wanted["base_url"],
            )
        )
    if "model" in wanted and backend.model != wanted["model"]:
        problems.append(
            _(
                "{where}: the model would be {yours}; the setup says {wanted} (AGENT_CORE_MODEL)",
                where=where,
                yours=repr(backend.model),
                wanted=repr(wanted["model"]),
            )
        )
    if "api_key" in wanted and backend.api_key != wanted["api_key"]:
        key = repr(wanted["api_key"])
        if wanted["kind"] == "openai":
            message = (
                N_("{where}: OpenAI's key for this setup is {key}, and this environment sends no key")
                if backend.api_key is None
                else N_(
                    "{where}: OpenAI's key for this setup is {key}, and this environment sends another one"
                )
            )
        else:
            message = (
                N_("{where}: the server wants the key {key}, and this environment sends no key")
                if backend.api_key is None
                else N_("{where}: the server wants the key {key}, and this environment sends another one")
            )
        problems.append(_(message, where=where, key=key))
    if "policy" in wanted and backend.policy != wanted["policy"]:
        problems.append(
            _(
                "{where}: the mock's policy would be {yours}; the setup wants {wanted} "
                "(AGENT_CORE_MOCK_POLICY)",
                where=where,
                yours=repr(backend.policy),
                wanted=repr(wanted["policy"]),
            )
        )
    return problems


def _same_url(yours: str | None, wanted: str) -> bool:
    """the same server and path: localhost, 127.0.0.1 and ::1 are one host (this machine), a final / aside"""
    if yours is None:
        return False
    a, b = urlsplit(yours), urlsplit(wanted)
    hosts = (a.hostname or "", b.hostname or "")
    same_host = hosts[0] == hosts[1] or (hosts[0] in _LOOPBACK and hosts[1] in _LOOPBACK)
    try:
        ports = (a.port, b.port)
    except ValueError:  # a port that is not a number
        return False
    return (a.scheme, ports[0], a.path.rstrip("/")) == (b.scheme, ports[1], b.path.rstrip("/")) and same_host


# --- Exercise 8.2 ---------------------------------------------------------------------------

Step = tuple[tuple[str, float, float], ...] | str  # parallel calls (tool, a, b), or the answer's text
Run = tuple[str, tuple[Step, ...], bool]  # the task, the model's replies in order, a refused request after
_SECRET = "sk-secret-never-in-a-cassette"
_ANSWERS = ["5 + 8/12 = 5.667", "Résultat : 3 × 4 = 12 🙂", "答えは 7 です", "done"]


def _add(a: float, b: float) -> float:
    """Add two numbers: a + b."""
    return a + b


def _divide(a: float, b: float) -> float:
    """Divide a by b: a / b."""
    return a / b


def _agent_run(rng: random.Random) -> Run:
    """0 to 3 turns of 1 to 3 parallel calls (some dividing by zero), an answer, sometimes a refused
    request"""
    steps: list[Step] = [
        tuple(
            (rng.choice(["add", "divide"]), rng.choice([1, 8, 2.5]), rng.choice([0, 3, 12]))
            for _ in range(rng.choice([1, 1, 2, 3]))
        )
        for _ in range(rng.choice([0, 1, 2, 3]))
    ]
    return (
        rng.choice(["5 + 8/12", "Combien font 3 × 4 ?", "計算して"]),
        (*steps, rng.choice(_ANSWERS)),
        rng.random() < 0.3,
    )


def _policy(steps: tuple[Step, ...]) -> mock.Script:
    return mock.Script(
        *(
            step if isinstance(step, str) else mock.calls(*(mock.call(n, a=a, b=b) for n, a, b in step))
            for step in steps
        )
    )


def _drive(transport: Any, run: Run) -> tuple[str | None, int | None]:
    """an agent run through this transport, then the refused request if any: (answer, refusal status)"""
    task, _, refused = run
    client = openai.OpenAI(
        api_key=_SECRET, base_url=mock.BASE_URL, http_client=httpx2.Client(transport=transport), max_retries=0
    )
    answer = run_agent(client, task, [_add, _divide], max_turns=10).answer
    status = None
    if refused:
        try:  # a tool result with no call before it: the API answers HTTP 400
            client.chat.completions.create(
                model="mock-model", messages=[{"role": "tool", "tool_call_id": "call_x", "content": "1"}]
            )
        except openai.BadRequestError as error:
            status = error.status_code
    return answer, status


def _describe_run(run: Run) -> str:
    task, steps, refused = run
    said = [
        f"'{step}'" if isinstance(step, str) else _(" and ").join(f"{n}({a}, {b})" for n, a, b in step)
        for step in steps
    ]
    answers = _("; then ").join(said)
    if refused:
        return _(
            "an agent run on {task} whose model answers {answers}; then a request the API refuses (HTTP 400)",
            task=repr(task),
            answers=answers,
        )
    return _("an agent run on {task} whose model answers {answers}", task=repr(task), answers=answers)


def _smaller_runs(run: Run) -> Iterator[Run]:
    task, steps, refused = run
    if refused:
        yield task, steps, False
    for fewer in smaller_lists(steps[:-1]):
        yield task, (*fewer, steps[-1]), refused
    for index, step in enumerate(steps[:-1]):
        if isinstance(step, str):  # never: only the last reply is text
            continue
        for fewer_calls in smaller_lists(step):
            if fewer_calls:
                yield task, (*steps[:index], tuple(fewer_calls), *steps[index + 1 :]), refused


def check_recorder(recorder_class: Callable[[Any], Any]) -> Verdict:
    """Exercise 8.2: Recorder(inner) passes each request on and keeps its request, status and response

    Scenarios: a three-turn calculator run, then 30 generated runs on the strict mock: 0 to 3 turns
    of 1 to 3 parallel calls (some dividing by zero), a unicode answer, and sometimes a request the
    API refuses with HTTP 400. The learner's recorder runs between two of the library's
    RecordingHTTPTransports: it must keep the calls the inner one saw, and pass them on unchanged.
    """

    def judge(run: Run) -> str | None:
        # one run, the library's recorder on each side of the learner's: the inner one sees what the server
        # was sent and answered, the outer one what the SDK sent and got back through the learner's
        server_side = RecordingHTTPTransport(mock.transport(_policy(run[1])))
        yours = recorder_class(server_side)
        sdk_side = RecordingHTTPTransport(yours)
        try:
            answer, _status = _drive(sdk_side, run)
        except openai.APIStatusError:
            if len(server_side.trace) <= len(sdk_side.trace):
                raise  # not the recorder's doing: reported as what the code raised
            answer = None
        if len(server_side.trace) > len(sdk_side.trace):
            return _(
                "the SDK sent {sent} request(s), but the server received {received}: your recorder sends a "
                "request to the inner transport more than once. Call self.inner.handle_request(request) "
                "once, keep what it returned, and return that same response",
                sent=len(sdk_side.trace),
                received=len(server_side.trace),
            )
        expected = [
            {"request": t.request, "status": t.status, "response": t.response} for t in server_side.trace
        ]
        calls = getattr(yours, "calls", None)
        seen = [(t.request, t.status, t.response) for t in sdk_side.trace]
        if seen != [(t.request, t.status, t.response) for t in server_side.trace]:
            return _(
                "through your recorder the run ended differently ({answer}): what the SDK sent or got back "
                "is not what the server saw. Pass the request on and return the response you got from the "
                "inner transport, unchanged",
                answer=f"{answer!r:.60}",
            )
        if not isinstance(calls, list):
            return _("keep the calls in a list, self.calls; it is {calls}", calls=f"{calls!r:.60}")
        if _SECRET in repr(calls):
            return _("the API key is in what you kept: keep the bodies only, never the headers")
        if len(calls) != len(expected):
            if len(expected) == 1:
                return _("{count} HTTP call went through, and you kept {kept}", count=1, kept=len(calls))
            return _(
                "{count} HTTP calls went through, and you kept {kept}", count=len(expected), kept=len(calls)
            )
        for number, mine in enumerate(calls, start=1):
            if not isinstance(mine, dict) or set(mine) != {"request", "status", "response"}:
                return _(
                    "call {number}: keep a dict with the keys request, status and response, not {mine}",
                    number=number,
                    mine=f"{mine!r:.80}",
                )
        mixed = _order_or_sharing(calls, expected)
        if mixed is not None:
            return mixed
        for number, (mine, theirs) in enumerate(zip(calls, expected, strict=True), start=1):
            for key in ("request", "status", "response"):
                if mine[key] != theirs[key] or type(mine[key]) is not type(theirs[key]):
                    what = {
                        "request": N_("the request's JSON body"),
                        "status": N_("the HTTP status (an int)"),
                        "response": N_("the response's JSON body"),
                    }[key]
                    return _(
                        "call {number}: its {key} should be {what}; you kept {mine}",
                        number=number,
                        key=key,
                        what=_(what),
                        mine=f"{mine[key]!r:.80}",
                    )
        return None

    return judge_scenarios(
        "8.2",
        record_scenarios(),
        judge,
        _describe_run,
        _(
            "every call's request, status and response are kept, the key never is, "
            "and the run goes on unchanged."
        ),
        _smaller_runs,
    )


def record_scenarios() -> list[Run]:
    """check 8.2's runs: a three-turn calculator run, then 30 generated"""
    fixed: list[Run] = [
        ("5 + 8/12", ((("divide", 8, 12),), (("add", 5, 0.6666666666666666),), "5 + 8/12 = 5.667"), False)
    ]
    return scenarios(fixed, _agent_run, count=30, seed=822)


def _http_calls(run: Run) -> int:
    return len(run[1]) + run[2]


# the shapes lesson 08 names for a recorder, each reached by record_scenarios() (tests/test_check_shapes.py)
RECORD_SHAPES: dict[str, Callable[[Run], bool]] = {
    "one HTTP call": lambda r: _http_calls(r) == 1,
    "several HTTP calls, in an order to keep": lambda r: _http_calls(r) > 2,
    "parallel tool calls": lambda r: any(not isinstance(step, str) and len(step) > 1 for step in r[1]),
    "a tool that divides by zero": lambda r: any(
        not isinstance(step, str) and any(n == "divide" and b == 0 for n, _, b in step) for step in r[1]
    ),
    "a request the API refuses (HTTP 400)": lambda r: r[2],
    "a refusal after tool calls": lambda r: r[2] and len(r[1]) > 1,
    "a unicode task": lambda r: not r[0].isascii(),
}


# what exercise 8.2's words say varies, each form reached by record_scenarios() (test_input_space.py)
RECORD_SPACE: dict[str, Dimension[Run]] = {
    "refused calls": Dimension(
        "Keep refused calls too",
        {
            "every call answered": lambda r: not r[2],
            "a refused call": RECORD_SHAPES["a request the API refuses (HTTP 400)"],
            "a refused call after tool calls": RECORD_SHAPES["a refusal after tool calls"],
        },
    ),
    "what the runs hold": Dimension(
        "(parallel calls, unicode, a refused request)",
        {
            "one HTTP call": RECORD_SHAPES["one HTTP call"],
            "several HTTP calls": RECORD_SHAPES["several HTTP calls, in an order to keep"],
            "parallel calls": RECORD_SHAPES["parallel tool calls"],
            "a unicode task": RECORD_SHAPES["a unicode task"],
            "an ASCII task": lambda r: r[0].isascii(),
            "a tool that fails": RECORD_SHAPES["a tool that divides by zero"],
        },
    ),
}


def _order_or_sharing(calls: list[Any], expected: list[dict[str, Any]]) -> str | None:
    """the right calls kept in another order, or one dict kept for every call: each told as itself"""
    if len(calls) < 2:
        return None
    if all(call is calls[0] for call in calls):
        return _(
            "your {count} entries are one and the same dict, so each shows the last call: make a new "
            "dict for every call (a dict appended is not copied)",
            count=len(calls),
        )

    def key(call: dict[str, Any]) -> str:
        return json.dumps(call, sort_keys=True, default=repr)

    if calls == expected or sorted(map(key, calls)) != sorted(map(key, expected)):
        return None
    if calls == expected[::-1]:
        return _(
            "you kept the right calls in reverse order: append each call, so calls[0] is the first request"
        )
    return _("you kept the right calls in another order: append each call when it happens, first to last")


# --- Exercise 8.3 ---------------------------------------------------------------------------

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
    (N_("the same request"), _request(), _request()),
    (N_("the question written with spaces"), _request(), _changed_question()),
    (N_("a different argument inside a tool call"), _request(), _changed_arguments()),
    (N_("a tool left out"), _request(), _request(tools=[_ADD_TOOL])),
    (N_("an option only the new request has"), _request(), {**_request(), "parallel_tool_calls": False}),
    (N_("an option the new request left out"), _request(), _without("temperature")),
    (N_("0 written as 0.0"), _request(), _request(temperature=0.0)),
    # a key may be the empty string: its path is "", which is still a difference (not None)
    (N_("a value under an empty key"), {**_request(), "": "run 1"}, {**_request(), "": "run 2"}),
)

Path = tuple[str | int, ...]  # keys and indexes from the top of a request
Change = tuple[str, Path, Any]  # what is done to the received request: (kind, where, new value)
Pair = tuple[
    dict[str, Any], tuple[Change, ...]
]  # the recorded request, and the changes that make the received one

_TEXTS = ["5 + 8/12", "Combien font 3 × 4 ?", "東京の天気は?", "🙂 2 + 2", "a\nb", ""]


def _generated_request(rng: random.Random) -> dict[str, Any]:
    """a request of the calculator's kind: a few messages (some with calls), tools, options"""
    messages: list[dict[str, Any]] = [{"role": "user", "content": rng.choice(_TEXTS)}]
    for step in range(rng.randint(0, 3)):
        calls = [
            {
                "id": f"call_{step}_{k}",
                "type": "function",
                "function": {
                    "name": rng.choice(["add", "divide"]),
                    "arguments": json.dumps({"a": k, "b": step + 1}),
                },
            }
            for k in range(rng.randint(1, 3))
        ]
        messages.append(
            {"role": "assistant", "content": rng.choice([None, "Let me compute."]), "tool_calls": calls}
        )
        messages += [
            {"role": "tool", "tool_call_id": c["id"], "content": str(rng.randint(0, 9))} for c in calls
        ]
    body: dict[str, Any] = {"model": rng.choice(["mock-model", "qwen2.5:7b"]), "messages": messages}
    if rng.random() < 0.7:
        body["tools"] = [_ADD_TOOL, _DIVIDE_TOOL][: rng.randint(1, 2)]
    for option, values in (
        ("temperature", [0, 0.7, 1]),
        ("max_tokens", [100, 512]),
        ("parallel_tool_calls", [True, False]),
        ("n", [1]),
        ("logprobs", [True, False]),
        ("stop", [None]),  # null beside a missing key: two different requests
    ):
        if rng.random() < 0.5:
            body[option] = rng.choice(values)
    return body


def _at(value: Any, path: Path) -> Any:
    for key in path:
        value = value[key]
    return value


def _places(value: Any, path: Path = ()) -> list[Path]:
    """every path inside a JSON value, containers and leaves, the top excluded"""
    found: list[Path] = []
    children = (
        value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    )
    for key, child in children:
        found.append((*path, key))
        found += _places(child, (*path, key))
    return found


def _other_value(value: Any, rng: random.Random) -> Any:
    """a different JSON value; for numbers and booleans often the same number in another type"""
    if isinstance(value, bool):
        return rng.choice([not value, int(value)])
    if isinstance(value, int):
        # 1 against true is the tempting one (1 == True in Python): as often as the other changes together
        return rng.choice([value + 1, float(value), *([bool(value)] * 2 if value in (0, 1) else [])])
    if isinstance(value, float):
        return rng.choice([value + 0.5, int(value)] if value.is_integer() else [value + 0.5])
    if isinstance(value, str):
        return rng.choice(
            [value + " ", value.upper() if value.upper() != value else value + "!", value + "é"]
        )
    if value is None:
        return rng.choice(["", 0, False])
    return rng.choice([None, {} if isinstance(value, list) else []])


def _changes(body: dict[str, Any], rng: random.Random) -> tuple[Change, ...]:
    """0 to 3 differences, sometimes with the received keys in another order (not a difference)"""
    places = _places(body)
    scalars = [where for where in places if isinstance(_at(body, where), (bool, int, float))]
    changes: list[Change] = []
    for _change in range(rng.choice([0, 1, 1, 2, 2, 3])):
        kind = rng.choice(["value", "value", "drop", "add"])
        # a number or boolean often: true against 1, 1 against 1.0 are the tempting ones
        where = rng.choice(scalars if kind == "value" and scalars and rng.random() < 0.5 else places)
        if kind == "add":
            changes.append(("add", where[:-1], rng.choice(["seed", "user", "stop"])))
        else:
            changes.append((kind, where, None))
    if rng.random() < 0.3:
        changes.append(("reorder", (), None))
    rng.shuffle(changes)
    return tuple(changes)


def _received(body: dict[str, Any], changes: tuple[Change, ...], seed: int = 0) -> dict[str, Any]:
    received = copy.deepcopy(body)
    rng = random.Random(seed)
    for kind, where, extra in changes:
        if kind == "replace":
            received = copy.deepcopy(extra)
            continue
        try:
            parent: Any = received
            for key in where[:-1] if kind != "add" and kind != "reorder" else where:
                parent = parent[key]
            if kind == "reorder":
                items = list(parent.items())
                parent.clear()
                parent.update(reversed(items))
            elif kind == "add":
                if isinstance(parent, dict):  # "stop" comes as null: a null against a missing key
                    parent.setdefault(extra, None if extra == "stop" else 42)
                elif isinstance(parent, list):
                    parent.append(extra)
            elif kind == "drop":
                del parent[where[-1]]
            else:
                parent[where[-1]] = _other_value(parent[where[-1]], rng)
        except (KeyError, IndexError, TypeError):  # an earlier change removed this place
            continue
    return received


def _pair(rng: random.Random) -> Pair:
    body = _generated_request(rng)
    return body, _changes(body, rng)


def _smaller_pairs(pair: Pair) -> Iterator[Pair]:
    body, changes = pair
    for fewer in smaller_lists(changes):
        yield body, tuple(fewer)
    if any(kind == "replace" for kind, _, _ in changes):
        return
    for key in [k for k in body if k not in ("model", "messages")]:
        if all(not where or where[0] != key for _, where, _ in changes):
            yield {k: v for k, v in body.items() if k != key}, changes
    needed = max(
        (cast(int, where[1]) + 1 for _, where, _ in changes if len(where) > 1 and where[0] == "messages"),
        default=1,
    )
    if any(where == ("messages",) for _, where, _ in changes):
        needed = len(body["messages"])
    for keep in range(needed, len(body["messages"])):
        yield {**body, "messages": body["messages"][:keep]}, changes


def _describe_pair(pair: Pair) -> str:
    body, changes = pair
    for kind, _where, received in changes:
        if kind == "replace":
            name = next(
                name for name, _recorded, same in DIFFERENCE_CASES if json.dumps(same) == json.dumps(received)
            )
            return _("the pair '{name}'", name=_(name))
    received = _received(body, changes)
    options = [key for key in body if key not in ("model", "messages")]
    count = len(body["messages"])
    shape = (
        _("a recorded request with {count} message(s) and {options}", count=count, options=", ".join(options))
        if options
        else _("a recorded request with {count} message(s)", count=count)
    )
    differences = ", ".join(sorted(_all_differences(body, received)))
    if list(received) == list(body):
        if differences:
            return _(
                "{request}; a received one that differs at {differences}",
                request=shape,
                differences=differences,
            )
        return _("{request}; an equal received one", request=shape)
    if differences:
        return _(
            "{request}; a received one that differs at {differences} (and lists its keys in another order)",
            request=shape,
            differences=differences,
        )
    return _("{request}; an equal received one (and lists its keys in another order)", request=shape)


def _all_differences(recorded: Any, received: Any, path: str = "") -> list[str]:
    """every place two JSON values differ, as 'path (what differs)'"""
    if isinstance(recorded, dict) and isinstance(received, dict):
        found = []
        for key in {**recorded, **received}:
            where = f"{path}.{key}" if path else str(key)
            if key not in recorded or key not in received:
                found.append(f"{where} (only {'received' if key in received else 'recorded'})")
            else:
                found += _all_differences(recorded[key], received[key], where)
        return found
    if isinstance(recorded, list) and isinstance(received, list):
        found = []
        for i in range(max(len(recorded), len(received))):
            if i >= len(recorded) or i >= len(received):
                found.append(f"{path}[{i}] (only {'received' if i < len(received) else 'recorded'})")
            else:
                found += _all_differences(recorded[i], received[i], f"{path}[{i}]")
        return found
    if type(recorded) is not type(received) or recorded != received:
        return [f"{path} ({_short(recorded)} -> {_short(received)})"]
    return []


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 30 else text[:27] + "..."


def _first_kinds(pair: Pair) -> tuple[str, str] | None:
    """the JSON kinds at a pair's first difference ("missing" for a key only one side has), None if equal"""
    body, changes = pair
    found = first_difference(body, _received(body, changes))
    if found is None:
        return None
    return cast(tuple[str, str], tuple(_kind(value) for value in found[1:]))


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    kinds = {int: "integer", float: "float", str: "string", list: "array", dict: "object", type(None): "null"}
    return kinds.get(type(value), "missing")


# the shapes lesson 08 names, each reached by the seeded pairs (tests/test_check_shapes.py)
DIFFERENCE_SHAPES: dict[str, Callable[[Pair], bool]] = {
    "1 recorded, true received": lambda pair: _first_kinds(pair) == ("integer", "boolean"),
    "true recorded, 1 received": lambda pair: _first_kinds(pair) == ("boolean", "integer"),
    "1 recorded, 1.0 received": lambda pair: _first_kinds(pair) == ("integer", "float"),
    "null recorded, key missing": lambda pair: _first_kinds(pair) == ("null", "missing"),
    "key missing, null received": lambda pair: _first_kinds(pair) == ("missing", "null"),
    "equal, keys in another order": lambda pair: (
        _first_kinds(pair) is None and any(kind == "reorder" for kind, _, _ in pair[1])
    ),
    "a string changed": lambda pair: _first_kinds(pair) == ("string", "string"),
    "an empty key": lambda pair: "" in pair[0],
}


def _first_path(pair: Pair) -> str | None:
    found = first_difference(pair[0], _received(*pair))
    return None if found is None else found[0]


# what exercise 8.3's words say varies, each form reached by difference_scenarios() (test_input_space.py)
DIFFERENCE_SPACE: dict[str, Dimension[Pair]] = {
    "dicts": Dimension(
        "Walk dicts key by key, the recorded request's keys first, then keys only the received one has",
        {
            "a key only the recorded request has": lambda pair: (
                (_first_kinds(pair) or ("", ""))[1] == "missing"
            ),
            "a key only the received one has": lambda pair: (_first_kinds(pair) or ("", ""))[0] == "missing",
            "the same keys in another order": DIFFERENCE_SHAPES["equal, keys in another order"],
            "an empty key": DIFFERENCE_SHAPES["an empty key"],
        },
    ),
    "lists": Dimension(
        "Walk lists item by item",
        {
            "a difference inside a list": lambda pair: "[" in (_first_path(pair) or ""),
            "a difference outside any list": lambda pair: (_first_path(pair) or "[").find("[") < 0,
        },
    ),
    "types": Dimension(
        "if the values or their **types** differ",
        {
            "1 and true": DIFFERENCE_SHAPES["1 recorded, true received"],
            "true and 1": DIFFERENCE_SHAPES["true recorded, 1 received"],
            "1 and 1.0": DIFFERENCE_SHAPES["1 recorded, 1.0 received"],
            "two strings": DIFFERENCE_SHAPES["a string changed"],
            "equal": lambda pair: _first_kinds(pair) is None,
        },
    ),
}


def difference_scenarios() -> list[Pair]:
    """check 8.3's scenarios: the readable pairs (each its received request whole), then 200 seeded"""
    cases: list[Pair] = [
        (recorded, (("replace", (), received),)) for _, recorded, received in DIFFERENCE_CASES
    ]
    return cases + scenarios([], _pair, count=200, seed=1)


def check_find_difference(find_difference: Callable[[Any, Any], Any]) -> Verdict:
    """Exercise 8.3: find_difference(recorded, received) -> the path of the first difference, or None

    Scenarios: the eight readable pairs of DIFFERENCE_CASES, then 200 generated pairs of
    calculator requests (unicode text, parallel calls, tools and options) whose received copy has
    0 to 3 differences: a changed value, a number or boolean in another JSON type (true against 1,
    1 against 1.0, both ways round), a key or item dropped or added, a null against a missing key
    (both ways round), and sometimes its keys in another order, which is not a difference. The
    shapes the seeded pairs reach are listed in DIFFERENCE_SHAPES.
    """
    cases = difference_scenarios()

    def judge(pair: Pair) -> str | None:
        recorded, changes = pair
        return _difference_problem(find_difference, recorded, _received(recorded, changes))

    return judge_scenarios(
        "8.3",
        cases,
        judge,
        _describe_pair,
        _(
            "find_difference names the first difference on all {count} pairs of requests, as Replay does.",
            count=len(cases),
        ),
        _smaller_pairs,
    )


def _difference_problem(
    find_difference: Callable[[Any, Any], Any], recorded: Any, received: Any
) -> str | None:
    found = first_difference(recorded, received)
    expected = found[0] if found else None
    if found and expected == "(the whole body)" and isinstance(recorded, dict) and isinstance(received, dict):
        expected = ""  # Replay's name for the path "": here, the top-level key ""
    answer = find_difference(recorded, received)
    if answer == expected:
        return None
    if expected is None:
        return _("the two requests are equal, so return None; you returned {answer}", answer=repr(answer))
    if answer is None:
        assert found is not None  # expected came from it
        _path, mine, theirs = found
        if expected == "":
            return _(
                "the requests differ, but find_difference returned None (the path of the top-level key '' is "
                "'', a falsy string: test `found is not None`, not `if found:`)"
            )
        if {_kind(mine), _kind(theirs)} == {"null", "missing"}:
            return _(
                "the requests differ, but find_difference returned None (one request sets a key to null, the "
                "other leaves it out: a missing key is not null, so look at which keys each side has, not at "
                ".get(key))"
            )
        if mine == theirs:  # equal in Python, different in JSON
            return _(
                "the requests differ, but find_difference returned None ({mine} and {theirs}: in Python they "
                "are ==, but in JSON they are different text: compare the types too, as type(a) is type(b))",
                mine=repr(mine),
                theirs=repr(theirs),
            )
        return _(
            "the requests differ at {expected}, but find_difference returned None", expected=repr(expected)
        )
    if not isinstance(answer, str):
        return _("return the path as a string like 'messages[0].content', not {answer}", answer=repr(answer))
    if expected.startswith(answer):
        return _(
            "{answer} holds the difference, but go deeper: the path should lead to the value that differs, "
            "{expected}",
            answer=repr(answer),
            expected=repr(expected),
        )
    return _(
        "you returned {answer}; the first difference is at {expected}",
        answer=repr(answer),
        expected=repr(expected),
    )
