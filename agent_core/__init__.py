"""agent_core: the finished, tested pieces of the course, one module per lesson.

    from agent_core import mock, run_agent, tool, ToolRegistry
    run = run_agent(mock.client(mock.Calculator()), "5 + 8/12", [add, divide])
"""

from . import calls, dispatch, formats, loop, mock, render, schema, trace
from .calls import assistant_message, parse_arguments, tool_calls_of, tool_message, wants_tools
from .dispatch import Observation, ToolRegistry, is_error
from .loop import AgentRun, Guardrail, StopRun, run_agent
from .schema import Tool, tool, tool_definition
from .trace import Trace, Turn, recorded

__all__ = [
    # modules, one per lesson (and the mock, trace and render used by every lesson)
    "mock",
    "trace",
    "render",
    "schema",
    "calls",
    "dispatch",
    "loop",
    "formats",
    # lesson 01: the tool schema
    "tool",
    "Tool",
    "tool_definition",
    # lesson 02: tool calls
    "wants_tools",
    "tool_calls_of",
    "parse_arguments",
    "assistant_message",
    "tool_message",
    # lesson 03: the dispatcher
    "ToolRegistry",
    "Observation",
    "is_error",
    # lesson 04: the loop
    "run_agent",
    "AgentRun",
    "Guardrail",
    "StopRun",
    # every lesson: the wire trace
    "Trace",
    "Turn",
    "recorded",
]
