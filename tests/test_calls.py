"""Reading tool calls and writing the messages that answer them, through the real SDK."""

import openai
import pydantic
import pytest
from openai.types.chat import ChatCompletionMessageParam

from agent_core import mock
from agent_core.calls import (
    assistant_message,
    parse_arguments,
    sendable_message,
    tool_calls_of,
    tool_message,
    unanswered_calls,
    wants_tools,
)
from agent_core.loop import run_agent

DIVIDE = {
    "type": "function",
    "function": {
        "name": "divide",
        "description": "Divide a by b.",
        "parameters": {
            "type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
            "required": ["a", "b"],
        },
    },
}
QUESTION = [{"role": "user", "content": "What is 8 / 12?"}]


def ask(client, messages=QUESTION):
    return client.chat.completions.create(model="mock-model", messages=messages, tools=[DIVIDE])


def test_one_round_trip_by_hand():
    client = mock.client(mock.Script(mock.call("divide", a=8, b=12), "8 / 12 = 0.6666666666666666"))
    response = ask(client)
    assert wants_tools(response)
    [call] = tool_calls_of(response)
    arguments = parse_arguments(call)
    assert arguments == {"a": 8, "b": 12}
    messages = QUESTION + [assistant_message(response), tool_message(call, arguments["a"] / arguments["b"])]
    final = ask(client, messages)
    assert not wants_tools(final)
    assert final.choices[0].message.content == "8 / 12 = 0.6666666666666666"
    assert client.trace[1].request["messages"][2] == {
        "role": "tool",
        "tool_call_id": call["id"],
        "content": "0.6666666666666666",
    }


def test_assistant_message_keeps_only_what_the_request_schema_defines():
    client = mock.client(mock.Script(mock.call("divide", a=8, b=12)))
    response = ask(client)
    assert response.choices[0].message.content is None  # what the API answers beside a call
    message = assistant_message(response)
    assert set(message) == {"role", "content", "tool_calls"}
    assert message["content"] == ""  # what goes back: llama.cpp's Python server answers null with 500
    assert set(message["tool_calls"][0]) == {"id", "type", "function"}


# the request schema of the real API, as the SDK defines it: what every message we send must fit
API_MESSAGE = pydantic.TypeAdapter(ChatCompletionMessageParam)


def as_the_api_reads_it(message):
    """the message validated against the schema; a field the schema does not define is dropped"""
    validated = API_MESSAGE.validate_python(message)
    return {key: list(value) if key == "tool_calls" else value for key, value in validated.items()}


def divide(a: float, b: float) -> float:
    """Divide a by b."""
    return a / b


def add(a: float, b: float) -> float:
    """Add a and b."""
    return a + b


def test_what_the_course_sends_back_is_valid_for_the_api_and_has_text_wherever_a_server_needs_it():
    strict = mock.client(mock.Calculator(), reject_unknown_fields=True)
    run = run_agent(strict, "5 + 8/12 and 7 + 1", [add, divide])
    chatty = mock.client(
        mock.Script(mock.calls(mock.call("divide", a=8, b=12), content="Let me work that out."), ""),
        reject_unknown_fields=True,
    )
    first = ask(chatty)
    by_hand = QUESTION + [assistant_message(first), tool_message(tool_calls_of(first)[0], "0.67")]
    last = ask(chatty, by_hand)
    by_hand.append(assistant_message(last))  # an empty answer goes back as "" too
    continued = [
        sendable_message(m)
        for m in [*QUESTION, {"role": "assistant", "content": None, "tool_calls": by_hand[1]["tool_calls"]}]
    ]
    assert run.stop_reason == "answered" and run.tool_calls_made >= 2
    assert [turn.status for turn in [*strict.trace, *chatty.trace]] == [200] * (len(strict.trace) + 2)
    for message in [*run.messages, *by_hand, *continued]:
        assert as_the_api_reads_it(message) == message
        if message["role"] == "assistant":
            assert isinstance(message["content"], str), message
    assert assistant_message({"role": "assistant", "content": None}) == {"role": "assistant", "content": ""}
    with pytest.raises(pydantic.ValidationError):  # the schema check can fail
        as_the_api_reads_it({"role": "assistant", "content": 5})
    assert as_the_api_reads_it({"role": "tool", "tool_call_id": "c", "content": "1", "name": "x"}) != {
        "role": "tool",
        "tool_call_id": "c",
        "content": "1",
        "name": "x",
    }


def test_a_server_that_rejects_unknown_fields_refuses_the_sdk_object_but_accepts_the_plain_message():
    client = mock.client(
        mock.Script(mock.call("divide", a=8, b=12), "done", "done"), reject_unknown_fields=True
    )
    response = ask(client)
    call = response.choices[0].message.tool_calls[0]
    dumped = response.choices[0].message.model_dump()
    with pytest.raises(openai.BadRequestError, match="Extra inputs are not permitted"):
        ask(client, QUESTION + [dumped, tool_message(call, "0.67")])
    ok = ask(client, QUESTION + [assistant_message(response), tool_message(call, "0.67")])
    assert ok.choices[0].message.content == "done"


def test_parse_arguments_says_what_is_wrong():
    bad = {"id": "call_1", "function": {"name": "divide", "arguments": '{"a": 8,'}}
    with pytest.raises(ValueError, match="not valid JSON"):
        parse_arguments(bad)
    not_object = {"id": "call_1", "function": {"name": "divide", "arguments": "[8, 12]"}}
    with pytest.raises(ValueError, match="should be a JSON object"):
        parse_arguments(not_object)


def test_tool_message_sends_non_text_as_json():
    assert tool_message("call_1", {"temp": 14, "sky": "rain"})["content"] == '{"temp": 14, "sky": "rain"}'
    assert tool_message("call_1", "plain text")["content"] == "plain text"


def test_a_text_reply_has_no_tool_calls():
    response = ask(mock.client(mock.Script("no tools needed")))
    assert not wants_tools(response) and tool_calls_of(response) == []
    assert assistant_message(response) == {"role": "assistant", "content": "no tools needed"}


def test_unanswered_calls_are_those_of_the_last_assistant_message_with_no_tool_message_yet():
    def call(call_id):
        return {"id": call_id, "type": "function", "function": {"name": "add", "arguments": "{}"}}

    asked = {"role": "assistant", "content": "", "tool_calls": [call("a"), call("b"), call("c")]}
    history = [{"role": "user", "content": "three sums"}, asked]
    assert [c["id"] for c in unanswered_calls(history)] == ["a", "b", "c"]
    history.append(tool_message("b", "2"))  # answered out of order
    assert [c["id"] for c in unanswered_calls(history)] == ["a", "c"]
    history += [tool_message("a", "1"), tool_message("c", "3")]
    assert unanswered_calls(history) == []
    history.append({"role": "assistant", "content": "1, 2 and 3."})  # a reply with no calls asks nothing
    assert unanswered_calls(history) == []
    assert unanswered_calls([{"role": "user", "content": "hi"}]) == []
