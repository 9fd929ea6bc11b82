"""Broken cassettes: `agent-core replay` and `serve-mock --cassette` say what is wrong in one line and exit 2."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agent_core import cli, mock
from agent_core.replay import Replay
from agent_core.trace import recorded

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
        '{"version": 1, "turns": [{"index": 0, "url": "http://x/v1/chat/completions", "request": '
        + deep(500)
        + ', "status": 200, "response": {}}]}',
        "nested 503 levels deep",
    ),
    "not JSON": ("hello", "it is not JSON"),
    "not UTF-8": ("\udcff", "not UTF-8"),
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


def test_serve_mock_refuses_a_broken_cassette_before_listening(broken):
    path, words = broken
    done = subprocess.run(
        [COMMAND, "serve-mock", "--port", "0", "--cassette", str(path)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2
    line = one_line(done.stderr)
    assert line.startswith(f"agent-core serve-mock: cannot read the cassette {str(path)!r}: ")
    assert words in line
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
    client = recorded(mock.client(mock.Script("hello")))
    client.chat.completions.create(model="mock-model", messages=[{"role": "user", "content": "hi"}])
    client.trace.save(path)
    assert json.loads(path.read_text())["version"] == 1
    replay = Replay.load(path)
    assert replay.remaining == 1
    status, _, body = replay.respond("POST", "/v1/chat/completions", json.dumps(client.trace[0].request).encode())
    assert status == 200
    assert json.loads(body)["choices"][0]["message"]["content"] == "hello"
