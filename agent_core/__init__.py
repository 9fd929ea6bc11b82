"""agent_core: the finished, tested pieces of the course, one module per lesson.

    from agent_core import mock, run_agent, tool, ToolRegistry
    run = run_agent(mock.client(mock.Calculator()), "5 + 8/12", [add, divide])

Each name below is imported the first time it is used (see _lazy.py), so `from agent_core
import mock` loads the mock and not, say, the coding agent.
"""

from ._lazy import lazy_exports

# public name -> the module it lives in
_EXPORTS = {
    # modules, one per lesson (and the mock, trace and render used by every lesson)
    "mock": ".mock",
    "trace": ".trace",
    "render": ".render",
    "schema": ".schema",
    "calls": ".calls",
    "dispatch": ".dispatch",
    "loop": ".loop",
    "guardrails": ".guardrails",
    "context": ".context",
    "providers": ".providers",
    "replay": ".replay",
    "formats": ".formats",
    "evaluation": ".evaluation",
    # lesson 01: the tool schema
    "tool": ".schema",
    "Tool": ".schema",
    "tool_definition": ".schema",
    # lesson 02: tool calls
    "wants_tools": ".calls",
    "tool_calls_of": ".calls",
    "parse_arguments": ".calls",
    "assistant_message": ".calls",
    "tool_message": ".calls",
    # lesson 03: the dispatcher
    "ToolRegistry": ".dispatch",
    "Observation": ".dispatch",
    "is_error": ".dispatch",
    # lesson 04: the loop
    "run_agent": ".loop",
    "AgentRun": ".loop",
    "Guardrail": ".loop",
    "StopRun": ".loop",
    # lesson 05: guardrails
    "Limits": ".guardrails",
    "LoopDetector": ".guardrails",
    "Permissions": ".guardrails",
    "Approval": ".guardrails",
    "VerifyBeforeDone": ".guardrails",
    # lesson 06: context and cost
    "token_ledger": ".context",
    "Prices": ".context",
    "Compactor": ".context",
    # lesson 08: real models
    "client_from_env": ".providers",
    # lesson 11: evaluating an agent
    "evaluate": ".evaluation",
    "Noise": ".evaluation",
    "Noisy": ".evaluation",
    # every lesson: the wire trace
    "Trace": ".trace",
    "Turn": ".trace",
    "recorded": ".trace",
}

__all__ = list(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
