"""Writes that would run code outside the sandbox, and hard links out of it: the file tools refuse them."""

import hashlib
import os
import shutil
import subprocess
import sys

import pytest

from agent_core.coding import Workspace, copy_project, sandbox_env

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
FSMONITOR = "[core]\n\tfsmonitor = touch {marker}\n"


@pytest.fixture
def outside(tmp_path):
    """a file outside the workspace that no tool call may read or change"""
    folder = tmp_path / "outside"
    folder.mkdir()
    secret = folder / "secret.txt"
    secret.write_text("SENTINEL-SECRET\n")
    before = hashlib.sha256(secret.read_bytes()).hexdigest()
    yield secret
    assert hashlib.sha256(secret.read_bytes()).hexdigest() == before, "the file outside changed"


@pytest.fixture
def workspace(tmp_path):
    return Workspace(copy_project("discount", tmp_path))


def git(workspace, *args):
    """real git in the workspace, with the environment a user's terminal would have"""
    return subprocess.run(["git", *args], cwd=workspace.root, capture_output=True, text=True, timeout=60)


def assert_refused(observation, *words):
    assert observation.startswith("ERROR: "), observation
    for word in words:
        assert word in observation, observation


@needs_git
def test_a_planted_fsmonitor_never_reaches_git(workspace, tmp_path):
    git(workspace, "init", "-q")
    marker = tmp_path / "fsmonitor-ran"
    config = (workspace.root / ".git" / "config").read_text()
    assert_refused(
        workspace.write_file(".git/config", config + FSMONITOR.format(marker=marker)), "version-control"
    )
    assert_refused(
        workspace.edit_file(".git/config", "[core]", FSMONITOR.format(marker=marker)), "version-control"
    )
    assert_refused(
        workspace.write_file(".git/hooks/pre-commit", f"#!/bin/sh\ntouch {marker}\n"), "version-control"
    )
    git(workspace, "status")
    assert not marker.exists(), "git ran a command the agent planted"
    assert (workspace.root / ".git" / "config").read_text() == config


@pytest.mark.parametrize(
    "path",
    [
        ".git/config",
        ".git/hooks/post-checkout",
        ".git",  # a .git file: "gitdir: <a folder the agent wrote>"
        "tests/.git",  # git finds a repository from any folder up
        ".GIT/config",  # the same folder on macOS and Windows
        ".Git/hooks/pre-commit",
        ".git./config",  # Windows drops trailing dots and spaces
        ".git /config",
        "git~1/config",  # the NTFS short name of .git
        ".git::$INDEX_ALLOCATION/config",  # an NTFS stream that makes the folder .git
        ".g\u200cit/config",  # HFS+ ignores the zero-width non-joiner
        "app/../.git/config",
        ".hg/hgrc",
        ".svn/entries",
        ".bzr/branch/branch.conf",
    ],
)
def test_writes_into_version_control_metadata_are_refused(workspace, path):
    assert_refused(workspace.write_file(path, "x"), "version-control metadata")
    assert not (workspace.root / path).exists()


def test_a_symlink_to_the_git_folder_does_not_open_it(workspace):
    (workspace.root / ".git").mkdir()
    assert workspace.run_command("ln -s .git gitdir").startswith("exit code: 0")
    assert_refused(workspace.write_file("gitdir/config", "x"), "version-control metadata")
    assert_refused(workspace.read_file("gitdir/config"), "version-control metadata")
    assert not (workspace.root / ".git" / "config").exists()


@pytest.mark.parametrize(
    "path",
    [
        ".github/workflows/ci.yml",
        ".vscode/tasks.json",
        ".husky/pre-commit",
        "__pycache__/discount.cpython-311.pyc",
    ],
)
def test_writes_into_hidden_folders_and_caches_are_refused(workspace, path):
    assert_refused(workspace.write_file(path, "x"), "hidden or cache folder")
    assert not (workspace.root / path).exists()


def test_hidden_files_and_reading_hidden_folders_still_work(workspace):
    assert workspace.write_file(".gitignore", "*.log\n").startswith("created .gitignore")
    (workspace.root / ".github").mkdir()
    (workspace.root / ".github" / "ci.yml").write_text("on: push\n")
    assert "on: push" in workspace.read_file(".github/ci.yml")
    assert "+*.log" in workspace.diff()


def test_a_hard_link_to_a_file_outside_is_refused_like_a_symlink(workspace, outside):
    done = workspace.run_command(f"ln {outside} linked.txt")
    assert done.startswith("exit code: 0"), done
    for observation in (
        workspace.read_file("linked.txt"),
        workspace.write_file("linked.txt", "overwritten"),
        workspace.edit_file("linked.txt", "SENTINEL", "CHANGED"),
    ):
        assert_refused(observation, "hard link")
    assert "SENTINEL-SECRET" not in workspace.grep("SENTINEL")
    assert "linked.txt" not in workspace.list_dir()
    assert "SENTINEL-SECRET" not in workspace.diff()


def test_a_hard_link_between_two_files_inside_is_fine(workspace):
    done = workspace.run_command("ln discount.py twin.py")
    assert done.startswith("exit code: 0"), done
    assert "def " in workspace.read_file("twin.py")
    assert workspace.write_file("twin.py", "x = 1\n").startswith("wrote twin.py")
    assert (workspace.root / "discount.py").read_text() == "x = 1\n"


def test_the_command_environment_is_the_documented_list_and_holds_no_key(workspace, monkeypatch):
    for name in (
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "AGENT_CORE_API_KEY",
        "AWS_SECRET_ACCESS_KEY",
        "GITHUB_TOKEN",
    ):
        monkeypatch.setenv(name, "sk-test-secret")
    environment = sandbox_env(workspace.root)
    expected = {
        "PATH",
        "HOME",
        "LANG",
        "LC_ALL",
        "TERM",
        "NO_COLOR",
        "PYTHONDONTWRITEBYTECODE",
        "PYTHONHASHSEED",
        "PYTHONUNBUFFERED",
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD",
    }
    if sys.platform == "win32":
        expected |= {"SYSTEMROOT", "COMSPEC", "PATHEXT", "TEMP", "TMP", "USERPROFILE", "PYTHONUTF8"}
    assert set(environment) == expected
    assert "sk-test-secret" not in "".join(environment.values())
    shown = workspace.run_command(f'"{sys.executable}" -c "import os; print(sorted(os.environ))"')
    assert "sk-test-secret" not in shown and "KEY" not in shown and "TOKEN" not in shown
    assert os.environ["OPENAI_API_KEY"] == "sk-test-secret"  # it was there to leak


# --- the limits SANDBOX.md names: what the shell can still do ------------------------------------


@pytest.mark.skipif(sys.platform != "linux", reason="/proc is Linux's")
def test_a_key_exported_before_launch_is_readable_from_the_parent_s_proc_environ(tmp_path):
    program = (
        "import sys; from agent_core.coding import Workspace; "
        "print(Workspace(sys.argv[1]).run_command(\"tr '\\\\0' '\\\\n' < /proc/$PPID/environ | grep KEY\"))"
    )
    root = copy_project("discount", tmp_path)
    environment = {**os.environ, "OPENAI_API_KEY": "sk-exported-before-launch"}
    done = subprocess.run(
        [sys.executable, "-c", program, str(root)],
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "OPENAI_API_KEY=sk-exported-before-launch" in done.stdout, done.stdout + done.stderr


@needs_git
def test_the_shell_can_plant_a_hook_and_the_advised_git_flags_keep_it_from_running(workspace, tmp_path):
    git(workspace, "init", "-q")
    marker = tmp_path / "fsmonitor-ran"
    planted = workspace.run_command(f"git config core.fsmonitor 'touch {marker}'")
    assert planted.startswith("exit code: 0"), planted
    subprocess.run(
        ["git", "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "status"],
        cwd=workspace.root,
        capture_output=True,
        timeout=60,
    )
    assert not marker.exists()
    git(workspace, "status")
    assert marker.exists(), "without the flags, git runs what the command planted"
