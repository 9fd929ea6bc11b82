"""Tests for agent_core.formats: Chat Completions <-> Responses, Anthropic and Ollama."""

from __future__ import annotations

import json

import pydantic
import pytest
from openai.types.chat import ChatCompletion
from openai.types.responses import (
    FunctionToolParam,
    ResponseFunctionToolCall,
    ResponseInputParam,
    ResponseOutputMessage,
)

from agent_core.formats import (
    ERROR_PREFIX,
    UNPARSED_ARGUMENTS,
    completion_to_anthropic,
    completion_to_ollama,
    completion_to_responses,
    from_anthropic,
    from_anthropic_stop_reason,
    from_ollama,
    from_responses,
    to_anthropic,
    to_anthropic_stop_reason,
    to_ollama,
    to_responses,
    tool_from_anthropic,
    tool_from_ollama,
    tool_from_responses,
    tool_to_anthropic,
    tool_to_ollama,
    tool_to_responses,
)
from agent_core.mock.policy import ToolCall

# --- the course's conversations, in Chat Completions ------------------------------------------


def call(call_id: str, name: str, **arguments: object) -> dict:
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": ToolCall(name, arguments).arguments_json()},
    }


def number_tool(name: str, description: str) -> dict:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                "required": ["a", "b"],
            },
        },
    }


CALCULATOR_TOOLS = [
    number_tool("add", "Add two numbers: a + b."),
    number_tool("divide", "Divide a by b. b must not be 0."),
]

SYSTEM = {
    "role": "system",
    "content": "You are a calculator. Use a tool for every arithmetic step.",
}

CALCULATOR = [
    SYSTEM,
    {"role": "user", "content": "5 + 8/12"},
    {"role": "assistant", "content": "", "tool_calls": [call("call_1", "divide", a=8, b=12)]},
    {"role": "tool", "tool_call_id": "call_1", "content": "0.6666666666666666"},
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [call("call_2", "add", a=5, b=0.6666666666666666)],
    },
    {"role": "tool", "tool_call_id": "call_2", "content": "5.666666666666667"},
    {"role": "assistant", "content": "5 + 8/12 = 5.666666666666667"},
]

PARALLEL = [
    SYSTEM,
    {"role": "user", "content": "4+2 and 7+8"},
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [call("call_a", "add", a=4, b=2), call("call_b", "add", a=7, b=8)],
    },
    {"role": "tool", "tool_call_id": "call_a", "content": "6"},
    {"role": "tool", "tool_call_id": "call_b", "content": "15"},
    {"role": "assistant", "content": "4+2 = 6 and 7+8 = 15"},
]

WITH_ERROR = [
    SYSTEM,
    {"role": "user", "content": "10 / 0"},
    {"role": "assistant", "content": "", "tool_calls": [call("call_1", "divide", a=10, b=0)]},
    {
        "role": "tool",
        "tool_call_id": "call_1",
        "content": "ERROR: division by zero: b must not be 0",
    },
    {"role": "assistant", "content": "10 / 0 has no answer: you cannot divide by zero."},
]

USERS_PY = (
    "def list_users(role: str | None = None):\n"
    "    users = db.query(User)\n "
    "   if role:\n"
    '        users = users.filter(User.role == role.upper())  # "Admin" -> "ADMIN"\n'
    "\treturn [u.to_dict() for u in users]\n"
)
PYTEST_RED = (
    "F.\n=================================== FAILURES ===================================\n"
    "___________________________ test_filter_by_role ________________________________\n"
    "E       assert 500 == 200\n"
    "1 failed, 1 passed in 0.12s\n"
)

CODING = [
    {"role": "system", "content": "You are a coding agent. Read before you edit; run the tests."},
    {"role": "user", "content": "/users returns 500 when filtering by role"},
    {
        "role": "assistant",
        "content": "Let me read the handler and run its tests.",
        "tool_calls": [
            call("call_r1", "read_file", path="app/routes/users.py"),
            call("call_r2", "run_command", command="pytest -q tests/test_users.py"),
        ],
    },
    {"role": "tool", "tool_call_id": "call_r1", "content": USERS_PY},
    {"role": "tool", "tool_call_id": "call_r2", "content": PYTEST_RED},
    {"role": "user", "content": "Remember: run the tests again before you say you are done."},
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [call("call_w1", "write_file", path="app/routes/users.py", content="é\n\tfixed\n")],
    },
    {"role": "tool", "tool_call_id": "call_w1", "content": "wrote 2 lines to app/routes/users.py"},
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [call("call_t1", "run_command", command="pytest -q")],
    },
    {"role": "tool", "tool_call_id": "call_t1", "content": "..\n2 passed in 0.10s\n"},
    {"role": "assistant", "content": "Fixed: the role filter compared against upper case."},
]

CONVERSATIONS = {
    "calculator": CALCULATOR,
    "parallel": PARALLEL,
    "error": WITH_ERROR,
    "coding": CODING,
}


def renumbered_ids(messages: list[dict]) -> list[dict]:
    """the conversation with call ids replaced by call_0, call_1... in order of appearance"""
    new_ids: dict[str, str] = {}
    result = []
    for message in json.loads(json.dumps(messages)):
        for tool_call in message.get("tool_calls") or []:
            new_ids[tool_call["id"]] = tool_call["id"] = f"call_{len(new_ids)}"
        if message["role"] == "tool":
            message["tool_call_id"] = new_ids[message["tool_call_id"]]
        result.append(message)
    return result


def chat_completion(message: dict, finish_reason: str) -> dict:
    return {
        "id": "chatcmpl-7",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": "mock-calculator",
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": 120, "completion_tokens": 18, "total_tokens": 138},
    }


# --- round trips ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", CONVERSATIONS)
def test_responses_round_trip_is_lossless(name):
    messages = CONVERSATIONS[name]
    assert from_responses(to_responses(messages)) == messages


@pytest.mark.parametrize("name", CONVERSATIONS)
def test_anthropic_round_trip_is_lossless(name):
    messages = CONVERSATIONS[name]
    assert from_anthropic(to_anthropic(messages)) == messages


@pytest.mark.parametrize("name", CONVERSATIONS)
def test_ollama_round_trip_is_lossless_except_call_ids(name):
    messages = CONVERSATIONS[name]
    assert from_ollama(to_ollama(messages)) == renumbered_ids(messages)


@pytest.mark.parametrize("name", CONVERSATIONS)
def test_round_trips_through_every_format_leave_the_conversation_alone(name):
    messages = CONVERSATIONS[name]
    via_all = from_ollama(to_ollama(from_anthropic(to_anthropic(from_responses(to_responses(messages))))))
    assert via_all == renumbered_ids(messages)


def test_an_assistant_message_without_text_comes_back_as_the_loop_writes_it():
    # null and "" both mean "no text" beside tool calls; the other formats carry neither (Anthropic refuses
    # an empty text block), so the way back writes "", as assistant_message does for every server
    calls = [call("call_1", "divide", a=8, b=12)]
    for content in (None, ""):
        messages = [
            {"role": "user", "content": "8/12"},
            {"role": "assistant", "content": content, "tool_calls": calls},
        ]
        written = [messages[0], {"role": "assistant", "content": "", "tool_calls": calls}]
        assert from_responses(to_responses(messages)) == written
        assert from_anthropic(to_anthropic(messages)) == written
        assert from_ollama(to_ollama(messages)) == renumbered_ids(written)


def test_tool_definitions_round_trip_through_every_format():
    strict_tool = number_tool("add", "Add two numbers.")
    strict_tool["function"]["strict"] = True
    for tool in [*CALCULATOR_TOOLS, strict_tool]:
        assert tool_from_responses(tool_to_responses(tool)) == tool
        assert tool_from_anthropic(tool_to_anthropic(tool)) == tool
        assert tool_from_ollama(tool_to_ollama(tool)) == tool


# --- tool definitions -------------------------------------------------------------------------


def test_responses_tool_is_flat_and_explicitly_not_strict():
    tool = tool_to_responses(CALCULATOR_TOOLS[0])
    assert tool == {
        "type": "function",
        "name": "add",
        "description": "Add two numbers: a + b.",
        "parameters": CALCULATOR_TOOLS[0]["function"]["parameters"],
        "strict": False,
    }
    pydantic.TypeAdapter(FunctionToolParam).validate_python(tool)


def test_anthropic_tool_has_input_schema():
    tool = tool_to_anthropic(CALCULATOR_TOOLS[1])
    assert tool == {
        "name": "divide",
        "description": "Divide a by b. b must not be 0.",
        "input_schema": CALCULATOR_TOOLS[1]["function"]["parameters"],
    }


def test_anthropic_tool_without_parameters_gets_an_empty_object_schema():
    tool = {"type": "function", "function": {"name": "now", "description": "The time."}}
    assert tool_to_anthropic(tool)["input_schema"] == {"type": "object", "properties": {}}


def test_ollama_tool_has_the_chat_completions_shape():
    assert tool_to_ollama(CALCULATOR_TOOLS[0]) == CALCULATOR_TOOLS[0]
    assert tool_to_ollama(CALCULATOR_TOOLS[0]) is not CALCULATOR_TOOLS[0]


def test_a_flat_tool_is_rejected_with_the_expected_shape():
    with pytest.raises(ValueError, match='"type": "function", "function"'):
        tool_to_anthropic({"type": "function", "name": "add", "parameters": {}})


def test_tools_travel_with_the_request():
    assert to_responses(CALCULATOR, CALCULATOR_TOOLS)["tools"][1]["name"] == "divide"
    assert to_anthropic(CALCULATOR, CALCULATOR_TOOLS)["tools"][1]["input_schema"]["required"] == [
        "a",
        "b",
    ]
    assert to_ollama(CALCULATOR, CALCULATOR_TOOLS)["tools"] == CALCULATOR_TOOLS
    assert "tools" not in to_responses(CALCULATOR)


# --- Responses --------------------------------------------------------------------------------


def test_responses_system_prompt_becomes_instructions():
    request = to_responses(CALCULATOR)
    assert request["instructions"] == SYSTEM["content"]
    assert all(item.get("role") != "system" for item in request["input"])


def test_responses_items_thread_call_ids():
    items = to_responses(CALCULATOR)["input"]
    assert [item.get("type", item.get("role")) for item in items] == [
        "user",
        "function_call",
        "function_call_output",
        "function_call",
        "function_call_output",
        "assistant",
    ]
    assert items[1] == {
        "type": "function_call",
        "call_id": "call_1",
        "name": "divide",
        "arguments": '{"a": 8, "b": 12}',
    }
    assert items[2] == {
        "type": "function_call_output",
        "call_id": "call_1",
        "output": "0.6666666666666666",
    }
    assert items[3]["call_id"] == items[4]["call_id"] == "call_2"


def test_responses_text_beside_calls_is_a_message_item_before_them():
    items = to_responses(CODING)["input"]
    assert items[1] == {
        "role": "assistant",
        "content": "Let me read the handler and run its tests.",
    }
    assert [items[2]["type"], items[3]["type"]] == ["function_call", "function_call"]


# pydantic ignores keys a TypedDict does not declare unless told to forbid them: without it, an item
# with a misspelt optional key (e.g. "stauts") would pass as the SDK type
EXACT_KEYS = pydantic.ConfigDict(extra="forbid")
SDK_INPUT = pydantic.TypeAdapter(ResponseInputParam, config=EXACT_KEYS)
SDK_TOOLS = pydantic.TypeAdapter(list[FunctionToolParam], config=EXACT_KEYS)


@pytest.mark.parametrize("name", CONVERSATIONS)
def test_responses_input_matches_the_openai_sdk_types(name):
    request = to_responses(CONVERSATIONS[name], CALCULATOR_TOOLS)
    SDK_INPUT.validate_python(request["input"])
    SDK_TOOLS.validate_python(request["tools"])


@pytest.mark.parametrize(
    ("item", "misspelt"),
    [
        (
            {"type": "function_call_output", "call_id": "call_1", "output": "6", "status": "completed"},
            {"type": "function_call_output", "call_id": "call_1", "output": "6", "stauts": "completed"},
        ),
        (
            {"role": "user", "content": [{"type": "input_text", "text": "4+2"}]},
            {"role": "user", "content": [{"type": "input_text", "text": "4+2", "txt": "4+2"}]},
        ),
    ],
)
def test_the_sdk_types_check_rejects_an_input_key_the_sdk_does_not_declare(item, misspelt):
    SDK_INPUT.validate_python([item])
    with pytest.raises(pydantic.ValidationError, match="Extra inputs are not permitted"):
        SDK_INPUT.validate_python([misspelt])


def test_the_sdk_types_check_rejects_a_tool_key_the_sdk_does_not_declare():
    tool = tool_to_responses(CALCULATOR_TOOLS[0])
    SDK_TOOLS.validate_python([tool])
    with pytest.raises(pydantic.ValidationError, match="Extra inputs are not permitted"):
        SDK_TOOLS.validate_python([{**tool, "descripton": "Add two numbers."}])


def test_responses_errors_keep_their_prefix_in_the_output():
    outputs = [i for i in to_responses(WITH_ERROR)["input"] if i.get("type") == "function_call_output"]
    assert outputs[0]["output"].startswith(ERROR_PREFIX)


def test_from_responses_reads_real_output_items():
    items = [
        {"role": "user", "content": [{"type": "input_text", "text": "4+2"}]},
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {
            "type": "function_call",
            "id": "fc_1",
            "call_id": "call_x",
            "name": "add",
            "arguments": '{"a":4,"b":2}',
            "status": "completed",
        },
        {"type": "function_call_output", "call_id": "call_x", "output": "6"},
        {
            "type": "message",
            "id": "msg_1",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": "6", "annotations": []}],
        },
    ]
    assert from_responses({"input": items}) == [
        {"role": "user", "content": "4+2"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "call_x",
                    "type": "function",
                    "function": {"name": "add", "arguments": '{"a":4,"b":2}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_x", "content": "6"},
        {"role": "assistant", "content": "6"},
    ]


def test_from_responses_accepts_a_plain_string_input():
    assert from_responses({"instructions": "Be brief.", "input": "hi"}) == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "hi"},
    ]


# --- Anthropic --------------------------------------------------------------------------------


def test_anthropic_system_is_a_top_level_string():
    request = to_anthropic(CALCULATOR)
    assert request["system"] == SYSTEM["content"]
    assert [turn["role"] for turn in request["messages"]] == [
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
        "assistant",
    ]


@pytest.mark.parametrize("name", CONVERSATIONS)
def test_anthropic_roles_alternate_starting_with_user(name):
    roles = [turn["role"] for turn in to_anthropic(CONVERSATIONS[name])["messages"]]
    assert roles[0] == "user"
    assert all(a != b for a, b in zip(roles, roles[1:], strict=False))


def test_anthropic_calls_are_tool_use_blocks_with_object_input():
    turn = to_anthropic(CALCULATOR)["messages"][1]
    assert turn == {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": "call_1", "name": "divide", "input": {"a": 8, "b": 12}}],
    }


def test_anthropic_parallel_results_share_one_user_message():
    turns = to_anthropic(PARALLEL)["messages"]
    assert turns[2] == {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "call_a", "content": "6"},
            {"type": "tool_result", "tool_use_id": "call_b", "content": "15"},
        ],
    }


def test_anthropic_tool_results_come_before_text_in_the_user_message():
    turn = to_anthropic(CODING)["messages"][2]
    assert [block["type"] for block in turn["content"]] == ["tool_result", "tool_result", "text"]
    assert turn["content"][0]["content"] == USERS_PY


def test_anthropic_text_beside_calls_comes_first_in_the_assistant_message():
    turn = to_anthropic(CODING)["messages"][1]
    assert [block["type"] for block in turn["content"]] == ["text", "tool_use", "tool_use"]


def test_anthropic_error_observation_sets_is_error_and_keeps_the_text():
    result = to_anthropic(WITH_ERROR)["messages"][2]["content"][0]
    assert result == {
        "type": "tool_result",
        "tool_use_id": "call_1",
        "content": "ERROR: division by zero: b must not be 0",
        "is_error": True,
    }
    ok_results = to_anthropic(CALCULATOR)["messages"][2]["content"]
    assert "is_error" not in ok_results[0]


def test_anthropic_is_error_without_the_prefix_gets_it_on_the_way_back():
    request = {
        "messages": [
            {"role": "user", "content": "10 / 0"},
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": "toolu_1",
                        "name": "divide",
                        "input": {"a": 10, "b": 0},
                    }
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_1",
                        "content": [{"type": "text", "text": "cannot divide by zero"}],
                        "is_error": True,
                    }
                ],
            },
        ]
    }
    assert from_anthropic(request)[-1] == {
        "role": "tool",
        "tool_call_id": "toolu_1",
        "content": "ERROR: cannot divide by zero",
    }


def test_anthropic_consecutive_user_messages_are_merged_and_split_back():
    messages = [{"role": "user", "content": "first"}, {"role": "user", "content": "second"}]
    request = to_anthropic(messages)
    assert request["messages"] == [
        {
            "role": "user",
            "content": [{"type": "text", "text": "first"}, {"type": "text", "text": "second"}],
        }
    ]
    assert from_anthropic(request) == messages


def test_anthropic_rejects_a_system_message_after_the_start():
    messages = [*CALCULATOR[:2], {"role": "system", "content": "Be brief."}]
    with pytest.raises(ValueError, match="message 2 is a system message"):
        to_anthropic(messages)


def test_anthropic_reply_with_thinking_translates_to_plain_chat():
    request = {
        "messages": [
            {"role": "user", "content": "Do I need an umbrella in Paris?"},
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "check weather", "signature": "abc"},
                    {"type": "text", "text": "Let me check."},
                    {
                        "type": "tool_use",
                        "id": "toolu_9",
                        "name": "get_weather",
                        "input": {"city": "Paris"},
                    },
                ],
            },
        ]
    }
    assert from_anthropic(request)[-1] == {
        "role": "assistant",
        "content": "Let me check.",
        "tool_calls": [
            {
                "id": "toolu_9",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
            }
        ],
    }


def test_anthropic_image_blocks_are_refused_with_a_clear_message():
    request = {"messages": [{"role": "user", "content": [{"type": "image", "source": {}}]}]}
    with pytest.raises(ValueError, match="'image' blocks"):
        from_anthropic(request)


@pytest.mark.parametrize(
    ("finish_reason", "stop_reason"),
    [
        ("stop", "end_turn"),
        ("tool_calls", "tool_use"),
        ("length", "max_tokens"),
        ("content_filter", "refusal"),
    ],
)
def test_stop_reasons_map_both_ways(finish_reason, stop_reason):
    assert to_anthropic_stop_reason(finish_reason) == stop_reason
    assert from_anthropic_stop_reason(stop_reason) == finish_reason


def test_stop_sequence_is_a_plain_stop_and_unknown_reasons_are_refused():
    assert from_anthropic_stop_reason("stop_sequence") == "stop"
    with pytest.raises(ValueError, match="pause_turn"):
        from_anthropic_stop_reason("pause_turn")
    with pytest.raises(ValueError, match="function_call"):
        to_anthropic_stop_reason("function_call")


# --- Ollama -----------------------------------------------------------------------------------


def test_ollama_calls_have_object_arguments_and_no_ids():
    assistant = to_ollama(PARALLEL)["messages"][2]
    assert assistant == {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"function": {"name": "add", "arguments": {"a": 4, "b": 2}}},
            {"function": {"name": "add", "arguments": {"a": 7, "b": 8}}},
        ],
    }


def test_ollama_results_carry_the_tool_name_instead_of_an_id():
    results = [m for m in to_ollama(CODING)["messages"] if m["role"] == "tool"]
    assert [r["tool_name"] for r in results] == [
        "read_file",
        "run_command",
        "write_file",
        "run_command",
    ]
    assert results[0] == {"role": "tool", "tool_name": "read_file", "content": USERS_PY}
    assert all("tool_call_id" not in r for r in results)


def test_ollama_results_are_sent_in_call_order_so_pairing_by_order_holds():
    swapped = [*PARALLEL[:3], PARALLEL[4], PARALLEL[3], PARALLEL[5]]  # 15 answered before 6
    results = [m["content"] for m in to_ollama(swapped)["messages"] if m["role"] == "tool"]
    assert results == ["6", "15"]
    back = from_ollama(to_ollama(swapped))
    assert back[2]["tool_calls"][0]["function"]["arguments"] == '{"a": 4, "b": 2}'
    assert back[3] == {
        "role": "tool",
        "tool_call_id": back[2]["tool_calls"][0]["id"],
        "content": "6",
    }


def test_from_ollama_numbers_calls_and_pairs_results_by_name_and_order():
    # the request shape from Ollama's tool-calling docs: no content, no ids, results named
    request = {
        "messages": [
            {"role": "user", "content": "Weather and temperature in New York?"},
            {
                "role": "assistant",
                "tool_calls": [
                    {
                        "type": "function",
                        "function": {
                            "index": 0,
                            "name": "get_temperature",
                            "arguments": {"city": "New York"},
                        },
                    },
                    {
                        "type": "function",
                        "function": {
                            "index": 1,
                            "name": "get_conditions",
                            "arguments": {"city": "New York"},
                        },
                    },
                ],
            },
            {"role": "tool", "tool_name": "get_conditions", "content": "Partly cloudy"},
            {"role": "tool", "tool_name": "get_temperature", "content": "22°C"},
        ]
    }
    messages = from_ollama(request)
    assert [c["id"] for c in messages[1]["tool_calls"]] == ["call_0", "call_1"]
    assert messages[1]["content"] == ""
    assert messages[2] == {"role": "tool", "tool_call_id": "call_1", "content": "Partly cloudy"}
    assert messages[3] == {"role": "tool", "tool_call_id": "call_0", "content": "22°C"}


def test_from_ollama_refuses_a_result_for_no_call():
    request = {
        "messages": [
            {"role": "user", "content": "hi"},
            {"role": "tool", "tool_name": "add", "content": "3"},
        ]
    }
    with pytest.raises(ValueError, match="answers no earlier unanswered call"):
        from_ollama(request)


def test_to_ollama_refuses_a_tool_message_without_its_call():
    with pytest.raises(ValueError, match="'call_9'"):
        to_ollama(
            [
                {"role": "user", "content": "hi"},
                {"role": "tool", "tool_call_id": "call_9", "content": "3"},
            ]
        )


def test_ollama_error_observations_keep_their_text():
    result = [m for m in to_ollama(WITH_ERROR)["messages"] if m["role"] == "tool"][0]
    assert result["content"] == "ERROR: division by zero: b must not be 0"


# --- what one format cannot carry ---------------------------------------------------------------


@pytest.mark.parametrize("broken", ['{"a": 8, "b": ', "[8, 12]", "not json"])
def test_unparseable_arguments_survive_object_formats(broken):
    messages = [
        {"role": "user", "content": "8/12"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "divide", "arguments": broken},
                }
            ],
        },
        {
            "role": "tool",
            "tool_call_id": "call_1",
            "content": "ERROR: the arguments are not valid JSON",
        },
    ]
    tool_use = to_anthropic(messages)["messages"][1]["content"][0]
    assert tool_use["input"] == {UNPARSED_ARGUMENTS: broken}
    assert from_anthropic(to_anthropic(messages)) == messages
    assert from_ollama(to_ollama(messages)) == renumbered_ids(messages)


def test_argument_text_comes_back_as_equal_json_not_equal_text():
    compact = [
        {"role": "user", "content": "8/12"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "divide", "arguments": '{"a":8,"b":12}'},
                }
            ],
        },
    ]
    back = from_anthropic(to_anthropic(compact))[1]["tool_calls"][0]["function"]["arguments"]
    assert back == '{"a": 8, "b": 12}'
    assert json.loads(back) == json.loads('{"a":8,"b":12}')
    assert from_responses(to_responses(compact)) == compact  # Responses keeps the string itself


def test_sdk_message_objects_are_accepted():
    completion = ChatCompletion.model_validate(chat_completion(CALCULATOR[2], "tool_calls"))
    messages = [*CALCULATOR[:2], completion.choices[0].message, CALCULATOR[3]]
    assert from_anthropic(to_anthropic(messages)) == CALCULATOR[:4]
    assert from_responses(to_responses(messages)) == CALCULATOR[:4]


# --- model replies ----------------------------------------------------------------------------


def test_completion_to_anthropic_with_parallel_calls():
    completion = chat_completion(PARALLEL[2], "tool_calls")
    ChatCompletion.model_validate(completion)
    assert completion_to_anthropic(completion) == {
        "id": "chatcmpl-7",
        "type": "message",
        "role": "assistant",
        "model": "mock-calculator",
        "content": [
            {"type": "tool_use", "id": "call_a", "name": "add", "input": {"a": 4, "b": 2}},
            {"type": "tool_use", "id": "call_b", "name": "add", "input": {"a": 7, "b": 8}},
        ],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 120, "output_tokens": 18},
    }


def test_completion_to_anthropic_final_text_ends_the_turn():
    response = completion_to_anthropic(ChatCompletion.model_validate(chat_completion(CALCULATOR[-1], "stop")))
    assert response["content"] == [{"type": "text", "text": "5 + 8/12 = 5.666666666666667"}]
    assert response["stop_reason"] == "end_turn"


def test_completion_to_responses_output_items_match_the_openai_sdk_types():
    response = completion_to_responses(chat_completion(CODING[2], "tool_calls"))
    assert response["status"] == "completed"
    assert [item["type"] for item in response["output"]] == [
        "message",
        "function_call",
        "function_call",
    ]
    ResponseOutputMessage.model_validate(response["output"][0])
    calls = [ResponseFunctionToolCall.model_validate(item) for item in response["output"][1:]]
    assert [c.call_id for c in calls] == ["call_r1", "call_r2"]
    assert response["usage"] == {"input_tokens": 120, "output_tokens": 18, "total_tokens": 138}


def test_completion_to_responses_cut_short_is_incomplete():
    response = completion_to_responses(
        chat_completion({"role": "assistant", "content": "5 + 8/12 ="}, "length")
    )
    assert response["status"] == "incomplete"
    assert response["incomplete_details"] == {"reason": "max_output_tokens"}


def test_completion_to_ollama_has_object_arguments_and_stop():
    response = completion_to_ollama(chat_completion(CALCULATOR[2], "tool_calls"))
    assert response == {
        "model": "mock-calculator",
        "created_at": "2023-11-14T22:13:20Z",
        "message": {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"function": {"name": "divide", "arguments": {"a": 8, "b": 12}}}],
        },
        "done": True,
        "done_reason": "stop",
        "prompt_eval_count": 120,
        "eval_count": 18,
    }
    assert completion_to_ollama(chat_completion(CALCULATOR[-1], "length"))["done_reason"] == "length"
