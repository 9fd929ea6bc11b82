"""The recording transport and the Trace: exact JSON per call, new messages, cassettes."""

import json

import httpx2
import openai

from agent_core import mock
from agent_core.trace import RecordingHTTPTransport, Trace

QUESTION = [{"role": "user", "content": "What is 4 + 2?"}]


def two_turn_client():
    return mock.client(mock.Script(mock.call("add", a=4, b=2), "4 + 2 = 6"))


def run_two_turns(client):
    first = client.chat.completions.create(model="mock-model", messages=QUESTION)
    call = first.choices[0].message.tool_calls[0]
    history = QUESTION + [
        {"role": "assistant", "content": None, "tool_calls": [call.model_dump(exclude_none=True)]},
        {"role": "tool", "tool_call_id": call.id, "content": "6"},
    ]
    client.chat.completions.create(model="mock-model", messages=history)
    return history


def test_each_call_records_the_exact_request_and_response_json():
    client = two_turn_client()
    run_two_turns(client)
    trace = client.trace
    assert len(trace) == 2
    assert trace[0].request == {"model": "mock-model", "messages": QUESTION}
    assert trace[0].method == "POST" and trace[0].url.endswith("/chat/completions")
    assert trace[0].status == 200 and trace[0].finish_reason == "tool_calls"
    assert trace[1].reply["content"] == "4 + 2 = 6"
    assert trace[1].usage["prompt_tokens"] > trace[0].usage["prompt_tokens"]
    assert trace.total_usage()["total_tokens"] == sum(t.usage["total_tokens"] for t in trace)


def test_new_messages_are_those_the_previous_call_did_not_send():
    client = two_turn_client()
    history = run_two_turns(client)
    assert client.trace.new_messages(0) == QUESTION
    assert client.trace.new_messages(1) == history[1:]


def test_a_slice_knows_which_messages_its_first_turn_added():
    client = two_turn_client()
    history = run_two_turns(client)
    later = client.trace.since(1)
    assert len(later) == 1 and later[0] is client.trace[1]
    assert later.new_messages(0) == history[1:]  # not the question, which turn 0 already sent
    assert client.trace.since(-1).new_messages(0) == history[1:]
    assert client.trace.since(0).new_messages(0) == QUESTION
    assert len(client.trace.since(5)) == 0


def test_a_cassette_round_trips(tmp_path):
    client = two_turn_client()
    run_two_turns(client)
    path = client.trace.save(tmp_path / "run.json")
    loaded = Trace.load(path)
    assert loaded.to_dict() == client.trace.to_dict()
    assert "mock-key" not in path.read_text()  # headers, and so keys, are never recorded


def test_to_json_without_timings_is_identical_across_runs():
    first, second = two_turn_client(), two_turn_client()
    run_two_turns(first)
    run_two_turns(second)
    assert first.trace.to_json(timings=False) == second.trace.to_json(timings=False)


def test_recording_wraps_any_transport():
    def server(request):
        return httpx2.Response(200, json={"echo": json.loads(request.content)})

    transport = RecordingHTTPTransport(httpx2.MockTransport(server))
    with httpx2.Client(transport=transport) as http:
        http.post("http://example.invalid/anything", json={"x": 1})
    assert transport.trace[0].request == {"x": 1}
    assert transport.trace[0].response == {"echo": {"x": 1}}


def test_a_real_client_records_through_the_http_client_it_is_given():
    trace = Trace()
    http_client = httpx2.Client(
        transport=RecordingHTTPTransport(mock.transport(mock.Script("recorded")), trace)
    )
    with openai.OpenAI(api_key="sk-test", base_url=mock.BASE_URL, http_client=http_client) as client:
        client.chat.completions.create(model="mock-model", messages=QUESTION)
    assert [turn.reply["content"] for turn in trace] == ["recorded"]
    assert trace[0].request["messages"] == QUESTION and "sk-test" not in trace.to_json()
