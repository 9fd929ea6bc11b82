"""The dispatcher under hostile tools and calls: whatever happens, the call gets a tool message back."""

import argparse
import asyncio
import http.server
import signal
import sys
import threading
import time

import pytest
from calculator_tools import add

from agent_core import mock
from agent_core.coding import ToolLimits, Workspace, copy_project
from agent_core.dispatch import ToolRegistry, is_error
from agent_core.loop import run_agent


def call(name, arguments, call_id="call_1"):
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def convert(value: str) -> str:
    """Convert a value with the command-line parser."""
    parser = argparse.ArgumentParser(prog="convert", exit_on_error=False)
    parser.add_argument("--count", type=int, required=True)
    return str(parser.parse_args([value]).count)  # argparse calls sys.exit(2) on bad input


def interrupted() -> str:
    """A tool whose library raises KeyboardInterrupt."""
    raise KeyboardInterrupt("stopped by a library")


# --- what a tool raises ------------------------------------------------------------------------


@pytest.mark.parametrize("timeout", [None, 5])
def test_a_tool_that_exits_is_an_observation(timeout, capsys):
    registry = ToolRegistry([convert], timeout=timeout)
    observation = registry.run(call("convert", '{"value": "lots"}'))
    assert observation.is_error and observation.error_type == "tool_error"
    assert observation.content.startswith("ERROR: the tool 'convert' raised SystemExit: 2.")
    assert "usage: convert" in capsys.readouterr().err  # argparse did run, and exited


@pytest.mark.parametrize("timeout", [None, 5])
def test_a_tool_that_raises_keyboard_interrupt_is_an_observation(timeout):
    registry = ToolRegistry([interrupted], timeout=timeout)
    observation = registry.run(call("interrupted", "{}"))
    assert observation.is_error
    assert observation.content.startswith(
        "ERROR: the tool 'interrupted' raised KeyboardInterrupt: stopped by a library."
    )


@pytest.fixture
def ctrl_c_raises():
    """Python's own Ctrl-C handler, as in a terminal: a process a shell without job control starts in
    the background inherits SIGINT ignored, and Python then installs no handler of its own"""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@pytest.mark.skipif(sys.platform == "win32", reason="raise_signal(SIGINT) from a thread is POSIX behaviour")
@pytest.mark.parametrize("timeout", [None, 5])
def test_the_users_ctrl_c_still_stops_the_wait(timeout, ctrl_c_raises):
    release, finished = threading.Event(), threading.Event()

    def slow() -> str:
        """Take a while."""
        release.wait(60)
        finished.set()
        return "late"

    ctrl_c = threading.Timer(0.2, signal.raise_signal, [signal.SIGINT])
    ctrl_c.start()
    with pytest.raises(
        KeyboardInterrupt
    ):  # the tool's own KeyboardInterrupt is an observation; the user's is not
        ToolRegistry([slow], timeout=timeout).run(call("slow", "{}"))
    assert not finished.is_set()  # the wait ended while the tool still ran
    release.set()


def test_run_agent_goes_on_after_a_tool_exits(capsys):
    client = mock.client(mock.Script(mock.call("convert", value="lots"), "The value is not a number."))
    run = run_agent(client, "Convert 'lots'.", ToolRegistry([convert], timeout=None))
    assert run.stop_reason == "answered" and run.answer == "The value is not a number."
    assert run.observations[0].is_error and "SystemExit" in run.messages[-2]["content"]


# --- what a server sends ---------------------------------------------------------------------


@pytest.mark.parametrize("name", [5, None, ["add"], {"name": "add"}])
def test_a_tool_name_that_is_not_a_string_is_an_observation(name):
    observation = ToolRegistry([add]).run(call(name, '{"a": 1, "b": 2}'))
    assert observation.is_error and observation.error_type == "unknown_tool"
    assert observation.content.startswith("ERROR: the tool name must be a string, but got ")
    assert "Call a tool by its exact name: add." in observation.content


@pytest.mark.parametrize(
    ("arguments", "described"),
    [(5, "a number: 5"), ([1, 2], "an array: [1, 2]"), (True, "a boolean: True"), (2.5, "a number: 2.5")],
)
def test_arguments_that_are_not_a_string_are_an_observation(arguments, described):
    observation = ToolRegistry([add]).run(call("add", arguments))
    assert observation.is_error and observation.error_type == "not_an_object"
    assert observation.content == (
        "ERROR: the arguments for 'add' must be a JSON object written as a string, but got "
        f'{described}. Call \'add\' again with one JSON object, like {{"a": ..., "b": ...}}.'
    )


def test_a_call_whose_function_is_not_an_object_is_an_observation():
    message = ToolRegistry([add]).dispatch({"id": "call_9", "type": "function", "function": "add"})
    assert message["tool_call_id"] == "call_9" and is_error(message)


# --- what a tool returns -----------------------------------------------------------------------


class Unprintable:
    def __str__(self):
        raise RuntimeError("no text for you")


def unprintable() -> str:
    """Return something that cannot become text."""
    return Unprintable()


def deep() -> list:
    """Return a list nested 100,000 deep."""
    value: list = []
    for _ in range(100_000):
        value = [value]
    return value


@pytest.mark.parametrize("timeout", [None, 5])
def test_a_result_whose_str_raises_is_an_observation(timeout):
    observation = ToolRegistry([unprintable], timeout=timeout).run(call("unprintable", "{}"))
    assert observation.is_error and observation.error_type == "tool_error"
    assert observation.content == (
        "ERROR: the tool 'unprintable' returned a value that cannot be written as text "
        "(RuntimeError: no text for you). This is a bug in the tool; try another approach."
    )


@pytest.mark.parametrize("timeout", [None, 5])
def test_a_result_nested_too_deep_is_an_observation(timeout):
    observation = ToolRegistry([deep], timeout=timeout).run(call("deep", "{}"))
    assert observation.is_error and observation.error_type == "tool_error"
    assert observation.content.startswith(
        "ERROR: the tool 'deep' returned a value that cannot be written as text (RecursionError: "
    )


def test_an_exception_whose_message_raises_is_still_reported():
    class Broken(Exception):
        def __str__(self):
            raise ValueError("worse")

    def fragile() -> str:
        """Fail badly."""
        raise Broken()

    observation = ToolRegistry([fragile]).run(call("fragile", "{}"))
    assert observation.content.startswith(
        "ERROR: the tool 'fragile' raised Broken: (its message cannot be shown)."
    )


# --- async tools ---------------------------------------------------------------------------------


async def fetch_price(item: str) -> str:
    """Look up the price of an item."""
    await asyncio.sleep(0.01)
    return f"{item}: 3 euros"


async def fetch_slowly(item: str) -> str:
    """Look up the price of an item, slowly."""
    await asyncio.sleep(60)
    return f"{item}: 3 euros"


async def fetch_broken(item: str) -> str:
    """Look up the price of an item, and fail."""
    raise LookupError(f"no price for {item}")


@pytest.mark.parametrize("timeout", [None, 5])
def test_an_async_tool_is_awaited_not_reported_as_a_coroutine(timeout):
    observation = ToolRegistry([fetch_price], timeout=timeout).run(call("fetch_price", '{"item": "tea"}'))
    assert not observation.is_error
    assert observation.content == "tea: 3 euros" and observation.value == "tea: 3 euros"


def test_an_async_tool_that_raises_is_an_error():
    observation = ToolRegistry([fetch_broken]).run(call("fetch_broken", '{"item": "tea"}'))
    assert observation.is_error
    assert observation.content.startswith(
        "ERROR: the tool 'fetch_broken' raised LookupError: no price for tea."
    )


def test_an_async_tool_is_bounded_by_the_timeout():
    observation = ToolRegistry([fetch_slowly], timeout=0.2).run(call("fetch_slowly", '{"item": "tea"}'))
    assert (
        observation.error_type == "timeout"
    )  # had the dispatcher waited for the tool, it would have its price


def test_an_async_tool_runs_inside_a_running_event_loop():
    # a notebook's kernel runs an event loop; asyncio.run() would refuse to start a second one there
    async def inside() -> str:
        return ToolRegistry([fetch_price]).dispatch(call("fetch_price", '{"item": "tea"}'))["content"]

    assert asyncio.run(inside()) == "tea: 3 euros"


# --- a tool that holds the GIL: grep with the model's catastrophic pattern -------------------------


@pytest.fixture
def backtracking_workspace(tmp_path):
    root = copy_project("discount", tmp_path)
    (root / "notes.txt").write_text("a" * 40 + "!\n")  # re.search("(a|a)+$") needs 2**40 steps here
    return root


def test_grep_stops_a_catastrophic_pattern_at_its_own_limit(backtracking_workspace):
    workspace = Workspace(backtracking_workspace, limits=ToolLimits(max_search_seconds=0.5))
    registry = ToolRegistry(workspace.tools("grep"))
    observation = registry.run(call("grep", '{"pattern": "(a|a)+$"}'))
    # a tool error, not the dispatcher's timeout (30 s): grep stopped at its own limit
    assert observation.is_error and observation.error_type == "tool_error"
    assert observation.content.startswith(
        "ERROR: the search for '(a|a)+$' took more than 0.5 seconds and was stopped: the pattern "
        "backtracks too much"
    )


def test_the_dispatcher_timeout_bounds_the_wait_for_grep(backtracking_workspace):
    registry = ToolRegistry(Workspace(backtracking_workspace).tools("grep"), timeout=0.5)
    observation = registry.run(call("grep", '{"pattern": "(a|a)+$"}'))
    # a timeout, not grep's own error at its 5 s limit: the dispatcher woke at 0.5 s while grep was
    # still matching, as the worker thread does not hold the GIL while it matches
    assert observation.error_type == "timeout"


def test_grep_still_finds_ordinary_patterns(backtracking_workspace):
    grep = Workspace(backtracking_workspace).grep
    assert grep("DISCOUNT_FROM\\s*=").startswith("1 match for 'DISCOUNT_FROM\\\\s*=' in 1 file:")
    assert grep("final_price(").startswith("ERROR: invalid regular expression 'final_price(': missing ),")


# --- is_error agrees with what the model reads ----------------------------------------------------


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("write_file", '{"path": "../x.py", "content": "x = 1"}'),
        ("read_file", '{"path": "missing.py"}'),
        ("run_command", '{"command": "true", "timeout": 9999}'),
    ],
)
def test_errors_a_tool_reports_itself_are_errors(tmp_path, name, arguments):
    registry = ToolRegistry(Workspace(copy_project("discount", tmp_path)).tools(*([name])))
    observation = registry.run(call(name, arguments))
    assert observation.content.startswith("ERROR: ")
    assert observation.is_error and is_error(observation.to_message()) and is_error(observation)
    assert observation.error_type == "tool_error"
    assert not (tmp_path / "x.py").exists()


# --- one timeout story: the model hears the sandbox, and nothing goes on running --------------------


@pytest.mark.skipif(sys.platform == "win32", reason="the command is a POSIX shell line")
def test_run_command_is_waited_for_until_the_sandbox_kills_it(tmp_path):
    workspace = Workspace(copy_project("discount", tmp_path))
    registry = ToolRegistry(timeout=0.5)  # shorter than the command's; run_command gets longer:
    registry.add(*workspace.tools("run_command"), timeout=workspace.sandbox.max_timeout + 5)
    command = "echo started; sleep 3; echo late > late.txt"
    observation = registry.run(call("run_command", f'{{"command": "{command}", "timeout": 1.5}}'))
    # the sandbox's own message with the output it kept, not the dispatcher's "did not finish"
    assert observation.content == "timed out after 1.5s; process group killed\nstarted\n"
    time.sleep(2.5)  # past the moment the command would have written late.txt
    assert not (workspace.root / "late.txt").exists()


def test_the_coding_agents_registry_waits_for_run_command_past_its_longest_timeout(tmp_path):
    from agent_core.coding.agent import coding_registry

    workspace = Workspace(copy_project("discount", tmp_path))
    registry = coding_registry(workspace)  # the registry run_coding_agent and lesson 07 build
    assert registry.timeout_for("run_command") > workspace.sandbox.max_timeout
    assert registry.timeout_for("read_file") == registry.timeout


@pytest.mark.parametrize(
    ("tool", "arguments", "starts"),
    [
        (interrupted, {}, "ERROR: the tool 'interrupted' raised KeyboardInterrupt"),
        (unprintable, {}, "ERROR: the tool 'unprintable' returned a value that cannot be written as text"),
        (deep, {}, "ERROR: the tool 'deep' returned a value that cannot be written as text"),
        (fetch_price, {"item": "tea"}, "tea: 3 euros"),
        (fetch_broken, {"item": "tea"}, "ERROR: the tool 'fetch_broken' raised LookupError"),
    ],
)
@pytest.mark.parametrize("timeout", [None, 5])
def test_run_agent_answers_every_hostile_tool_and_goes_on(tool, arguments, starts, timeout):
    client = mock.client(mock.Script(mock.call(tool.__name__, **arguments), "Done."))
    run = run_agent(client, "Go.", ToolRegistry([tool], timeout=timeout))
    assert run.stop_reason == "answered" and run.answer == "Done."
    assert run.messages[-2]["role"] == "tool" and run.messages[-2]["content"].startswith(starts)
    assert run.observations[0].is_error == starts.startswith("ERROR: ")


def test_a_schema_that_refers_outside_itself_is_never_fetched_and_the_run_goes_on():
    fetched = []

    class Schemas(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            fetched.append(self.path)
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Schemas)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        registry = ToolRegistry([add])
        url = f"http://127.0.0.1:{server.server_address[1]}/number.json"
        registry["add"].parameters["properties"]["a"] = {"$ref": url}  # a hand-edited schema
        observation = registry.run(call("add", '{"a": 1, "b": 2}'))
        run = run_agent(mock.client(mock.Calculator()), "What is 1 + 2?", registry)
    finally:
        server.shutdown()
        server.server_close()
    assert fetched == []
    assert observation.is_error and url in observation.content and "never fetched" in observation.content
    assert run.stop_reason == "answered" and run.observations[0].is_error
