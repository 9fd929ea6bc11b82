"""The mock model through the real openai SDK: types, usage, determinism, streaming, policies."""

import json

import openai
import pytest
from calculator_tools import ADD_TOOL
from openai.types.chat import ChatCompletion

from agent_core import mock
from agent_core.mock.model import CREATED, MODELS
from agent_core.tokens import count_request, count_text

ADD = ADD_TOOL
HELLO = [{"role": "user", "content": "Hello!"}]


def create(client, messages=HELLO, **kwargs):
    return client.chat.completions.create(model="mock-model", messages=messages, **kwargs)


def test_client_is_a_real_openai_client():
    assert isinstance(mock.client(), openai.OpenAI)


def test_default_policy_answers_with_deterministic_text():
    response = create(mock.client())
    assert isinstance(response, ChatCompletion)
    assert response.choices[0].finish_reason == "stop"
    assert "I received 1 message(s)" in response.choices[0].message.content
    assert response.usage.prompt_tokens == count_request(HELLO)
    assert response.usage.total_tokens == response.usage.prompt_tokens + response.usage.completion_tokens


def test_two_runs_give_byte_identical_responses():
    first, second = mock.client(), mock.client()
    create(first)
    create(second)
    assert json.dumps(first.trace[0].response) == json.dumps(second.trace[0].response)
    assert first.trace[0].response["id"].startswith("chatcmpl-")
    assert first.trace[0].response["created"] == CREATED


def test_token_counts_come_from_the_cl100k_tokenizer():
    assert count_text("hello world") == 2  # cl100k_base: "hello", " world"
    assert count_text("tiktoken is great!") == 6
    # 3 framing tokens per message + role + content, + 3 to prime the reply
    assert count_request([{"role": "user", "content": "hello world"}]) == 3 + 1 + 2 + 3


def test_script_replies_in_order_with_parallel_tool_calls():
    script = mock.Script(
        [mock.call("add", a=4, b=2), mock.call("add", a=7, b=8)],
        "4 + 2 = 6 and 7 + 8 = 15",
    )
    client = mock.client(script)
    first = create(client, tools=[ADD])
    calls = first.choices[0].message.tool_calls
    assert first.choices[0].finish_reason == "tool_calls"
    assert [c.function.name for c in calls] == ["add", "add"]
    assert [json.loads(c.function.arguments) for c in calls] == [{"a": 4, "b": 2}, {"a": 7, "b": 8}]
    assert all(c.id.startswith("call_") for c in calls) and calls[0].id != calls[1].id
    history = HELLO + [
        {"role": "assistant", "content": None, "tool_calls": [c.model_dump(exclude_none=True) for c in calls]},
        {"role": "tool", "tool_call_id": calls[0].id, "content": "6"},
        {"role": "tool", "tool_call_id": calls[1].id, "content": "15"},
    ]
    second = create(client, messages=history, tools=[ADD])
    assert second.choices[0].message.content == "4 + 2 = 6 and 7 + 8 = 15"


def test_an_exhausted_script_says_so():
    client = mock.client(mock.Script("only one"))
    create(client)
    with pytest.raises(openai.InternalServerError, match="all were used"):
        create(client)


def test_a_misbehaving_policy_can_send_broken_arguments_and_unknown_tools():
    client = mock.client(mock.Script([mock.call("no_such_tool", '{"a": 1,'), mock.call("add", a=1)]))
    calls = create(client, tools=[ADD]).choices[0].message.tool_calls
    assert calls[0].function.name == "no_such_tool"
    assert calls[0].function.arguments == '{"a": 1,'


def test_a_plain_function_is_a_policy():
    client = mock.client(lambda request: f"you sent {len(request['messages'])} messages")
    assert create(client).choices[0].message.content == "you sent 1 messages"


def test_streaming_sends_server_sent_events_that_add_up_to_the_same_reply():
    script = mock.Script("The answer is 42, of course.", "The answer is 42, of course.")
    client = mock.client(script)
    plain = create(client)
    chunks = list(create(client, stream=True, stream_options={"include_usage": True}))
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert len(chunks) > 3
    assert text == plain.choices[0].message.content
    assert chunks[-1].usage.total_tokens == plain.usage.total_tokens
    assert client.trace[1].stream and client.trace[1].reply["content"] == text


def test_streamed_tool_calls_reassemble():
    client = mock.client(mock.Script([mock.call("add", a=123456789, b=987654321)]))
    stream = create(client, tools=[ADD], stream=True)
    arguments = "".join(
        c.choices[0].delta.tool_calls[0].function.arguments or ""
        for c in stream
        if c.choices and c.choices[0].delta.tool_calls
    )
    assert json.loads(arguments) == {"a": 123456789, "b": 987654321}
    assert client.trace[0].reply["tool_calls"][0]["function"]["arguments"] == arguments


def test_models_endpoint_lists_the_mock_model():
    assert [m.id for m in mock.client().models.list()] == list(MODELS)
