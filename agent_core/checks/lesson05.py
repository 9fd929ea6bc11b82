"""Checks for lesson 05's exercises: guardrails."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from .. import mock
from ..coding.tiny_project import DISCOUNT_TASK, TinyProject
from ..dispatch import ToolRegistry
from ..guardrails import Decision, VerifyBeforeDone
from ..loop import AgentRun, Guardrail, run_agent
from ..mock.job_offer import JobApplicant
from ..mock.misbehaving import (
    Runaway,
    discount_versions,
    skips_the_tests,
)
from ..schema import tool
from . import Verdict, verdict

__all__ = ["check_max_uses", "check_ask_first", "check_tests_pass"]


def _add(a: float, b: float) -> float:
    """Add two numbers."""
    return a + b


def _divide(a: float, b: float) -> float:
    """Divide a by b."""
    return a / b


def _tools() -> ToolRegistry:
    registry = ToolRegistry()
    registry.add(_add, name="add")
    registry.add(_divide, name="divide")
    return registry


def _ran(run: AgentRun, name: str) -> int:
    """how many times the tool really ran (refused calls do not count)"""
    return sum(o.name == name and o.error_type != "refused" for o in run.observations)


_RETURNS = ". before_tool returns None to let the call run, or a str: the refusal the model reads"


def _count(times: int) -> str:
    return f"{times} time{'' if times == 1 else 's'}"


def check_max_uses(max_uses_class: type) -> Verdict:
    """Exercise 5.1: MaxUses(name, limit) refuses a tool once it has run `limit` times in a run"""
    try:
        guard = max_uses_class("add", 3)
    except Exception as error:  # the learner's code: report, don't crash the notebook
        return verdict("5.1", [f"MaxUses('add', 3) raised {type(error).__name__}: {error}"], "")
    if not isinstance(guard, Guardrail):
        return verdict("5.1", ["MaxUses should be a subclass of Guardrail: class MaxUses(Guardrail)"], "")
    problems: list[str] = []
    try:
        first = run_agent(mock.client(Runaway(heeds_errors=True)), "count", _tools(), guardrails=[guard])
        second = run_agent(mock.client(Runaway(heeds_errors=True)), "count", _tools(), guardrails=[guard])
        other = run_agent(
            mock.client(Runaway()),
            "count",
            _tools(),
            max_turns=5,
            guardrails=[max_uses_class("divide", 1)],
        )
        calculator = run_agent(
            mock.client(mock.Calculator()),
            "5 + 8/12",
            _tools(),
            guardrails=[max_uses_class("add", 1)],
        )
        divisions = run_agent(
            mock.client(Runaway("divide", heeds_errors=True)),
            "divide",
            _tools(),
            guardrails=[max_uses_class("divide", 2)],
        )
    except Exception as error:
        return verdict("5.1", [f"a run with MaxUses raised {type(error).__name__}: {error}{_RETURNS}"], "")

    refusals = [o for o in first.observations if o.error_type == "refused"]
    if first.stop_reason not in ("answered", "max_turns"):
        problems.append(
            f"the run ended with stop_reason {first.stop_reason!r}: don't raise StopRun, return the "
            "refusal text from before_tool, so the model reads it and the loop goes on"
        )
    elif _ran(first, "add") != 3:
        problems.append(
            f"with MaxUses('add', 3), add ran {_count(_ran(first, 'add'))} before the run ended; it "
            "should run 3 times, then be refused"
        )
    elif not refusals or "add" not in refusals[0].content:
        problems.append(
            "the refusal should name the tool ('add'), so the model knows which tool it may not use"
        )
    elif _ran(second, "add") != 3:
        problems.append(
            f"used for a second run, the same MaxUses let add run {_count(_ran(second, 'add'))} instead of "
            "3: count the uses in the current run only (run.observations holds this run's results)"
        )
    if not problems:
        refused = [o for o in divisions.observations if o.error_type == "refused"]
        if _ran(divisions, "divide") != 2 or not refused:
            problems.append(
                f"with MaxUses('divide', 2), divide ran {_count(_ran(divisions, 'divide'))}; it should "
                "run 2 times, then be refused: use self.name and self.limit, not the lesson's 'add' and 3"
            )
        elif "divide" not in refused[0].content:
            problems.append(
                f"with MaxUses('divide', 2), the refusal says {refused[0].content!r}: name the tool "
                "it was given (self.name), not 'add'"
            )
    if any(o.error_type == "refused" for o in other.observations):
        problems.append("MaxUses('divide', 1) refused a call of add: only refuse the tool it was given")
    if calculator.stop_reason != "answered" or [o.name for o in calculator.observations] != [
        "divide",
        "add",
    ]:
        problems.append("MaxUses('add', 1) got in the way of '5 + 8/12', which uses add only once")
    return verdict("5.1", problems, "add runs 3 times, then the model reads a refusal and answers.")


def check_tests_pass(tests_pass: Callable[[], Any], project: TinyProject) -> Verdict:
    """Exercise 5.3: tests_pass() -> (ok, report), ok only when the tests pass and no test file changed"""
    if not isinstance(project, TinyProject):
        return verdict(
            "5.3",
            ["pass the lesson's TinyProject as the second argument: check_tests_pass(tests_pass, project)"],
            "",
        )
    versions = discount_versions()
    cases: list[tuple[str, dict[str, str | None], bool]] = [
        ("the original code (one test fails)", {}, False),
        ("the code fixed, the tests untouched", {"discount.py": versions["right_fix"]}, True),
        (
            "the failing test edited so that it passes",
            {"test_discount.py": versions["edited_test"]},
            False,
        ),
        ("the test file deleted", {"test_discount.py": None}, False),
        (
            "the code fixed and a new test file, test_extra.py, added",
            {"discount.py": versions["right_fix"], "test_extra.py": "def test_extra():\n    assert True\n"},
            False,
        ),
        (  # a name the lesson never shows: a list of known test files does not cover it
            "the code fixed and test_rounding.py added",
            {"discount.py": versions["right_fix"], "test_rounding.py": "def test_rounding():\n    assert True\n"},
            False,
        ),
    ]
    problems: list[str] = []
    try:
        for situation, changes, expected in cases:
            if problems and ("test_extra.py" in changes or "test_rounding.py" in changes):
                break  # a check that misses test_discount.py's changes misses this one too
            project.reset()
            for path, text in changes.items():
                if text is None:
                    del project.files[path]
                else:
                    project.files[path] = text
            result = tests_pass()
            if not (isinstance(result, tuple) and len(result) == 2 and isinstance(result[1], str)):
                problems.append(
                    f"tests_pass() should return a pair (ok, report) with report a str; it returned {result!r:.120}"
                )
                break
            ok, report = result
            if bool(ok) != expected:
                problems.append(
                    f"with {situation}, tests_pass() said ok={bool(ok)}; it should say ok={expected}"
                )
            elif not expected and not report.strip():
                problems.append(
                    f"with {situation}, the report is empty: say what is wrong, the model reads it"
                )
            elif not changes and "FAILED" not in report:
                problems.append(
                    f"with {situation}, the report does not show the test run: put project.run_tests()'s "
                    "report in it, so the model sees which test fails"
                )
            elif (
                test_file := next((p for p in changes if p.startswith("test_")), None)
            ) and not _says_changed(report, test_file):
                problems.append(
                    f"with {situation}, ok is False but the report does not say that {test_file} "
                    "was changed: the model reads only the report, so name the file and say it changed"
                )
        if not problems:
            project.reset()
            verify = VerifyBeforeDone(tests_pass)
            run = run_agent(mock.client(skips_the_tests()), DISCOUNT_TASK, project.tools, guardrails=[verify])
            if run.stop_reason != "answered" or verify.rejections != 1:
                problems.append(
                    f"in a run of the model that skips the tests, expected one rejection and then an answer; got "
                    f"{verify.rejections} rejection(s) and stop_reason {run.stop_reason!r}"
                )
    except Exception as error:
        problems.append(f"tests_pass() raised {type(error).__name__}: {error}")
    finally:
        project.reset()
    return verdict("5.3", problems, "'done' now needs green tests that nobody edited.")


def _says_changed(report: str, path: str) -> bool:
    """the report names the test file and says what happened to it"""
    words = (
        "chang",
        "edit",
        "modif",
        "delet",
        "remov",
        "touch",
        "alter",
        "tamper",
        "added",
        "creat",
        "new file",
    )
    return path in report and any(w in report.lower() for w in words)


# --- exercise 5.2: the job-offer agent, and a person who approves before anything is sent ------


def _job_tools(outbox: list[str]) -> list[Any]:
    """the job-offer agent's tools, as the lesson writes them, sending into `outbox`"""

    @tool
    def analyse_offer(text: str) -> str:
        """List an offer's requirements."""
        return json.dumps({"title": "Data engineer", "contact": "jobs@acme.example", "must": ["python"]})

    @tool
    def match_cv(requirements: dict) -> str:
        """Compare the requirements with the CV."""
        return json.dumps({"shown": ["python"], "missing": []})

    @tool
    def draft_application(requirements: dict, fit: dict) -> str:
        """Write the application email. Nothing is sent."""
        return json.dumps({"subject": "Application: Data engineer", "body": "Hello"})

    @tool(writes=True)
    def send_application(to: str, subject: str, body: str) -> str:
        """Send the application email now."""
        outbox.append(to)
        return f"Sent to {to}."

    return [analyse_offer, match_cv, draft_application, send_application]


_APPROVAL_REASON = "the person read the draft: send it"  # an approval with a reason still runs


def _apply(
    ask_first_class: type, answer: bool, tools: list[str], reason: str = "a person reviews every application"
) -> tuple[AgentRun, list[str], list[str]]:
    """one run of the job-offer agent guarded by the learner's class: (run, sent to, asked about)"""
    outbox: list[str] = []
    asked: list[str] = []

    def decide(call: dict[str, Any]) -> Decision:
        asked.append(call["function"]["name"])
        return Decision(answer, _APPROVAL_REASON if answer else reason)

    guard = ask_first_class(decide, tools)
    run = run_agent(
        mock.client(JobApplicant()), "Apply to this offer.", _job_tools(outbox), guardrails=[guard]
    )
    return run, outbox, asked


def check_ask_first(ask_first_class: type) -> Verdict:
    """Exercise 5.2: AskFirst(decide, tools) asks decide(call) before a listed tool runs; a denial is refused"""
    try:
        guard = ask_first_class(lambda call: Decision(True), ["send_application"])
    except Exception as error:  # the learner's code: report, don't crash the notebook
        return verdict("5.2", [f"AskFirst(decide, tools) raised {type(error).__name__}: {error}"], "")
    if not isinstance(guard, Guardrail):
        return verdict("5.2", ["AskFirst should be a subclass of Guardrail: class AskFirst(Guardrail)"], "")
    problems: list[str] = []
    try:
        denied, denied_out, denied_asked = _apply(ask_first_class, False, ["send_application"])
        approved, approved_out, approved_asked = _apply(ask_first_class, True, ["send_application"])
        drafts, _, drafts_asked = _apply(ask_first_class, False, ["draft_application"], "drafts wait for Ana")
    except Exception as error:
        return verdict("5.2", [f"a run with AskFirst raised {type(error).__name__}: {error}{_RETURNS}"], "")
    refusal = next((o for o in denied.observations if o.name == "send_application"), None)
    if denied_out:
        problems.append(
            "the person said no, and the application was sent anyway: decide in before_tool, before "
            "the tool runs, and return a refusal text when the decision is not approved"
        )
    elif denied.stop_reason != "answered":
        problems.append(
            f"after a denial the run ended with stop_reason {denied.stop_reason!r}: don't raise "
            "StopRun, return the refusal so the model reads it and the run goes on"
        )
    elif refusal is None or "a person reviews every application" not in refusal.content:
        problems.append(
            "the refusal should carry the person's reason (decision.reason): the model reads it, "
            "and a bare 'not allowed' does not tell it to leave the email as a draft"
        )
    if not denied_asked:
        problems.append(
            "decide was never asked: before a call of a tool in self.tools runs, call self.decide(call)"
        )
    elif denied_asked != ["send_application"] or approved_asked != ["send_application"]:
        problems.append(
            f"with tools=['send_application'], decide was asked about {denied_asked}: ask once, "
            "only for the tools in the list, and never for the harmless ones"
        )
    if not denied_out and approved_out != ["jobs@acme.example"]:
        problems.append(
            f"the person approved, with the reason {_APPROVAL_REASON!r}, but send_application did not "
            "run: return None when decision.approved is true, whatever the reason says"
        )
    if drafts_asked[:1] != ["draft_application"] or any(
        o.name == "send_application" for o in drafts.observations
    ):
        problems.append(
            "with tools=['draft_application'], the draft was not stopped: use the names in "
            "self.tools, don't write 'send_application' into the guard"
        )
    elif not any(
        "drafts wait for Ana" in o.content for o in drafts.observations if o.name == "draft_application"
    ):
        problems.append(
            "with another person's reason ('drafts wait for Ana'), the refusal did not carry it: "
            "put decision.reason in the refusal, don't write the reason into the guard"
        )
    return verdict(
        "5.2", problems, "nothing is sent until a person says yes, and a no comes back with its reason."
    )
