"""agent_core: the finished, tested pieces of the course, one module per lesson.

    from agent_core import mock, run_agent, tool, ToolRegistry
    run = run_agent(mock.client(mock.Calculator()), "5 + 8/12", [add, divide])
"""

from . import (
    calls,
    context,
    dispatch,
    formats,
    guardrails,
    loop,
    mock,
    providers,
    render,
    replay,
    schema,
    trace,
)
from .calls import assistant_message, parse_arguments, tool_calls_of, tool_message, wants_tools
from .context import Compactor, Prices, token_ledger
from .dispatch import Observation, ToolRegistry, is_error
from .guardrails import Approval, Limits, LoopDetector, Permissions, VerifyBeforeDone
from .loop import AgentRun, Guardrail, StopRun, run_agent
from .providers import client_from_env
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
    "guardrails",
    "context",
    "providers",
    "replay",
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
    # lesson 05: guardrails
    "Limits",
    "LoopDetector",
    "Permissions",
    "Approval",
    "VerifyBeforeDone",
    # lesson 06: context and cost
    "token_ledger",
    "Prices",
    "Compactor",
    # lesson 08: real models
    "client_from_env",
    # every lesson: the wire trace
    "Trace",
    "Turn",
    "recorded",
]
