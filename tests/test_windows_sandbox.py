"""run_command the Windows way (forced here with AGENT_CORE_SANDBOX=portable): no /bin/sh tricks,
no preexec_fn, no select on pipes, no killpg; the timeout and the cleanup still hold."""

import os
import select
import subprocess
import sys
import time

import psutil
import pytest

from agent_core.coding import Workspace, copy_project


@pytest.fixture
def workspace(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENT_CORE_SANDBOX", "portable")
    return Workspace(copy_project("discount", tmp_path))


def python(code: str) -> str:
    """a command line that runs Python code, quoted the same for cmd.exe and /bin/sh"""
    assert '"' not in code
    return f'python -c "{code}"'


SPAWN_SLEEPER = (
    "import subprocess, sys; "
    "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); "
    "open('sleeper.pid', 'w').write(str(child.pid)); "
)


def sleeper_is_gone(workspace) -> bool:
    """the sleeper has ended (a zombie has too), or does within 10 seconds of being killed"""
    pid = int((workspace.root / "sleeper.pid").read_text())
    give_up = time.monotonic() + 10  # generous for a loaded machine: the loop ends once it is gone
    while time.monotonic() < give_up:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return True
        except psutil.NoSuchProcess:
            return True
        time.sleep(0.05)
    return False


def test_the_portable_way_needs_no_select_killpg_or_preexec_fn(workspace, monkeypatch):
    def posix_only(*args, **kwargs):
        raise AssertionError("a POSIX-only call on the Windows way")

    class WindowsPopen(subprocess.Popen):
        def __init__(self, *args, **kwargs):
            assert kwargs.get("preexec_fn") is None and not kwargs.get("start_new_session"), (
                "POSIX-only option"
            )
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(select, "select", posix_only)
    monkeypatch.delattr(os, "killpg")
    monkeypatch.setattr(subprocess, "Popen", WindowsPopen)
    observation = workspace.run_command(
        python("import time; print('started', flush=True); time.sleep(60)"), 1
    )
    assert observation.startswith("timed out after 1s")
    assert "started" in observation


def test_exit_code_and_output_in_order(workspace):
    code = "import sys; print('out'); print('err', file=sys.stderr); sys.exit(3)"
    assert workspace.run_command(python(code)) == "exit code: 3\nout\nerr\n"


def test_the_timeout_kills_the_command_and_its_children(workspace):
    observation = workspace.run_command(python(SPAWN_SLEEPER + "import time; time.sleep(60)"), 1)
    assert observation.startswith("timed out after 1s")
    assert sleeper_is_gone(workspace)


def test_a_child_left_behind_does_not_outlive_the_command(workspace):
    observation = workspace.run_command(python(SPAWN_SLEEPER + "print('left it running')"), 20)
    assert observation == "exit code: 0\nleft it running\n"
    assert sleeper_is_gone(workspace)


def test_input_ends_at_once(workspace):
    assert (
        workspace.run_command(python("import sys; print(repr(sys.stdin.read()))"), 5) == "exit code: 0\n''\n"
    )


def test_a_flood_of_output_is_cut_in_the_middle(workspace):
    observation = workspace.run_command(python("print('x' * 100000)"), 20)
    assert "characters cut ...]" in observation
    assert len(observation) < 11_000


def test_no_key_reaches_the_command(workspace, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret")
    observation = workspace.run_command(python("import os; print(sorted(os.environ))"))
    assert "sk-test-secret" not in observation and "OPENAI" not in observation
    assert "'HOME'" in observation


def test_the_tests_of_a_project_run_the_portable_way(workspace):
    observation = workspace.run_command("python -m pytest -q", 60)
    assert observation.startswith("exit code: 1")  # the discount project ships with a bug
    assert "failed" in observation


@pytest.mark.skipif(sys.platform == "win32", reason="compares with the POSIX way")
def test_both_ways_report_the_same(tmp_path, monkeypatch):
    workspace = Workspace(copy_project("discount", tmp_path))
    command = python("import sys; print('a'); print('b', file=sys.stderr); sys.exit(2)")
    posix = workspace.run_command(command)
    monkeypatch.setenv("AGENT_CORE_SANDBOX", "portable")
    assert workspace.run_command(command) == posix
