"""The `agent-core` command: a terminal demo on the mock model, and the course's other tools (every lesson)."""

from __future__ import annotations

import argparse
import sys

from . import mock
from .loop import run_agent
from .schema import tool

__all__ = ["main", "run", "demo"]

DEMO_QUESTION = "What is 4 + 2?"


@tool
def add(a: float, b: float) -> float:
    """Add two numbers.

    Args:
        a: the first number
        b: the second number
    """
    return a + b


def terminal():
    """a rich console for this process's stdout: colour only on a real terminal, unless NO_COLOR is set"""
    import os

    from .render import console

    return console(color=sys.stdout.isatty() and "NO_COLOR" not in os.environ)


def demo(as_json: bool = False) -> int:
    """one question, one tool call, one answer: run_agent on the mock calculator, every turn's JSON shown"""
    run = run_agent(mock.client(mock.Calculator()), DEMO_QUESTION, [add])
    if as_json:
        print(run.trace.to_json(timings=False))
    else:
        from .render import print_trace

        print_trace(run.trace, console=terminal(), json=True)
        print(f"answer: {run.answer}  ({run.model_calls} model calls, {run.tool_calls} tool call)")
    return 0 if run.stop_reason == "answered" else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="agent-core",
        description="Build a tool-calling agent one piece at a time, on a mock model that needs no API key.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    demo_parser = commands.add_parser(
        "demo", help="a short conversation with one tool call on the mock model, every turn's JSON shown"
    )
    demo_parser.add_argument("--json", action="store_true", help="print the raw trace JSON instead")
    args = parser.parse_args(argv)
    if args.command == "demo":
        return demo(as_json=args.json)
    parser.print_help()
    return 0


def run(argv: list[str] | None = None) -> int:
    """main(), quiet when the reader closes the pipe early (agent-core demo | head)"""
    try:
        return main(argv)
    except BrokenPipeError:
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(run())
