"""Agent frameworks a learner meets next, unchanged, against serve-mock over 127.0.0.1: each finishes a
calculator task.

They are optional (pip install -e ".[frameworks]"); a test whose framework is missing is skipped
and says which extra to install.
"""

import asyncio
import importlib.util

import openai
import pytest
from calculator_tools import add, multiply
from pydantic import BaseModel

from agent_core import mock
from agent_core.mock.server import serve

MISSING = 'not installed; pip install -e ".[frameworks]" to run this test'


def needs(module: str):
    return pytest.mark.skipif(importlib.util.find_spec(module) is None, reason=f"{module} {MISSING}")


class Calculation(BaseModel):
    expression: str
    result: float


@pytest.fixture
def server():
    requests = []

    class Recorded(mock.Calculator):
        def reply(self, request):
            requests.append(request)
            return super().reply(request)

    with serve(Recorded()) as running:
        running.requests = requests
        yield running


@needs("smolagents")
def test_smolagents_tool_calling_agent_finishes_through_final_answer(server):
    from smolagents import OpenAIServerModel, ToolCallingAgent, tool

    # smolagents wants an "Args:" section describing each argument; calculator_tools' have none
    @tool
    def add(a: float, b: float) -> float:
        """Add two numbers.

        Args:
            a: the first number
            b: the second number
        """
        return a + b

    @tool
    def multiply(a: float, b: float) -> float:
        """Multiply two numbers.

        Args:
            a: the first number
            b: the second number
        """
        return a * b

    model = OpenAIServerModel(model_id="mock-model", api_base=server.base_url, api_key="x")
    agent = ToolCallingAgent(tools=[add, multiply], model=model, max_steps=6, verbosity_level=0)
    assert agent.run("(3+4)*2") == "(3 + 4)*2 = 14"
    # smolagents forces a tool every turn and ends through its final_answer tool
    assert all(r["tool_choice"] == "required" for r in server.requests)
    assert len(server.requests) == 3  # add, then multiply, then final_answer


@needs("langchain_openai")
@pytest.mark.parametrize("method", ["json_schema", "function_calling", "json_mode"])
def test_langchain_with_structured_output(server, method):
    from langchain_openai import ChatOpenAI

    llm = ChatOpenAI(model="mock-model", base_url=server.base_url, api_key="x", max_retries=0)
    question = "(3+4)*2, as JSON" if method == "json_mode" else "(3+4)*2"
    answer = llm.with_structured_output(Calculation, method=method).invoke(question)
    assert answer == Calculation(expression="(3 + 4)*2", result=14)


@needs("pydantic_ai")
def test_pydantic_ai_output_type_on_its_chat_completions_model(server):
    from pydantic_ai import Agent
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    async def run():
        async with openai.AsyncOpenAI(base_url=server.base_url, api_key="x", max_retries=0) as client:
            model = OpenAIChatModel("mock-model", provider=OpenAIProvider(openai_client=client))
            agent = Agent(model, output_type=Calculation, tools=[add, multiply])
            return await agent.run("(3+4)*2")

    result = asyncio.run(run())
    assert result.output == Calculation(expression="(3 + 4)*2", result=14)
    # pydantic-ai takes its output through a final_result tool, called when the answer is ready
    assert [t["function"]["name"] for t in server.requests[-1]["tools"]][-1] == "final_result"
