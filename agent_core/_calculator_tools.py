"""The four tools of lesson 11's calculator tasks (lesson 11)."""

from __future__ import annotations

__all__ = ["add", "subtract", "multiply", "divide"]


def add(a: float, b: float) -> float:
    """Add two numbers: a + b."""
    return a + b


def subtract(a: float, b: float) -> float:
    """Subtract b from a: a - b."""
    return a - b


def multiply(a: float, b: float) -> float:
    """Multiply two numbers: a * b."""
    return a * b


def divide(a: float, b: float) -> float:
    """Divide a by b: a / b."""
    return a / b
