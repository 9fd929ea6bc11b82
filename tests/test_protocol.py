"""Every protocol rule the mock enforces, checked through the real SDK: HTTP 400 and the real error text."""

import openai
import pytest

from agent_core import mock

ADD = {"type": "function", "function": {"name": "add", "parameters": {"type": "object", "properties": {}}}}
USER = {"role": "user", "content": "What is 4 + 2?"}


def assistant_calling(*ids):
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": i, "type": "function", "function": {"name": "add", "arguments": "{}"}} for i in ids
        ],
    }


def tool(call_id, content="6"):
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def refused(messages, **kwargs) -> openai.BadRequestError:
    client = mock.client(mock.Script("never used"))
    with pytest.raises(openai.BadRequestError) as info:
        client.chat.completions.create(model="mock-model", messages=messages, **kwargs)
    error = info.value
    assert error.status_code == 400
    assert error.body["type"] == "invalid_request_error"
    assert "agent_core mock hint:" in error.body["message"]
    assert client.trace[0].status == 400  # refused calls are recorded too
    return error


def test_tool_message_without_preceding_tool_calls():
    error = refused([USER, tool("call_1")])
    assert error.body["message"].startswith(
        "Invalid parameter: messages with role 'tool' must be a response to a preceeding message "
        "with 'tool_calls'."
    )
    assert error.body["param"] == "messages.[1].role"


def test_tool_calls_not_answered_before_the_next_message():
    error = refused([USER, assistant_calling("call_1", "call_2"), tool("call_1"), USER])
    assert "did not have response messages: call_2" in error.body["message"]
    assert error.body["param"] == "messages.[3].role"


def test_tool_calls_not_answered_at_the_end():
    error = refused([USER, assistant_calling("call_1")])
    assert error.body["message"].startswith(
        "An assistant message with 'tool_calls' must be followed by tool messages responding to "
        "each 'tool_call_id'. The following tool_call_ids did not have response messages: call_1"
    )


def test_tool_message_after_a_text_message_is_refused():
    history = [USER, assistant_calling("call_1"), tool("call_1"), {"role": "user", "content": "and?"}]
    error = refused(history + [tool("call_1")])
    assert "must be a response to a preceeding message" in error.body["message"]


def test_duplicate_tool_call_id():
    error = refused([USER, assistant_calling("call_1"), tool("call_1"), tool("call_1")])
    assert error.body["message"].startswith(
        "Invalid parameter: Duplicate value for 'tool_call_id' of 'call_1', in messages[2] and messages[3]."
    )


def test_unknown_tool_call_id():
    error = refused([USER, assistant_calling("call_1"), tool("call_9")])
    assert error.body["message"].startswith(
        "Invalid parameter: 'tool_call_id' of 'call_9' not found in 'tool_calls' of previous message."
    )


def test_duplicate_ids_inside_one_assistant_message():
    error = refused([USER, assistant_calling("call_1", "call_1")])
    assert "duplicate" in error.body["message"].lower()


def test_arguments_must_be_a_json_string():
    message = assistant_calling("call_1")
    message["tool_calls"][0]["function"]["arguments"] = {"a": 1}
    error = refused([USER, message, tool("call_1")])
    assert error.body["param"] == "messages[1].tool_calls[0].function.arguments"


@pytest.mark.parametrize(
    ("tools", "text", "param"),
    [
        ([{"type": "function"}], "Missing required parameter: 'tools[0].function'.", "tools[0].function"),
        (
            [{"type": "function", "function": {"name": "add numbers"}}],
            "Invalid 'tools[0].function.name': string does not match pattern.",
            "tools[0].function.name",
        ),
        (
            [{"type": "function", "function": {"name": "add", "parameters": {"type": "array"}}}],
            "Invalid schema for function 'add': schema must be a JSON Schema of 'type: \"object\"'",
            "tools[0].function.parameters",
        ),
        (  # parameters with no "type" at the top: OpenAI's text (cited in agent_core/mock/protocol.py)
            [{"type": "function", "function": {"name": "add", "parameters": {"properties": {}}}}],
            "Invalid schema for function 'add': schema must be a JSON Schema of 'type: \"object\"', "
            "got 'type: \"None\"'.",
            "tools[0].function.parameters",
        ),
        (
            [{"type": "function", "function": {"name": "add", "parameters": {}}}],
            "Invalid schema for function 'add': schema must be a JSON Schema of 'type: \"object\"', "
            "got 'type: \"None\"'.",
            "tools[0].function.parameters",
        ),
        ([{"type": "retrieval"}], "Invalid value: 'retrieval'.", "tools[0].type"),
        ([], "Invalid 'tools': empty array.", "tools"),
        ([ADD, ADD], "Invalid 'tools': duplicate function name 'add'.", "tools"),
    ],
)
def test_invalid_tool_definitions(tools, text, param):
    error = refused([USER], tools=tools)
    assert error.body["message"].startswith(text)
    assert error.body["param"] == param


def test_a_function_without_parameters_is_accepted_and_one_typed_object_too():
    """parameters is optional (a tool that takes nothing); only a schema without its type is refused"""
    client = mock.client(mock.Script("ok", "ok"))
    bare = {"type": "function", "function": {"name": "now"}}
    for tools in ([bare], [ADD]):
        client.chat.completions.create(model="mock-model", messages=[USER], tools=tools)
    assert [turn.status for turn in client.trace] == [200, 200]


def test_tool_choice_naming_a_tool_not_offered():
    choice = {"type": "function", "function": {"name": "divide"}}
    error = refused([USER], tools=[ADD], tool_choice=choice)
    assert "no function named 'divide'" in error.body["message"]
    assert error.body["param"] == "tool_choice"


def test_tool_choice_without_tools():
    error = refused([USER], tool_choice="required")
    assert error.body["message"].startswith(
        "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified."
    )


@pytest.mark.parametrize(
    ("message", "text", "param"),
    [
        ({"role": "bot", "content": "hi"}, "Invalid value: 'bot'. Supported values are:", "messages[0].role"),
        ({"content": "hi"}, "Missing required parameter: 'messages[0].role'.", "messages[0].role"),
        (
            {"role": "user"},
            "Invalid value for 'content': expected a string, got null.",
            "messages.[0].content",
        ),
        (
            {"role": "user", "content": None},
            "Invalid value for 'content': expected a string, got null.",
            "messages.[0].content",
        ),
        (
            {"role": "user", "content": 42},
            "Invalid type for 'messages[0].content': expected one of a string or array of objects",
            "messages[0].content",
        ),
        (
            {"role": "user", "content": ["hi"]},
            "Invalid type for 'messages[0].content[0]': expected an object, but got a string instead.",
            "messages[0].content[0]",
        ),
        (
            {"role": "user", "content": [{"text": "hi"}]},
            "Missing required parameter: 'messages[0].content[0].type'.",
            "messages[0].content[0].type",
        ),
        (
            {"role": "user", "content": [{"type": "text", "text": "hi"}, {"type": "text", "text": 7}]},
            "Invalid type for 'messages[0].content[1].text': expected a string, but got an integer instead.",
            "messages[0].content[1].text",
        ),
    ],
)
def test_messages_need_a_valid_role_and_content(message, text, param):
    error = refused([message])
    assert error.body["message"].startswith(text)
    assert error.body["param"] == param


def test_empty_messages():
    error = refused([])
    assert error.body["message"].startswith(
        "Invalid 'messages': empty array. Expected an array with minimum length 1"
    )
    assert error.body["code"] == "empty_array"


def test_an_assistant_message_with_an_empty_tool_calls_list_is_refused():
    error = refused([USER, {"role": "assistant", "content": "6", "tool_calls": []}, USER])
    assert error.body["message"].startswith(
        "Invalid 'messages[1].tool_calls': empty array. Expected an array with minimum length 1, "
        "but got an empty array instead."
    )
    assert (error.body["param"], error.body["code"]) == ("messages[1].tool_calls", "empty_array")


def test_an_assistant_message_without_tool_calls_or_with_none_is_accepted():
    client = mock.client(mock.Script("ok", "ok"))
    for answer in (
        {"role": "assistant", "content": "6"},
        {"role": "assistant", "content": "6", "tool_calls": None},
    ):
        reply = client.chat.completions.create(model="mock-model", messages=[USER, answer, USER])
        assert reply.choices[0].message.content == "ok"


def test_a_dumped_sdk_message_is_refused_where_unknown_fields_are():
    client = mock.client(mock.Script("6", "ok"), reject_unknown_fields=True)
    message = client.chat.completions.create(model="mock-model", messages=[USER]).choices[0].message
    with pytest.raises(openai.BadRequestError) as info:
        client.chat.completions.create(model="mock-model", messages=[USER, message.model_dump(), USER])
    assert info.value.body["code"] == "extra_forbidden"
    assert info.value.body["param"] == "messages[1].annotations"
    plain = {"role": "assistant", "content": message.content}
    reply = client.chat.completions.create(model="mock-model", messages=[USER, plain, USER])
    assert reply.choices[0].message.content == "ok"


def test_an_unknown_field_in_a_function_definition_is_refused_where_unknown_fields_are():
    """what an MCP tool brings (outputSchema, annotations) is not a field of a Chat Completions function"""
    strict_server = mock.client(mock.Script("ok"), reject_unknown_fields=True)
    with_output_schema = {"type": "function", "function": {**ADD["function"], "outputSchema": {}}}
    with pytest.raises(openai.BadRequestError) as info:
        strict_server.chat.completions.create(model="mock-model", messages=[USER], tools=[with_output_schema])
    assert info.value.body["code"] == "extra_forbidden"
    assert info.value.body["param"] == "tools[0].function.outputSchema"
    reply = strict_server.chat.completions.create(model="mock-model", messages=[USER], tools=[ADD])
    assert reply.choices[0].message.content == "ok"


def test_content_given_as_text_parts_is_accepted():
    client = mock.client(mock.Script("hello"))
    parts = [{"type": "text", "text": "Say "}, {"type": "text", "text": "hello"}]
    reply = client.chat.completions.create(model="mock-model", messages=[{"role": "user", "content": parts}])
    assert reply.choices[0].message.content == "hello"


def test_a_correct_tool_round_trip_is_accepted():
    client = mock.client(mock.Script("6"))
    history = [USER, assistant_calling("call_1"), tool("call_1")]
    reply = client.chat.completions.create(model="mock-model", messages=history, tools=[ADD])
    assert reply.choices[0].message.content == "6"


def test_check_protocol_false_lets_anything_through():
    client = mock.client(mock.Script("ok"), check_protocol=False)
    reply = client.chat.completions.create(model="mock-model", messages=[tool("call_1")])
    assert reply.choices[0].message.content == "ok"


def strict_tool(parameters):
    return {"type": "function", "function": {"name": "ship", "strict": True, "parameters": parameters}}


ADDRESS = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


def test_a_strict_tool_whose_nested_object_is_open_is_refused():
    parameters = {
        "type": "object",
        "properties": {"address": ADDRESS},
        "required": ["address"],
        "additionalProperties": False,
    }
    error = refused([USER], tools=[strict_tool(parameters)])
    assert error.body["message"].startswith(
        "Invalid schema for function 'ship': In context=('properties', 'address'), 'additionalProperties' "
        "is required to be supplied and to be false."
    )
    assert error.body["param"] == "tools[0].function.parameters"
    assert error.body["code"] == "invalid_function_parameters"


def test_a_strict_tool_must_require_every_property():
    parameters = {
        "type": "object",
        "properties": {"city": {"type": "string"}, "express": {"type": "boolean"}},
        "required": ["city"],
        "additionalProperties": False,
    }
    error = refused([USER], tools=[strict_tool(parameters)])
    assert error.body["message"].startswith(
        "Invalid schema for function 'ship': In context=(), 'required' is required to be supplied and to be "
        "an array including every key in properties. Missing 'express'."
    )


def test_the_same_schema_without_strict_is_accepted_and_a_generated_strict_one_too():
    from agent_core.schema import tool as make_tool

    def ship(city: str, express: bool | None = None, tags: list[str] | None = None) -> str:
        """Ship a parcel."""
        return city

    loose = {
        "type": "function",
        "function": {"name": "ship", "parameters": {"type": "object", "properties": {}}},
    }
    client = mock.client(mock.Script("ok", "ok"))
    for definition in (loose, make_tool(ship, strict=True).definition):
        reply = client.chat.completions.create(model="mock-model", messages=[USER], tools=[definition])
        assert reply.choices[0].message.content == "ok"
