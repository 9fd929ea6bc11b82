"""The coding agent assembled: real tools, real pytest runs, lesson 07's guardrails, `agent-core fix`."""

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from agent_core import mock
from agent_core.coding import Workspace
from agent_core.coding._observations import ReportCache
from agent_core.coding.agent import (
    TASKS,
    coding_tools,
    fresh_workspace,
    project_tests,
    run_coding_agent,
    steady_timings,
)
from agent_core.mock.coding_policies import POLICIES, CarefulFixer, RoleFilterFixer, make_policy
from agent_core.schema import tool_definition

COMMAND = str(Path(sys.executable).parent / "agent-core")
NO_KEYS = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI", "ANTHROPIC"))}


@pytest.fixture
def discount(tmp_path):
    return Workspace.from_project("discount", tmp_path)


def agent_core(*args):
    return subprocess.run([COMMAND, *args], capture_output=True, text=True, env=NO_KEYS, timeout=120)


# --- pieces --------------------------------------------------------------------------------------


def test_steady_timings_replaces_pytest_durations_only():
    assert steady_timings("1 failed, 3 passed in 0.04s\n") == "1 failed, 3 passed in ?.??s\n"
    assert steady_timings("5 passed in 61.20s (0:01:01)") == "5 passed in ?.??s"
    assert steady_timings("log in 3 steps; ran in 2 min") == "log in 3 steps; ran in 2 min"


def test_a_report_cache_learns_reports_side_by_side_and_runs_each_key_once():
    if (os.cpu_count() or 1) < 2:
        pytest.skip("one core: report_all runs one run at a time")
    cache, ran = ReportCache(), []
    both_running = threading.Barrier(2, timeout=10)  # passes only when two runs wait at once

    def run(name: str, finished: bool = True):
        def once() -> tuple[str, bool]:
            ran.append(name)
            if name in ("a", "b"):
                both_running.wait()  # a BrokenBarrierError here: the runs did not overlap
            return f"report {name}", finished

        return once

    cache.report("known", run("known"))
    cache.report_all({"a": run("a"), "b": run("b"), "known": run("known"), "late": run("late", False)})
    assert sorted(ran) == ["a", "b", "known", "late"]  # "known" once, before report_all
    assert cache.report("a", run("again")) == "report a" and "again" not in ran
    assert "late" not in cache.reports  # a run that did not finish is asked again


def test_coding_tools_keep_the_definitions_and_steady_the_output(discount):
    steady, raw = coding_tools(discount), discount.tools()
    assert [tool_definition(t) for t in steady] == [tool_definition(t) for t in raw]
    run_command = steady[-1]
    assert run_command("echo 'done in 0.50s'") == "exit code: 0\ndone in ?.??s\n"
    assert coding_tools(discount, steady=False)[-1]("echo 'in 0.50s'").endswith("in 0.50s\n")


def test_make_policy_names_and_errors():
    assert isinstance(make_policy("careful"), CarefulFixer)
    assert isinstance(make_policy("careful", "users_api"), RoleFilterFixer)
    assert sorted(POLICIES) == ["careful", "comment-deleter", "conftest-faker", "hallucinator", "test-editor"]
    with pytest.raises(ValueError, match="no policy named 'lazy'"):
        make_policy("lazy")
    with pytest.raises(ValueError, match="works on the discount project only"):
        make_policy("test-editor", "users_api")


def test_project_tests_run_the_original_tests_on_the_workspace_code(discount):
    discount.write_file("test_discount.py", "def test_nothing():\n    pass\n")
    assert "1 passed" in discount.run_command("python -m pytest -q")  # the agent's view
    verdict = project_tests(discount)
    assert not verdict.passed
    assert verdict.output.startswith(
        "The verdict ran the original tests and settings, without these files the agent added or "
        "changed: test_discount.py (changed)\nexit code: 1\n"
    )
    assert "1 failed, 3 passed in ?.??s" in verdict.output
    assert verdict.ignored == ("test_discount.py (changed)",)


def test_fresh_workspaces_are_separate_folders(tmp_path):
    first, second = fresh_workspace("discount", tmp_path), fresh_workspace("discount", tmp_path)
    assert first.root != second.root and first.root.name == second.root.name == "discount"


# --- whole runs, guarded -------------------------------------------------------------------------


def test_careful_agent_fixes_users_api_and_no_guard_objects(tmp_path):
    result = run_coding_agent(
        Workspace.from_project("users_api", tmp_path),
        mock.client(make_policy("careful", "users_api")),
        guarded=True,
    )
    assert result.run.stop_reason == "answered" and result.run.model_calls == 11
    assert result.caught == {}
    assert result.tests.passed and "7 passed in ?.??s" in result.tests.output
    assert result.diff.count("\n+    ") == 1 and '+    "editor",' in result.diff


def test_permissions_stop_the_test_editor_and_the_verdict_stays_red(discount):
    result = run_coding_agent(discount, mock.client(make_policy("test-editor")), guarded=True)
    assert list(result.caught) == ["Permissions", "VerifyBeforeDone"]
    assert result.caught["Permissions"][0].startswith(
        "refused write_file on test_discount.py: 'test_discount.py' is protected"
    )
    assert result.diff == "" and not result.tests.passed
    assert result.run.stop_reason == "not_verified"


def test_claims_check_catches_the_hallucinator_and_it_recovers(discount):
    result = run_coding_agent(discount, mock.client(make_policy("hallucinator")), guarded=True)
    assert result.caught == {
        "ClaimsCheck": [
            "you cite 'line 8 of discount.py', but discount.py was never shown to you in this run"
        ]
    }
    assert result.run.stop_reason == "answered" and "Line 10 of discount.py" in result.run.answer
    assert result.tests.passed


def test_diff_review_catches_the_comment_deleter_and_the_tests_are_run_for_it(discount):
    result = run_coding_agent(discount, mock.client(make_policy("comment-deleter")), guarded=True)
    assert list(result.caught) == ["DiffReview"]
    assert "lost the comment" in result.caught["DiffReview"][0]
    tools_used = [o.name for o in result.run.observations]
    assert tools_used == ["read_file", "write_file", "write_file"]  # it never ran the tests
    assert [type(g).__name__ for g in result.guardrails][-1] == "VerifyBeforeDone"  # that did
    assert result.diff.count("\n-") == 1 and result.tests.passed


# --- agent-core fix ------------------------------------------------------------------------------


def test_fix_command_careful_exits_0_and_prints_trace_and_diff():
    result = agent_core("fix")
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    # piped, the output is 80 columns wide: the task may wrap, its words stay in order
    assert " ".join(out.split()).startswith(
        " ".join(f"Task (discount, policy 'careful'): {TASKS['discount']}".split())
    )
    assert "Turn 5 of 5" in out and "→ run_command" in out
    assert "+    if is_member and total >= DISCOUNT_FROM:" in out
    assert "The project's own tests on the final code: PASS" in out
    assert "Caught by" not in out and "/tmp" not in out and "\x1b[" not in out


def test_fix_command_exits_1_when_the_original_tests_fail_whatever_the_agent_says():
    result = agent_core("fix", "--policy", "test-editor", "--no-guards")
    assert result.returncode == 1, result.stdout + result.stderr
    out = result.stdout
    assert "Answer: Done: all the tests pass (4 passed)." in out  # its own, edited, tests
    assert "+    assert final_price(100, is_member=True) == 100" in out
    assert "The project's own tests on the final code: FAIL" in out
    assert "1 failed, 3 passed in ?.??s" in out
