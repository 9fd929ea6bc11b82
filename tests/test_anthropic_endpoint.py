"""The mock server's Anthropic Messages endpoint, driven by the real `anthropic` SDK over a real socket."""

import json
from contextlib import contextmanager

import anthropic
import httpx2
import pydantic
import pytest
from calculator_tools import OPERATIONS

from agent_core import mock
from agent_core.mock.anthropic_messages import (
    AnthropicError,
    check_messages_request,
    message_events,
    to_chat_request,
)
from agent_core.mock.server import serve

TOOLS = [
    {
        "name": name,
        "description": f"{name.capitalize()} two numbers.",
        "input_schema": {
            "type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
            "required": ["a", "b"],
        },
    }
    for name in ("add", "subtract", "multiply", "divide")
]


@pytest.fixture(scope="module")
def server():
    with serve(mock.Calculator()) as running:
        yield running


@contextmanager
def sdk(server, api_key="x"):
    with anthropic.Anthropic(base_url=server.url, api_key=api_key, max_retries=0) as client:
        yield client


def ask(client, messages, **options):
    return client.messages.create(
        model="mock-model", max_tokens=256, messages=messages, tools=TOOLS, **options
    )


def tool_results(response):
    """run every tool_use block; all results go back in ONE user message, as Anthropic wants"""
    results = []
    for block in response.content:
        if block.type == "tool_use":
            value = OPERATIONS[block.name](block.input["a"], block.input["b"])
            results.append({"type": "tool_result", "tool_use_id": block.id, "content": str(value)})
    return {"role": "user", "content": results}


def run_by_hand(client, question, max_calls=6):
    """the agent loop in the Anthropic protocol: stop when stop_reason is not "tool_use" """
    messages = [{"role": "user", "content": question}]
    responses = []
    while len(responses) < max_calls:
        response = ask(client, messages)
        responses.append(response)
        messages.append(
            {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in response.content]}
        )
        if response.stop_reason != "tool_use":
            break
        messages.append(tool_results(response))
    return responses, messages


def bad_request(server, messages, **options):
    with sdk(server) as client, pytest.raises(anthropic.BadRequestError) as caught:
        ask(client, messages, **options)
    assert caught.value.status_code == 400
    assert caught.value.body["type"] == "error"
    assert caught.value.body["error"]["type"] == "invalid_request_error"
    return caught.value.body["error"]["message"]


def test_the_calculator_agent_runs_over_the_anthropic_sdk(server):
    with sdk(server) as client:
        responses, messages = run_by_hand(client, "5 + 8/12")
    assert len(responses) == 3
    assert [r.stop_reason for r in responses] == ["tool_use", "tool_use", "end_turn"]
    assert [r.content[0].name for r in responses[:2]] == ["divide", "add"]
    assert responses[-1].content[0].type == "text"
    assert "5.666666666666667" in responses[-1].content[0].text
    assert len(messages) == 6


def test_a_response_is_a_genuine_anthropic_message(server):
    with sdk(server) as client:
        response = ask(client, [{"role": "user", "content": "5 + 8/12"}])
    assert isinstance(response, anthropic.types.Message)
    assert response.id.startswith("msg_")
    assert response.type == "message" and response.role == "assistant"
    assert response.model == "mock-model"
    assert response.content[0].id.startswith("toolu_")
    assert response.content[0].input == {"a": 8, "b": 12}
    assert response.usage.input_tokens > 0 and response.usage.output_tokens > 0


def test_answers_are_the_same_on_every_run(server):
    with sdk(server) as client:
        first = ask(client, [{"role": "user", "content": "5 + 8/12"}])
        second = ask(client, [{"role": "user", "content": "5 + 8/12"}])
    assert first.model_dump() == second.model_dump()


def test_parallel_calls_come_as_two_blocks_and_go_back_in_one_message(server):
    with sdk(server) as client:
        responses, messages = run_by_hand(client, "4+2 and 7+8")
    calls = [b for b in responses[0].content if b.type == "tool_use"]
    assert [(c.name, c.input) for c in calls] == [("add", {"a": 4, "b": 2}), ("add", {"a": 7, "b": 8})]
    assert [b["tool_use_id"] for b in messages[2]["content"]] == [c.id for c in calls]
    assert len(responses) == 2
    assert "6" in responses[-1].content[0].text and "15" in responses[-1].content[0].text


def test_the_system_prompt_and_a_plain_text_reply_work(server):
    with sdk(server) as client:
        response = client.messages.create(
            model="mock-model",
            max_tokens=1024,
            system="You are terse.",
            messages=[{"role": "user", "content": "hi"}],
        )
    assert response.stop_reason == "end_turn"
    assert response.content[0].type == "text"


def test_streaming_sends_anthropic_events_the_sdk_assembles(server):
    with sdk(server) as client:
        with client.messages.stream(
            model="mock-model",
            max_tokens=256,
            messages=[{"role": "user", "content": "4+2 and 7+8"}],
            tools=TOOLS,
        ) as stream:
            kinds = [event.type for event in stream]
            streamed = stream.get_final_message()
        whole = ask(client, [{"role": "user", "content": "4+2 and 7+8"}])
    assert kinds[0] == "message_start" and kinds[-1] == "message_stop"
    assert "content_block_start" in kinds and "message_delta" in kinds
    assert streamed.content == whole.content
    assert streamed.stop_reason == "tool_use"
    assert streamed.usage.output_tokens == whole.usage.output_tokens


def test_streaming_text_arrives_in_text_deltas(server):
    with sdk(server) as client:
        with client.messages.stream(
            model="mock-model", max_tokens=64, messages=[{"role": "user", "content": "5 + 8/12"}]
        ) as stream:
            pieces = list(stream.text_stream)
    assert len(pieces) > 1
    assert "".join(pieces) == "5 + 8/12 = 5.666666666666667"


def test_message_events_are_server_sent_events_in_order():
    message = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "m",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "add", "input": {"a": 1, "b": 2}}],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 5, "output_tokens": 7},
    }
    events = [e for e in message_events(message).decode().split("\n\n") if e]
    names = [e.split("\n")[0] for e in events]
    assert names[0] == "event: message_start" and names[-1] == "event: message_stop"
    deltas = [
        json.loads(e.split("data: ", 1)[1]) for e in events if e.startswith("event: content_block_delta")
    ]
    assert json.loads("".join(d["delta"]["partial_json"] for d in deltas)) == {"a": 1, "b": 2}


def test_max_tokens_is_required():
    with pytest.raises(AnthropicError) as caught:
        check_messages_request({"model": "m", "messages": [{"role": "user", "content": "hi"}]})
    assert str(caught.value) == "max_tokens: Field required"


def test_max_tokens_is_required_over_http(server):
    with pytest.raises(anthropic.BadRequestError) as caught, sdk(server) as client:
        client.post(
            "/v1/messages",
            body={"model": "m", "messages": [{"role": "user", "content": "hi"}]},
            cast_to=anthropic.types.Message,
        )
    assert caught.value.body["error"]["message"].startswith("max_tokens: Field required")


def test_empty_messages_are_refused(server):
    assert bad_request(server, []).startswith("messages: at least one message is required")


@pytest.mark.parametrize(
    "content",
    [[{"type": "text", "text": ""}], [{"type": "text", "text": "4+2?"}, {"type": "text", "text": ""}], ""],
)
def test_an_empty_text_block_is_refused_with_anthropics_text(content, server):
    # the real API's 400, cited in agent_core/mock/anthropic_messages.py
    message = bad_request(server, [{"role": "user", "content": content}])
    assert message.startswith("messages: text content blocks must be non-empty\n")
    assert "empty text block" in message


def test_a_tool_use_without_its_result_is_refused(server):
    with sdk(server) as client:
        first = ask(client, [{"role": "user", "content": "4+2 and 7+8"}])
    assistant = {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in first.content]}
    only_one = {"role": "user", "content": tool_results(first)["content"][:1]}
    message = bad_request(server, [{"role": "user", "content": "4+2 and 7+8"}, assistant, only_one])
    assert message.startswith(
        f"messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: "
        f"{first.content[1].id}. Each `tool_use` block must have a corresponding `tool_result` block "
        "in the next message."
    )


def test_results_sent_one_message_per_result_are_combined_like_the_real_api(server):
    with sdk(server) as client:
        first = ask(client, [{"role": "user", "content": "4+2 and 7+8"}])
        results = tool_results(first)["content"]
        assistant = {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in first.content]}
        split = [{"role": "user", "content": [r]} for r in results]
        response = ask(client, [{"role": "user", "content": "4+2 and 7+8"}, assistant, *split])
    assert response.stop_reason == "end_turn"


def test_text_before_the_results_is_refused(server):
    with sdk(server) as client:
        first = ask(client, [{"role": "user", "content": "5 + 8/12"}])
    assistant = {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in first.content]}
    late = {
        "role": "user",
        "content": [{"type": "text", "text": "here you go"}, *tool_results(first)["content"]],
    }
    message = bad_request(server, [{"role": "user", "content": "5 + 8/12"}, assistant, late])
    assert "`tool_use` ids were found without `tool_result` blocks immediately after" in message


def test_a_result_for_an_unknown_tool_use_id_is_refused(server):
    stray = {"type": "tool_result", "tool_use_id": "toolu_nope", "content": "6"}
    message = bad_request(server, [{"role": "user", "content": [stray]}])
    assert message.startswith(
        "messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_nope. "
        "Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
    )


def test_a_chat_completions_tool_message_is_refused_with_a_hint(server):
    message = bad_request(
        server, [{"role": "user", "content": "4+2"}, {"role": "tool", "tool_call_id": "x", "content": "6"}]
    )
    assert message.startswith("messages.1.role: Input should be 'user', 'assistant' or 'system'")
    assert "tool_result blocks" in message


def test_a_chat_completions_tool_definition_is_refused(server):
    chat_tool = {"type": "function", "function": {"name": "add", "parameters": {"type": "object"}}}
    with sdk(server) as client, pytest.raises(anthropic.BadRequestError) as caught:
        client.messages.create(
            model="m", max_tokens=10, messages=[{"role": "user", "content": "4+2"}], tools=[chat_tool]
        )
    assert caught.value.body["error"]["message"].startswith("tools.0.name: Field required")


def test_the_api_key_is_checked_when_the_server_has_one():
    with serve(mock.Calculator(), api_key="sk-right") as keyed:
        with sdk(keyed, api_key="sk-wrong") as client, pytest.raises(anthropic.AuthenticationError) as caught:
            ask(client, [{"role": "user", "content": "4+2"}])
        with sdk(keyed, api_key="sk-right") as client:
            assert ask(client, [{"role": "user", "content": "4+2"}]).stop_reason == "tool_use"
    assert caught.value.body["error"]["message"].startswith("invalid x-api-key")


def test_a_mid_conversation_system_message_reaches_the_policy_as_system():
    request = to_chat_request(
        {
            "model": "m",
            "max_tokens": 10,
            "system": "first",
            "messages": [
                {"role": "user", "content": "hi"},
                {"role": "system", "content": "second"},
                {"role": "user", "content": "4+2"},
            ],
        }
    )
    assert [(m["role"], m["content"]) for m in request["messages"]] == [
        ("system", "first"),
        ("user", "hi"),
        ("system", "second"),
        ("user", "4+2"),
    ]


def test_a_policy_that_refuses_answers_in_anthropic_shape():
    def refuse(request):
        raise mock.ProtocolError("This model does not take requests on Sundays.", hint="Come back tomorrow.")

    with (
        serve(refuse) as refusing,
        sdk(refusing) as client,
        pytest.raises(anthropic.BadRequestError) as caught,
    ):
        ask(client, [{"role": "user", "content": "4+2"}])
    assert caught.value.body["error"]["message"].startswith("This model does not take requests on Sundays.")


def test_a_failing_policy_is_a_500_that_names_the_policy():
    with (
        serve(mock.Script([])) as empty,
        sdk(empty) as client,
        pytest.raises(anthropic.InternalServerError) as caught,
    ):
        ask(client, [{"role": "user", "content": "4+2"}])
    assert caught.value.body["error"]["type"] == "api_error"
    assert "The mock policy Script failed" in caught.value.body["error"]["message"]


def test_with_a_model_list_another_model_gets_anthropics_404():
    with serve(mock.Calculator(), models=["mock-model"]) as listed, sdk(listed) as client:
        assert ask(client, [{"role": "user", "content": "4+2"}]).stop_reason == "tool_use"
        with pytest.raises(anthropic.NotFoundError) as caught:
            client.messages.create(
                model="sonnet4", max_tokens=10, messages=[{"role": "user", "content": "hi"}]
            )
    assert caught.value.body["error"]["type"] == "not_found_error"
    assert caught.value.body["error"]["message"].startswith("model: sonnet4\n")
    assert "This server serves: mock-model." in caught.value.body["error"]["message"]


def test_past_the_rate_limit_a_request_gets_anthropics_429_with_retry_after():
    with serve(mock.Calculator(), rate_limit=1) as limited, sdk(limited) as client:
        ask(client, [{"role": "user", "content": "4+2"}])
        with pytest.raises(anthropic.RateLimitError) as caught:
            ask(client, [{"role": "user", "content": "4+2"}])
    error = caught.value
    assert error.body["error"]["type"] == "rate_limit_error"
    assert error.body["error"]["message"].startswith(
        "This request would exceed the rate limit for your "
        "organization (org-agent-core-mock) of 1 requests per minute."
    )
    assert 1 <= int(error.response.headers["retry-after"]) <= 60
    assert error.response.headers["anthropic-ratelimit-requests-remaining"] == "0"


def test_both_apis_spend_the_same_rate_limit():
    import openai

    with serve(mock.Calculator(), rate_limit=1) as limited:
        with openai.OpenAI(base_url=limited.base_url, api_key="x", max_retries=0) as chat_client:
            chat_client.chat.completions.create(
                model="mock-model", messages=[{"role": "user", "content": "hi"}]
            )
        with sdk(limited) as client, pytest.raises(anthropic.RateLimitError):
            ask(client, [{"role": "user", "content": "4+2"}])


# --- message threads (beta message-threads-2026-08-12), as the SDK's tool runner uses them by default ---


def beta_tools():
    def make(name):
        @anthropic.beta_tool(name=name, description=f"{name.capitalize()} two numbers.")
        def operation(a: float, b: float) -> str:
            return str(OPERATIONS[name](a, b))

        return operation

    return [make(name) for name in ("add", "subtract", "multiply", "divide")]


def test_the_sdk_tool_runner_finishes_a_calculator_task_in_a_thread():
    with serve(mock.Calculator()) as server, sdk(server) as client:
        runner = client.beta.messages.tool_runner(
            model="mock-model",
            max_tokens=500,
            tools=beta_tools(),
            messages=[{"role": "user", "content": "What is (2 + 3) * 4?"}],
        )
        replies = list(runner)
    assert [r.stop_reason for r in replies] == ["tool_use", "tool_use", "end_turn"]
    assert "20" in replies[-1].content[0].text


def thread_turn(client, messages, thread, **options):
    return client.beta.messages.create(
        model="mock-model",
        max_tokens=256,
        messages=messages,
        thread=thread,
        betas=["message-threads-2026-08-12"],
        **options,
    )


def test_a_thread_continues_with_only_the_new_turn():
    with serve(mock.Calculator()) as server, sdk(server) as client:
        first = thread_turn(
            client, [{"role": "user", "content": "What is 2 + 3?"}], {"type": "create"}, tools=TOOLS
        )
        results = tool_results(first)
        second = thread_turn(client, [results], {"type": "continue", "previous_message_id": first.id})
        assert second.stop_reason == "end_turn"
        assert "5" in second.content[0].text
        with pytest.raises(anthropic.BadRequestError) as again:  # each message is continued once
            thread_turn(client, [results], {"type": "continue", "previous_message_id": first.id})
    assert again.value.error_code == "thread_already_continued"


def test_an_unknown_thread_is_the_404_the_sdk_starts_a_new_thread_on():
    with (
        serve(mock.Calculator()) as server,
        sdk(server) as client,
        pytest.raises(anthropic.NotFoundError) as error,
    ):
        thread_turn(
            client, [{"role": "user", "content": "hi"}], {"type": "continue", "previous_message_id": "msg_x"}
        )
    assert error.value.error_code == "thread_not_found"
    assert error.value.body["error"]["message"].startswith(
        "No usable Thread state was found for `previous_message_id`."
    )


@pytest.mark.parametrize(
    ("thread", "options", "expected"),
    [
        ({"type": "resume"}, {}, "thread: Input tag 'resume' found using 'type' does not match"),
        ({"type": "continue"}, {}, "thread.previous_message_id: Field required"),
        (
            {"type": "continue", "previous_message_id": 7},
            {},
            "thread.previous_message_id: Input should be a valid string",
        ),
    ],
)
def test_a_malformed_thread_is_refused_naming_the_field(thread, options, expected):
    with (
        serve(mock.Calculator()) as server,
        sdk(server) as client,
        pytest.raises(anthropic.BadRequestError) as error,
    ):
        thread_turn(client, [{"role": "user", "content": "hi"}], thread, **options)
    assert error.value.body["error"]["message"].startswith(expected)


def test_a_thread_needs_the_beta_header_and_a_continue_takes_no_tools():
    with serve(mock.Calculator()) as server, sdk(server) as client:
        with pytest.raises(anthropic.BadRequestError, match="thread: Extra inputs are not permitted"):
            client.messages.create(
                model="mock-model",
                max_tokens=50,
                messages=[{"role": "user", "content": "hi"}],
                extra_body={"thread": {"type": "create"}},
            )
        first = thread_turn(client, [{"role": "user", "content": "hi"}], {"type": "create"})
        with pytest.raises(anthropic.BadRequestError, match="tools: cannot be set when continuing a thread"):
            thread_turn(
                client,
                [{"role": "user", "content": "more"}],
                {"type": "continue", "previous_message_id": first.id},
                tools=TOOLS,
            )


# --- structured outputs: output_config.format, as messages.parse sends it ---


class Result(pydantic.BaseModel):
    expression: str
    answer: float


@pytest.mark.parametrize("beta", [False, True])
def test_messages_parse_finishes_a_calculator_task_with_a_json_answer(beta):
    messages = [{"role": "user", "content": "What is (2 + 3) * 4?"}]
    with serve(mock.Calculator()) as server, sdk(server) as client:
        parse = client.beta.messages.parse if beta else client.messages.parse
        for _ in range(4):
            reply = parse(
                model="mock-model", max_tokens=500, messages=messages, tools=TOOLS, output_format=Result
            )
            if reply.stop_reason != "tool_use":
                break
            messages += [
                {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in reply.content]},
                tool_results(reply),
            ]
    assert reply.stop_reason == "end_turn"
    assert reply.parsed_output.answer == 20
    assert json.loads(reply.content[0].text) == reply.parsed_output.model_dump()


@pytest.mark.parametrize(
    ("output_config", "expected"),
    [
        ("json", "output_config: Input should be a valid dictionary"),
        ({"format": "json"}, "output_config.format: Input should be a valid dictionary"),
        ({"format": {"type": "json_object"}}, "output_config.format.type: Input should be 'json_schema'"),
        ({"format": {"type": "json_schema"}}, "output_config.format.schema: Field required"),
        (
            {"format": {"type": "json_schema", "schema": []}},
            "output_config.format.schema: Input should be a valid dictionary",
        ),
    ],
)
def test_a_malformed_output_config_is_refused_naming_the_field(server, output_config, expected):
    with sdk(server) as client, pytest.raises(anthropic.BadRequestError) as error:
        client.messages.create(
            model="mock-model",
            max_tokens=50,
            messages=[{"role": "user", "content": "hi"}],
            extra_body={"output_config": output_config},
        )
    assert error.value.body["error"]["message"].startswith(expected)


# --- every field the mock reads: a wrong type and an out-of-range value get Anthropic's 400, naming the
# field ---

HI = [{"role": "user", "content": "hi"}]
CALLED = [
    {"role": "user", "content": "2 + 3?"},
    {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "add", "input": {"a": 2, "b": 3}}],
    },
]


def answered(result):
    return [
        *CALLED,
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", **result}]},
    ]


BAD_FIELDS = [  # (the fields changed, the start of the API's message)
    ({"model": 5}, "model: Input should be a valid string"),
    ({"max_tokens": "5"}, "max_tokens: Input should be a valid integer"),
    ({"max_tokens": 2.5}, "max_tokens: Input should be a valid integer"),
    ({"max_tokens": 0}, "max_tokens: Input should be greater than or equal to 1"),
    ({"max_tokens": -1}, "max_tokens: Input should be greater than or equal to 1"),
    ({"messages": {"role": "user"}}, "messages: Input should be a valid list"),
    ({"messages": []}, "messages: at least one message is required"),
    (
        {"messages": [{"role": "tool", "content": "5"}]},
        "messages.0.role: Input should be 'user', 'assistant'",
    ),
    ({"messages": [{"role": "user", "content": 5}]}, "messages.0.content: Input should be a valid list"),
    (
        {"messages": [{"role": "user", "content": [{"type": "text", "text": 5}]}]},
        "messages.0.content.0.text.text: Input should be a valid string",
    ),
    (
        {
            "messages": [
                {"role": "assistant", "content": [{"type": "tool_use", "id": 1, "name": "add", "input": {}}]}
            ]
        },
        "messages.0.content.0.tool_use.id: Input should be a valid string",
    ),
    (
        {
            "messages": [
                {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": "t", "name": "add", "input": "{}"}],
                }
            ]
        },
        "messages.0.content.0.tool_use.input: Input should be a valid dictionary",
    ),
    (
        {"messages": answered({"content": 5})},
        "messages.2.content.0.tool_result.content: Input should be a valid string or a valid list",
    ),
    (
        {"messages": answered({"content": "5", "is_error": "no"})},
        "messages.2.content.0.tool_result.is_error: Input should be a valid boolean",
    ),
    (
        {"messages": answered({"tool_use_id": 7, "content": "5"})},
        "messages.2.content.0.tool_result.tool_use_id: Input should be a valid string",
    ),
    ({"system": 5}, "system: Input should be a valid string or a valid list"),
    ({"stream": "yes"}, "stream: Input should be a valid boolean"),
    ({"temperature": "hot"}, "temperature: Input should be a valid number"),
    ({"temperature": 1.5}, "temperature: Input should be less than or equal to 1"),
    ({"temperature": -0.1}, "temperature: Input should be greater than or equal to 0"),
    ({"top_p": True}, "top_p: Input should be a valid number"),
    ({"top_p": 2}, "top_p: Input should be less than or equal to 1"),
    ({"top_k": 0.5}, "top_k: Input should be a valid integer"),
    ({"top_k": -1}, "top_k: Input should be greater than or equal to 0"),
    ({"stop_sequences": "STOP"}, "stop_sequences: Input should be a valid list"),
    ({"metadata": []}, "metadata: Input should be a valid dictionary"),
    ({"tools": {"name": "add"}}, "tools: Input should be a valid list"),
    ({"tools": [{**TOOLS[0], "name": 5}]}, "tools.0.custom.name: Input should be a valid string"),
    ({"tools": [{**TOOLS[0], "name": "math.add"}]}, "tools.0.custom.name: String should match pattern"),
    ({"tools": [{**TOOLS[0], "name": "a" * 129}]}, "tools.0.custom.name: String should match pattern"),
    (
        {"tools": [{**TOOLS[0], "description": ["Add"]}]},
        "tools.0.custom.description: Input should be a valid string",
    ),
    (
        {"tools": [{**TOOLS[0], "input_schema": "object"}]},
        "tools.0.custom.input_schema: Input should be a valid dictionary",
    ),
    ({"tools": TOOLS, "tool_choice": "any"}, "tool_choice: Input should be a valid dictionary"),
    ({"tools": TOOLS, "tool_choice": {"type": "sometimes"}}, "tool_choice: Input tag 'sometimes' found"),
    (
        {"tools": TOOLS, "tool_choice": {"type": "tool", "name": 5}},
        "tool_choice.name: Input should be a valid string",
    ),
    (
        {"tools": TOOLS, "tool_choice": {"type": "tool", "name": "power"}},
        "tool_choice.name: the tool 'power'",
    ),
    (
        {"tools": TOOLS, "tool_choice": {"type": "auto", "disable_parallel_tool_use": "yes"}},
        "tool_choice.disable_parallel_tool_use: Input should be a valid boolean",
    ),
]


@pytest.mark.parametrize(("fields", "expected"), BAD_FIELDS)
def test_a_bad_field_is_refused_with_anthropic_400_naming_it(server, fields, expected):
    body = {"model": "mock-model", "max_tokens": 50, "messages": HI, **fields}
    response = httpx2.post(server.url + "/v1/messages", json=body)
    assert response.status_code == 400
    error = response.json()
    assert error["type"] == "error" and error["error"]["type"] == "invalid_request_error"
    assert error["error"]["message"].startswith(expected)
    if (
        "max_tokens" not in fields and "stream" not in fields
    ):  # count_tokens takes the same fields, bar these two
        counted = httpx2.post(
            server.url + "/v1/messages/count_tokens",
            json={k: v for k, v in body.items() if k != "max_tokens"},
        )
        assert (counted.status_code, counted.json()["error"]["message"]) == (400, error["error"]["message"])


def test_tool_blocks_are_accepted_without_tools_as_the_api_has_since_2025(server):
    with sdk(server) as client:
        first = ask(client, [{"role": "user", "content": "What is 2 + 3?"}])
        messages = [
            {"role": "user", "content": "What is 2 + 3?"},
            {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in first.content]},
            tool_results(first),
        ]
        final = client.messages.create(model="mock-model", max_tokens=100, messages=messages)  # no tools
    assert final.stop_reason == "end_turn"
    assert "5" in final.content[0].text


def test_usage_always_reports_the_cache_fields_as_the_api_does(server):
    with sdk(server) as client:
        message = client.messages.create(model="mock-model", max_tokens=50, messages=HI)
        with client.messages.stream(model="mock-model", max_tokens=50, messages=HI) as stream:
            streamed = stream.get_final_message()
    for usage in (message.usage, streamed.usage):
        assert (usage.cache_creation_input_tokens, usage.cache_read_input_tokens) == (0, 0)


def test_a_tool_use_sent_back_with_caller_null_is_refused_with_anthropics_text(server):
    # model_dump() without exclude_none sends the SDK's unset caller as null; the real API's 400 is cited in
    # agent_core/mock/anthropic_messages.py (langchain-ai/langchain#34286)
    question = {"role": "user", "content": "4+2"}
    with sdk(server) as client:
        first = ask(client, [question])
    assert first.content[0].type == "tool_use" and first.content[0].caller is None
    whole = {"role": "assistant", "content": [b.model_dump() for b in first.content]}
    message = bad_request(server, [question, whole, tool_results(first)])
    assert message.startswith("messages.1.content.0.tool_use.caller: Extra inputs are not permitted\n")
    assert "model_dump(exclude_none=True)" in message
    trimmed = {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in first.content]}
    with sdk(server) as client:
        assert ask(client, [question, trimmed, tool_results(first)]).stop_reason == "end_turn"
