"""The mock model through the real openai SDK: types, usage, determinism, streaming, policies."""

import json

import httpx2
import openai
import pytest
from calculator_tools import ADD_TOOL
from openai.types.chat import ChatCompletion

from agent_core import mock
from agent_core.mock.model import CREATED, MODELS
from agent_core.mock.server import serve
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
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [c.model_dump(exclude_none=True) for c in calls],
        },
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


def test_the_anthropic_sdk_runs_on_the_mock_in_process():
    client = mock.anthropic_client(mock.Calculator())
    tools = [
        {"name": "add", "description": "Add two numbers.", "input_schema": ADD["function"]["parameters"]}
    ]
    messages = [{"role": "user", "content": "What is 2 + 3?"}]
    first = client.messages.create(model="mock-model", max_tokens=200, messages=messages, tools=tools)
    assert first.stop_reason == "tool_use"
    (use,) = first.content
    assert (use.name, use.input) == ("add", {"a": 2, "b": 3})
    messages += [
        {"role": "assistant", "content": [use.model_dump(include={"type", "id", "name", "input"})]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use.id, "content": "5"}]},
    ]
    final = client.messages.create(model="mock-model", max_tokens=200, messages=messages, tools=tools)
    assert final.stop_reason == "end_turn"
    assert "5" in final.content[0].text
    assert [turn.url for turn in client.trace] == [mock.ANTHROPIC_BASE_URL + "/v1/messages"] * 2
    counted = client.messages.count_tokens(model="mock-model", messages=messages, tools=tools)
    assert counted.input_tokens == client.trace[1].response["usage"]["input_tokens"]


# one request per endpoint, each sent in process and over HTTP to fresh models
ENDPOINT_REQUESTS = [
    ("POST", "/v1/chat/completions", {"model": "m", "messages": HELLO, "tools": [ADD]}),
    ("POST", "/v1/chat/completions", {"model": "m", "messages": HELLO, "stream": True}),
    ("POST", "/v1/chat/completions", {"model": "m", "messages": []}),
    (
        "POST",
        "/v1/responses",
        {"model": "m", "input": "What is 2 + 3?", "tools": [{"type": "function", **ADD["function"]}]},
    ),
    ("POST", "/v1/responses", {"model": "m", "input": "Hello!", "stream": True}),
    ("POST", "/v1/responses", {"model": "m", "input": "Hello!", "max_output_tokens": 0}),
    ("POST", "/v1/messages", {"model": "m", "max_tokens": 50, "messages": HELLO}),
    ("POST", "/v1/messages", {"model": "m", "max_tokens": 50, "messages": HELLO, "stream": True}),
    ("POST", "/v1/messages", {"model": "m", "messages": HELLO}),
    ("POST", "/v1/messages/count_tokens", {"model": "m", "messages": HELLO}),
    ("GET", "/v1/models", None),
    ("GET", "/v1/models/some-model", None),
    ("GET", "/v1/messages", None),
    ("POST", "/v1/embeddings", {"model": "m", "input": "hi"}),
]


@pytest.mark.parametrize(("method", "path", "request_body"), ENDPOINT_REQUESTS)
def test_every_endpoint_answers_the_same_in_process_and_over_http(method, path, request_body):
    content = b"" if request_body is None else json.dumps(request_body).encode()
    in_process = httpx2.Client(transport=mock.transport(mock.Calculator()), base_url=mock.ANTHROPIC_BASE_URL)
    with serve(mock.Calculator()) as server, httpx2.Client(base_url=server.url) as over_http:
        answers = [c.request(method, path, content=content) for c in (in_process, over_http)]
    assert answers[0].status_code == answers[1].status_code
    assert answers[0].headers["content-type"] == answers[1].headers["content-type"]
    assert answers[0].content == answers[1].content
    if path.startswith("/v1/messages") and answers[0].status_code != 200:
        assert answers[0].json()["type"] == "error"  # Anthropic's error shape, on both paths
