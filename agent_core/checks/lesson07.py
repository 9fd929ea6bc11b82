"""Checks for lesson 07's exercises: a coding agent."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .. import mock
from ..coding.agent import SYSTEM, TASKS, coding_tools, fresh_workspace
from ..coding.tools import ALL_TOOLS
from ..coding.workspace import project_files
from ..dispatch import Observation
from ..loop import Guardrail, run_agent
from ..mock.coding_policies import TEST_COMMAND, CommentDeleter
from . import Verdict, verdict

__all__ = ["check_read_file", "check_unread_citations", "check_tests_after_change"]


def _raised(error: Exception, folder: Path | None = None) -> str:
    """the exception as the learner should read it, without the check's temporary folder"""
    text = str(error) if folder is None else str(error).replace(str(folder) + os.sep, "")
    return f"{type(error).__name__}: {text}"


# --- Exercise 7.1 ------------------------------------------------------------------------------

_SECRET = "the database password\n"


def _escape_room(parent: Path) -> tuple[Path, dict[str, bool]]:
    """a project folder with ways out of it next to it; also which symlinks could be made"""
    root = parent / "project"
    (root / "app").mkdir(parents=True)
    (root / "app" / "roles.py").write_text('ROLES = ["admin", "viewer"]\n')
    (root / "main.py").write_text("print('hello')\n")
    (parent / "secret.txt").write_text(_SECRET)
    (parent / "project-private").mkdir()
    (parent / "project-private" / "key.txt").write_text(_SECRET)
    made = {}
    for link, target, is_dir in (
        ("notes.txt", "../secret.txt", False),
        ("shared", "../project-private", True),
    ):
        try:  # Windows allows symlinks only with developer mode or as administrator
            os.symlink(target, root / link, target_is_directory=is_dir)
            made[link] = True
        except OSError:
            made[link] = False
    return root, made


def check_read_file(make_read_file: Callable[[Any], Callable[[str], str]]) -> Verdict:
    """Exercise 7.1: read_file returns a project file's text, and never anything outside the project"""
    problems: list[str] = []
    with tempfile.TemporaryDirectory(prefix="check-7-1-") as folder:
        parent = Path(folder).resolve()
        root, made = _escape_room(parent)
        absolute = str(parent / "secret.txt")

        def call(path: str) -> str:
            """read_file(path), as a message shows it: the same on every machine"""
            return f"read_file({'<absolute path>/secret.txt' if path == absolute else repr(path)})"

        def said(got: Any) -> str:
            """what read_file returned, without the check's temporary folder"""
            return repr(got).replace(str(parent) + os.sep, "").replace(repr(str(parent) + os.sep)[1:-1], "")

        try:
            read_file = make_read_file(root)
        except Exception as error:  # the learner's code: report it, don't crash the notebook
            return verdict("7.1", [f"make_read_file(root) raised {_raised(error)}"], "")
        inside = [
            ("main.py", "a file at the project root"),
            ("app/roles.py", "a file in a subfolder"),
            ("app/../main.py", "a path whose '..' stays inside the project"),
        ]
        outside = [
            ("../secret.txt", "'..' climbs out of the project"),
            ("app/../../secret.txt", "a '..' in the middle climbs out of the project"),
            (absolute, "an absolute path"),
            (
                "../project-private/key.txt",
                "the folder next door, whose name starts like the project's "
                "(compare paths with Path.is_relative_to, not str.startswith)",
            ),
        ]
        if made["notes.txt"]:
            outside.append(("notes.txt", "a symbolic link to a file outside (resolve the path first)"))
        if made["shared"]:
            outside.append(
                ("shared/key.txt", "a file inside a linked folder that points outside (resolve the whole path)")
            )
        for path, label in inside:
            expected = (root / path).read_text()
            try:
                got = read_file(path)
            except Exception as error:
                problems.append(f"{call(path)} ({label}) raised {_raised(error, parent)}")
                continue
            if got != expected:
                problems.append(f"{call(path)} ({label}) should return the file's text {expected!r}, not {said(got)}")
        for path, label in outside:
            try:
                got = read_file(path)
            except Exception as error:
                problems.append(f"{call(path)} ({label}) raised {_raised(error, parent)}: return 'ERROR: ...' instead")
                continue
            if not isinstance(got, str):
                problems.append(f"{call(path)} ({label}) should return text (a str), not {type(got).__name__}")
            elif "database password" in got:
                problems.append(f"{call(path)} read a file outside the project: {label}")
            elif not got.startswith("ERROR: ") or "outside" not in got:
                problems.append(
                    f"{call(path)} ({label}) should refuse with 'ERROR: ...' saying the path is "
                    f"outside the project, not {said(got)}"
                )
            elif "not exist" in got:
                problems.append(
                    f"{call(path)} ({label}) said {said(got)}, but that file exists: say only that the "
                    "path is outside the project, so the model knows what to fix"
                )
        for path, label, needs in (
            ("rules.py", "a file that does not exist", "does not exist"),
            ("app", "a folder", ""),
        ):
            try:
                got = read_file(path)
            except Exception as error:
                problems.append(f"{call(path)} ({label}) raised {_raised(error, parent)}: return 'ERROR: ...' instead")
                continue
            if not isinstance(got, str) or not got.startswith("ERROR: ") or needs not in got:
                saying = f" saying it {needs}" if needs else ""
                problems.append(f"{call(path)} ({label}) should answer 'ERROR: ...'{saying}, not {said(got)}")
            elif "outside" in got:
                problems.append(
                    f"{call(path)} ({label}) said {said(got)}, but the path is inside the project: "
                    "give each failure its own message, so the model knows what to fix"
                )
    return verdict("7.1", problems, "read_file stays inside the project, and every failure is text.")


# --- Exercise 7.2 ------------------------------------------------------------------------------


def _test_run(workspace: Any) -> Observation:
    """one real pytest run in the workspace, as the observation a run_command call leaves"""
    (run_command,) = coding_tools(workspace, "run_command")
    return Observation("call_0", "run_command", run_command(TEST_COMMAND), arguments={"command": TEST_COMMAND})


def _reads(workspace: Any, *reads: tuple[str, int | None, int | None]) -> list[Observation]:
    """read_file observations of (path, start_line, end_line), numbered after the test run"""
    (read_file,) = coding_tools(workspace, "read_file")
    found = []
    for n, (path, start, end) in enumerate(reads, start=1):
        arguments = {"path": path, "start_line": start, "end_line": end}
        content = read_file(path, start_line=start, end_line=end)
        found.append(Observation(f"call_{n}", "read_file", content, content.startswith("ERROR"), arguments=arguments))
    return found


_EIGHT_LINES = (14, 2, 11, 7, 5, 13, 1, 9)


def check_unread_citations(unread_citations: Callable[[str, list[Observation]], Any]) -> Verdict:
    """Exercise 7.2: the 'line N of PATH' citations of an answer that no read_file showed"""
    problems: list[str] = []
    with tempfile.TemporaryDirectory(prefix="check-7-2-") as parent:
        discount = fresh_workspace("discount", parent)
        users = fresh_workspace("users_api", parent)
        tested = _test_run(discount)  # the same files every time: one pytest run serves every case
        cases = [
            (
                "the hallucinator's answer after a test run only",
                "The bug is on line 8 of discount.py: it reads `if total > 100:`.",
                [tested],
                ["line 8 of discount.py"],
            ),
            (
                "the careful agent's answer after reading all of discount.py",
                "Fixed. Line 10 of discount.py was `if is_member and total > DISCOUNT_FROM:`.",
                [tested, *_reads(discount, ("discount.py", None, None))],
                [],
            ),
            (
                "a citation with a capital L and nothing read",
                "Line 10 of discount.py compares with >.",
                [tested],
                ["Line 10 of discount.py"],
            ),
            (
                "'line 10 of discount.py' when only lines 1-5 were read",
                "See line 10 of discount.py.",
                [tested, *_reads(discount, ("discount.py", 1, 5))],
                ["line 10 of discount.py"],
            ),
            (
                "'line 10 of discount.py' when only test_discount.py was read",
                "See line 10 of discount.py.",
                [tested, *_reads(discount, ("test_discount.py", None, None))],
                ["line 10 of discount.py"],
            ),
            (
                "two citations, the first read and the second not",
                "Line 4 of discount.py sets the limit and line 10 of discount.py uses it.",
                [tested, *_reads(discount, ("discount.py", 1, 5))],
                ["line 10 of discount.py"],
            ),
            (
                "lines 1, 5 and 6 of discount.py cited when lines 1-5 were read (both ends were shown)",
                "Line 1 of discount.py, line 5 of discount.py and line 6 of discount.py.",
                [tested, *_reads(discount, ("discount.py", 1, 5))],
                ["line 6 of discount.py"],
            ),
            (
                "three citations, none read, in the answer's order",
                "First line 9 of discount.py, then line 12 of discount.py, then line 3 of discount.py.",
                [tested],
                ["line 9 of discount.py", "line 12 of discount.py", "line 3 of discount.py"],
            ),
            (  # a set would keep eight in this order about once in 40,000 runs: the list's order is asked for
                "eight citations, none read, in the answer's order",
                " ".join(f"Line {n} of discount.py." for n in _EIGHT_LINES),
                [tested],
                [f"Line {n} of discount.py" for n in _EIGHT_LINES],
            ),
            (
                "a path with a folder, read",
                "I added a role on line 5 of app/roles.py.",
                [_test_run(users), *_reads(users, ("app/roles.py", 3, 7))],
                [],
            ),
            (
                "a citation of a file read_file could not find",
                "Line 2 of rules.py is wrong.",
                [tested, *_reads(discount, ("rules.py", None, None))],
                ["Line 2 of rules.py"],
            ),
        ]
    for label, answer, observations, expected in cases:
        try:
            found = unread_citations(answer, list(observations))
        except Exception as error:
            problems.append(f"for {label}, unread_citations raised {_raised(error)}")
            continue
        if not isinstance(found, list):
            problems.append(f"unread_citations should return a list, not {type(found).__name__}")
            break
        if found != expected:
            problems.append(f"for {label} it should return {expected}, not {found}")
    return verdict("7.2", problems, "an answer that cites a line nobody read is caught.")


# --- Exercise 7.3 ------------------------------------------------------------------------------


def _replies(*replies: Any) -> Callable[[dict[str, Any]], Any]:
    """a model that says these in order, then repeats the last one (if an answer is rejected)"""

    def policy(request: dict[str, Any]) -> Any:
        turn = sum(m["role"] == "assistant" for m in request["messages"])
        return replies[min(turn, len(replies) - 1)]

    return policy


# the real fix, so that a guard that also wants the tests to pass accepts the runs it should
_FIXED = project_files("discount")["discount.py"].decode().replace("total > DISCOUNT", "total >= DISCOUNT")
_WRITE = mock.call("write_file", path="discount.py", content=_FIXED)
_TESTS = mock.call("run_command", command=TEST_COMMAND)


def check_tests_after_change(guard_class: Callable[[], Guardrail]) -> Verdict:
    """Exercise 7.3: a guardrail that rejects "done" when no pytest run came after the last change"""
    problems: list[str] = []
    must_reject: list[tuple[str, Any]] = [
        ("the comment deleter (reads, writes, says done, never runs the tests)", CommentDeleter()),
        ("a model that runs the tests, then writes, then says done", _replies(_TESTS, _WRITE, "Done.")),
        (
            "a model that writes, runs `ls` (a command, not the tests), then says done",
            _replies(_WRITE, mock.call("run_command", command="ls"), "Done."),
        ),
        (
            "a model that writes, tests, writes again, then says done",
            _replies(_WRITE, _TESTS, _WRITE, "Done."),
        ),
        (
            "a model that changes a file with edit_file, then says done",
            _replies(
                mock.call("edit_file", path="discount.py", old_text="total >", new_text="total >="),
                "Done.",
            ),
        ),
    ]
    must_accept: list[tuple[str, Any]] = [
        (
            "a model that only reads discount.py and answers (nothing changed, nothing to test)",
            _replies(mock.call("read_file", path="discount.py"), "Nothing needs changing."),
        ),
        ("a model that writes, runs the tests, then answers", _replies(_WRITE, _TESTS, "Done.")),
        (
            "a model that writes, runs the tests, reads a file, then answers",
            _replies(_WRITE, _TESTS, mock.call("read_file", path="discount.py"), "Done."),
        ),
        (
            "a model whose only write was refused (ERROR: outside the workspace), then answers",
            _replies(mock.call("write_file", path="../elsewhere.py", content="x = 1\n"), "I could not write."),
        ),
        (
            "a model that writes, runs `python -m pytest test_discount.py` (pytest, other words), then answers",
            _replies(_WRITE, mock.call("run_command", command="python -m pytest test_discount.py"), "Done."),
        ),
        (
            "a model that writes, calls run_command with arguments that are not JSON (so the observation's "
            "arguments is None), runs the tests, then answers",
            _replies(_WRITE, mock.call("run_command", '{"command": '), _TESTS, "Done."),
        ),
    ]
    # the answers to accept are tried once every answer to reject is rejected: a guardrail that
    # lets "done" through is the fault to fix first (and each scenario costs real pytest runs)
    with tempfile.TemporaryDirectory(prefix="check-7-3-") as parent:
        for label, policy, should_reject in [(*c, True) for c in must_reject] + [(*c, False) for c in must_accept]:
            if not should_reject and problems:
                break
            try:
                guard = guard_class()
                run = run_agent(
                    mock.client(policy),
                    TASKS["discount"],
                    coding_tools(fresh_workspace("discount", parent), *ALL_TOOLS),
                    system=SYSTEM,
                    max_turns=6,
                    guardrails=[guard],
                )
            except Exception as error:  # the learner's code: report it, don't crash the notebook
                hint = ""
                if "NoneType" in str(error):
                    hint = " (an observation's arguments is None when the model's arguments did not parse)"
                problems.append(f"with {label}, your guardrail raised {_raised(error)}{hint}")
                continue
            feedback = [m["content"] for m in run.messages[2:] if m["role"] == "user"]
            if should_reject and not feedback:
                problems.append(
                    f"it accepted the final answer of {label}: no pytest run came after the last "
                    "change, so check_answer should return feedback"
                )
            elif should_reject and "test" not in feedback[0].lower():
                problems.append(f"the feedback should tell the model to run the tests (it said {feedback[0]!r})")
            elif not should_reject and feedback:
                problems.append(f"it rejected the answer of {label}, which it should accept (it said {feedback[0]!r})")
    return verdict("7.3", problems, "no more 'done' without a test run after the last change.")
