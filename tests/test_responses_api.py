"""The mock's Responses API (POST /v1/responses), driven by the real openai SDK in process and over a
socket."""

import json

import httpx2
import openai
import pytest
from calculator_tools import OPERATIONS
from openai.types.responses import Response
from pydantic import BaseModel

from agent_core import mock
from agent_core.mock.responses_api import to_chat_request
from agent_core.mock.server import serve
from agent_core.render import console, print_trace, show_trace

TOOLS = [
    {
        "type": "function",
        "name": name,
        "description": f"{name.capitalize()} two numbers.",
        "parameters": {
            "type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
            "required": ["a", "b"],
            "additionalProperties": False,
        },
        "strict": True,
    }
    for name in ("add", "subtract", "multiply", "divide")
]


class Seen(mock.Policy):
    """a policy that keeps every Chat Completions request it answers, and lets another answer it"""

    def __init__(self, inner):
        self.inner, self.requests = mock.as_policy(inner), []

    def reply(self, request):
        self.requests.append(request)
        return self.inner(request)


def outputs_for(response):
    """run every function_call of a response; one function_call_output item each"""
    return [
        {
            "type": "function_call_output",
            "call_id": item.call_id,
            "output": str(OPERATIONS[item.name](**json.loads(item.arguments))),
        }
        for item in response.output
        if item.type == "function_call"
    ]


def run_chained(client, question, max_calls=6, **options):
    """the agent loop on the Responses API, the server keeping the conversation (previous_response_id)"""
    response = client.responses.create(model="mock-model", input=question, tools=TOOLS, **options)
    responses = [response]
    while outputs_for(response) and len(responses) < max_calls:
        response = client.responses.create(
            model="mock-model", input=outputs_for(response), tools=TOOLS, previous_response_id=response.id
        )
        responses.append(response)
    return responses


def run_stateless(client, question, max_calls=6):
    """the same loop with store=false: every request carries the whole conversation as items"""
    items = [{"role": "user", "content": question}]
    responses = []
    while len(responses) < max_calls:
        response = client.responses.create(model="mock-model", input=items, tools=TOOLS, store=False)
        responses.append(response)
        items += [item.model_dump(exclude_none=True) for item in response.output] + outputs_for(response)
        if not outputs_for(response):
            break
    return responses, items


def refusal(client, **request):
    with pytest.raises(openai.BadRequestError) as caught:
        client.responses.create(**{"model": "mock-model", **request})
    assert caught.value.status_code == 400
    return caught.value.body


@pytest.fixture(scope="module")
def server():
    with serve(mock.Calculator()) as running:
        yield running


def test_the_calculator_agent_runs_on_the_responses_api_in_process():
    responses = run_chained(mock.client(mock.Calculator()), "5 + 8/12")
    assert [[item.type for item in r.output] for r in responses] == [
        ["function_call"],
        ["function_call"],
        ["message"],
    ]
    assert [r.output[0].name for r in responses[:2]] == ["divide", "add"]
    assert json.loads(responses[1].output[0].arguments) == {"a": 5, "b": 8 / 12}
    assert responses[-1].output_text == "5 + 8/12 = 5.666666666666667"
    assert [r.previous_response_id for r in responses] == [None, responses[0].id, responses[1].id]


def test_the_calculator_agent_runs_over_serve_mock_with_the_whole_conversation_each_time(server):
    with openai.OpenAI(base_url=server.base_url, api_key="x", max_retries=0) as client:
        responses, items = run_stateless(client, "5 + 8/12")
    assert [item["type"] for item in items[1:]] == [
        "function_call",
        "function_call_output",
        "function_call",
        "function_call_output",
        "message",
    ]
    assert responses[-1].output_text == "5 + 8/12 = 5.666666666666667"
    assert all(r.store is False for r in responses)


def test_every_response_is_a_genuine_response_with_its_usage_details():
    client = mock.client(mock.Calculator())  # parses with _strict_response_validation=True
    response = client.responses.create(
        model="mock-model", input="5 + 8/12", tools=TOOLS, instructions="Be exact."
    )
    assert isinstance(response, Response)
    assert response.object == "response" and response.status == "completed" and response.error is None
    assert response.id.startswith("resp_") and response.output[0].id.startswith("fc_")
    assert response.output[0].call_id.startswith("call_") and response.output[0].status == "completed"
    assert response.instructions == "Be exact." and response.model == "mock-model"
    assert [tool.name for tool in response.tools] == ["add", "subtract", "multiply", "divide"]
    assert response.tool_choice == "auto" and response.parallel_tool_calls is True
    usage = response.usage
    assert usage.input_tokens > 0 and usage.output_tokens > 0
    assert usage.total_tokens == usage.input_tokens + usage.output_tokens
    assert usage.input_tokens_details.cached_tokens == 0 and usage.output_tokens_details.reasoning_tokens == 0


def test_ids_and_usage_are_the_same_on_every_run(server):
    first = run_chained(mock.client(mock.Calculator()), "5 + 8/12")
    with openai.OpenAI(base_url=server.base_url, api_key="x", max_retries=0) as client:
        second = run_chained(client, "5 + 8/12")
    assert [r.model_dump() for r in first] == [r.model_dump() for r in second]


def test_tokens_are_those_of_the_same_chat_request():
    question = [{"role": "user", "content": "5 + 8/12"}]
    chat = mock.client(mock.Calculator()).chat.completions.create(
        model="mock-model",
        messages=question,
        tools=[
            {
                "type": "function",
                "function": {k: t[k] for k in ("name", "description", "parameters", "strict")},
            }
            for t in TOOLS
        ],
    )
    response = mock.client(mock.Calculator()).responses.create(
        model="mock-model", input=question, tools=TOOLS
    )
    assert response.usage.input_tokens == chat.usage.prompt_tokens
    assert response.usage.output_tokens == chat.usage.completion_tokens


def test_a_request_becomes_the_chat_request_that_says_the_same():
    body = {
        "model": "mock-model",
        "instructions": "Be exact.",
        "input": "5 + 8/12",
        "tools": TOOLS[:1],
        "tool_choice": {"type": "function", "name": "add"},
        "parallel_tool_calls": False,
        "max_output_tokens": 50,
        "temperature": 0.2,
        "store": False,
        "metadata": {"run": "1"},
    }
    assert to_chat_request(body, [{"role": "user", "content": "5 + 8/12"}]) == {
        "model": "mock-model",
        "messages": [{"role": "system", "content": "Be exact."}, {"role": "user", "content": "5 + 8/12"}],
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "add",
                    "description": "Add two numbers.",
                    "parameters": TOOLS[0]["parameters"],
                    "strict": True,
                },
            }
        ],
        "tool_choice": {"type": "function", "function": {"name": "add"}},
        "parallel_tool_calls": False,
        "max_completion_tokens": 50,
        "temperature": 0.2,
    }


def test_the_policy_reads_the_whole_conversation_but_not_earlier_instructions():
    seen = Seen(mock.Calculator())
    client = mock.client(seen)
    first = client.responses.create(
        model="mock-model", input="5 + 8/12", tools=TOOLS, instructions="Be exact."
    )
    client.responses.create(
        model="mock-model", input=outputs_for(first), tools=TOOLS, previous_response_id=first.id
    )
    request, follow_up = seen.requests
    assert request["messages"] == [
        {"role": "system", "content": "Be exact."},
        {"role": "user", "content": "5 + 8/12"},
    ]
    # the previous response's instructions are not carried over; its items are
    assert [m["role"] for m in follow_up["messages"]] == ["user", "assistant", "tool"]
    assert follow_up["messages"][1]["tool_calls"][0]["id"] == first.output[0].call_id


def test_text_format_becomes_response_format_and_parse_reads_it():
    class Answer(BaseModel):
        value: float

    seen = Seen(mock.Script('{"value": 5.666666666666667}'))
    parsed = mock.client(seen).responses.parse(model="mock-model", input="5 + 8/12", text_format=Answer)
    assert parsed.output_parsed == Answer(value=5.666666666666667)
    response_format = seen.requests[0]["response_format"]
    assert response_format["type"] == "json_schema"
    assert (
        response_format["json_schema"]["name"] == "Answer"
        and response_format["json_schema"]["strict"] is True
    )
    assert response_format["json_schema"]["schema"]["properties"] == {
        "value": {"title": "Value", "type": "number"}
    }
    assert parsed.text.format.type == "json_schema"


def test_no_tool_choice_without_tools_and_json_object_passes_through():
    request = to_chat_request(
        {
            "model": "m",
            "tool_choice": "auto",
            "parallel_tool_calls": True,
            "text": {"format": {"type": "json_object"}},
        },
        [{"role": "user", "content": "hi, in json"}],
    )
    assert request == {
        "model": "m",
        "messages": [{"role": "user", "content": "hi, in json"}],
        "response_format": {"type": "json_object"},
    }


def test_a_length_stop_is_an_incomplete_response():
    response = mock.client(mock.Script(mock.Reply("It was cut", finish_reason="length"))).responses.create(
        model="mock-model", input="hi", max_output_tokens=16
    )
    assert response.status == "incomplete"
    assert response.incomplete_details.reason == "max_output_tokens"
    assert response.output[0].status == "incomplete" and response.max_output_tokens == 16


def test_an_unknown_previous_response_id_is_refused_with_the_real_error():
    body = refusal(mock.client(), input="hi", previous_response_id="resp_nowhere")
    assert body["message"].startswith("Previous response with id 'resp_nowhere' not found.")
    assert (body["param"], body["code"]) == ("previous_response_id", "previous_response_not_found")


def test_a_response_made_with_store_false_cannot_be_continued():
    client = mock.client(mock.Calculator())
    first = client.responses.create(model="mock-model", input="5 + 8/12", tools=TOOLS, store=False)
    body = refusal(client, input=outputs_for(first), tools=TOOLS, previous_response_id=first.id)
    assert body["code"] == "previous_response_not_found"
    assert "store" in body["message"]  # the hint says why


def test_stored_responses_live_as_long_as_the_server(server):
    with openai.OpenAI(base_url=server.base_url, api_key="x", max_retries=0) as client:
        first = client.responses.create(model="mock-model", input="5 + 8/12", tools=TOOLS)
    with openai.OpenAI(base_url=server.base_url, api_key="x", max_retries=0) as another:
        second = another.responses.create(
            model="mock-model", input=outputs_for(first), tools=TOOLS, previous_response_id=first.id
        )
    assert second.output[0].name == "add"
    assert (
        refusal(mock.client(), input="hi", previous_response_id=first.id)["code"]
        == "previous_response_not_found"
    )


def test_an_output_for_a_call_nobody_made_is_refused_with_the_real_error():
    body = refusal(
        mock.client(),
        input=[
            {"role": "user", "content": "hi"},
            {"type": "function_call_output", "call_id": "call_made_up", "output": "4"},
        ],
    )
    assert body["message"].startswith(
        "No tool call found for function call output with call_id call_made_up."
    )
    assert (body["type"], body["param"], body["code"]) == ("invalid_request_error", "input", None)


def test_a_call_without_its_output_is_refused_with_the_real_error():
    client = mock.client(mock.Calculator())
    first = client.responses.create(model="mock-model", input="5 + 8/12", tools=TOOLS)
    body = refusal(client, input="and now?", tools=TOOLS, previous_response_id=first.id)
    assert body["message"].startswith(f"No tool output found for function call {first.output[0].call_id}.")
    assert body["param"] == "input"


def test_the_item_id_is_not_the_call_id():
    client = mock.client(mock.Calculator())
    first = client.responses.create(model="mock-model", input="5 + 8/12", tools=TOOLS)
    wrong = [{"type": "function_call_output", "call_id": first.output[0].id, "output": "0.67"}]
    body = refusal(client, input=wrong, tools=TOOLS, previous_response_id=first.id)
    assert body["message"].startswith(
        f"No tool call found for function call output with call_id {first.output[0].id}."
    )
    assert first.output[0].call_id in body["message"]  # the hint names the call that was made


def test_a_chat_completions_parameter_is_an_unknown_parameter():
    body = refusal(mock.client(), input="hi", extra_body={"messages": [{"role": "user", "content": "hi"}]})
    assert body["message"].startswith("Unknown parameter: 'messages'.")
    assert (body["param"], body["code"]) == ("messages", "unknown_parameter")


def test_a_chat_shaped_tool_is_refused():
    chat_tool = {"type": "function", "function": {"name": "add", "parameters": {"type": "object"}}}
    body = refusal(mock.client(), input="hi", tools=[chat_tool])
    assert body["message"].startswith("Missing required parameter: 'tools[0].name'.")
    assert "tool_to_responses" in body["message"]


def test_the_chat_paths_rules_apply_through_the_translation():
    bad_name = {**TOOLS[0], "name": "add numbers"}
    body = refusal(mock.client(), input="hi", tools=[bad_name])
    assert body["message"].startswith("Invalid 'tools[0].name': string does not match pattern.")
    assert body["param"] == "tools[0].name"


def test_a_streamed_text_reply_has_the_real_event_sequence():
    client = mock.client(mock.Script("The answer is 5.666666666666667, or about 5.67."))
    events = list(client.responses.create(model="mock-model", input="5 + 8/12", stream=True))
    kinds = [event.type for event in events]
    deltas = kinds.count("response.output_text.delta")
    assert kinds == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
        *["response.output_text.delta"] * deltas,
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed",
    ]
    assert deltas > 1
    assert [event.sequence_number for event in events] == list(range(len(events)))
    assert (
        "".join(e.delta for e in events if e.type == "response.output_text.delta")
        == events[-1].response.output_text
    )
    assert events[0].response.status == "in_progress" and events[0].response.output == []


def test_a_streamed_call_arrives_in_argument_pieces_and_ends_as_the_whole_response(server):
    unstreamed = mock.client(mock.Calculator()).responses.create(
        model="mock-model", input="4+2 and 7+8", tools=TOOLS
    )
    with openai.OpenAI(base_url=server.base_url, api_key="x", max_retries=0) as client:
        events = list(
            client.responses.create(model="mock-model", input="4+2 and 7+8", tools=TOOLS, stream=True)
        )
    kinds = [event.type for event in events]
    assert kinds[:3] == ["response.created", "response.in_progress", "response.output_item.added"]
    assert kinds.count("response.output_item.added") == kinds.count("response.output_item.done") == 2
    assert kinds.count("response.function_call_arguments.done") == 2
    first_call = [
        e for e in events if e.type == "response.function_call_arguments.delta" and e.output_index == 0
    ]
    assert "".join(e.delta for e in first_call) == '{"a": 4, "b": 2}'
    assert events[2].item.arguments == "" and events[2].item.status == "in_progress"
    assert events[-1].type == "response.completed"
    assert events[-1].response.model_dump() == unstreamed.model_dump()


def test_a_responses_turn_is_recorded_and_rendered_readably():
    client = mock.client(mock.Calculator())
    responses = run_chained(client, "5 + 8/12")
    list(client.responses.create(model="mock-model", input="5 + 8/12", tools=TOOLS, stream=True))
    trace = client.trace
    assert len(trace) == 4 and trace[0].url.endswith("/v1/responses")
    assert trace[0].response == responses[0].model_dump(mode="json", exclude_unset=True)
    assert trace[3].stream and trace[3].response["id"] == responses[0].id  # the stream, put back together
    assert trace[1].messages == [
        {"role": "tool", "tool_call_id": responses[0].output[0].call_id, "content": "0.6666666666666666"}
    ]
    assert trace[2].reply == {"role": "assistant", "content": "5 + 8/12 = 5.666666666666667"}
    assert (
        trace.total_usage()["total_tokens"]
        == sum(r.usage.total_tokens for r in responses) + responses[0].usage.total_tokens
    )
    screen = console(width=200, color=False)
    with screen.capture() as captured:
        print_trace(trace, console=screen)
    text = captured.get()
    assert f"Responses API · 1 input item · after {responses[0].id}" in text
    assert "→ divide(" in text and "status completed · tokens input" in text
    html = show_trace(trace).html
    assert (
        "Responses API · 1 input item" in html
        and "output</span>" in html
        and "&quot;function_call&quot;" in html
    )


def test_the_server_refuses_an_unserved_model_on_the_responses_api_too():
    with (
        serve(models=["llama3.1:8b"]) as server,
        openai.OpenAI(base_url=server.base_url, api_key="x", max_retries=0) as client,
        pytest.raises(openai.NotFoundError) as caught,
    ):
        client.responses.create(model="mock-model", input="hi")
    assert caught.value.body["code"] == "model_not_found"


def test_a_recorded_responses_run_replays_streamed_or_not():
    from agent_core import replay

    client = mock.client(mock.Calculator())
    recorded = run_chained(client, "5 + 8/12")
    streamed = list(
        client.responses.create(model="mock-model", input="4+2 and 7+8", tools=TOOLS, stream=True)
    )
    again = replay.client(client.trace)
    assert [r.model_dump() for r in run_chained(again, "5 + 8/12")] == [r.model_dump() for r in recorded]
    events = list(again.responses.create(model="mock-model", input="4+2 and 7+8", tools=TOOLS, stream=True))
    assert [e.model_dump() for e in events] == [e.model_dump() for e in streamed]


def test_a_chat_path_error_reads_in_the_responses_api_terms():
    body = refusal(mock.client(), input="hi", tools=TOOLS, tool_choice="sometimes")
    assert body["param"] == "tool_choice"
    assert "'function': {" not in body["message"]  # no Chat Completions shape in the advice


def test_a_request_with_nothing_to_answer_names_input():
    for empty in ({}, {"input": []}):
        body = refusal(mock.client(), **empty)
        assert body["message"].startswith("Missing required parameter: 'input'.") and body["param"] == "input"


def test_responses_count_against_the_servers_rate_limit():
    with (
        serve(rate_limit=1) as server,
        openai.OpenAI(base_url=server.base_url, api_key="x", max_retries=0) as client,
    ):
        client.responses.create(model="mock-model", input="hi")
        with pytest.raises(openai.RateLimitError) as caught:
            client.responses.create(model="mock-model", input="hi again")
    assert caught.value.body["code"] == "rate_limit_exceeded"


def test_json_object_needs_the_word_json_in_an_input_message_not_in_instructions():
    json_mode = {"text": {"format": {"type": "json_object"}}}
    body = refusal(mock.client(), input="Give me 2+2.", instructions="Answer in JSON.", **json_mode)
    assert body["message"].startswith(
        "Response input messages must contain the word 'json' "
        "in some form to use 'text.format' of type 'json_object'."
    )
    answered = mock.client(mock.Script('{"sum": 4}')).responses.create(
        model="mock-model", input="Give me 2+2 as Json.", **json_mode
    )
    assert json.loads(answered.output_text) == {"sum": 4}


def test_a_field_of_the_wrong_type_is_named():
    body = refusal(mock.client(), extra_body={"input": 5})
    assert body["message"].startswith(
        "Invalid type for 'input': expected a string or an array of input items, but got an integer instead."
    )
    assert (body["param"], body["code"]) == ("input", "invalid_type")


def run_with_references(client, question, max_calls=6, store=True):
    """the loop as the Vercel AI SDK runs it: earlier outputs go back as item_reference items, by id"""
    items = [{"role": "user", "content": question}]
    responses = []
    while len(responses) < max_calls:
        response = client.responses.create(model="mock-model", input=items, tools=TOOLS, store=store)
        responses.append(response)
        items += [{"type": "item_reference", "id": item.id} for item in response.output] + outputs_for(
            response
        )
        if not outputs_for(response):
            break
    return responses, items


def test_a_conversation_of_item_references_finishes_a_calculator_task_over_http():
    with (
        serve(mock.Calculator()) as server,
        openai.OpenAI(base_url=server.base_url, api_key="x", max_retries=0) as client,
    ):
        responses, items = run_with_references(client, "What is (2 + 3) * 4?")
    assert [r.status for r in responses] == ["completed"] * 3
    assert "20" in responses[-1].output_text
    assert sum(item.get("type") == "item_reference" for item in items) == 3  # two calls and the answer


def test_an_item_of_a_response_made_with_store_false_is_not_found():
    client = mock.client(mock.Calculator())
    with pytest.raises(openai.NotFoundError) as error:
        run_with_references(client, "What is (2 + 3) * 4?", store=False)
    body = error.value.body
    assert body["message"].startswith("Item with id 'fc_")
    assert "Items are not persisted when `store` is set to false." in body["message"]
    assert body["param"] == "input"
    assert len(client.trace) == 2  # the first response was made; the second request named its call


# --- every field the mock reads: a wrong type and an out-of-range value get OpenAI's 400, naming the field
# ---

CALL = {"type": "function_call", "call_id": "call_1", "name": "add", "arguments": '{"a": 2, "b": 3}'}
BAD_FIELDS = [  # (the fields changed, the param the error names, the start of its message)
    ({"model": 5}, "model", "Invalid type for 'model': expected a string, but got an integer instead."),
    (
        {"model": 2.5},
        "model",
        "Invalid type for 'model': expected a string, but got a decimal number instead.",
    ),
    ({"input": 5}, "input", "Invalid type for 'input': expected a string or an array of input items"),
    (
        {"input": [{"role": "robot", "content": "hi"}]},
        "input[0].role",
        "Invalid value: 'robot'. Supported values are: 'user', 'assistant', 'system' and 'developer'.",
    ),
    (
        {"input": [{"role": "user", "content": 5}]},
        "input[0].content",
        "Invalid type for 'input[0].content': expected a string or an array, but got an integer instead.",
    ),
    (
        {"input": [{"type": "function_call_output", "call_id": 1, "output": "5"}]},
        "input[0].call_id",
        "Invalid type for 'input[0].call_id': expected a string",
    ),
    (
        {
            "input": [
                {"role": "user", "content": "hi"},
                CALL,
                {"type": "function_call_output", "call_id": "call_1", "output": 5},
            ]
        },
        "input[2].output",
        "Invalid type for 'input[2].output': expected a string or an array",
    ),
    (
        {"input": [{**CALL, "arguments": {"a": 2}}]},
        "input[0].arguments",
        "Invalid type for 'input[0].arguments': expected a string, but got an object instead.",
    ),
    (
        {"input": [{"type": "item_reference", "id": 5}]},
        "input[0].id",
        "Invalid type for 'input[0].id': expected a string",
    ),
    (
        {"input": [{"type": "item_reference", "id": "msg_nowhere"}]},
        "input",
        "Item with id 'msg_nowhere' not found.",
    ),
    ({"instructions": ["be brief"]}, "instructions", "Invalid type for 'instructions': expected a string"),
    ({"tools": {"type": "function"}}, "tools", "Invalid type for 'tools': expected an array"),
    (
        {"tools": [{**TOOLS[0], "name": 5}]},
        "tools[0].name",
        "Invalid type for 'tools[0].name': expected a string",
    ),
    (
        {"tools": [{**TOOLS[0], "parameters": "object"}]},
        "tools[0].parameters",
        "Invalid type for 'tools[0].parameters': expected an object",
    ),
    (
        {"tools": [{**TOOLS[0], "strict": "yes"}]},
        "tools[0].strict",
        "Invalid type for 'tools[0].strict': expected a boolean",
    ),
    (
        {"tools": TOOLS, "tool_choice": 1},
        "tool_choice",
        "Invalid type for 'tool_choice': expected a string or an object",
    ),
    (
        {"tools": TOOLS, "tool_choice": "always"},
        "tool_choice",
        "Invalid value: 'always'. Supported values are: 'none', 'auto' and 'required'.",
    ),
    (
        {"tools": TOOLS, "parallel_tool_calls": "no"},
        "parallel_tool_calls",
        "Invalid type for 'parallel_tool_calls': expected a boolean, but got a string instead.",
    ),
    (
        {"previous_response_id": 5},
        "previous_response_id",
        "Invalid type for 'previous_response_id': expected a string",
    ),
    ({"store": "no"}, "store", "Invalid type for 'store': expected a boolean, but got a string instead."),
    ({"stream": "yes"}, "stream", "Invalid type for 'stream': expected a boolean, but got a string instead."),
    (
        {"max_output_tokens": "100"},
        "max_output_tokens",
        "Invalid type for 'max_output_tokens': expected an integer",
    ),
    (
        {"max_output_tokens": 15},
        "max_output_tokens",
        "Invalid 'max_output_tokens': integer below minimum "
        "value. Expected a value >= 16, but got 15 instead.",
    ),
    ({"max_tool_calls": 1.5}, "max_tool_calls", "Invalid type for 'max_tool_calls': expected an integer"),
    ({"temperature": "warm"}, "temperature", "Invalid type for 'temperature': expected a decimal"),
    (
        {"temperature": 2.5},
        "temperature",
        "Invalid 'temperature': decimal above maximum value. Expected a value <= 2, but got 2.5 instead.",
    ),
    ({"top_p": [1]}, "top_p", "Invalid type for 'top_p': expected a decimal, but got an array instead."),
    (
        {"top_p": -0.5},
        "top_p",
        "Invalid 'top_p': decimal below minimum value. Expected a value >= 0, but got -0.5 instead.",
    ),
    ({"top_logprobs": "3"}, "top_logprobs", "Invalid type for 'top_logprobs': expected an integer"),
    (
        {"top_logprobs": 21},
        "top_logprobs",
        "Invalid 'top_logprobs': integer above maximum value. Expected a value <= 20, but got 21 instead.",
    ),
    (
        {"truncation": True},
        "truncation",
        "Invalid type for 'truncation': expected a string, but got a boolean instead.",
    ),
    (
        {"truncation": "sometimes"},
        "truncation",
        "Invalid value: 'sometimes'. Supported values are: 'auto' and 'disabled'.",
    ),
    ({"text": "json"}, "text", "Invalid type for 'text': expected an object"),
    ({"user": 5}, "user", "Invalid type for 'user': expected a string"),
    ({"metadata": ["a"]}, "metadata", "Invalid type for 'metadata': expected an object"),
]


@pytest.mark.parametrize(("fields", "param", "expected"), BAD_FIELDS)
def test_a_bad_field_is_refused_with_openai_400_naming_it(server, fields, param, expected):
    response = httpx2.post(
        server.base_url + "/responses", json={"model": "mock-model", "input": "hi", **fields}
    )
    assert response.status_code == (404 if "not found" in expected else 400)
    error = response.json()["error"]
    assert set(error) == {"message", "type", "param", "code"}  # OpenAI's error shape
    assert (error["type"], error["param"]) == ("invalid_request_error", param)
    assert error["message"].startswith(expected)
