"""The `agent-core` command: a terminal demo on the mock model, and the course's other tools (every lesson)."""

from __future__ import annotations

import argparse
import json
import sys

from . import mock

__all__ = ["main", "demo"]

DEMO_QUESTION = "What is 4 + 2?"


def add(a: float, b: float) -> float:
    """Add two numbers."""
    return a + b


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


def demo(as_json: bool = False) -> int:
    """one question, one tool call, one answer, on the mock model; prints every turn's JSON"""
    client = mock.client(mock.Script(mock.call("add", a=4, b=2), "4 + 2 = 6"))
    messages = [{"role": "user", "content": DEMO_QUESTION}]
    first = client.chat.completions.create(model="mock-model", messages=messages, tools=[ADD_TOOL])
    call = first.choices[0].message.tool_calls[0]
    messages.append({"role": "assistant", "content": None, "tool_calls": [call.model_dump(exclude_none=True)]})
    result = add(**json.loads(call.function.arguments))
    messages.append({"role": "tool", "tool_call_id": call.id, "content": json.dumps(result)})
    client.chat.completions.create(model="mock-model", messages=messages, tools=[ADD_TOOL])
    if as_json:
        print(client.trace.to_json(timings=False))
    else:
        from .render import print_trace

        print_trace(client.trace, json=True)
    return 0


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


if __name__ == "__main__":
    sys.exit(main())
