"""Cassettes: a run recorded over a real socket replays offline to the identical trace, or refuses clearly."""

import json
from contextlib import contextmanager

import openai
import pytest
from calculator_tools import add, divide

from agent_core import cli, mock, replay
from agent_core.loop import run_agent
from agent_core.mock.server import serve
from agent_core.providers import client_from_env
from agent_core.replay import MISSING, Replay, first_difference
from agent_core.trace import Trace

HELLO = [{"role": "user", "content": "hi"}]


@contextmanager
def sdk(base_url):
    """a real SDK client recording its calls in client.trace, closed (with its sockets) on exit"""
    with client_from_env(
        {"AGENT_CORE_BASE_URL": base_url, "AGENT_CORE_API_KEY": "x"}, max_retries=0
    ) as client:
        yield client


@pytest.fixture(scope="module")
def cassette(tmp_path_factory):
    """a Calculator run recorded over the mock's HTTP server, saved as a cassette file"""
    with serve(mock.Calculator()) as server, sdk(server.base_url) as client:
        run_agent(client, "5 + 8/12", [add, divide])
        return client.trace.save(tmp_path_factory.mktemp("cassettes") / "calculator.json")


def test_a_recorded_run_replays_to_the_identical_trace(cassette):
    client = replay.client(cassette)
    run = run_agent(client, "5 + 8/12", [add, divide])
    assert run.answer == "5 + 8/12 = 5.666666666666667"
    assert client.trace.to_dict(timings=False) == Trace.load(cassette).to_dict(timings=False)


def test_the_replay_answers_with_the_recorded_ids(cassette):
    recorded_ids = [t.response["id"] for t in Trace.load(cassette)]
    run = run_agent(replay.client(cassette), "5 + 8/12", [add, divide])
    assert [t.response["id"] for t in run.trace] == recorded_ids
    assert run.messages[1]["tool_calls"][0]["id"] == Trace.load(cassette)[0].reply["tool_calls"][0]["id"]


def test_a_changed_request_is_refused_with_the_difference(cassette):
    client = replay.client(cassette)
    with pytest.raises(openai.BadRequestError) as caught:
        run_agent(client, "5 + 9/12", [add, divide])
    message = caught.value.message
    assert caught.value.code == "replay_mismatch" and caught.value.param == "messages[0].content"
    assert "differs from turn 1 of the cassette (trace[0]) at messages[0].content" in message
    assert 'recorded: "5 + 8/12"' in message and 'received: "5 + 9/12"' in message
    assert client.replay.position == 0  # a refused request uses up no turn
    assert run_agent(client, "5 + 8/12", [add, divide]).stop_reason == "answered"


def test_a_missing_tool_is_refused_at_the_tools_list(cassette):
    with pytest.raises(openai.BadRequestError) as caught:
        run_agent(replay.client(cassette), "5 + 8/12", [add])
    assert "at tools[1]:" in caught.value.message
    assert "received: (absent)" in caught.value.message


def test_running_out_of_turns_is_a_clear_error(cassette):
    client = replay.client(cassette)
    run_agent(client, "5 + 8/12", [add, divide])
    with pytest.raises(openai.BadRequestError) as caught:
        run_agent(client, "5 + 8/12", [add, divide])
    assert caught.value.code == "cassette_exhausted"
    assert (
        "The cassette has 3 turn(s) and all were replayed; this request would be turn 4."
        in caught.value.message
    )
    client.replay.reset()
    assert run_agent(client, "5 + 8/12", [add, divide]).model_calls == 3


def test_a_streamed_turn_replays_as_a_stream_with_the_same_reply(tmp_path):
    with serve(mock.Calculator()) as server, sdk(server.base_url) as client:
        chunks = list(
            client.chat.completions.create(
                model="mock-model",
                messages=[{"role": "user", "content": "4+2"}],
                stream=True,
                stream_options={"include_usage": True},
            )
        )
        client.trace.save(tmp_path / "stream.json")
    again = replay.client(tmp_path / "stream.json")
    replayed = list(
        again.chat.completions.create(
            model="mock-model",
            messages=[{"role": "user", "content": "4+2"}],
            stream=True,
            stream_options={"include_usage": True},
        )
    )
    assert again.trace[0].stream
    assert again.trace.to_dict(timings=False) == Trace.load(tmp_path / "stream.json").to_dict(timings=False)
    assert [c.model_dump() for c in replayed] == [c.model_dump() for c in chunks]


def test_a_recorded_error_replays_as_the_same_error():
    trace = Trace()
    client = mock.client(trace=trace)
    with pytest.raises(openai.BadRequestError) as original:
        client.chat.completions.create(model="mock-model", messages=[])
    with pytest.raises(openai.BadRequestError) as replayed:
        replay.client(trace).chat.completions.create(model="mock-model", messages=[])
    assert replayed.value.body == original.value.body


def test_a_cassette_can_be_served_over_http(cassette):
    with serve(Replay.load(cassette)) as server, sdk(server.base_url) as client:
        run = run_agent(client, "5 + 8/12", [add, divide])
    assert [t.response for t in run.trace] == [t.response for t in Trace.load(cassette)]


def test_the_replay_knows_the_recorded_model_and_base_url(cassette):
    replayed = Replay.load(cassette)
    assert replayed.model == "mock-model"
    assert replayed.base_url.startswith("http://127.0.0.1:") and replayed.base_url.endswith("/v1")
    assert replayed.remaining == 3


def test_first_difference_names_the_path_and_both_values():
    recorded_body = {"model": "m", "messages": [{"role": "user", "content": "a"}], "tools": [1, 2]}
    assert first_difference(recorded_body, json.loads(json.dumps(recorded_body))) is None
    changed = {"model": "m", "messages": [{"role": "user", "content": "b"}], "tools": [1, 2]}
    assert first_difference(recorded_body, changed) == ("messages[0].content", "a", "b")
    assert first_difference(recorded_body, {**recorded_body, "tools": [1]}) == (
        "tools[1]",
        2,
        MISSING,
    )
    assert first_difference({"a": 1}, {"a": 1, "b": 2}) == ("b", MISSING, 2)
    assert first_difference({"n": 1}, {"n": 1.0}) == ("n", 1, 1.0)
    assert first_difference({"n": 1}, {"n": True}) == ("n", 1, True)


def test_the_replay_command_prints_the_recorded_turns(cassette, capsys):
    assert cli.main(["replay", str(cassette)]) == 0
    shown = capsys.readouterr().out
    assert "Turn 1 of 3" in shown and "Turn 3 of 3" in shown and "divide" in shown


def test_the_replay_command_prints_the_raw_json(cassette, capsys):
    assert cli.main(["replay", str(cassette), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == Trace.load(cassette).to_dict(timings=False)


def test_the_replay_command_explains_a_missing_cassette(tmp_path, capsys):
    assert cli.main(["replay", str(tmp_path / "nowhere.json")]) == 2
    assert "cannot read the cassette" in capsys.readouterr().err
