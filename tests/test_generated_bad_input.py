"""Broken input a person can write, generated: cassettes with a wrong type at any field, lone surrogates,
missing and extra keys, and requests broken the same ways for every endpoint. Each gets one line (a
CassetteError, or an HTTP 4xx JSON error with a message): never a traceback, never a Python error's text."""

import copy
import json
import random
from urllib.parse import urlsplit

import openai
import pytest

from agent_core import cli, mock
from agent_core.loop import run_agent
from agent_core.mock.model import MockModel
from agent_core.replay import CassetteError, Replay
from agent_core.replay import client as replay_client
from agent_core.schema import tool

SEED = 36
# the text of a Python exception that reached the person: a KeyError's quoted key, None's type name,
# a missing attribute, a bad index or subscript
PYTHON_TEXT = ("NoneType", "object has no attribute", "object is not", "list index", "indices must be")
WRONG = [None, True, 0, -7, 2.5, "", "x", "\ud800", [], [1], {}, {"type": "\udcff"}]


def python_text_in(message: str) -> str | None:
    """the piece of a Python exception's text in a message, if there is one"""
    if "Traceback" in message or "could not read this request" in message:
        return message
    return next((words for words in PYTHON_TEXT if words in message), None)


def places(value, where=()):
    """every place in a JSON value, as a tuple of keys and indexes"""
    yield where
    if isinstance(value, dict):
        for key, child in value.items():
            yield from places(child, (*where, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from places(child, (*where, index))


def broken(value, rng: random.Random, changes: int):
    """a copy of a JSON value with `changes` random changes: a wrong value, a removed key or item, an
    extra key, a surrogate in a string"""
    value = copy.deepcopy(value)
    done = []
    for _ in range(changes):
        where = rng.choice([place for place in places(value) if place])
        parent = value
        for key in where[:-1]:
            parent = parent[key]
        key, kind = where[-1], rng.choice(["wrong", "wrong", "remove", "extra", "surrogate"])
        if kind == "remove":
            del parent[key]
        elif kind == "extra" and isinstance(parent[key], dict):
            parent[key][rng.choice(["foo", "type", "text", "content", "id"])] = copy.deepcopy(
                rng.choice(WRONG)
            )
        elif kind == "surrogate" and isinstance(parent[key], str):
            parent[key] += rng.choice(["\ud800", "\udcff", "\ud83d"])
        else:
            kind, parent[key] = "wrong", copy.deepcopy(rng.choice(WRONG))
        done.append(f"{kind} {'.'.join(map(str, where))}")
    return value, done


@tool
def add(a: float, b: float) -> float:
    """Add two numbers.

    Args:
        a: the first number
        b: the second number
    """
    return a + b


# --- cassettes -----------------------------------------------------------------------------------


def a_cassette() -> dict:
    """a run with a tool call, then a streamed turn, then a Responses turn, as Trace.save() writes them"""
    client = mock.client(mock.Calculator())
    run_agent(client, "What is 4 + 2?", [add])
    for _ in client.chat.completions.create(
        model="mock-model", messages=[{"role": "user", "content": "hi"}], stream=True
    ):
        pass
    client.responses.create(model="mock-model", input="What is 1 + 1?")
    return json.loads(client.trace.to_json())


def test_generated_broken_cassettes_are_refused_in_one_line_or_replayed(tmp_path, capsys):
    rng = random.Random(SEED)
    cassette = a_cassette()
    path = tmp_path / "broken.json"
    failures, refused = [], 0
    for number in range(400):
        changed, done = broken(cassette, rng, rng.choice([1, 1, 2, 3]))
        path.write_bytes(json.dumps(changed, ensure_ascii=False).encode("utf-8", "surrogatepass"))
        try:
            refused += refused_in_one_line_or_replayed(path, capsys)
        except Exception as error:  # collected, so one run shows every kind of failure
            failures.append(f"{number} ({'; '.join(done)}): {type(error).__name__}: {error}"[:300])
    assert not failures, f"{len(failures)} of 400:\n" + "\n".join(failures[:20])
    assert 50 < refused < 400  # the generator does make broken cassettes, and not only those


def refused_in_one_line_or_replayed(path, capsys) -> bool:
    """True if `agent-core replay` refuses the cassette in one line; False if it shows it, and the
    agent run it recorded replays to an end or to the API's error"""
    status = cli.main(["replay", str(path)])
    out, err = capsys.readouterr()
    if status == 2:
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("agent-core replay: cannot read the cassette"), err
        assert not python_text_in(lines[0]), lines[0]
        with pytest.raises(CassetteError):
            Replay.load(path)
        return True
    assert status == 0 and out and not err, err
    replay = Replay.load(path)
    for turn in replay.turns:
        body = json.dumps(turn.request).encode() if turn.request is not None else b""
        answered, _, content = replay.respond(turn.method, urlsplit(turn.url).path, body)
        assert isinstance(content, bytes) and 100 <= answered <= 599
    try:
        run = run_agent(replay_client(path, max_retries=0), "What is 4 + 2?", [add], max_turns=3)
    except openai.APIStatusError as error:  # the replay's 400 (the run asked otherwise), or a recorded error
        assert not python_text_in(error.message), error.message
    else:
        assert isinstance(run.stop_reason, str)
    return False


def test_a_lone_surrogate_in_a_cassette_is_shown_and_replayed(tmp_path, capsys):
    cassette = a_cassette()
    turn = cassette["turns"][0]
    turn["request"]["messages"][0]["content"] = "What is 4 + 2?\ud800"
    turn["response"]["choices"][0]["message"]["content"] = "\udcff"
    path = tmp_path / "surrogate.json"
    path.write_text(json.dumps(cassette))  # ASCII: the surrogates as JSON escapes, as a person writes them
    assert cli.main(["replay", str(path)]) == 0
    out, err = capsys.readouterr()
    assert not err and "What is 4 + 2?\\ud800" in out
    replay = Replay.load(path)  # the surrogates are read as their escapes, as the mock reads a request's
    request = json.dumps(replay.turns[0].request).encode()
    status, _, content = replay.respond("POST", "/v1/chat/completions", request)
    assert status == 200 and json.loads(content)["choices"][0]["message"]["content"] == "\\udcff"


def test_a_turn_whose_response_is_not_a_completion_is_refused_naming_the_turn_and_the_field(tmp_path):
    cassette = a_cassette()
    cassette["turns"][1]["response"] = {"foo": 1}
    path = tmp_path / "foo.json"
    path.write_text(json.dumps(cassette))
    with pytest.raises(CassetteError, match=r'turn 2: the response has no "choices"'):
        Replay.load(path)


def test_a_notebook_is_not_a_cassette(tmp_path, capsys):
    path = tmp_path / "lesson.ipynb"
    path.write_text(json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    assert cli.main(["replay", str(path)]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "it is a Jupyter notebook, not a cassette" in line and "version" in line
    path.write_text(json.dumps({"name": "package.json"}))
    assert cli.main(["replay", str(path)]) == 2
    assert "it is not a cassette" in capsys.readouterr().err


# --- requests ------------------------------------------------------------------------------------

TOOL_PARAMETERS = {"type": "object", "properties": {"a": {"type": "number"}}, "required": ["a"]}
REQUESTS = {
    "/v1/chat/completions": {
        "model": "mock-model",
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": [{"type": "text", "text": "What is 4 + 2?"}]},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "call_1", "type": "function", "function": {"name": "add", "arguments": '{"a": 4}'}}
                ],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": "6"},
        ],
        "tools": [{"type": "function", "function": {"name": "add", "parameters": TOOL_PARAMETERS}}],
        "tool_choice": "auto",
        "temperature": 0.5,
        "stream": False,
        "response_format": {"type": "text"},
    },
    "/v1/responses": {
        "model": "mock-model",
        "instructions": "Be brief.",
        "input": [
            {"role": "user", "content": [{"type": "input_text", "text": "What is 4 + 2?"}]},
            {"type": "function_call", "call_id": "call_1", "name": "add", "arguments": '{"a": 4}'},
            {"type": "function_call_output", "call_id": "call_1", "output": "6"},
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "6"}]},
            {"role": "user", "content": "Thanks"},
        ],
        "tools": [{"type": "function", "name": "add", "parameters": TOOL_PARAMETERS}],
        "text": {"format": {"type": "text"}},
        "max_output_tokens": 100,
    },
    "/v1/messages": {
        "model": "mock-model",
        "max_tokens": 100,
        "system": [{"type": "text", "text": "Be brief."}],
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "What is 4 + 2?"}]},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t1", "name": "add", "input": {"a": 4}}],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": "6"}]}
                ],
            },
        ],
        "tools": [{"name": "add", "input_schema": TOOL_PARAMETERS}],
        "tool_choice": {"type": "auto"},
    },
    "/v1/messages/count_tokens": {
        "model": "mock-model",
        "system": "Be brief.",
        "messages": [{"role": "user", "content": "What is 4 + 2?"}],
        "tools": [{"name": "add", "description": "Add.", "input_schema": TOOL_PARAMETERS}],
    },
}


@pytest.mark.parametrize("path", list(REQUESTS))
def test_the_unbroken_requests_are_answered(path):
    status, _, content = MockModel().respond("POST", path, json.dumps(REQUESTS[path]).encode())
    assert status == 200, content


@pytest.mark.parametrize("path", list(REQUESTS))
def test_generated_broken_requests_get_the_apis_400_never_a_python_error(path):
    rng = random.Random(f"{SEED} {path}")
    failures, refused = [], 0
    for number in range(300):
        body, done = broken(REQUESTS[path], rng, rng.choice([1, 1, 2, 3]))
        sent = json.dumps(body, ensure_ascii=False).encode("utf-8", "surrogatepass")
        model = MockModel(mock.Calculator() if number % 2 else None)
        try:
            status, headers, content = model.respond("POST", path, sent)
            if status != 200:
                refused += 1
                assert 400 <= status <= 499 and headers["content-type"] == "application/json", status
                message = json.loads(content)["error"]["message"]
                assert isinstance(message, str) and message.strip()
                assert not python_text_in(message), message
        except Exception as error:  # collected, so one run shows every kind of failure
            failures.append(f"{number} ({'; '.join(done)}): {type(error).__name__}: {error}"[:300])
    assert not failures, f"{len(failures)} of 300:\n" + "\n".join(failures[:20])
    assert 50 < refused < 300


@pytest.mark.parametrize(
    ("path", "body", "words"),
    [
        (
            "/v1/responses",
            {"model": "m", "input": [{"role": "user", "content": [{"type": "input_text"}]}]},
            "Missing required parameter: 'input[0].content[0].text'.",
        ),
        (
            "/v1/messages",
            {"model": "m", "max_tokens": 9, "messages": [{"role": "user", "content": [{"type": "text"}]}]},
            "messages.0.content.0.text.text: Field required",
        ),
        (
            "/v1/messages/count_tokens",
            {"model": "m", "messages": [{"role": "user", "content": [{"type": "text"}]}]},
            "messages.0.content.0.text.text: Field required",
        ),
        (
            "/v1/chat/completions",
            {"model": "m", "messages": [{"role": "user", "content": 7}]},
            "Invalid type for 'messages[0].content': expected one of a string or array of objects, but got "
            "an integer instead.",
        ),
        (
            "/v1/responses",
            {"model": "m", "input": [{"role": "user", "content": 7}]},
            "but got an integer instead.",
        ),
    ],
)
def test_a_part_without_its_text_or_an_integer_content_gets_the_apis_own_words(path, body, words):
    status, _, content = MockModel().respond("POST", path, json.dumps(body).encode())
    assert status == 400
    assert words in json.loads(content)["error"]["message"]
