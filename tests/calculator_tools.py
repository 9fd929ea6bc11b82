"""The calculator's tools for the unit tests, defined once (`from calculator_tools import add, divide`), and
a run of the calculator agent with guardrails."""

# The test files import this module by its own name: tests/ has no __init__.py, so pytest's default
# import mode (prepend) puts this folder on sys.path before it imports a test file from it.

from agent_core import mock
from agent_core.loop import run_agent

ADD_TOOL = {
    "type": "function",
    "function": {
        "name": "add",
        "description": "Add two numbers.",
        "parameters": {
            "type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
            "required": ["a", "b"],
        },
    },
}
"""the definition @tool writes for `add`, spelled out"""


def add(a: float, b: float) -> float:
    """Add two numbers."""
    return a + b


def subtract(a: float, b: float) -> float:
    """Subtract b from a."""
    return a - b


def multiply(a: float, b: float) -> float:
    """Multiply two numbers."""
    return a * b


def divide(a: float, b: float) -> float:
    """Divide a by b."""
    return a / b


OPERATIONS = {function.__name__: function for function in (add, subtract, multiply, divide)}
"""the calculator's four tools by name"""


def calculator_run(guardrails):
    """the calculator agent on "5 + 8/12", with these guardrails"""
    return run_agent(mock.client(mock.Calculator()), "5 + 8/12", [add, divide], guardrails=guardrails)


def assert_untouched(run):
    """a calculator_run that the guardrails let through: three calls, the right answer, no error"""
    assert run.stop_reason == "answered"
    assert run.answer == "5 + 8/12 = 5.666666666666667"
    assert run.model_calls == 3 and not any(o.is_error for o in run.observations)
