"""The calculator's tools for the unit tests, defined once: `from calculator_tools import add, divide`."""

# The test files import this module by its own name: tests/ has no __init__.py, so pytest's default
# import mode (prepend) puts this folder on sys.path before it imports a test file from it.

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
