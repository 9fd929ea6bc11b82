"""Broken cassettes: `agent-core replay` and `serve-mock --cassette` say what is wrong in one line and exit
2."""

import copy
import json
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from agent_core import cli, mock
from agent_core.loop import run_agent
from agent_core.render import trace_html
from agent_core.replay import CassetteError, Replay
from agent_core.schema import tool
from agent_core.trace import Trace

COMMAND = str(Path(sys.executable).parent / "agent-core")


def deep(levels: int) -> str:
    return "[" * levels + "]" * levels


BROKEN = {
    "a list": ("[]", "a cassette is a JSON object"),
    "turns null": ('{"version": 1, "turns": null}', '"turns" is null'),
    "a turn that is a number": ('{"version": 1, "turns": [1]}', "turn 1 is a number"),
    "a turn without a url": (
        '{"version": 1, "turns": [{"index": 0, "request": {}, "status": 200, "response": {}}]}',
        'turn 1 has no "url"',
    ),
    "a status that is text": (
        '{"version": 1, "turns": [{"index": 0, "url": "http://x/v1/chat/completions", "request": {},'
        ' "status": "200", "response": {}}]}',
        '"status" is a string',
    ),
    "nested 100,000 deep": (deep(100_000), "nested too deeply"),
    "a request nested 500 deep": (
        '{"version": 1, "turns": [{"index": 0, "url": "http://x/v1/chat/completions", "request": {"x": '
        + deep(500)
        + '}, "status": 200, "response": {}}]}',
        "nested 504 levels deep",
    ),
    "not JSON": ("hello", "it is not JSON"),
    "not UTF-8": ("\udcff", "not UTF-8"),
    "an empty file": ("", "it is not JSON"),
    "a status out of range": (
        '{"version": 1, "turns": [{"index": 0, "url": "http://x/v1/chat/completions", "request": {},'
        ' "status": 99999, "response": {}}]}',
        "not an HTTP status",
    ),
    "messages that are a string": (
        '{"version": 1, "turns": [{"index": 0, "url": "http://x/v1/chat/completions", "request":'
        ' {"messages": "hi"}, "status": 200, "response": {}}]}',
        "request.messages is a string, not a list",
    ),
    "a streamed turn without its id": (
        '{"version": 1, "turns": [{"index": 0, "url": "http://x/v1/chat/completions", "request": {},'
        ' "stream": true, "status": 200, "response": {"choices": []}}]}',
        'streamed response cannot be sent again: it has no "id"',
    ),
}


@pytest.fixture(params=list(BROKEN))
def broken(request, tmp_path):
    text, words = BROKEN[request.param]
    path = tmp_path / "broken.json"
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    return path, words


def one_line(err: str) -> str:
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def test_replay_says_what_is_wrong_with_a_broken_cassette(broken, capsys):
    path, words = broken
    assert cli.main(["replay", str(path)]) == 2
    line = one_line(capsys.readouterr().err)
    assert line.startswith(f"agent-core replay: cannot read the cassette {str(path)!r}: ")
    assert words in line


def test_serve_mock_refuses_a_broken_cassette_before_listening(broken, capsys, monkeypatch):
    path, words = broken

    def listen(**options):
        raise AssertionError(f"serve-mock went on to listen with the broken cassette {path.name}")

    monkeypatch.setattr("agent_core.mock.server.run", listen)
    assert cli.main(["serve-mock", "--port", "0", "--cassette", str(path)]) == 2
    line = one_line(capsys.readouterr().err)
    assert line.startswith(f"agent-core serve-mock: cannot read the cassette {str(path)!r}: ")
    assert words in line


def test_the_real_serve_mock_command_exits_2_on_a_broken_cassette_without_serving(tmp_path):
    path = tmp_path / "streamed.json"
    path.write_text(BROKEN["a streamed turn without its id"][0])
    done = subprocess.run(
        [COMMAND, "serve-mock", "--port", "0", "--cassette", str(path)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2
    line = one_line(done.stderr)
    assert line.startswith(f"agent-core serve-mock: cannot read the cassette {str(path)!r}: ")
    assert "streamed response cannot be sent again" in line
    assert "serving" not in done.stdout


def test_the_real_command_exits_2_on_a_cassette_nested_too_deeply(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text(deep(100_000))
    done = subprocess.run([COMMAND, "replay", str(path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "nested too deeply" in one_line(done.stderr)


def test_a_missing_cassette_is_one_line_too(tmp_path, capsys):
    assert cli.main(["replay", str(tmp_path / "nowhere.json")]) == 2
    assert "No such file or directory" in one_line(capsys.readouterr().err)


def test_a_recorded_cassette_still_loads_and_replays(tmp_path):
    path = tmp_path / "good.json"
    client = mock.client(mock.Script("hello"))
    client.chat.completions.create(model="mock-model", messages=[{"role": "user", "content": "hi"}])
    client.trace.save(path)
    assert json.loads(path.read_text())["version"] == 1
    replay = Replay.load(path)
    assert replay.remaining == 1
    status, _, body = replay.respond(
        "POST", "/v1/chat/completions", json.dumps(client.trace[0].request).encode()
    )
    assert status == 200
    assert json.loads(body)["choices"][0]["message"]["content"] == "hello"


# --- every field of a real cassette, broken every way ------------------------------------------


def a_real_cassette() -> dict:
    """two turns of the calculator with a tool call, then a streamed turn, as Trace.save() writes them"""
    client = mock.client(mock.Calculator())
    run_agent(client, "What is 4 + 2?", [add])
    stream = client.chat.completions.create(
        model="mock-model",
        messages=[{"role": "user", "content": "hi"}],
        stream=True,
        stream_options={"include_usage": True},
    )
    for _ in stream:
        pass
    return client.trace.to_dict(timings=True)


@tool
def add(a: float, b: float) -> float:
    """Add two numbers.

    Args:
        a: the first number
        b: the second number
    """
    return a + b


WRONG_VALUES = [None, True, -1, "x", [], {}]


def paths(value, where=()):
    """every place in a JSON value, as a tuple of keys and indexes"""
    yield where
    children = (
        value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    )
    for key, child in children:
        yield from paths(child, (*where, key))


def mutants(cassette: dict):
    """the cassette with one place changed to a wrong value, or removed; one place stands for all
    the list items it shares a path with, across turns too (turns[0].request.messages[0] and
    turns[1].request.messages[3] alike): a field that only one turn has, such as the streamed
    turn's chunks, is still broken there"""
    seen = set()
    for where in paths(cassette):
        shape = tuple("*" if isinstance(key, int) else key for key in where)
        if not where or shape in seen:
            continue
        seen.add(shape)
        for wrong in [*WRONG_VALUES, REMOVED]:
            broken = copy.deepcopy(cassette)
            parent = broken
            for key in where[:-1]:
                parent = parent[key]
            if wrong is REMOVED:
                del parent[where[-1]]
            else:
                parent[where[-1]] = copy.deepcopy(wrong)
            yield ".".join(map(str, where)), wrong, broken


REMOVED = object()


def test_every_field_of_a_cassette_broken_every_way_replays_or_is_refused_in_one_line(tmp_path, capsys):
    cassette = a_real_cassette()
    requests = [json.dumps(turn["request"]).encode() for turn in cassette["turns"]]
    path = tmp_path / "mutant.json"
    tried = refused = 0
    failures = []
    for where, wrong, broken in mutants(cassette):
        tried += 1
        path.write_text(json.dumps(broken))
        label = f"{where} = {'(removed)' if wrong is REMOVED else json.dumps(wrong)}"
        try:
            refused += replays_or_is_refused(path, requests, capsys)
        except Exception as error:  # collected, so that one run shows every kind of failure
            failures.append(f"{label}: {type(error).__name__}: {error}"[:300])
    assert not failures, f"{len(failures)} of {tried} broken cassettes:\n" + "\n".join(failures[:30])
    assert tried > 400 and 0 < refused < tried


def replays_or_is_refused(path, requests, capsys) -> bool:
    """True if the cassette is refused in one line, False if it is shown and replayed"""
    status = cli.main(["replay", str(path)])
    out, err = capsys.readouterr()
    if status == 2:
        line = one_line(err)
        assert line.startswith(f"agent-core replay: cannot read the cassette {str(path)!r}: "), line
        with pytest.raises(CassetteError):
            Replay.load(path)
        return True
    assert status == 0 and not err and out, err
    trace_html(Trace.load(path))  # the notebook's view (its plain-text copy is what the command printed)
    replay = Replay.load(path)
    for turn, body in zip(replay.turns, requests, strict=False):
        answer, headers, content = replay.respond(turn.method, urlsplit(turn.url).path, body)
        assert 100 <= answer <= 599 and isinstance(content, bytes)
    return False
