"""The `agent-core` command: a terminal demo on the mock model, and the course's other tools
(every lesson)."""

from __future__ import annotations

import argparse
import io
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from importlib import metadata
from typing import TYPE_CHECKING, Any, NoReturn

from . import mock
from .loop import run_agent
from .schema import tool

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["main", "run", "demo", "fix"]

DEMO_QUESTION = "What is 4 + 2?"
MAX_WIDTH = 100  # wider terminals still get 100 columns
PIPED_WIDTH = 80  # output to a file or a pipe, unless COLUMNS says otherwise
MIN_WIDTH = 40
CARELESS = ["test-editor", "conftest-faker", "hallucinator", "comment-deleter"]


@tool
def add(a: float, b: float) -> float:
    """Add two numbers.

    Args:
        a: the first number
        b: the second number
    """
    return a + b


def _width() -> int:
    """the width to print at: $COLUMNS, else the terminal's, else PIPED_WIDTH (when stdout is a file
    or a pipe); between MIN_WIDTH and MAX_WIDTH"""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        width = int(columns)
    elif sys.stdout.isatty():
        width = shutil.get_terminal_size((PIPED_WIDTH, 24)).columns
    else:
        width = PIPED_WIDTH
    return max(MIN_WIDTH, min(MAX_WIDTH, width))


def _terminal() -> Console:
    """a rich console for this process's stdout: as wide as the terminal, colour only on a real
    terminal unless NO_COLOR is set"""
    from .render import console

    return console(width=_width(), color=sys.stdout.isatty() and "NO_COLOR" not in os.environ)


def _printer(terminal: Console) -> Callable[[str], None]:
    """print one line of plain text, wrapped at word boundaries to the console's width"""

    def print_line(text: str) -> None:
        terminal.print(text, overflow="fold")

    return print_line


def demo(as_json: bool = False) -> int:
    """one question, one tool call, one answer: run_agent on the mock calculator, every turn's JSON shown"""
    run = run_agent(mock.client(mock.Calculator()), DEMO_QUESTION, [add])
    if as_json:
        print(run.trace.to_json(timings=False))
    else:
        from .render import print_trace

        terminal = _terminal()
        print_trace(run.trace, console=terminal, json=True)
        _printer(terminal)(
            f"answer: {run.answer}  ({run.model_calls} model calls, {run.tool_calls_made} tool call)"
        )
    return 0 if run.stop_reason == "answered" else 1


# --- reading the command line: every wrong usage is one line and exit status 2 ----------------


class _Parser(argparse.ArgumentParser):
    """argparse, but a wrong usage is one line saying what was wrong and where to read more"""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see: {self.prog} --help)\n")


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (0 to 65535)") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port number: use 0 to 65535 (0 picks a free one)")
    return port


def _positive(text: str) -> int:
    try:
        number = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if number <= 0:
        raise argparse.ArgumentTypeError(
            f"{number} requests a minute would refuse every request: give 1 or more"
        )
    return number


def _not_empty(what: str) -> Callable[[str], str]:
    def check(text: str) -> str:
        if not text.strip():
            raise argparse.ArgumentTypeError(f"an empty {what}: give one, or leave the option out")
        return text

    return check


def _model_names(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise argparse.ArgumentTypeError(f"{text!r} names no model: give names separated by commas")
    return names


def _version() -> str:
    try:
        return metadata.version("agent-core")
    except metadata.PackageNotFoundError:  # run from a source tree that was never installed
        return "(not installed)"


class _ShowDefaults(argparse.HelpFormatter):
    """help that ends each option's line with its default, when it has one worth showing"""

    def _get_help_string(self, action: argparse.Action) -> str:
        shown = action.default not in (None, False, argparse.SUPPRESS)
        return f"{action.help} (default: %(default)s)" if shown else str(action.help)


def _parsers() -> tuple[_Parser, dict[str, _Parser]]:
    """the agent-core command line, and each subcommand's parser by name"""
    top = _Parser(
        prog="agent-core",
        description="Build a tool-calling agent one piece at a time, on a mock model that needs no API key.",
    )
    top.add_argument("--version", action="version", version=f"agent-core {_version()}")
    commands = top.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    def command(name: str, summary: str, description: str) -> argparse.ArgumentParser:
        return commands.add_parser(
            name,
            help=summary,
            description=description,
            formatter_class=_ShowDefaults,
        )

    demo_parser = command(
        "demo",
        "a short conversation with one tool call on the mock model, every turn's JSON shown",
        "Ask the mock model a sum with an `add` tool offered: it calls the tool, reads the result and "
        "answers. Every request and response is printed as it went over the wire.",
    )
    demo_parser.add_argument("--json", action="store_true", help="print the raw trace JSON instead")

    serve_parser = command(
        "serve-mock",
        "serve the mock model over HTTP for any OpenAI or Anthropic client (Ctrl-C stops)",
        "Serve the mock model over HTTP: OpenAI's Chat Completions and Responses APIs "
        "(POST /v1/chat/completions, POST /v1/responses, GET /v1/models) and Anthropic's Messages "
        "API (POST /v1/messages). The default policy, echo, only repeats what it receives and never "
        "calls a tool: use --policy calculator to get tool calls.",
    )
    serve = serve_parser.add_argument
    serve(
        "--port",
        type=_port,
        help="port to listen on; 0 picks a free one, as the default does when another server holds "
        "8000 (default: 8000)",
    )
    serve(
        "--host",
        default="127.0.0.1",
        type=_not_empty("host"),
        help="address to listen on (127.0.0.1: this machine only)",
    )
    serve(
        "--policy",
        default="echo",
        choices=["echo", "calculator"],
        help="what the mock says: echo repeats the request, calculator calls the tools it is offered",
    )
    serve(
        "--cassette",
        metavar="FILE",
        type=_not_empty("file name"),
        help="replay this recorded trace instead of a policy",
    )
    serve("--api-key", metavar="KEY", type=_not_empty("key"), help="refuse requests without this key (401)")
    serve("--models", metavar="A,B", type=_model_names, help="serve only these model names (others: 404)")
    serve("--rate-limit", type=_positive, metavar="N", help="allow N model requests a minute (then 429)")
    serve("--reject-unknown-fields", action="store_true", help="refuse unknown message fields, like vLLM")
    serve("--quiet", action="store_true", help="do not log each request to stderr")
    serve(
        "--cors", action="store_true", help="let web pages from other origins call it (the browser edition)"
    )

    replay_parser = command(
        "replay",
        "print the turns recorded in a cassette",
        "Print every turn of a cassette (a trace saved by Trace.save()): each request, its response "
        "and the JSON. To answer a client from it, use: agent-core serve-mock --cassette FILE.",
    )
    replay_parser.add_argument("cassette", metavar="CASSETTE", help="a trace saved by Trace.save()")
    replay_parser.add_argument("--json", action="store_true", help="print the raw cassette JSON")

    fix_parser = command(
        "fix",
        "a mock coding agent fixes a practice project; prints the trace and the final diff",
        "Copy a practice project to a temporary folder and let a mock coding agent (lesson 07) fix "
        "it with read_file, grep, write_file and run_command. Prints every turn, the final diff and "
        "whether the project's own tests pass; exits 0 if they do.",
    )
    fix_parser.add_argument(
        "--project", default="discount", choices=["discount", "users_api"], help="the practice project"
    )
    fix_parser.add_argument(
        "--policy",
        default="careful",
        choices=["careful", *CARELESS],
        metavar="POLICY",  # the choices are named in the help, which wraps: a usage line does not
        help=f"which mock agent: careful, or a careless one ({', '.join(CARELESS)}) on the discount "
        "project only",
    )
    fix_parser.add_argument("--no-guards", action="store_true", help="run without lesson 07's guardrails")
    return top, commands.choices


def main(argv: list[str] | None = None) -> int:
    top, subcommands = _parsers()
    args, extra = top.parse_known_args(argv)
    if extra:  # argparse leaves a subcommand's unknown options to the top parser: name the subcommand
        (subcommands[args.command] if args.command else top).error(
            f"unrecognized arguments: {' '.join(extra)}"
        )
    if args.command == "demo":
        return demo(as_json=args.json)
    if args.command == "serve-mock":
        return _serve_mock(args)
    if args.command == "replay":
        from .replay import show_cassette

        return show_cassette(args.cassette, as_json=args.json, console=_terminal())
    if args.command == "fix":
        if args.project != "discount" and args.policy != "careful":
            subcommands["fix"].error(
                f"the {args.policy!r} policy works on the discount project only: "
                f"leave out --project {args.project} or use --policy careful"
            )
        return _fix(args)
    top.print_help()
    return 0


def _serve_mock(args: argparse.Namespace) -> int:
    from .mock.server import run as serve_mock

    cassette = None
    if args.cassette:
        from .replay import CassetteError, Replay

        try:
            cassette = (args.cassette, Replay.load(args.cassette))
        except CassetteError as error:
            print(f"agent-core serve-mock: {error}", file=sys.stderr)
            return 2
    return serve_mock(
        host=args.host,
        port=args.port,
        policy=args.policy,
        cassette=cassette,
        api_key=args.api_key,
        models=args.models,
        rate_limit=args.rate_limit,
        reject_unknown_fields=args.reject_unknown_fields,
        cors=args.cors,
        quiet=args.quiet,
    )


def _fix(args: argparse.Namespace) -> int:
    terminal = _terminal()
    print_line = _printer(terminal)
    status = fix(
        args.project, args.policy, guarded=not args.no_guards, console=terminal, print_line=print_line
    )
    print_line(
        '(pytest\'s run times show as "?.??s", here and in what the agent read, so that every run '
        "prints the same text: see steady_timings in agent_core/coding/agent.py)"
    )
    return status


def fix(
    project: str = "discount",
    policy: str = "careful",
    *,
    guarded: bool = True,
    max_turns: int | None = None,
    console: Any = None,
    print_line: Callable[[str], None] = print,
) -> int:
    """`agent-core fix`: run a mock coding agent on a fresh copy of a practice project

    Prints the trace (on `console`, a rich Console; default: plain, 100 columns), the final diff
    and the verdict; returns 0 when the project's own tests pass on the final code, else 1.
    """
    from . import render
    from .coding.agent import MAX_TURNS, TASKS, Workspace, project_tests, run_coding_agent
    from .mock.coding_policies import make_policy

    chosen = mock.client(make_policy(policy, project))
    with tempfile.TemporaryDirectory(prefix="agent-core-fix-") as parent:
        workspace = Workspace.from_project(project, parent)
        result = run_coding_agent(workspace, chosen, guarded=guarded, max_turns=max_turns or MAX_TURNS)
        print_line(f"Task ({project}, policy {policy!r}): {TASKS[project]}")
        render.print_trace(result.run.trace, console=console or render.console(color=False))
        print_line(f"Stop reason: {result.run.stop_reason}")
        print_line(f"Answer: {result.run.answer}")
        for guard, problems in result.caught.items():
            for problem in problems:
                print_line(f"Caught by {guard}: {problem}")
        print_line("Final diff:" if result.diff else "Final diff: (no changes)")
        for line in _folded_diff(result.diff, console.width if console is not None else MAX_WIDTH):
            print_line(line)
        tests = result.tests or project_tests(workspace, project)
        passed = tests.passed
        print_line(f"The project's own tests on the final code: {'PASS' if passed else 'FAIL'}")
        print_line(tests.output.rstrip("\n"))
    return 0 if passed else 1


def _folded_diff(diff: str, width: int) -> list[str]:
    """a diff's lines cut to `width` columns; each continuation keeps its line's +/- marker, then "↳" """
    from rich.cells import cell_len, chop_cells

    folded = []
    for line in diff.expandtabs().splitlines():
        if cell_len(line) <= width:
            folded.append(line)
            continue
        marker = line[0] if line[0] in "+-" else " "
        head = chop_cells(line, width)[0]
        folded.append(head)
        folded.extend(f"{marker}↳{piece}" for piece in chop_cells(line[len(head) :], width - 2))
    return folded


def _replace_what_the_console_cannot_show() -> None:
    """a console whose encoding lacks a character the output uses ("→", the boxes; cp1252 when Windows
    output is redirected) shows "?" for it instead of ending in a UnicodeEncodeError traceback"""
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper) and stream.errors == "strict":
            stream.reconfigure(errors="replace")


def run(argv: list[str] | None = None) -> int:
    """main(), quiet when the reader closes the pipe early (agent-core demo | head), and on any console"""
    _replace_what_the_console_cannot_show()
    try:
        return main(argv)
    except BrokenPipeError:
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(run())
