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


def _terminal():
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

        print_trace(run.trace, console=_terminal(), json=True)
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
    serve_parser = commands.add_parser(
        "serve-mock",
        help="serve the mock model over HTTP: OpenAI's Chat Completions and Responses APIs and Anthropic's Messages API (Ctrl-C stops)",
    )
    serve = serve_parser.add_argument
    serve("--port", type=int, default=8000, help="port to listen on; 0 picks a free one")
    serve("--host", default="127.0.0.1", help="address to listen on (default: this machine only)")
    serve("--policy", default="echo", choices=["echo", "calculator"], help="what the mock says")
    serve("--cassette", metavar="FILE", help="replay this recorded trace instead of a policy")
    serve("--api-key", metavar="KEY", help="refuse requests without this key (401)")
    serve("--models", metavar="A,B", help="serve only these model names (others: 404)")
    serve("--rate-limit", type=int, metavar="N", help="allow N model requests a minute (then 429)")
    serve("--reject-unknown-fields", action="store_true", help="refuse unknown message fields, like vLLM")
    serve("--quiet", action="store_true", help="do not log each request to stderr")
    serve("--cors", action="store_true", help="let web pages from other origins call it (the browser edition)")
    replay_parser = commands.add_parser("replay", help="print the turns recorded in a cassette")
    replay_parser.add_argument("cassette", metavar="CASSETTE", help="a trace saved by Trace.save()")
    replay_parser.add_argument("--json", action="store_true", help="print the raw cassette JSON")
    fix_parser = commands.add_parser(
        "fix", help="a mock coding agent fixes a practice project; prints the trace and the final diff"
    )
    fix_parser.add_argument("--project", default="discount", choices=["discount", "users_api"])
    fix_parser.add_argument(
        "--policy",
        default="careful",
        choices=["careful", "test-editor", "conftest-faker", "hallucinator", "comment-deleter"],
        help="which mock agent (the careless ones work on the discount project only)",
    )
    fix_parser.add_argument(
        "--no-guards", action="store_true", help="run without lesson 07's guardrails"
    )
    args = parser.parse_args(argv)
    if args.command == "demo":
        return demo(as_json=args.json)
    if args.command == "serve-mock":
        from .mock.server import run as serve_mock

        models = [m.strip() for m in args.models.split(",") if m.strip()] if args.models else None
        cassette = None
        if args.cassette:
            from .replay import Replay

            try:
                cassette = (args.cassette, Replay.load(args.cassette))
            except (OSError, ValueError, KeyError) as error:
                print(f"agent-core serve-mock: {error}", file=sys.stderr)
                return 2
        return serve_mock(
            host=args.host,
            port=args.port,
            policy=args.policy,
            cassette=cassette,
            api_key=args.api_key,
            models=models,
            rate_limit=args.rate_limit,
            reject_unknown_fields=args.reject_unknown_fields,
            quiet=args.quiet,
            cors=args.cors,
        )
    if args.command == "replay":
        from .replay import show_cassette

        return show_cassette(args.cassette, as_json=args.json, console=_terminal())
    if args.command == "fix":
        from .coding.agent import fix

        return fix(args.project, args.policy, guarded=not args.no_guards, console=_terminal())
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
