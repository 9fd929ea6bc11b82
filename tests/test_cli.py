"""The agent-core command, run as a real subprocess with no key and no network."""

import itertools
import json
import os
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

COMMAND = str(Path(sys.executable).parent / "agent-core")
# no key, and no terminal size from the shell that runs the tests: each test says the width it wants
NO_KEYS = {
    k: v
    for k, v in os.environ.items()
    if not k.startswith(("OPENAI", "ANTHROPIC")) and k not in ("COLUMNS", "LINES")
}
NOTEBOOK = Path(__file__).parents[1] / "lessons" / "00_one_model_call.ipynb"


def agent_core(*args):
    return subprocess.run([COMMAND, *args], capture_output=True, text=True, env=NO_KEYS, timeout=120)


def test_demo_prints_each_turns_request_and_response():
    result = agent_core("demo")
    assert result.returncode == 0, result.stderr
    assert result.stdout.count('"messages"') >= 2  # both requests' JSON
    assert '"tool_calls"' in result.stdout and '"finish_reason"' in result.stdout
    assert "4 + 2 = 6" in result.stdout


def test_demo_json_is_the_raw_trace():
    result = agent_core("demo", "--json")
    assert result.returncode == 0, result.stderr
    trace = json.loads(result.stdout)
    first, second = trace["turns"]
    assert first["response"]["choices"][0]["finish_reason"] == "tool_calls"
    call = first["response"]["choices"][0]["message"]["tool_calls"][0]
    assert second["request"]["messages"][-1] == {"role": "tool", "tool_call_id": call["id"], "content": "6"}
    assert second["response"]["choices"][0]["message"]["content"] == "4 + 2 = 6"


def test_demo_is_byte_identical_across_runs():
    assert agent_core("demo", "--json").stdout == agent_core("demo", "--json").stdout


def in_a_terminal(*args, columns=80):
    """run agent-core with its stdout and stderr on a pseudo-terminal `columns` wide; its output as text"""
    import fcntl
    import pty
    import select
    import struct
    import termios

    parent, child = pty.openpty()
    fcntl.ioctl(child, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    env = {**NO_KEYS, "COLUMNS": str(columns), "TERM": "xterm"}
    process = subprocess.Popen(
        [COMMAND, *args], stdin=subprocess.DEVNULL, stdout=child, stderr=child, env=env
    )
    os.close(child)
    output = bytearray()
    try:
        while True:
            ready, _, _ = select.select([parent], [], [], 120)
            assert ready, "agent-core printed nothing for 120 s"
            try:
                chunk = os.read(parent, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            output += chunk
    finally:
        os.close(parent)
        process.wait(timeout=60)
    text = output.decode("utf-8").replace("\r\n", "\n")
    return process.returncode, re.sub(r"\x1b\[[0-9;]*m", "", text)  # colours take no columns


@pytest.mark.parametrize("command", [["demo"], ["fix"], ["fix", "--policy", "test-editor"]])
def test_no_line_is_wider_than_an_80_column_terminal(command):
    status, text = in_a_terminal(*command, columns=80)
    assert status in (0, 1), text
    lines = text.splitlines()
    assert len(lines) > 20
    widest = max(lines, key=len)
    assert len(widest) <= 80, widest
    assert len(widest) >= 70  # the output does fill the terminal: it follows its width


def test_a_wide_terminal_gets_at_most_100_columns():
    status, text = in_a_terminal("demo", columns=200)
    assert status == 0
    assert max(len(line) for line in text.splitlines()) == 100


def test_piped_output_is_plain_and_80_columns_wide():
    result = agent_core("demo")
    assert "\x1b[" not in result.stdout
    assert max(len(line) for line in result.stdout.splitlines()) == 80


def test_piped_output_follows_columns():
    (code, stdout, stderr), (_, json_out, _) = through_the_entry_point(
        [["demo"], ["demo", "--json"]], columns=60
    )
    assert code == 0, stderr
    assert max(len(line) for line in stdout.splitlines()) == 60
    assert max(len(line) for line in json_out.splitlines()) > 60  # JSON for a program is never folded


def test_version_comes_from_the_package_metadata():
    result = agent_core("--version")
    assert result.returncode == 0
    assert result.stdout.strip() == f"agent-core {metadata.version('agent-core')}"


SUBCOMMANDS = ["demo", "serve-mock", "replay", "fix"]


@pytest.fixture(scope="module")
def help_pages():
    """`agent-core SUBCOMMAND --help` for each subcommand, through the entry point in one process"""
    answers = through_the_entry_point([[command, "--help"] for command in SUBCOMMANDS])
    return dict(zip(SUBCOMMANDS, answers, strict=True))


def test_every_help_text_fits_60_columns():
    pages = through_the_entry_point(
        [["--help"], *([command, "--help"] for command in SUBCOMMANDS)], columns=60
    )
    for code, stdout, _ in pages:
        assert code == 0 and stdout.startswith("usage: agent-core")
        widest = max(stdout.splitlines(), key=len)
        assert len(widest) <= 60, widest


@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_every_subcommand_has_a_description_in_its_help(command, help_pages):
    code, stdout, stderr = help_pages[command]
    assert code == 0, stderr
    usage, description = stdout.split("\n\n")[:2]
    assert usage.startswith(f"usage: agent-core {command}")
    assert len(description.split()) >= 10, description


WRONG_USAGES = [
    ["bogus"],
    ["--bogus"],
    ["demo", "--bogus"],
    ["demo", "extra"],
    ["demo", "--json=yes"],
    ["serve-mock", "--port", "99999"],
    ["serve-mock", "--port", "-1"],
    ["serve-mock", "--port", "eighty"],
    ["serve-mock", "--port"],
    ["serve-mock", "--host", ""],
    ["serve-mock", "--host", "192.0.2.1", "--port", "0"],  # a documentation address, not this machine
    ["serve-mock", "--policy", "oracle"],
    ["serve-mock", "--cassette", ""],
    ["serve-mock", "--cassette", "/no/such/cassette.json"],
    ["serve-mock", "--api-key", ""],
    ["serve-mock", "--models", ","],
    ["serve-mock", "--rate-limit", "-3"],
    ["serve-mock", "--rate-limit", "0"],
    ["serve-mock", "--rate-limit", "2.5"],
    ["serve-mock", "--quiet=1"],
    ["serve-mock", "--reject-unknown-fields", "yes"],
    ["replay"],
    ["replay", "a.json", "b.json"],
    ["replay", "/no/such/cassette.json"],
    ["replay", "/"],
    ["replay", "--json"],
    ["replay", str(NOTEBOOK)],
    ["fix", "--project", "nowhere"],
    ["fix", "--policy", "oracle"],
    ["fix", "--project", "users_api", "--policy", "hallucinator"],
    ["fix", "--project", "users_api", "--policy", "test-editor"],
    ["fix", "--project", "users_api", "--policy", "conftest-faker"],
    ["fix", "--project", "users_api", "--policy", "comment-deleter"],
    ["fix", "--no-guards=1"],
    ["fix", "--project"],
]


# Every wrong usage, and every help page, through the command's entry point (what the agent-core
# script calls), all in one real process: one start-up instead of one per case (each costs about a
# second of imports). Two wrong usages also run as the installed command itself, below.
ENTRY_POINT = """
import contextlib, io, json, sys
from agent_core import cli
answers = []
for args in json.load(sys.stdin):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.run(args)
        except SystemExit as exit:  # argparse's error() exits
            code = exit.code if isinstance(exit.code, int) else 1
    answers.append([code, out.getvalue(), err.getvalue()])
print(json.dumps(answers))
"""


def through_the_entry_point(commands: list[list[str]], columns: int | None = None) -> list[list]:
    """[exit code, stdout, stderr] of each command line, all run by cli.run in one real process, its
    output piped (with COLUMNS=columns, if given)"""
    done = subprocess.run(
        [sys.executable, "-c", ENTRY_POINT],
        input=json.dumps(commands),
        capture_output=True,
        text=True,
        env={**NO_KEYS, "COLUMNS": str(columns)} if columns else NO_KEYS,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def wrong_usage_answers():
    answers = through_the_entry_point(WRONG_USAGES)
    return {" ".join(args): answer for args, answer in zip(WRONG_USAGES, answers, strict=True)}


def assert_one_line_and_non_zero(code, stdout, stderr):
    assert code != 0
    assert "Traceback" not in stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("agent-core")
    assert "serving" not in stdout  # refused before it listened


@pytest.mark.parametrize("args", WRONG_USAGES, ids=" ".join)
def test_a_wrong_usage_is_one_line_and_a_non_zero_exit(args, wrong_usage_answers):
    assert_one_line_and_non_zero(*wrong_usage_answers[" ".join(args)])


def test_a_file_that_is_not_a_cassette_is_named_so(wrong_usage_answers):
    code, _, stderr = wrong_usage_answers[f"replay {NOTEBOOK}"]
    assert code == 2
    assert "it is a Jupyter notebook, not a cassette" in stderr and "version null" not in stderr


def test_a_long_line_of_the_final_diff_keeps_its_marker_when_it_wraps():
    ((code, stdout, stderr),) = through_the_entry_point([["fix"]], columns=40)
    assert code == 0, stderr
    diff = stdout.split("Final diff:\n", 1)[1].split("The project's own tests", 1)[0].splitlines()
    continued = [(before, line) for before, line in itertools.pairwise(diff) if line[1:2] == "↳"]
    assert continued, diff  # the fix's own line is longer than 40 columns
    for before, line in continued:
        assert line[0] == (before[0] if before[0] in "+-" else " "), (before, line)
    assert all(len(line) <= 40 for line in diff)


@pytest.mark.parametrize("args", [["bogus"], ["serve-mock", "--port", "eighty"]], ids=" ".join)
def test_the_installed_command_answers_a_wrong_usage_in_one_line(args):
    result = agent_core(*args)
    assert_one_line_and_non_zero(result.returncode, result.stdout, result.stderr)


def test_the_help_of_serve_mock_shows_defaults_and_how_to_get_tool_calls():
    help_text = " ".join(agent_core("serve-mock", "--help").stdout.split())
    assert "(default: 8000)" in help_text and "(default: echo)" in help_text
    assert "--policy calculator" in help_text
    for endpoint in ["/v1/chat/completions", "/v1/responses", "/v1/models", "/v1/messages"]:
        assert endpoint in help_text


def test_serve_mock_on_every_address_says_so_warns_and_names_every_endpoint_in_60_columns():
    import select
    import signal
    import urllib.error
    import urllib.request

    process = subprocess.Popen(
        [COMMAND, "serve-mock", "--port", "0", "--quiet", "--host", "0.0.0.0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=NO_KEYS,
    )
    try:
        ready, _, _ = select.select([process.stdout], [], [], 60)
        assert ready, "serve-mock printed nothing within 60 s"
        lines = [process.stdout.readline()]
        while lines[-1] and not lines[-1].strip().startswith("try:"):  # printed at once, after the first
            lines.append(process.stdout.readline())
        base_url = lines[0].split(" at ")[1].split()[0]
        try:
            urllib.request.urlopen(base_url + "/nothing", timeout=30)
        except urllib.error.HTTPError as error:
            refused = json.loads(error.read())
        process.send_signal(signal.SIGINT)
        _, warned = process.communicate(timeout=30)
    finally:
        process.kill()
        process.wait()
    assert warned == "warning: other machines on the network can reach this server\n"
    assert lines[0].startswith("mock model serving at http://127.0.0.1:")  # how to reach it from here
    assert lines[1].startswith("  listening on every network address (0.0.0.0), port ")
    start_up = "".join(lines)
    hint = refused["error"]["message"]  # the mock's hint follows the API's own message
    for endpoint in [
        "/v1/chat/completions",
        "/v1/responses",
        "/v1/models",
        "/v1/messages",
        "/v1/messages/count_tokens",
    ]:
        assert f"POST {endpoint}" in start_up or f"GET {endpoint}" in start_up, endpoint
        assert endpoint in hint, (endpoint, hint)
    assert "--policy calculator" in start_up
    assert all(len(line.rstrip("\n")) <= 60 for line in lines)


def test_every_command_prints_on_a_console_whose_encoding_lacks_its_characters(tmp_path):
    """a redirected Windows console writes cp1252, which has no "→" nor box lines: each command still
    prints everything else, and never a UnicodeEncodeError traceback"""
    from agent_core import mock
    from agent_core.cli import DEMO_QUESTION, add
    from agent_core.loop import run_agent

    cassette = run_agent(mock.client(mock.Calculator()), DEMO_QUESTION, [add]).trace.save(tmp_path / "c.json")
    env = {**NO_KEYS, "PYTHONIOENCODING": "cp1252"}
    printed = {}
    for args in (["demo"], ["fix"], ["replay", str(cassette)], ["--help"], ["serve-mock", "--help"]):
        result = subprocess.run([COMMAND, *args], capture_output=True, env=env, timeout=120)
        out, err = result.stdout.decode("cp1252"), result.stderr.decode("cp1252")
        assert result.returncode == 0 and "Traceback" not in out + err, (args, err[-600:])
        assert out.strip(), args
        printed[args[0]] = out
    assert "tool call" in printed["demo"]


def test_at_60_columns_a_turns_panel_title_keeps_its_http_status():
    """a narrow terminal loses the URL's path from the title, never the status at its end"""
    first = agent_core_at(60, "demo").stdout.splitlines()[0]
    assert "Turn 1 of 2" in first and "HTTP 200" in first and len(first) == 60
    wide = agent_core_at(100, "demo").stdout.splitlines()[0]
    assert "POST /v1/chat/completions · HTTP 200" in wide


def agent_core_at(columns: int, *args: str):
    env = {**NO_KEYS, "COLUMNS": str(columns)}
    return subprocess.run([COMMAND, *args], capture_output=True, text=True, env=env, timeout=120)
