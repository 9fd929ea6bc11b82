"""Bad calls against the real tools: each must end in a clear ERROR or a bounded, killed command."""

import hashlib
import os
import signal
import sys
import time
from pathlib import Path

import pytest

from agent_core.coding import SandboxLimits, Workspace, copy_project

SECRET = "sk-test-secret"
on_linux = pytest.mark.skipif(sys.platform != "linux", reason="needs Linux (/proc, rlimits)")


def fingerprint(folder: Path) -> dict[str, str]:
    """every entry under folder: a hash of each file's bytes, the target of each symlink"""
    prints = {}
    for path in sorted(folder.rglob("*")):
        name = path.relative_to(folder).as_posix()
        if path.is_symlink():
            prints[name] = "symlink to " + os.readlink(path)
        elif path.is_file():
            prints[name] = hashlib.sha256(path.read_bytes()).hexdigest()
        else:
            prints[name] = "folder"
    return prints


@pytest.fixture
def sentinel(tmp_path):
    """a folder right next to the workspace that no tool call may change"""
    folder = tmp_path / "sentinel"
    (folder / "deeper").mkdir(parents=True)
    (folder / "secret.txt").write_text("SENTINEL-SECRET\n")
    (folder / "deeper" / "data.bin").write_bytes(bytes(range(256)))
    return folder


@pytest.fixture
def make_workspace(tmp_path, sentinel):
    """a workspace on a copy of the discount project; afterwards the sentinel must be unchanged"""
    before = fingerprint(sentinel)

    def make(sandbox=None):
        return Workspace(copy_project("discount", tmp_path), sandbox=sandbox)

    yield make
    assert fingerprint(sentinel) == before, "the sentinel folder next to the workspace changed"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["discount", "sentinel"]


@pytest.fixture
def workspace(make_workspace):
    return make_workspace()


def assert_error(observation: str, *fragments: str) -> None:
    assert observation.startswith("ERROR: "), observation
    for fragment in fragments:
        assert fragment in observation, observation


def live_processes_in_group(group_id: int) -> list[int]:
    """pids of processes (not zombies) whose process group is group_id, from /proc"""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        state, _parent, group = stat.rsplit(")", 1)[1].split()[:3]
        if int(group) == group_id and state != "Z":
            found.append(int(entry.name))
    return found


def assert_group_is_gone(workspace: Workspace) -> None:
    group_id = int((workspace.root / "group.txt").read_text())
    deadline = time.monotonic() + 10  # generous for a loaded machine: the loop ends once they are gone
    while live_processes_in_group(group_id) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert live_processes_in_group(group_id) == []


# --- paths ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("read_file", {"path": "../sentinel/secret.txt"}),
        ("read_file", {"path": "deep/../../sentinel/secret.txt"}),
        ("list_dir", {"path": ".."}),
        ("write_file", {"path": "../x", "content": "escaped"}),
        ("write_file", {"path": "../sentinel/secret.txt", "content": "overwritten"}),
        ("edit_file", {"path": "../sentinel/secret.txt", "old_text": "SENTINEL", "new_text": "X"}),
    ],
)
def test_dotdot_traversal_is_refused(workspace, tool, arguments):
    observation = getattr(workspace, tool)(**arguments)
    assert_error(observation, "is outside the workspace", "'..' cannot go above the project root")


def test_absolute_paths_are_refused(workspace, sentinel, tmp_path):
    outside = Path(f"/tmp/agent-core-hostile-{os.getpid()}")
    assert_error(workspace.read_file(str(sentinel / "secret.txt")), "is an absolute path")
    assert_error(workspace.read_file("/etc/passwd"), "'/etc/passwd' is an absolute path")
    assert_error(workspace.write_file(str(outside), "x"), "is an absolute path")
    assert_error(workspace.write_file(str(tmp_path / "abs.txt"), "x"), "is an absolute path")
    assert_error(workspace.list_dir("/"), "is an absolute path")
    assert not outside.exists()


def test_symlinks_pointing_outside_are_refused_for_reading_and_writing(workspace, sentinel):
    (workspace.root / "leak").symlink_to(sentinel)
    (workspace.root / "leak.txt").symlink_to(sentinel / "secret.txt")
    (workspace.root / "dangling.txt").symlink_to(sentinel / "planted.txt")
    through_a_link = "leads outside the workspace through a symbolic link"
    assert_error(workspace.read_file("leak/secret.txt"), through_a_link)
    assert_error(workspace.read_file("leak.txt"), through_a_link)
    assert_error(workspace.list_dir("leak"), through_a_link)
    assert_error(workspace.write_file("leak.txt", "pwned"), through_a_link)
    assert_error(workspace.write_file("leak/planted.txt", "pwned"), through_a_link)
    assert_error(workspace.write_file("dangling.txt", "pwned"), through_a_link)
    assert_error(workspace.edit_file("leak.txt", "SENTINEL", "X"), through_a_link)
    assert workspace.grep("SENTINEL") == "no matches for 'SENTINEL' in 4 files"
    assert "leak" not in workspace.list_dir()
    assert not (sentinel / "planted.txt").exists()


def test_a_symlink_inside_the_workspace_is_followed(workspace):
    (workspace.root / "alias.py").symlink_to(workspace.root / "discount.py")
    assert workspace.read_file("alias.py").startswith("discount.py (lines 1-12 of 12)")


def test_symlink_loop_is_an_error(workspace):
    (workspace.root / "loop").symlink_to(workspace.root / "loop")
    assert_error(workspace.read_file("loop"), "'loop'")  # "cannot be resolved" before 3.13


@pytest.mark.parametrize("path", [None, "", "   ", 42, ["discount.py"], "disc\0ount.py"])
def test_malformed_paths_are_errors(workspace, path):
    assert_error(workspace.read_file(path), "path")
    assert_error(workspace.write_file(path, "x"), "path")


# --- files the tools must not swallow ------------------------------------------------------------


def test_huge_file_is_refused(workspace):
    (workspace.root / "huge.log").write_text("line of log\n" * 30_000)  # 360,000 bytes
    assert_error(workspace.read_file("huge.log"), "huge.log is 360,000 bytes, over the 200,000-byte limit")
    assert_error(workspace.edit_file("huge.log", "line", "row"), "over the 200,000-byte limit")
    assert "(skipped 1 file: binary, not UTF-8 or too large: huge.log)" in workspace.grep("line of log")
    assert_error(workspace.write_file("copy.log", "x" * 300_000), "content is 300,000 bytes")
    assert not (workspace.root / "copy.log").exists()


def test_binary_file_is_refused(workspace):
    (workspace.root / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR")
    assert_error(workspace.read_file("image.png"), "image.png is a binary file (it contains NUL bytes)")


def test_non_utf8_file_is_refused(workspace):
    (workspace.root / "latin1.txt").write_bytes("café\n".encode("latin-1"))
    assert_error(workspace.read_file("latin1.txt"), "not UTF-8 text (byte 0xe9 at offset 3)")


def test_named_pipe_does_not_hang_the_tools(workspace):
    os.mkfifo(workspace.root / "pipe")
    assert_error(workspace.read_file("pipe"), "'pipe' is not a regular file")
    assert_error(workspace.write_file("pipe", "x"), "'pipe' is not a regular file")
    assert workspace.grep("anything").startswith("no matches")


def test_bad_argument_types_are_errors(workspace):
    assert_error(workspace.grep(None), "pattern must be a non-empty regular expression")
    assert_error(workspace.grep("x", file_glob=3), "file_glob must be a pattern like '*.py'")
    assert_error(workspace.write_file("a.txt", b"bytes"), "content must be a string")
    assert_error(workspace.write_file("a.txt", "\ud800"), "cannot be saved as UTF-8")
    assert_error(workspace.edit_file("discount.py", None, "x"), "old_text must be a string")
    assert_error(workspace.run_command(None), "command must be a non-empty shell command")
    assert_error(workspace.run_command("echo a\0b"), "could not be started")


# --- commands ------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["sleep 60", "while true; do :; done"])
def test_endless_command_is_killed_at_the_timeout(workspace, command):
    started = time.monotonic()
    observation = workspace.run_command(command, timeout=1)
    assert observation == "timed out after 1s; process group killed\n(no output)"
    assert (
        time.monotonic() - started < 30
    )  # generous for a loaded machine; unkilled, it runs 60 s or for ever


def test_output_before_a_timeout_is_kept(workspace):
    observation = workspace.run_command("echo before; sleep 60", timeout=0.5)
    assert observation == "timed out after 0.5s; process group killed\nbefore\n"


@on_linux
def test_bounded_process_spawner_is_killed_with_its_whole_group(workspace):
    observation = workspace.run_command(
        "echo $$ > group.txt; for i in $(seq 200); do sleep 30 & done; wait", timeout=2
    )
    assert observation.startswith("timed out after 2s; process group killed")
    assert_group_is_gone(workspace)


@on_linux
def test_background_processes_do_not_outlive_the_command(workspace):
    observation = workspace.run_command("echo $$ > group.txt; sleep 60 & echo started", timeout=10)
    assert observation == "exit code: 0\nstarted\n"  # not a timeout: it did not wait for the sleep
    assert_group_is_gone(workspace)


def test_output_flood_is_cut_in_the_middle(workspace):
    observation = workspace.run_command("yes | head -c 50000000", timeout=20)
    status, output = observation.split("\n", 1)
    assert status == "exit code: 0"
    assert output.startswith("y\ny\n") and output.endswith("y\ny\n")
    assert "\n[... 49990000 characters cut ...]\n" in output
    assert len(output) == 10_000 + len("\n[... 49990000 characters cut ...]\n")


def test_stdout_and_stderr_flood_stays_in_order_and_capped(workspace):
    program = "import sys\nfor i in range(20000):\n    print(i)\n    print(-i, file=sys.stderr)"
    observation = workspace.run_command(f"python -c '{program}'", timeout=20)
    assert observation.startswith("exit code: 0\n0\n0\n1\n-1\n2\n-2\n")
    assert observation.endswith("19999\n-19999\n")
    assert "characters cut ...]" in observation
    assert len(observation) < 10_100


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("cat", "exit code: 0\n(no output)"),
        ('read answer; echo "got [$answer]"', "exit code: 0\ngot []\n"),
        ("python -c 'input()' 2>&1 | tail -1", "exit code: 0\nEOFError: EOF when reading a line\n"),
    ],
)
def test_commands_waiting_for_input_end_at_once(workspace, command, expected):
    assert workspace.run_command(command, timeout=10) == expected  # an exit code, not a timeout


def test_api_keys_do_not_reach_the_command(workspace, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    environment = workspace.run_command("env")
    assert SECRET not in environment and "API_KEY" not in environment
    assert workspace.run_command('echo "[$OPENAI_API_KEY]"') == "exit code: 0\n[]\n"
    names = {line.split("=", 1)[0] for line in environment.splitlines()[1:]}
    assert names <= {"PATH", "HOME", "LANG", "LC_ALL", "TERM", "NO_COLOR", "PWD", "SHLVL", "_"} | {
        "PYTHONDONTWRITEBYTECODE",
        "PYTHONHASHSEED",
        "PYTHONUNBUFFERED",
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD",
    }


def test_run_command_can_still_read_outside_the_workspace_as_documented(workspace):
    # not a security boundary (SANDBOX.md): the path checks guard the file tools, not the shell
    observation = workspace.run_command("cat ../sentinel/secret.txt")
    assert observation == "exit code: 0\nSENTINEL-SECRET\n"


@on_linux
def test_memory_limit_stops_a_huge_allocation(workspace):
    observation = workspace.run_command("python -c 'bytearray(2 * 1024**3)'", timeout=20)
    assert observation.startswith("exit code: 1\n")
    assert "MemoryError" in observation


@on_linux
def test_file_size_limit_stops_a_runaway_file(make_workspace):
    workspace = make_workspace(SandboxLimits(file_size_bytes=1_000_000))
    observation = workspace.run_command("head -c 5000000 /dev/zero > big.bin", timeout=10)
    # killed by SIGXFSZ, as the shell reports a signal (128 + its number): the signal must keep
    # its default action in the command, though the Python that sets the limits ignores it
    assert observation.startswith(f"exit code: {128 + signal.SIGXFSZ}\n")
    assert (workspace.root / "big.bin").stat().st_size <= 1_000_000


@on_linux
def test_the_command_runs_under_the_limits(make_workspace):
    workspace = make_workspace(SandboxLimits(cpu_seconds=7, memory_bytes=512 * 1024**2))
    # ulimit -t in seconds, -v in kilobytes, -c in blocks (0: no core dumps)
    observation = workspace.run_command("ulimit -t; ulimit -v; ulimit -c; python -c 'import time'")
    assert observation == f"exit code: 0\n7\n{512 * 1024}\n0\n"


@on_linux
def test_cpu_limit_kills_a_busy_process(make_workspace):
    workspace = make_workspace(SandboxLimits(cpu_seconds=1))
    observation = workspace.run_command("exec python -c 'while True: pass'", timeout=20)
    assert (
        observation == "exit code: -9 (killed by SIGKILL)\n(no output)"
    )  # the limit's kill, not the timeout


@on_linux
def test_a_process_that_escapes_its_group_does_not_block_the_call(workspace):
    # setsid leaves the process group, so the sandbox cannot kill it (SANDBOX.md); it only
    # stops waiting for it. Keep its life short (10 s): nothing will clean it up.
    observation = workspace.run_command(
        "setsid sh -c 'sleep 10; echo > ended.txt' & echo started", timeout=30
    )
    assert observation == "exit code: 0\nstarted\n"
    assert not (workspace.root / "ended.txt").exists()  # the call returned while it still ran
