"""The mock in process for asyncio: mock.async_client() is a real openai.AsyncOpenAI, and
mock.async_anthropic_client() a real anthropic.AsyncAnthropic, on the same policies as the sync clients."""

import asyncio
import json

import anthropic
import openai
import pytest

from agent_core import mock
from agent_core.dispatch import ToolRegistry
from agent_core.evaluation import add, divide, multiply, subtract

TOOLS = ToolRegistry([add, subtract, multiply, divide])


async def agent(client: openai.AsyncOpenAI, question: str, stream: bool = False) -> tuple[str, int]:
    """a small asyncio agent: ask, run every tool call, send the results back, until a text answer"""
    messages = [{"role": "user", "content": question}]
    for calls_made in range(10):
        if stream:
            async with client.chat.completions.stream(
                model="mock-model", messages=messages, tools=TOOLS.definitions
            ) as events:
                completion = await events.get_final_completion()
        else:
            completion = await client.chat.completions.create(
                model="mock-model", messages=messages, tools=TOOLS.definitions
            )
        reply = completion.choices[0].message
        messages.append(reply.model_dump(exclude_none=True))
        if not reply.tool_calls:
            return reply.content or "", calls_made
        messages += TOOLS.dispatch_all(reply.tool_calls)
    raise AssertionError("the agent did not answer in 10 model calls")


def sync_agent(client: openai.OpenAI, question: str) -> str:
    messages = [{"role": "user", "content": question}]
    while True:
        reply = client.chat.completions.create(model="mock-model", messages=messages, tools=TOOLS.definitions)
        message = reply.choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            return message.content or ""
        messages += TOOLS.dispatch_all(message.tool_calls)


def test_an_asyncio_agent_runs_on_the_mock_with_its_calls_recorded():
    client = mock.async_client(mock.Calculator())
    assert isinstance(client, openai.AsyncOpenAI)
    answer, tool_turns = asyncio.run(agent(client, "(5 + 8) * 12"))
    assert "156" in answer
    assert tool_turns == 2  # add, then multiply with its result: the second call waits for the first
    assert len(client.trace) == 3
    assert [t.status for t in client.trace.turns] == [200, 200, 200]
    last_sent = client.trace.turns[-1].messages
    assert [m["role"] for m in last_sent] == ["user", "assistant", "tool", "assistant", "tool"]
    assert last_sent[-1]["content"] == "156"


def test_the_async_client_answers_as_the_sync_client_does_on_the_same_policy():
    sync = mock.client(mock.Calculator())
    asynchronous = mock.async_client(mock.Calculator())
    assert asyncio.run(agent(asynchronous, "7 / 2 - 1"))[0] == sync_agent(sync, "7 / 2 - 1")
    assert [t.request for t in asynchronous.trace.turns] == [t.request for t in sync.trace.turns]
    assert [t.response for t in asynchronous.trace.turns] == [t.response for t in sync.trace.turns]


def test_agents_run_side_by_side_on_one_event_loop():
    async def both() -> list[tuple[str, int]]:
        return await asyncio.gather(
            agent(mock.async_client(mock.Calculator()), "2 + 3"),
            agent(mock.async_client(mock.Calculator()), "(2 + 3) * 4"),
        )

    (first, _), (second, _) = asyncio.run(both())
    assert "5" in first and "20" in second


def test_a_streamed_async_call_is_recorded_once_read():
    client = mock.async_client(mock.Calculator())
    answer, _ = asyncio.run(agent(client, "(5 + 8) * 12", stream=True))
    assert "156" in answer
    assert all(turn.stream for turn in client.trace.turns)
    first = client.trace.turns[0].response  # assembled from the events the SDK read
    assert first["choices"][0]["message"]["tool_calls"][0]["function"]["name"] == "add"
    assert json.loads(first["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"]) == {
        "a": 5,
        "b": 8,
    }


def test_the_async_client_gets_the_mock_s_refusals_as_the_sdk_s_errors():
    client = mock.async_client()
    with pytest.raises(openai.BadRequestError, match="messages"):
        asyncio.run(client.chat.completions.create(model="mock-model", messages=[]))
    assert client.trace.turns[0].status == 400


def test_an_async_anthropic_client_runs_a_tool_turn_on_the_same_policy():
    client = mock.async_anthropic_client(mock.Script(mock.call("add", a=2, b=3), "5"))
    assert isinstance(client, anthropic.AsyncAnthropic)
    tools = [{"name": "add", "description": "a + b", "input_schema": add_schema()}]

    async def run() -> str:
        messages = [{"role": "user", "content": "2 + 3"}]
        first = await client.messages.create(
            model="mock-model", max_tokens=100, messages=messages, tools=tools
        )
        use = next(block for block in first.content if block.type == "tool_use")
        assert (use.name, use.input) == ("add", {"a": 2, "b": 3})
        messages += [
            {
                "role": "assistant",
                "content": [block.model_dump(exclude_none=True) for block in first.content],
            },
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use.id, "content": "5"}]},
        ]
        second = await client.messages.create(
            model="mock-model", max_tokens=100, messages=messages, tools=tools
        )
        return second.content[0].text

    assert asyncio.run(run()) == "5"
    assert [turn.url.rsplit("/", 2)[-2:] for turn in client.trace.turns] == [["v1", "messages"]] * 2


def add_schema() -> dict:
    return TOOLS["add"].definition["function"]["parameters"]
