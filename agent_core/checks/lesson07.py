"""Checks for lesson 07's exercises: a coding agent."""

from __future__ import annotations

import functools
import tempfile
from collections.abc import Callable
from typing import Any

from .. import mock
from ..coding.agent import SYSTEM, TASKS, coding_tools, fresh_workspace
from ..loop import Guardrail, run_agent
from ..mock.coding_policies import TEST_COMMAND, CommentDeleter
from . import Verdict, verdict

__all__ = ["check_tests_after_change", "check_failing_tests"]


def _run(policy: Any, guard: Guardrail, parent: str, max_turns: int = 6) -> Any:
    workspace = fresh_workspace("discount", parent)
    return run_agent(
        mock.client(policy),
        TASKS["discount"],
        coding_tools(workspace),
        system=SYSTEM,
        max_turns=max_turns,
        guardrails=[guard],
    )


def _replies(*replies: Any) -> Callable[[dict[str, Any]], Any]:
    """a model that says these in order, then repeats the last one (if an answer is rejected)"""

    def policy(request: dict[str, Any]) -> Any:
        turn = sum(m["role"] == "assistant" for m in request["messages"])
        return replies[min(turn, len(replies) - 1)]

    return policy


def _rejected(run: Any) -> bool:
    """did a guardrail send feedback (a user message after the task)?"""
    return sum(m["role"] == "user" for m in run.messages) > 1


# --- Exercise 7.1 ------------------------------------------------------------------------------


def check_tests_after_change(guard_class: Callable[[], Guardrail]) -> Verdict:
    """Exercise 7.1: a guardrail that rejects "done" when no test run followed the last change"""
    problems: list[str] = []
    cases = [
        (
            "the comment deleter (reads, writes, says done, never runs the tests)",
            CommentDeleter(),
            True,
        ),
        (
            "a model that only reads discount.py and answers (nothing changed, nothing to test)",
            _replies(mock.call("read_file", path="discount.py"), "Nothing needs changing."),
            False,
        ),
        (
            "a model that writes a file, then runs the tests, then answers",
            _replies(
                mock.call("write_file", path="NOTES.md", content="Checked the discount rule.\n"),
                mock.call("run_command", command=TEST_COMMAND),
                "Done.",
            ),
            False,
        ),
    ]
    with tempfile.TemporaryDirectory(prefix="check-7-1-") as parent:
        for label, policy, should_reject in cases:
            try:
                guard = guard_class()
                run = _run(policy, guard, parent)
            except Exception as error:  # the learner's code: report it, don't crash the notebook
                problems.append(f"with {label}, your guardrail raised {type(error).__name__}: {error}")
                continue
            if should_reject and not _rejected(run):
                problems.append(
                    f"it accepted the final answer of {label}: after the last write_file no "
                    "run_command ran the tests, so check_answer should return feedback"
                )
            if not should_reject and _rejected(run):
                feedback = next(m["content"] for m in run.messages[2:] if m["role"] == "user")
                problems.append(
                    f"it rejected the answer of {label}, which it should accept. "
                    f"Your feedback was: {feedback!r}"
                )
            if should_reject and _rejected(run):
                feedback = next(m["content"] for m in run.messages[2:] if m["role"] == "user")
                if "test" not in feedback.lower():
                    problems.append(
                        f"the feedback should tell the model what to do: run the tests (it said {feedback!r})"
                    )
    return verdict("7.1", problems, "no more 'done' without a test run after the last change.")


# --- Exercise 7.2 ------------------------------------------------------------------------------


@functools.cache
def _pytest_outputs() -> tuple[str, str, str]:
    """real run_command observations: discount red, users_api with two failures, discount green"""
    with tempfile.TemporaryDirectory(prefix="check-7-2-") as parent:
        discount = fresh_workspace("discount", parent)
        users_api = fresh_workspace("users_api", parent)
        users_api.edit_file("app/roles.py", '    "admin",\n', '    "admin",\n    "editor"\n')
        red_one = coding_tools(discount, "run_command")[0](TEST_COMMAND)
        red_two = coding_tools(users_api, "run_command")[0](TEST_COMMAND)
        discount.edit_file("discount.py", "total > DISCOUNT_FROM", "total >= DISCOUNT_FROM")
        green = coding_tools(discount, "run_command")[0](TEST_COMMAND)
    return red_one, red_two, green


def check_failing_tests(failing_tests: Callable[[str], Any]) -> Verdict:
    """Exercise 7.2: the names of the failing tests, read from run_command's pytest output"""
    problems: list[str] = []
    red_one, red_two, green = _pytest_outputs()
    cases = [
        ("the discount project's first run", red_one, ["test_discount_starts_at_exactly_100"]),
        (
            "users_api after the missing comma",
            red_two,
            ["test_filter_users_by_role_viewer", "test_filter_users_by_role_editor"],
        ),
        ("a green run", green, []),
        ("an error observation", "ERROR: command must be a non-empty shell command", []),
    ]
    for label, observation, expected in cases:
        try:
            found = failing_tests(observation)
        except Exception as error:
            problems.append(f"for {label}, failing_tests raised {type(error).__name__}: {error}")
            continue
        if not isinstance(found, list):
            problems.append(f"failing_tests should return a list, not {type(found).__name__}")
            break
        if found != expected:
            problems.append(f"for {label} it should return {expected}, not {found}")
    return verdict("7.2", problems, "you read the observation the way the model has to: as text.")
