"""A request's options, honoured by the mock as the real API honours them: through the real SDK, in process
and over 127.0.0.1."""

import json
from typing import Literal

import anthropic
import openai
import pytest
from calculator_tools import add
from pydantic import BaseModel

from agent_core import mock
from agent_core.loop import run_agent
from agent_core.mock.protocol import REQUEST_ARGUMENTS
from agent_core.mock.request_options import fill_schema, is_answer_tool
from agent_core.mock.server import serve
from agent_core.schema import tool_definition
from agent_core.tokens import count_text


def multiply(a: float, b: float) -> float:
    """Multiply two numbers."""
    return a * b


def final_answer(answer: str) -> str:
    """Give the final answer to the task."""
    return answer


TOOLS = [tool_definition(add), tool_definition(multiply)]
ANSWER_TOOL = tool_definition(final_answer)


class Calculation(BaseModel):
    expression: str
    result: float


def ask(client, question, **options):
    return client.chat.completions.create(
        model="mock-model", messages=[{"role": "user", "content": question}], **options
    )


def refused(client, question="2+3", **options) -> str:
    with pytest.raises(openai.BadRequestError) as caught:
        ask(client, question, **options)
    return caught.value.body["message"]


def calls_of(response, choice=0):
    return [
        (c.function.name, json.loads(c.function.arguments))
        for c in response.choices[choice].message.tool_calls or []
    ]


def answered(client, question, tools):
    """the messages of a conversation in which every call the calculator asked for was answered"""
    messages = [{"role": "user", "content": question}]
    while True:
        response = client.chat.completions.create(model="mock-model", messages=messages, tools=tools)
        message = response.choices[0].message
        if not message.tool_calls:
            return messages
        messages.append(message.model_dump(exclude_none=True))
        for call in message.tool_calls:
            arguments = json.loads(call.function.arguments)
            result = {"add": add, "multiply": multiply}[call.function.name](**arguments)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": json.dumps(result)})


@pytest.fixture(scope="module")
def server():
    with serve(mock.Calculator()) as running:
        yield running


# --- tool_choice ----------------------------------------------------------------------------


def test_tool_choice_none_gets_text_even_from_a_policy_that_calls():
    client = mock.client(mock.Script(mock.call("add", a=1, b=2)))
    response = ask(client, "1+2", tools=TOOLS, tool_choice="none")
    choice = response.choices[0]
    assert choice.message.tool_calls is None and choice.finish_reason == "stop"
    assert "tool_choice is 'none'" in choice.message.content and "add" in choice.message.content


def test_tool_choice_none_makes_the_calculator_work_in_its_head():
    response = ask(mock.client(mock.Calculator()), "4+2", tools=TOOLS, tool_choice="none")
    assert response.choices[0].message.content == "4 + 2 = 6"


def test_tool_choice_required_sends_a_ready_answer_through_the_answer_tool():
    client = mock.client(mock.Calculator())
    messages = answered(client, "(3+4)*2", TOOLS + [ANSWER_TOOL])
    response = client.chat.completions.create(
        model="mock-model", messages=messages, tools=TOOLS + [ANSWER_TOOL], tool_choice="required"
    )
    assert calls_of(response) == [("final_answer", {"answer": "(3 + 4)*2 = 14"})]
    assert response.choices[0].finish_reason == "tool_calls"  # "required" keeps tool_calls (vllm#25054)


def test_tool_choice_required_still_lets_the_calculator_ask_for_its_tools():
    response = ask(mock.client(mock.Calculator()), "4+2", tools=TOOLS + [ANSWER_TOOL], tool_choice="required")
    assert calls_of(response) == [("add", {"a": 4, "b": 2})]


def test_tool_choice_required_without_an_answer_tool_calls_the_first_tool_offered():
    """a model that must call something, with nothing to call for the answer, calls the first tool"""
    client = mock.client(mock.Calculator())
    messages = answered(client, "4+2", TOOLS)
    response = client.chat.completions.create(
        model="mock-model", messages=messages, tools=TOOLS, tool_choice="required"
    )
    assert calls_of(response) == [("add", {"a": 6, "b": 6})]


def test_a_named_tool_choice_forces_that_tool_with_finish_reason_stop():
    forced = {"type": "function", "function": {"name": "add"}}
    response = ask(mock.client(mock.Calculator()), "2*3+4", tools=TOOLS, tool_choice=forced)
    # the calculator sees only `add`, so it multiplies in its head and adds with the tool
    assert calls_of(response) == [("add", {"a": 6, "b": 4})]
    assert response.choices[0].finish_reason == "stop"  # as OpenAI answers a forced call
    assert response.choices[0].message.content is None


def test_a_named_tool_choice_gives_exactly_one_call():
    forced = {"type": "function", "function": {"name": "add"}}
    response = ask(mock.client(mock.Calculator()), "4+2 and 7+8", tools=TOOLS, tool_choice=forced)
    assert calls_of(response) == [("add", {"a": 4, "b": 2})]


def test_a_named_tool_choice_overrides_a_policy_that_answers_in_text():
    forced = {"type": "function", "function": {"name": "final_answer"}}
    client = mock.client(mock.Script("It is 42."))
    response = ask(client, "question", tools=TOOLS + [ANSWER_TOOL], tool_choice=forced)
    assert calls_of(response) == [("final_answer", {"answer": "It is 42."})]


def test_a_forced_call_streams_with_finish_reason_stop_too():
    forced = {"type": "function", "function": {"name": "add"}}
    stream = ask(mock.client(mock.Calculator()), "4+2", tools=TOOLS, tool_choice=forced, stream=True)
    chunks = list(stream)
    assert chunks[-1].choices[0].finish_reason == "stop"
    assert any(c.choices[0].delta.tool_calls for c in chunks)


def test_answer_tools_are_known_by_the_names_frameworks_give_them():
    assert is_answer_tool("final_answer") and is_answer_tool("final_result")
    assert is_answer_tool("final_result_Calculation") and not is_answer_tool("add")


# --- parallel_tool_calls --------------------------------------------------------------------


def test_parallel_tool_calls_false_gives_one_call_a_turn():
    client = mock.client(mock.Calculator())
    assert len(calls_of(ask(client, "4+2 and 7+8", tools=TOOLS))) == 2
    assert calls_of(ask(client, "4+2 and 7+8", tools=TOOLS, parallel_tool_calls=False)) == [
        ("add", {"a": 4, "b": 2})
    ]


def test_without_parallel_calls_the_calculator_plans_one_step_a_turn():
    together = run_agent(mock.client(mock.Calculator()), "4+2 and 7+8 and 1+1", [add])
    one_by_one = run_agent(
        mock.client(mock.Calculator()), "4+2 and 7+8 and 1+1", [add], parallel_tool_calls=False
    )
    assert together.answer == one_by_one.answer == "4 + 2 = 6\n7 + 8 = 15\n1 + 1 = 2"
    assert (together.model_calls, together.tool_calls_made) == (2, 3)
    assert (one_by_one.model_calls, one_by_one.tool_calls_made) == (4, 3)


# --- response_format ------------------------------------------------------------------------


def test_parse_with_a_pydantic_model_gets_the_calculators_result_as_its_fields():
    response = mock.client(mock.Calculator()).chat.completions.parse(
        model="mock-model", messages=[{"role": "user", "content": "(3+4)*2"}], response_format=Calculation
    )
    assert response.choices[0].message.parsed == Calculation(expression="(3 + 4)*2", result=14)


def test_structured_output_comes_after_the_tool_calls():
    client = mock.client(mock.Calculator())
    strict_tools = [tool_definition(add, strict=True), tool_definition(multiply, strict=True)]
    messages = answered(client, "5*6", strict_tools)
    response = client.chat.completions.parse(
        model="mock-model", messages=messages, tools=strict_tools, response_format=Calculation
    )
    assert response.choices[0].message.parsed == Calculation(expression="5*6", result=30)


def test_a_nested_schema_with_enums_and_optional_fields_is_filled_and_valid():
    class Step(BaseModel):
        operation: Literal["add", "subtract", "multiply", "divide"]
        result: int

    class Report(BaseModel):
        steps: list[Step]
        note: str | None
        exact: bool

    response = mock.client(mock.Calculator()).chat.completions.parse(
        model="mock-model", messages=[{"role": "user", "content": "3*4"}], response_format=Report
    )
    report = response.choices[0].message.parsed
    assert report.steps == [Step(operation="add", result=12)] and report.note == "3*4 = 12"


def test_json_object_gives_a_json_object_with_the_answer():
    response = ask(
        mock.client(mock.Calculator()), "Answer in JSON: 4+2", response_format={"type": "json_object"}
    )
    assert json.loads(response.choices[0].message.content) == {
        "answer": "4 + 2 = 6",
        "expression": "4 + 2",
        "result": 6,
    }


def test_json_object_without_the_word_json_is_refused_with_the_apis_text():
    message = refused(mock.client(), "4+2", response_format={"type": "json_object"})
    assert message.startswith(
        "'messages' must contain the word 'json' in some "
        "form, to use 'response_format' of type 'json_object'."
    )


def test_a_strict_schema_that_is_not_closed_is_refused_with_the_apis_text():
    schema = {"type": "object", "properties": {"result": {"type": "number"}}, "required": ["result"]}
    message = refused(
        mock.client(),
        response_format={
            "type": "json_schema",
            "json_schema": {"name": "calc", "schema": schema, "strict": True},
        },
    )
    assert message.startswith(
        "Invalid schema for response_format 'calc': In context=(), 'additionalProperties' is required to be "
        "supplied and to be false."
    )


def test_a_json_schema_without_a_name_is_refused():
    message = refused(mock.client(), response_format={"type": "json_schema", "json_schema": {"schema": {}}})
    assert message.startswith("Missing required parameter: 'response_format.json_schema.name'.")


def test_a_policys_own_valid_json_is_kept():
    client = mock.client(mock.Script('{"result": 7}'))
    schema = {"type": "object", "properties": {"result": {"type": "number"}}}
    response = ask(
        client, "x", response_format={"type": "json_schema", "json_schema": {"name": "r", "schema": schema}}
    )
    assert response.choices[0].message.content == '{"result": 7}'


def test_fill_schema_follows_refs_and_takes_values_by_name():
    schema = {
        "$defs": {"Pair": {"type": "object", "properties": {"result": {"type": "integer"}}}},
        "type": "object",
        "properties": {"pair": {"$ref": "#/$defs/Pair"}, "text": {"type": "string"}},
    }
    assert fill_schema(schema, "so it is 8", {}) == {"pair": {"result": 8}, "text": "so it is 8"}


def test_the_text_ends_before_a_stop_sequence():
    response = ask(mock.client(mock.Script("one\ntwo\nthree")), "count", stop=["\nthree", "zzz"])
    assert response.choices[0].message.content == "one\ntwo"
    assert response.choices[0].finish_reason == "stop"


# --- n, length limits -----------------------------------------------------------------------


def test_n_gives_that_many_choices_with_their_own_call_ids():
    response = ask(mock.client(mock.Calculator()), "4+2", tools=TOOLS, n=3)
    assert [c.index for c in response.choices] == [0, 1, 2]
    assert calls_of(response, 0) == calls_of(response, 2) == [("add", {"a": 4, "b": 2})]
    assert len({c.message.tool_calls[0].id for c in response.choices}) == 3


def test_n_zero_and_n_too_large_are_refused_with_the_apis_text():
    assert refused(mock.client(), n=0).startswith(
        "Invalid 'n': integer below minimum value. Expected a value >= 1, but got 0 instead."
    )
    assert refused(mock.client(), n=129).startswith(
        "Invalid 'n': integer above maximum value. Expected a value <= 128, but got 129 instead."
    )


def test_max_completion_tokens_cuts_the_text_with_finish_reason_length():
    whole = ask(mock.client(), "hello").choices[0].message.content
    response = ask(mock.client(), "hello", max_completion_tokens=5)
    choice = response.choices[0]
    assert choice.finish_reason == "length" and response.usage.completion_tokens == 5
    assert whole.startswith(choice.message.content) and count_text(choice.message.content) == 5


def test_max_tokens_cuts_a_tool_call_inside_its_arguments():
    response = ask(mock.client(mock.Calculator()), "4+2", tools=TOOLS, max_tokens=4)
    call = response.choices[0].message.tool_calls[0]
    assert response.choices[0].finish_reason == "length" and call.function.name == "add"
    with pytest.raises(ValueError):
        json.loads(call.function.arguments)


def test_a_streamed_reply_is_cut_at_the_same_place():
    whole = ask(mock.client(), "hello", max_completion_tokens=7)
    chunks = list(ask(mock.client(), "hello", max_completion_tokens=7, stream=True))
    assert "".join(c.choices[0].delta.content or "" for c in chunks) == whole.choices[0].message.content
    assert chunks[-1].choices[0].finish_reason == "length"


def test_max_tokens_below_one_is_refused():
    assert refused(mock.client(), max_tokens=0).startswith(
        "Invalid 'max_tokens': integer below minimum value. Expected a value >= 1, but got 0 instead."
    )


# --- arguments the API does not know, values out of range ------------------------------------


def test_an_unknown_argument_is_refused_with_the_apis_text():
    assert refused(mock.client(), extra_body={"thinking": True}).startswith(
        "Unrecognized request argument supplied: thinking"
    )
    assert refused(mock.client(), extra_body={"a": 1, "b": 2}).startswith(
        "Unrecognized request arguments supplied: a, b"
    )


def test_every_argument_of_the_sdk_is_known():
    for name in (
        "temperature",
        "top_p",
        "seed",
        "stop",
        "user",
        "metadata",
        "store",
        "logprobs",
        "reasoning_effort",
        "service_tier",
        "prediction",
        "prompt_cache_key",
    ):
        assert name in REQUEST_ARGUMENTS
    response = ask(
        mock.client(),
        "hi",
        temperature=0.2,
        top_p=0.9,
        seed=1,
        stop=["\n\n"],
        user="u",
        metadata={"k": "v"},
        store=False,
        frequency_penalty=0.5,
        presence_penalty=-0.5,
    )
    assert response.choices[0].finish_reason == "stop"


def test_values_out_of_range_are_refused_with_the_apis_text():
    assert refused(mock.client(), temperature=2.5).startswith(
        "Invalid 'temperature': decimal above maximum value. Expected a value <= 2, but got 2.5 instead."
    )
    assert refused(mock.client(), top_p=-1).startswith(
        "Invalid 'top_p': decimal below minimum value. Expected a value >= 0, but got -1 instead."
    )
    assert refused(mock.client(), temperature="hot").startswith(
        "Invalid type for 'temperature': expected a decimal, but got a string instead."
    )


def test_stream_options_without_stream_is_refused_with_the_apis_text():
    assert refused(mock.client(), stream_options={"include_usage": True}).startswith(
        "The 'stream_options' parameter is only allowed when 'stream' is enabled."
    )


# --- over a real socket ---------------------------------------------------------------------


def test_over_serve_mock_parse_n_and_length_behave_the_same(server):
    with openai.OpenAI(base_url=server.base_url, api_key="x", max_retries=0) as client:
        parsed = client.chat.completions.parse(
            model="mock-model", messages=[{"role": "user", "content": "6/4"}], response_format=Calculation
        )
        assert parsed.choices[0].message.parsed == Calculation(expression="6/4", result=1.5)
        assert len(ask(client, "4+2", tools=TOOLS, n=2).choices) == 2
        chunks = list(ask(client, "hello", max_tokens=3, stream=True))
        assert chunks[-1].choices[0].finish_reason == "length"
        assert refused(client, n=0).startswith("Invalid 'n': integer below minimum value.")


def test_get_a_model_by_its_id_over_serve_mock(server):
    with openai.OpenAI(base_url=server.base_url, api_key="x", max_retries=0) as client:
        assert client.models.retrieve("mock-model").id == "mock-model"
    with serve(mock.Calculator(), models=["small"]) as listed:
        with openai.OpenAI(base_url=listed.base_url, api_key="x", max_retries=0) as client:
            assert client.models.retrieve("small").id == "small"
            with pytest.raises(openai.NotFoundError, match="The model `large` does not exist"):
                client.models.retrieve("large")


# --- Anthropic Messages ---------------------------------------------------------------------

CALCULATOR_TOOLS = [
    {
        "name": name,
        "description": f"{name} two numbers",
        "input_schema": {
            "type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
            "required": ["a", "b"],
        },
    }
    for name in ("add", "multiply")
]


def anthropic_ask(server, question, **options):
    with anthropic.Anthropic(base_url=server.url, api_key="x", max_retries=0) as client:
        return client.messages.create(
            model="mock-model", max_tokens=256, messages=[{"role": "user", "content": question}], **options
        )


def test_anthropic_tool_choice_none_any_and_tool_are_honoured(server):
    none = anthropic_ask(server, "4+2", tools=CALCULATOR_TOOLS, tool_choice={"type": "none"})
    assert [b.type for b in none.content] == ["text"] and none.stop_reason == "end_turn"
    any_tool = anthropic_ask(server, "hello", tools=CALCULATOR_TOOLS, tool_choice={"type": "any"})
    assert [b.type for b in any_tool.content] == ["tool_use"] and any_tool.stop_reason == "tool_use"
    named = anthropic_ask(
        server, "2*3+4", tools=CALCULATOR_TOOLS, tool_choice={"type": "tool", "name": "add"}
    )
    assert [(b.name, b.input) for b in named.content] == [("add", {"a": 6, "b": 4})]
    assert named.stop_reason == "tool_use"


def test_anthropic_disable_parallel_tool_use_gives_one_call(server):
    both = anthropic_ask(server, "4+2 and 7+8", tools=CALCULATOR_TOOLS)
    one = anthropic_ask(
        server,
        "4+2 and 7+8",
        tools=CALCULATOR_TOOLS,
        tool_choice={"type": "auto", "disable_parallel_tool_use": True},
    )
    assert len(both.content) == 2 and len(one.content) == 1


def test_anthropic_tool_choice_naming_no_offered_tool_is_refused(server):
    with pytest.raises(anthropic.BadRequestError, match="tool_choice.name"):
        anthropic_ask(server, "4+2", tools=CALCULATOR_TOOLS, tool_choice={"type": "tool", "name": "divide"})


def test_anthropic_count_tokens_counts_what_the_message_would_cost(server):
    messages = [{"role": "user", "content": "4+2 and 7+8"}]
    with anthropic.Anthropic(base_url=server.url, api_key="x", max_retries=0) as client:
        counted = client.messages.count_tokens(model="mock-model", messages=messages, tools=CALCULATOR_TOOLS)
        sent = client.messages.create(
            model="mock-model", max_tokens=256, messages=messages, tools=CALCULATOR_TOOLS
        )
    assert counted.input_tokens == sent.usage.input_tokens > 0
