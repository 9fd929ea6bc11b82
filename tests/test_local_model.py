"""Lesson 08's real-model path against a real local server: llama-cpp-python's, with Gemma 3 270M
(tools/local_model.py). Opt-in: it needs the server built and takes about half a minute."""

import os
import sys
import time
from pathlib import Path

import openai
import pytest

from agent_core.providers import client_from_env

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))  # tools/ holds scripts
import local_model  # noqa: E402

ENABLE = (
    "set AGENT_CORE_LOCAL_MODEL=1 after `python tools/local_model.py build` (compiles llama-cpp-python "
    "into build/local-model/, several minutes, once)"
)


@pytest.fixture(scope="module")
def server():
    if not os.environ.get("AGENT_CORE_LOCAL_MODEL"):
        pytest.skip(f"the local model is opt-in: {ENABLE}")
    if not (local_model.built() and local_model.MODEL_FILE.exists()):
        pytest.skip(f"the local server is not built: {ENABLE}")
    with local_model.running_server() as running:
        yield running


@pytest.fixture
def client(server):
    with client_from_env(server.env, max_retries=0) as opened:  # a 500 shows at once, not after retries
        yield opened


def test_plain_chat_answers_through_client_from_env(server, client):
    started = time.monotonic()
    reply = local_model.chat(client, server.env["AGENT_CORE_MODEL"])
    assert time.monotonic() - started < 60
    assert isinstance(reply.choices[0].message.content, str) and reply.choices[0].message.content
    assert reply.usage.completion_tokens <= local_model.CAP


def test_a_tool_round_trip_sends_the_history_back_without_a_server_error(server, client):
    model = server.env["AGENT_CORE_MODEL"]
    messages, reply = local_model.tool_round_trip(client, model)
    asked, answered = messages[1], messages[2]
    assert asked["content"] == "" and asked["tool_calls"][0]["function"]["name"] == "divide"
    assert answered["role"] == "tool" and answered["tool_call_id"] == asked["tool_calls"][0]["id"]
    assert [turn.status for turn in client.trace] == [200, 200]
    assert reply.choices[0].finish_reason in ("stop", "length")
    with pytest.raises(openai.InternalServerError):  # what it did before: content null answers 500
        client.chat.completions.create(
            model=model, messages=[messages[0], {**asked, "content": None}, answered], max_tokens=8
        )


def test_a_run_sends_the_default_output_cap_when_none_is_given(server, client):
    from agent_core._shared import DEFAULT_MAX_TOKENS
    from agent_core.loop import run_agent

    run = run_agent(client, "Say hello.", model=server.env["AGENT_CORE_MODEL"], temperature=0)
    assert run.trace[0].request["max_tokens"] == DEFAULT_MAX_TOKENS and run.trace[0].status == 200
    assert run.stop_reason in ("answered", "output_cap", "empty_answer")  # each a named ending, no crash


def test_a_runaway_answer_is_stopped_by_the_output_cap(server, client):
    run = local_model.runaway(client, server.env["AGENT_CORE_MODEL"])
    assert run.stop_reason == "output_cap" and run.model_calls == 1
    assert run.trace[-1].finish_reason == "length"
    assert run.trace[-1].response["usage"]["completion_tokens"] == local_model.CAP
    assert run.trace[-1].request["max_tokens"] == local_model.CAP
    assert run.elapsed < 60


def test_a_tool_call_written_as_text_is_an_answer_not_a_call(server, client):
    run = local_model.call_written_as_text(client, server.env["AGENT_CORE_MODEL"])
    assert run.tool_calls_made == 0 and run.model_calls == 1
    assert '"name": "divide"' in run.answer
