"""Agent frameworks that speak the Responses API complete a calculator task against serve-mock.

Optional: `pip install -e ".[frameworks]"` (the OpenAI Agents SDK and langchain-openai); skipped without.
"""

import asyncio
import io
import json

import calculator_tools
import openai
import pytest
from pydantic import BaseModel

from agent_core import mock
from agent_core.mock.server import serve

agents = pytest.importorskip(
    "agents", reason='the OpenAI Agents SDK is not installed: pip install -e ".[frameworks]"'
)


class Result(BaseModel):
    answer: float


add, divide = agents.function_tool(calculator_tools.add), agents.function_tool(calculator_tools.divide)


@pytest.fixture
def run_agent_sdk():
    """run an Agents SDK agent against a fresh serve-mock; returns (result, the server's request log)"""
    agents.set_tracing_disabled(True)  # its traces go to OpenAI's servers

    def run(policy, streamed=False, chained=False, **agent_options):
        agent = agents.Agent(
            name="calculator",
            instructions="Use the tools for arithmetic.",
            tools=[add, divide],
            model="mock-model",
            **agent_options,
        )

        async def go(base_url):
            async with openai.AsyncOpenAI(base_url=base_url, api_key="x", max_retries=0) as client:
                provider = agents.OpenAIProvider(openai_client=client)  # its default model: the Responses API
                config = agents.RunConfig(model_provider=provider)
                options = dict(run_config=config, auto_previous_response_id=chained)
                if not streamed:
                    return await agents.Runner.run(agent, "5 + 8/12", **options)
                result = agents.Runner.run_streamed(agent, "5 + 8/12", **options)
                result.events = [event async for event in result.stream_events()]
                return result

        log = io.StringIO()
        with serve(policy, log=log) as server:
            result = asyncio.run(go(server.base_url))
        return result, log.getvalue().splitlines()

    return run


def test_the_agents_sdk_default_model_completes_the_calculator_task(run_agent_sdk):
    result, requests = run_agent_sdk(mock.Calculator())
    assert result.final_output == "5 + 8/12 = 5.666666666666667"
    assert requests == ["POST /v1/responses -> 200"] * 3
    calls = [item.raw_item for item in result.new_items if item.type == "tool_call_item"]
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [
        ("divide", {"a": 8, "b": 12}),
        ("add", {"a": 5, "b": 8 / 12}),
    ]


def test_the_agents_sdk_streams_the_run_and_chains_it_on_the_server(run_agent_sdk):
    result, requests = run_agent_sdk(mock.Calculator(), streamed=True, chained=True)
    assert result.final_output == "5 + 8/12 = 5.666666666666667"
    assert requests == ["POST /v1/responses -> 200"] * 3
    kinds = [event.data.type for event in result.events if event.type == "raw_response_event"]
    completed = [
        e.data.response
        for e in result.events
        if e.type == "raw_response_event" and e.data.type == "response.completed"
    ]
    assert [r.previous_response_id for r in completed] == [None, completed[0].id, completed[1].id]
    assert kinds.count("response.function_call_arguments.done") == 2 and "response.output_text.delta" in kinds


def test_the_agents_sdk_output_type_reads_the_json_the_model_answers(run_agent_sdk):
    seen = []

    def policy(request):  # a scripted model that also keeps what it was asked
        seen.append(request)
        return [
            mock.call("divide", a=8, b=12),
            mock.call("add", a=5, b=8 / 12),
            '{"answer": 5.666666666666667}',
        ][len(seen) - 1]

    result, requests = run_agent_sdk(policy, output_type=Result)
    assert result.final_output == Result(answer=5.666666666666667)
    schema = seen[-1]["response_format"]["json_schema"]
    assert schema["name"] == "final_output" and schema["strict"] is True
    assert schema["schema"]["required"] == ["answer"]


def chat_path_honours(**options):
    """whether this mock's chat path answers the calculator with a tool call or JSON, as `options` ask"""
    reply = (
        mock.client(mock.Calculator())
        .chat.completions.create(
            model="mock-model", messages=[{"role": "user", "content": "5 + 8/12"}], **options
        )
        .choices[0]
        .message
    )
    if options.get("tool_choice") == "required":
        return bool(reply.tool_calls)
    try:
        return isinstance(json.loads(reply.content or ""), dict)
    except ValueError:
        return False


ANSWER_SCHEMA = {
    "type": "object",
    "properties": {"answer": {"type": "number"}},
    "required": ["answer"],
    "additionalProperties": False,
}
STRUCTURED_OUTPUT = chat_path_honours(
    response_format={
        "type": "json_schema",
        "json_schema": {"name": "Result", "schema": ANSWER_SCHEMA, "strict": True},
    }
)
REQUIRED_TOOL = chat_path_honours(
    tools=[{"type": "function", "function": {"name": "final_result", "parameters": ANSWER_SCHEMA}}],
    tool_choice="required",
)


@pytest.mark.xfail(
    not STRUCTURED_OUTPUT,
    strict=True,
    raises=agents.exceptions.ModelBehaviorError,  # "Invalid JSON when parsing model output"
    reason="this mock's chat path does not yet answer response_format with JSON (issue 12's Chat Completions "
    "part)",
)
def test_the_agents_sdk_output_type_completes_the_calculator_task(run_agent_sdk):
    result, _ = run_agent_sdk(mock.Calculator(), output_type=Result)
    assert result.final_output == Result(answer=5.666666666666667)


def test_langchain_chat_openai_on_the_responses_api_completes_the_calculator_task():
    langchain_openai = pytest.importorskip(
        "langchain_openai", reason='langchain-openai is not installed: pip install -e ".[frameworks]"'
    )
    from langchain_core.messages import HumanMessage, ToolMessage
    from langchain_core.tools import tool

    tools = {"add": tool(calculator_tools.add), "divide": tool(calculator_tools.divide)}
    log = io.StringIO()
    with serve(mock.Calculator(), log=log) as server:
        model = langchain_openai.ChatOpenAI(
            model="mock-model", base_url=server.base_url, api_key="x", max_retries=0, use_responses_api=True
        ).bind_tools(list(tools.values()))
        messages = [HumanMessage("5 + 8/12")]
        for _ in range(4):
            reply = model.invoke(messages)
            messages.append(reply)
            if not reply.tool_calls:
                break
            for call in reply.tool_calls:
                messages.append(
                    ToolMessage(str(tools[call["name"]].invoke(call["args"])), tool_call_id=call["id"])
                )
    assert reply.text == "5 + 8/12 = 5.666666666666667"
    assert log.getvalue().splitlines() == ["POST /v1/responses -> 200"] * 3


@pytest.fixture
def run_pydantic_ai():
    """run a pydantic-ai agent on its OpenAIResponsesModel against a fresh serve-mock"""
    pydantic_ai = pytest.importorskip(
        "pydantic_ai", reason='pydantic-ai is not installed: pip install -e ".[frameworks]"'
    )
    from pydantic_ai.models.openai import OpenAIResponsesModel
    from pydantic_ai.providers.openai import OpenAIProvider

    def run(**agent_options):
        async def go(base_url):
            async with openai.AsyncOpenAI(base_url=base_url, api_key="x", max_retries=0) as client:
                model = OpenAIResponsesModel("mock-model", provider=OpenAIProvider(openai_client=client))
                agent = pydantic_ai.Agent(
                    model, instructions="Use the tools for arithmetic.", **agent_options
                )
                agent.tool_plain(plain_add, name="add")
                agent.tool_plain(plain_divide, name="divide")
                return await agent.run("5 + 8/12")

        log = io.StringIO()
        with serve(mock.Calculator(), log=log) as server:
            result = asyncio.run(go(server.base_url))
        return result, log.getvalue().splitlines()

    return run


def plain_add(a: float, b: float) -> float:
    """Add two numbers: a + b."""
    return a + b


def plain_divide(a: float, b: float) -> float:
    """Divide a by b: a / b."""
    return a / b


def test_pydantic_ai_on_the_responses_api_completes_the_calculator_task(run_pydantic_ai):
    result, requests = run_pydantic_ai()
    assert result.output == "5 + 8/12 = 5.666666666666667"
    assert requests == ["POST /v1/responses -> 200"] * 3


@pytest.mark.xfail(
    not REQUIRED_TOOL,
    strict=True,
    reason="this mock's chat path does not yet honour tool_choice 'required' (issue 12's Chat Completions "
    "part)",
)
def test_pydantic_ai_output_type_completes_the_calculator_task(run_pydantic_ai):
    result, _ = run_pydantic_ai(output_type=Result)
    assert result.output == Result(answer=5.666666666666667)
