"""Lesson 07's detectors, on real workspaces, with scripted models (no test runs needed)."""

import pytest

from agent_core import mock
from agent_core.coding import Workspace
from agent_core.coding._coding_run import CodingRun, caught_by
from agent_core.coding.agent import TEST_FILES, fresh_workspace, run_coding_agent
from agent_core.coding.guards import (
    ClaimsCheck,
    DiffReview,
    changes_by_file,
    citations,
    shown_lines,
)
from agent_core.guardrails import LoopDetector, Permissions
from agent_core.loop import run_agent
from agent_core.mock.coding_policies import CommentDeleter


@pytest.fixture
def discount(tmp_path):
    return Workspace.from_project("discount", tmp_path)


def scripted(workspace, *replies, guard):
    return run_agent(mock.client(mock.Script(*replies)), "fix it", workspace.tools(), guardrails=[guard])


# --- citations -----------------------------------------------------------------------------------


def test_citations_reads_the_usual_forms():
    answer = (
        "See line 10 of discount.py: `total > DISCOUNT_FROM`. Also app/roles.py:3-5, "
        "`test_discount.py`, line 17 and lines 2 to 4 in ./README.md."
    )
    found = [(c.path, c.first, c.last, c.quote) for c in citations(answer)]
    assert found == [
        ("discount.py", 10, 10, "total > DISCOUNT_FROM"),
        ("app/roles.py", 3, 5, None),
        ("test_discount.py", 17, 17, None),
        ("README.md", 2, 4, None),
    ]


def test_citations_ignores_text_without_a_line():
    assert citations("I changed discount.py; 4 passed in 0.04s. Version 1.2: fine.") == []


def test_shown_lines_counts_read_file_and_grep(discount):
    run = run_agent(
        mock.client(
            mock.Script(
                mock.call("read_file", path="discount.py", start_line=9, end_line=10),
                mock.call("grep", pattern="MEMBER_DISCOUNT ="),
                mock.call("read_file", path="nope.py"),
                "done",
            )
        ),
        "look",
        discount.tools(),
    )
    shown = shown_lines(run.observations)
    assert set(shown) == {"discount.py"}  # the failed read of nope.py showed nothing
    assert sorted(shown["discount.py"]) == [3, 9, 10]
    assert shown["discount.py"][10] == {"    if is_member and total > DISCOUNT_FROM:"}


# --- ClaimsCheck ---------------------------------------------------------------------------------


def test_claims_check_rejects_a_citation_of_an_unread_file(discount):
    guard = ClaimsCheck()
    run = scripted(
        discount,
        "The bug is on line 10 of discount.py.",
        mock.call("read_file", path="discount.py"),
        "The bug is on line 10 of discount.py.",
        guard=guard,
    )
    assert run.stop_reason == "answered" and run.model_calls == 3
    assert guard.caught == [
        "you cite 'line 10 of discount.py', but discount.py was never shown to you in this run"
    ]
    feedback = run.messages[2]
    assert feedback["role"] == "user"
    assert feedback["content"].startswith("Your answer points at code you have not looked at:")
    assert "Read the file with read_file before you cite or quote it" in feedback["content"]


def test_claims_check_rejects_lines_outside_what_was_read_and_wrong_quotes(discount):
    guard = ClaimsCheck()
    run = scripted(
        discount,
        mock.call("read_file", path="discount.py", start_line=1, end_line=5),
        "discount.py:10 is wrong, and line 4 of discount.py reads `DISCOUNT_FROM = 50`.",
        "Sorry: line 4 of discount.py reads `DISCOUNT_FROM = 100`.",
        guard=guard,
    )
    assert run.stop_reason == "answered"
    assert guard.caught == [
        "you cite 'discount.py:10', but line 10 of discount.py was never shown to you in this run",
        "you quote 'line 4 of discount.py' as `DISCOUNT_FROM = 50`, but that line reads "
        "`DISCOUNT_FROM = 100  # euros`",
    ]


def test_claims_check_accepts_a_short_name_for_a_file_read_by_its_full_path(tmp_path):
    users_api = Workspace.from_project("users_api", tmp_path)
    guard = ClaimsCheck()
    run = scripted(
        users_api,
        mock.call("read_file", path="app/roles.py"),
        "ROLES starts on line 3 of roles.py.",
        guard=guard,
    )
    assert run.stop_reason == "answered" and guard.caught == []


def test_claims_check_stops_the_run_when_its_feedback_is_ignored(discount):
    guard = ClaimsCheck(max_rejections=1)
    run = scripted(discount, "See line 3 of discount.py.", "See line 3 of discount.py.", guard=guard)
    assert run.stop_reason == "unverified_claims"
    assert run.answer.startswith("Stopped: the answer was rejected 1 times for the same reason")
    assert len(guard.caught) == 2


# --- DiffReview ----------------------------------------------------------------------------------


def test_changes_by_file_splits_a_diff(discount):
    discount.write_file("discount.py", "x = 1\n")
    discount.write_file("notes.md", "new\n")
    changes = changes_by_file(discount.diff())
    assert [c.path for c in changes] == ["discount.py", "notes.md"]
    assert changes[0].added == ("x = 1",) and len(changes[0].removed) == 12
    assert changes[1].removed == () and changes[1].added == ("new",)


def test_diff_review_catches_the_comment_deleter(discount):
    guard = DiffReview(discount, expected_files=["discount.py"])
    run = run_agent(
        mock.client(CommentDeleter()),
        "The tests of discount.py fail. Fix it.",
        discount.tools(),
        guardrails=[guard],
    )
    assert guard.caught == [
        'discount.py lost the comment `# The shop promises members 10% off "from 100 euros": '
        "an order of exactly 100 counts.`"
    ]
    feedback = next(m["content"] for m in run.messages if m["role"] == "user" and m is not run.messages[0])
    assert "Before accepting your answer I read the full diff" in feedback
    assert '-    # The shop promises members 10% off "from 100 euros"' in feedback  # the diff itself
    assert run.stop_reason == "answered" and guard.review() == []  # the comment came back
    assert discount.diff().count("\n-") == 1


def test_diff_review_flags_files_outside_the_task_and_accepts_moved_comments(discount):
    guard = DiffReview(discount, expected_files=["discount.py"])
    source = (discount.root / "discount.py").read_text()
    moved = source.replace("MEMBER_DISCOUNT = 0.10\n", "# euros, see below\nMEMBER_DISCOUNT = 0.10\n")
    discount.write_file("discount.py", moved)
    assert guard.review() == []
    discount.write_file("test_discount.py", "")
    assert guard.review() == ["test_discount.py was changed, but the task is about discount.py only"]
    assert DiffReview(discount).review() == []  # expected_files=None accepts every file


def test_diff_review_says_nothing_about_an_untouched_workspace(discount):
    guard = DiffReview(discount, expected_files=["discount.py"])
    run = scripted(discount, "Nothing to do.", guard=guard)
    assert run.stop_reason == "answered" and guard.caught == [] and guard.last_diff == ""


# --- one guard, two runs -------------------------------------------------------------------------


def test_a_claims_check_reused_for_a_second_run_reports_that_runs_own_figures(tmp_path):
    claims = ClaimsCheck(max_rejections=1)
    for _ in range(2):
        model = mock.client(mock.Script("See line 3 of discount.py.", "See line 3 of discount.py."))
        result = run_coding_agent(
            fresh_workspace("discount", tmp_path), model, guardrails=[claims], verdict=False
        )
        assert result.run.stop_reason == "unverified_claims"
        assert len(result.caught["ClaimsCheck"]) == 2  # this run's two answers, not four
        assert claims.rejections == 1


def test_a_diff_review_reused_for_a_second_run_reports_that_runs_own_figures(discount):
    review = DiffReview(discount, expected_files=["discount.py"], max_rejections=1)
    without_comment = "".join(
        line
        for line in (discount.root / "discount.py").read_text().splitlines(keepends=True)
        if not line.lstrip().startswith("#")
    )
    first = run_coding_agent(
        discount,
        mock.client(
            mock.Script(
                mock.call("write_file", path="discount.py", content=without_comment), "Done.", "Done."
            )
        ),
        guardrails=[review],
        verdict=False,
    )
    assert first.run.stop_reason == "diff_review" and len(first.caught["DiffReview"]) == 2
    (discount.root / "discount.py").write_bytes(discount.start["discount.py"])  # the comment back
    second = run_coding_agent(discount, mock.client(mock.Script("Done.")), guardrails=[review], verdict=False)
    assert second.run.stop_reason == "answered" and second.caught == {}
    assert review.caught == [] and review.rejections == 0 and review.last_diff == ""


# --- what each guard caught ------------------------------------------------------------------------


def test_caught_by_credits_each_refusal_to_the_guard_that_made_it(discount):
    """a LoopDetector's feedback is its own refusal, not the permissions' (the run records the refuser)"""
    permissions, loops = Permissions(protected=TEST_FILES), LoopDetector(max_repeats=1)
    twice = [mock.call("read_file", path="discount.py")] * 2
    run = run_agent(
        mock.client(
            mock.Script(
                mock.calls(mock.call("write_file", path="test_discount.py", content="")),
                mock.calls(*twice),
                "Done.",
            )
        ),
        "fix it",
        discount.tools(),
        guardrails=[permissions, loops],
    )
    by_permissions, by_loops = caught_by(permissions, run), caught_by(loops, run)
    assert len(by_permissions) == 1 and by_permissions[0].startswith(
        "refused write_file on test_discount.py: 'test_discount.py' is protected"
    )
    assert len(by_loops) == 1 and by_loops[0].startswith(
        "refused read_file on discount.py: you already called read_file with exactly these arguments"
    )
    assert [type(refuser).__name__ for _, refuser in run.refusals] == ["Permissions", "LoopDetector"]
    result = CodingRun("discount", discount, run, [permissions, loops])
    assert list(result.caught) == ["Permissions", "LoopDetector"]
