"""The mock coding agents, run by the real loop on real copies of the practice projects."""

import pytest

from agent_core import mock
from agent_core.coding import Workspace
from agent_core.dispatch import ToolRegistry
from agent_core.loop import run_agent
from agent_core.mock.coding_policies import (
    TEST_COMMAND,
    CarefulFixer,
    CommentDeleter,
    FileView,
    Hallucinator,
    RoleFilterFixer,
    TestEditor,
    _boundary_fix,
    grep_matches,
    pytest_report,
    read_view,
    tool_steps,
)

DISCOUNT_TASK = "The tests of discount.py fail. Fix the code so that they pass."
USERS_TASK = "GET /users?role=editor answers 500 instead of listing the editors. Find the bug."
BOUNDARY_FIX = (
    "--- a/discount.py\n"
    "+++ b/discount.py\n"
    "@@ -7,6 +7,6 @@\n"
    " def final_price(total: float, is_member: bool) -> float:\n"
    '     """What the customer pays for an order of `total` euros."""\n'
    '     # The shop promises members 10% off "from 100 euros": an order of exactly 100 counts.\n'
    "-    if is_member and total > DISCOUNT_FROM:\n"
    "+    if is_member and total >= DISCOUNT_FROM:\n"
    "         return round(total * (1 - MEMBER_DISCOUNT), 2)\n"
    "     return total\n"
)


@pytest.fixture
def discount(tmp_path):
    return Workspace.from_project("discount", tmp_path)


@pytest.fixture
def users_api(tmp_path):
    return Workspace.from_project("users_api", tmp_path)


def run(policy, workspace, task=DISCOUNT_TASK, tools=(), **options):
    registry = ToolRegistry(workspace.tools(*tools))
    return run_agent(mock.client(policy), task, registry, max_turns=15, **options)


def called(agent_run):
    """the tool calls of a run as (name, main argument) pairs"""
    steps = tool_steps({"messages": agent_run.messages})
    return [(s.name, next(iter(s.arguments.values()), None)) for s in steps]


# --- reading observations ------------------------------------------------------------------------


def testpytest_report_reads_the_real_failure(discount):
    report = pytest_report(discount.run_command(TEST_COMMAND))
    assert (report.exit_code, report.passed, report.failed) == (1, 3, 1)
    assert not report.green and report.counts() == "1 failed, 3 passed"
    failure = report.failures[0]
    assert (failure.path, failure.test) == (
        "test_discount.py",
        "test_discount_starts_at_exactly_100",
    )
    assert failure.reason == "assert 100 == 90"
    assert report.failing_lines == ("assert final_price(100, is_member=True) == 90",)
    assert report.locations == (("test_discount.py", 17),)


def testpytest_report_ignores_other_commands(discount):
    assert pytest_report(discount.run_command("echo hello")) is None
    assert pytest_report("ERROR: command must be a non-empty shell command") is None


def test_read_view_rebuilds_the_file_from_numbered_lines(discount):
    view = read_view(discount.read_file("discount.py"))
    assert view.path == "discount.py" and view.total == 12 and view.whole
    assert view.text() == (discount.root / "discount.py").read_text()
    part = read_view(discount.read_file("discount.py", start_line=9, end_line=10))
    assert sorted(part.lines) == [9, 10] and not part.whole
    assert read_view("ERROR: 'x.py' does not exist.") is None


def test_grep_matches_reads_count_and_lines(users_api):
    total, shown = grep_matches(users_api.grep("check_role"))
    assert total == 3
    assert shown[0] == ("app/handlers.py", 3, "from app.roles import check_role")
    assert grep_matches("no matches for 'x' in 4 files") == (0, [])


def test_boundary_fix_finds_the_strict_comparison(discount):
    view = read_view(discount.read_file("discount.py"))
    fix = _boundary_fix(view, boundary=100)
    assert fix.line == 10
    assert fix.new == "    if is_member and total >= DISCOUNT_FROM:"
    assert _boundary_fix(view, boundary=50) is None
    assert _boundary_fix(view).line == 10  # without a boundary: any comparison with a constant
    assert _boundary_fix(FileView("a.py", {1: "if x >= LIMIT:"}, 1)) is None


# --- the careful agents --------------------------------------------------------------------------


def test_careful_fixer_runs_reads_fixes_reruns_and_answers(discount):
    agent_run = run(CarefulFixer(), discount)
    assert agent_run.stop_reason == "answered" and agent_run.model_calls == 5
    assert called(agent_run) == [
        ("run_command", TEST_COMMAND),
        ("read_file", "discount.py"),
        ("write_file", "discount.py"),
        ("run_command", TEST_COMMAND),
    ]
    assert discount.diff() == BOUNDARY_FIX  # one line changed, the comment kept
    assert "Line 10 of discount.py was `if is_member and total > DISCOUNT_FROM:`" in agent_run.answer
    assert agent_run.answer.endswith("After the change: 4 passed.")
    assert "4 passed" in discount.run_command(TEST_COMMAND)


def test_careful_fixer_uses_edit_file_when_it_is_offered(discount):
    tools = ("read_file", "edit_file", "run_command")
    agent_run = run(CarefulFixer(), discount, tools=tools)
    assert ("edit_file", "discount.py") in called(agent_run)
    assert discount.diff() == BOUNDARY_FIX


def test_careful_fixer_says_so_when_the_tests_already_pass(discount):
    discount.edit_file("discount.py", "total > DISCOUNT_FROM", "total >= DISCOUNT_FROM")
    agent_run = run(CarefulFixer(), discount)
    assert agent_run.model_calls == 2
    assert agent_run.answer == "The tests already pass (4 passed); there is nothing to fix."


def test_role_filter_fixer_reproduces_the_eleven_step_hunt(users_api):
    agent_run = run(RoleFilterFixer(), users_api, USERS_TASK)
    assert agent_run.stop_reason == "answered" and agent_run.model_calls == 11
    assert called(agent_run) == [
        ("grep", "users"),  # too broad: 30 matches
        ("read_file", "app/users.py"),  # the wrong file
        ("grep", '\\["role"\\]'),  # a better search
        ("read_file", "app/handlers.py"),
        ("read_file", "app/roles.py"),
        ("write_file", "app/roles.py"),  # the fix, with a missing comma
        ("run_command", TEST_COMMAND),  # red
        ("read_file", "app/roles.py"),  # re-reads its own change
        ("write_file", "app/roles.py"),  # adds the comma
        ("run_command", TEST_COMMAND),  # green
    ]
    observations = [o.content for o in agent_run.observations]
    assert observations[0].startswith("30 matches for 'users' in 7 files:")
    assert "2 failed, 5 passed" in observations[6]
    assert '  5 |     "editor"\n' in observations[7] + "\n"
    assert observations[9].startswith("exit code: 0")
    assert users_api.diff() == (
        "--- a/app/roles.py\n+++ b/app/roles.py\n@@ -2,6 +2,7 @@\n \n ROLES = [\n"
        '     "admin",\n+    "editor",\n     "viewer",\n ]\n \n'
    )
    assert "7 passed" in agent_run.answer and "comma" in agent_run.answer


def test_role_filter_fixer_without_the_typo_needs_eight_calls(users_api):
    agent_run = run(RoleFilterFixer(typo=False), users_api, USERS_TASK)
    assert agent_run.model_calls == 8
    assert [name for name, _ in called(agent_run)][-2:] == ["write_file", "run_command"]
    assert "comma" not in agent_run.answer


# --- the careless agents, with nothing to stop them ----------------------------------------------


def test_test_editor_changes_the_failing_test(discount):
    agent_run = run(TestEditor(), discount)
    assert called(agent_run)[1:3] == [
        ("read_file", "test_discount.py"),
        ("write_file", "test_discount.py"),
    ]
    assert agent_run.answer == "Done: all the tests pass (4 passed)."
    assert "+    assert final_price(100, is_member=True) == 100" in discount.diff()
    assert "discount.py\n" not in discount.diff().replace("test_discount.py\n", "")


def test_hallucinator_cites_a_line_it_never_read(discount):
    agent_run = run(Hallucinator(), discount)
    assert called(agent_run) == [("run_command", TEST_COMMAND)]
    assert agent_run.answer.startswith("The bug is on line 8 of discount.py: it reads `if total > 100:`")
    assert discount.files_read == set() and discount.diff() == ""


def test_comment_deleter_drops_the_comment_and_never_runs_the_tests(discount):
    agent_run = run(CommentDeleter(), discount)
    assert called(agent_run) == [("read_file", "discount.py"), ("write_file", "discount.py")]
    changes = discount.diff()
    assert "-    # The shop promises members 10% off" in changes
    assert "+    if is_member and total >= DISCOUNT_FROM:" in changes
    assert agent_run.answer.endswith("The task is done.")


@pytest.mark.parametrize(
    "policy", [CarefulFixer(), TestEditor(), Hallucinator(), CommentDeleter(), RoleFilterFixer()]
)
def test_policies_are_stateless(policy):
    request = {
        "model": "mock-model",
        "messages": [{"role": "user", "content": DISCOUNT_TASK + " " + USERS_TASK}],
    }
    assert policy(request) == policy(request)
