"""The course's contract with the openai and anthropic SDKs: what the lessons print and agent_core reads."""

import json

import anthropic
import httpx2
import openai
import pytest
from openai.types.chat import (
    ChatCompletion,
    ChatCompletionChunk,
    ChatCompletionMessage,
    ChatCompletionMessageFunctionToolCall,
)

# Each test hands the SDK the JSON its API documents, through the httpx2 transport hook the mock
# uses, and checks one thing the course relies on; a failure's message names the upstream change.
BASE_URL = "http://contract.invalid/v1"

# https://platform.openai.com/docs/api-reference/chat/object (a tool call, as in the reference)
COMPLETION = {
    "id": "chatcmpl-abc123",
    "object": "chat.completion",
    "created": 1741569952,
    "model": "gpt-4.1-2025-04-14",
    "choices": [
        {
            "index": 0,
            "message": {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_abc123",
                        "type": "function",
                        "function": {"name": "divide", "arguments": '{"a": 8, "b": 12}'},
                    }
                ],
                "refusal": None,
            },
            "logprobs": None,
            "finish_reason": "tool_calls",
        }
    ],
    "usage": {"prompt_tokens": 82, "completion_tokens": 17, "total_tokens": 99},
    "system_fingerprint": "fp_44709d6fcb",
}

# https://platform.openai.com/docs/api-reference/chat-streaming/streaming: one chunk per event,
# a tool call's arguments in pieces keyed by index, and with include_usage a last chunk with no choices
CHUNK = {"id": "chatcmpl-123", "object": "chat.completion.chunk", "created": 1694268190, "model": "gpt-4.1"}
STREAM = [
    {
        **CHUNK,
        "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}],
    },
    {**CHUNK, "choices": [{"index": 0, "delta": {"content": "Hello"}, "finish_reason": None}]},
    {**CHUNK, "choices": [{"index": 0, "delta": {"content": " there"}, "finish_reason": None}]},
    {**CHUNK, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
    {**CHUNK, "choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 2, "total_tokens": 11}},
]
TOOL_STREAM = [
    {**CHUNK, "choices": [{"index": 0, "delta": {"role": "assistant"}, "finish_reason": None}]},
    {
        **CHUNK,
        "choices": [
            {
                "index": 0,
                "delta": {
                    "tool_calls": [
                        {
                            "index": 0,
                            "id": "call_1",
                            "type": "function",
                            "function": {"name": "divide", "arguments": ""},
                        }
                    ]
                },
                "finish_reason": None,
            }
        ],
    },
    {
        **CHUNK,
        "choices": [
            {
                "index": 0,
                "delta": {"tool_calls": [{"index": 0, "function": {"arguments": '{"a": 8'}}]},
                "finish_reason": None,
            }
        ],
    },
    {
        **CHUNK,
        "choices": [
            {
                "index": 0,
                "delta": {"tool_calls": [{"index": 0, "function": {"arguments": ', "b": 12}'}}]},
                "finish_reason": None,
            }
        ],
    },
    {**CHUNK, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
]

# https://platform.openai.com/docs/guides/error-codes: the body is {"error": {message, type, param, code}}
ERROR = {
    "error": {
        "message": "Invalid parameter: messages with role 'tool' must be a response to a preceeding message "
        "with 'tool_calls'.",
        "type": "invalid_request_error",
        "param": "messages.[0].role",
        "code": None,
    }
}

# https://docs.anthropic.com/en/api/messages (response example, with a tool_use block)
ANTHROPIC_MESSAGE = {
    "id": "msg_013Zva2CMHLNnXjNJJKqJ2EF",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-5",
    "content": [
        {"type": "text", "text": "I'll divide first."},
        {
            "type": "tool_use",
            "id": "toolu_01A09q90qw90lq917835lq9",
            "name": "divide",
            "input": {"a": 8, "b": 12},
        },
    ],
    "stop_reason": "tool_use",
    "stop_sequence": None,
    "usage": {"input_tokens": 2095, "output_tokens": 503},
}
# https://docs.anthropic.com/en/api/errors: "a top-level error object that always includes a type and message"
ANTHROPIC_ERROR = {
    "type": "error",
    "error": {"type": "invalid_request_error", "message": "messages: at least one message is required"},
    "request_id": "req_011CSHoEeqs5C35K2UUqR7Fy",
}


def answering(status: int, body: object, seen: list | None = None):
    """an httpx2 handler that records each request and answers with this JSON"""

    def handle(request: httpx2.Request) -> httpx2.Response:
        if seen is not None:
            seen.append(request)
        return httpx2.Response(status, json=body)

    return handle


def streaming(events: list[dict], seen: list | None = None):
    """an httpx2 handler that answers with these chunks as server-sent events, then [DONE]"""

    def handle(request: httpx2.Request) -> httpx2.Response:
        if seen is not None:
            seen.append(request)
        body = "".join(f"data: {json.dumps(event)}\n\n" for event in events) + "data: [DONE]\n\n"
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body.encode())

    return handle


def sdk(handler, **options) -> openai.OpenAI:
    """the client as mock.client() builds it: a key, a base_url, and an httpx2.Client with our transport"""
    return openai.OpenAI(
        api_key="sk-contract",
        base_url=BASE_URL,
        http_client=httpx2.Client(transport=httpx2.MockTransport(handler)),
        max_retries=0,
        **options,
    )


def ask(client: openai.OpenAI, **options):
    return client.chat.completions.create(
        model="mock-model", messages=[{"role": "user", "content": "8/12?"}], **options
    )


# --- openai: the client and its transport hook (agent_core.mock, trace, replay, providers) ---


def test_the_client_sends_its_request_through_the_http_client_it_is_given():
    seen: list[httpx2.Request] = []
    ask(sdk(answering(200, COMPLETION, seen)))
    assert len(seen) == 1, (
        "openai.OpenAI(http_client=httpx2.Client(transport=...)) no longer sends through that transport: "
        "the mock model plugs in there (agent_core/mock/__init__.py)"
    )
    request = seen[0]
    assert (request.method, str(request.url)) == ("POST", f"{BASE_URL}/chat/completions"), (
        f"chat.completions.create() now calls {request.method} {request.url}; the mock answers "
        "POST {base_url}/chat/completions"
    )
    assert json.loads(request.content) == {
        "model": "mock-model",
        "messages": [{"role": "user", "content": "8/12?"}],
    }, "the SDK's request body is no longer exactly the arguments given: the traces the lessons print show it"
    assert request.headers["authorization"] == "Bearer sk-contract", (
        "the API key is no longer sent as a Bearer token"
    )


def test_strict_response_validation_refuses_a_malformed_response():
    client = sdk(answering(200, {"id": "x", "object": "chat.completion"}), _strict_response_validation=True)
    with pytest.raises(openai.APIResponseValidationError):
        ask(client)


def test_with_options_gives_a_copy_with_another_http_client():
    seen: list[httpx2.Request] = []
    original = sdk(answering(500, ERROR))
    copy = original.with_options(
        http_client=httpx2.Client(transport=httpx2.MockTransport(answering(200, COMPLETION, seen)))
    )
    ask(copy)
    assert isinstance(copy, openai.OpenAI) and copy is not original, (
        "client.with_options() no longer returns a new openai.OpenAI (agent_core.trace.recorded relies on it)"
    )
    assert str(seen[0].url) == f"{BASE_URL}/chat/completions", (
        "with_options(http_client=...) lost the base_url"
    )


def test_the_default_number_of_retries_is_an_int():
    assert isinstance(openai.DEFAULT_MAX_RETRIES, int), (
        "openai.DEFAULT_MAX_RETRIES is gone (agent_core.replay uses it)"
    )


# --- openai: the response objects the lessons print ---


def test_a_completion_parses_into_the_types_the_lessons_use():
    response = ask(sdk(answering(200, COMPLETION)))
    assert isinstance(response, ChatCompletion), (
        f"create() now returns {type(response).__name__}, not ChatCompletion"
    )
    choice = response.choices[0]
    assert isinstance(choice.message, ChatCompletionMessage), (
        f"choices[0].message is now a {type(choice.message).__name__}, not ChatCompletionMessage"
    )
    assert choice.finish_reason == "tool_calls", "choices[0].finish_reason no longer carries the API's value"


def test_a_tool_call_carries_its_arguments_as_json_text():
    call = ask(sdk(answering(200, COMPLETION))).choices[0].message.tool_calls[0]
    assert isinstance(call, ChatCompletionMessageFunctionToolCall), (
        f"message.tool_calls[0] is now a {type(call).__name__}, not ChatCompletionMessageFunctionToolCall"
    )
    assert (call.id, call.type, call.function.name) == ("call_abc123", "function", "divide"), (
        "a tool call no longer exposes .id, .type and .function.name as the API sends them"
    )
    assert call.function.arguments == '{"a": 8, "b": 12}', (
        f"function.arguments is now {call.function.arguments!r}: lessons 01-03 teach that it is JSON text "
        "the program must parse (json.loads), exactly as the model wrote it"
    )


def test_the_message_fields_lesson_02_prints_are_these_in_this_order():
    message = ask(sdk(answering(200, COMPLETION))).choices[0].message
    fields = list(message.model_dump())
    expected = ["content", "refusal", "role", "annotations", "audio", "function_call", "tool_calls"]
    assert fields == expected, (
        f"ChatCompletionMessage.model_dump() now has the fields {fields}, not {expected}: lesson 02 prints "
        "them and says why assistant_message() sends back only role, content and tool_calls"
    )


def test_usage_counts_the_tokens_lesson_00_prints():
    usage = ask(sdk(answering(200, COMPLETION))).usage
    counts = (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens)
    assert counts == (82, 17, 99), f"usage.prompt_tokens/completion_tokens/total_tokens now read {counts}"


# --- openai: streaming (lesson 00, lesson 08, trace.assemble_stream) ---


def test_streamed_text_arrives_as_chunk_deltas_and_usage_comes_last():
    chunks = list(ask(sdk(streaming(STREAM)), stream=True, stream_options={"include_usage": True}))
    assert all(isinstance(chunk, ChatCompletionChunk) for chunk in chunks), (
        "a stream no longer yields ChatCompletionChunk objects"
    )
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "Hello there", f"choices[0].delta.content pieces now join to {text!r}"
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop", (
        "the finish_reason no longer arrives on the last chunk with a choice"
    )
    assert chunks[-1].choices == [] and chunks[-1].usage.total_tokens == 11, (
        "with stream_options include_usage, the last chunk no longer carries usage with no choices "
        "(the trace reads it there)"
    )


def test_a_streamed_tool_call_arrives_in_pieces_by_index():
    chunks = list(ask(sdk(streaming(TOOL_STREAM)), stream=True))
    deltas = [c.choices[0].delta.model_dump(exclude_none=True) for c in chunks]
    assert deltas[1] == {
        "tool_calls": [
            {"index": 0, "id": "call_1", "function": {"arguments": "", "name": "divide"}, "type": "function"}
        ]
    }, f"the first piece of a streamed tool call now dumps as {deltas[1]} (lesson 08 prints it)"
    pieces = [p for c in chunks for p in c.choices[0].delta.tool_calls or []]
    assert {p.index for p in pieces} == {0}, "streamed tool call pieces no longer carry their call's index"
    arguments = "".join(p.function.arguments or "" for p in pieces if p.function)
    assert arguments == '{"a": 8, "b": 12}', f"the argument pieces now join to {arguments!r}"


# --- openai: errors (every lesson's "break it on purpose", providers.explain_api_error) ---


@pytest.mark.parametrize(
    ("status", "error_class"),
    [
        (400, openai.BadRequestError),
        (401, openai.AuthenticationError),
        (403, openai.PermissionDeniedError),
        (404, openai.NotFoundError),
        (422, openai.UnprocessableEntityError),
        (429, openai.RateLimitError),
        (500, openai.InternalServerError),
    ],
)
def test_an_error_status_raises_its_own_class(status, error_class):
    with pytest.raises(openai.APIError) as caught:
        ask(sdk(answering(status, ERROR)))
    assert type(caught.value) is error_class, (
        f"HTTP {status} now raises {type(caught.value).__name__}, not {error_class.__name__}"
    )
    assert isinstance(caught.value, openai.APIStatusError), (
        f"{error_class.__name__} is no longer an APIStatusError"
    )


def test_an_error_carries_its_status_and_the_inner_error_object():
    with pytest.raises(openai.BadRequestError) as caught:
        ask(sdk(answering(400, ERROR)))
    error = caught.value
    assert error.status_code == 400, "APIStatusError.status_code is gone or changed"
    assert error.body == ERROR["error"], (
        f"error.body is now {error.body!r}: the lessons print error.body['message'], the inner error object"
    )
    assert (error.type, error.param, error.code) == ("invalid_request_error", "messages.[0].role", None), (
        "APIError.type/.param/.code no longer copy the error object's fields"
    )
    assert isinstance(error.response, httpx2.Response), "error.response is no longer the httpx2.Response"


@pytest.mark.parametrize(
    ("raised", "error_class"),
    [
        (httpx2.ConnectError("refused"), openai.APIConnectionError),
        (httpx2.ReadTimeout("slow"), openai.APITimeoutError),
    ],
)
def test_a_transport_failure_raises_a_connection_error(raised, error_class):
    def fail(request):
        raise raised

    with pytest.raises(openai.APIConnectionError) as caught:
        ask(sdk(fail))
    assert type(caught.value) is error_class, (
        f"{type(raised).__name__} in the transport now raises {type(caught.value).__name__}, not "
        f"{error_class.__name__}"
    )
    assert str(caught.value.request.url) == f"{BASE_URL}/chat/completions", (
        "the error no longer carries its request"
    )


# --- anthropic: the Messages API through the mock server (lesson 08, agent_core.mock.anthropic_messages) ---


def anthropic_sdk(handler) -> anthropic.Anthropic:
    return anthropic.Anthropic(
        api_key="sk-ant-contract",
        base_url="http://contract.invalid",
        http_client=httpx2.Client(transport=httpx2.MockTransport(handler)),
        max_retries=0,
    )


def ask_anthropic(client: anthropic.Anthropic):
    return client.messages.create(
        model="mock-model", max_tokens=64, messages=[{"role": "user", "content": "8/12?"}]
    )


def test_anthropic_sends_messages_with_its_key_and_version_headers():
    seen: list[httpx2.Request] = []
    ask_anthropic(anthropic_sdk(answering(200, ANTHROPIC_MESSAGE, seen)))
    request = seen[0]
    assert (request.method, str(request.url)) == ("POST", "http://contract.invalid/v1/messages"), (
        f"messages.create() now calls {request.method} "
        f"{request.url}; the mock server answers POST /v1/messages"
    )
    sent = request.headers.get("x-api-key") or request.headers.get("authorization", "").removeprefix(
        "Bearer "
    )
    assert sent == "sk-ant-contract", (
        "the anthropic key is sent neither as x-api-key nor as Authorization: Bearer, the two the mock "
        "server accepts (agent_core/mock/server.py)"
    )
    assert "anthropic-version" in request.headers, "the anthropic-version header is no longer sent"


def test_an_anthropic_message_holds_text_and_tool_use_blocks():
    message = ask_anthropic(anthropic_sdk(answering(200, ANTHROPIC_MESSAGE)))
    assert isinstance(message, anthropic.types.Message), (
        f"messages.create() now returns {type(message).__name__}"
    )
    text, tool_use = message.content
    assert isinstance(text, anthropic.types.TextBlock) and text.text == "I'll divide first.", (
        f"a text block is now {type(text).__name__}"
    )
    assert isinstance(tool_use, anthropic.types.ToolUseBlock), (
        f"a tool_use block is now {type(tool_use).__name__}"
    )
    assert (tool_use.id, tool_use.name, tool_use.input) == (
        "toolu_01A09q90qw90lq917835lq9",
        "divide",
        {"a": 8, "b": 12},
    ), "ToolUseBlock no longer has .id, .name and .input (a dict, already parsed, unlike OpenAI's arguments)"
    assert message.stop_reason == "tool_use", "Message.stop_reason no longer carries the API's value"
    assert (message.usage.input_tokens, message.usage.output_tokens) == (2095, 503), (
        "Message.usage.input_tokens/output_tokens changed"
    )


@pytest.mark.parametrize(
    ("status", "error_class"),
    [
        (400, anthropic.BadRequestError),
        (401, anthropic.AuthenticationError),
        (404, anthropic.NotFoundError),
        (429, anthropic.RateLimitError),
        (500, anthropic.InternalServerError),
    ],
)
def test_an_anthropic_error_status_raises_its_own_class(status, error_class):
    with pytest.raises(anthropic.APIStatusError) as caught:
        ask_anthropic(anthropic_sdk(answering(status, ANTHROPIC_ERROR)))
    assert type(caught.value) is error_class, (
        f"HTTP {status} from the Messages API now raises {type(caught.value).__name__}, not "
        f"{error_class.__name__}"
    )
    assert caught.value.status_code == status, "anthropic's APIStatusError.status_code changed"


def test_an_anthropic_error_body_is_the_whole_error_document():
    with pytest.raises(anthropic.BadRequestError) as caught:
        ask_anthropic(anthropic_sdk(answering(400, ANTHROPIC_ERROR)))
    assert caught.value.body == ANTHROPIC_ERROR, (
        f"anthropic's error.body is now {caught.value.body!r}; it was the whole document, "
        "unlike openai's, which is the inner error object"
    )
