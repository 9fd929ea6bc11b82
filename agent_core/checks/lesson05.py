"""Checks for lesson 05's exercises: guardrails."""

from __future__ import annotations

import contextlib
import functools
import json
import random
import re
from collections import Counter
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .. import mock
from .._browser import IN_BROWSER
from .._i18n import N_, _
from ..coding._observations import ReportCache
from ..coding.tiny_project import DISCOUNT_TASK, TinyProject
from ..dispatch import ToolRegistry
from ..guardrails import Decision, VerifyBeforeDone
from ..loop import AgentRun, Guardrail, StopRun, run_agent
from ..mock.job_offer import JobApplicant
from ..mock.misbehaving import (
    Runaway,
    discount_versions,
    skips_the_tests,
)
from ..schema import tool
from . import Verdict, _trace_of, verdict
from ._scenarios import (
    Dimension,
    first_failure,
    forms_of,
    judge_scenarios,
    scenarios,
    smaller_ints,
    smaller_lists,
)

__all__ = [
    "tree_scenarios",
    "TREE_SHAPES",
    "approval_scenarios",
    "APPROVAL_SHAPES",
    "offer_scenarios",
    "OFFER_SHAPES",
    "check_max_uses",
    "check_ask_first",
    "check_apply_for",
    "check_tests_pass",
]


def _add(a: float, b: float) -> float:
    """Add two numbers."""
    return a + b


def _divide(a: float, b: float) -> float:
    """Divide a by b."""
    return a / b


def _tools(failing: bool = False) -> ToolRegistry:
    """add and divide; failing: each call that comes in an odd place in the run raises (a failed run is
    still a use)"""
    registry = ToolRegistry()
    runs = [0]

    def failing_every_other(function: Callable[[float, float], float]) -> Callable[[float, float], float]:
        @functools.wraps(function)
        def run(a: float, b: float) -> float:
            runs[0] += 1
            if failing and runs[0] % 2:
                raise ConnectionError("the calculator service did not answer")
            return function(a, b)

        return run

    registry.add(failing_every_other(_add), name="add")
    registry.add(failing_every_other(_divide), name="divide")
    registry.add(_add_note)
    return registry


def _add_note(text: str) -> str:
    """Add a note to the run's notes."""
    return f"noted: {text}"


class _AddsAndNotes(mock.Policy):
    """never finishes: each turn it adds and notes, two tools whose names share a prefix"""

    def reply(self, request: dict[str, Any]) -> mock.Reply:
        step = len(mock.tool_results(request)) // 2
        return mock.calls(mock.call("add", a=step, b=1), mock.call("add_note", text=f"step {step}"))


class _RefusesFirstCall(Guardrail):
    """another guard, listed before MaxUses: refuses the first call of each tool in a run"""

    def before_tool(self, run: AgentRun, call: dict[str, Any]) -> str | None:
        name = call["function"]["name"]
        if not any(o.name == name for o in run.observations):
            return f"{name} is warming up: call it again."
        return None


def _ran(run: AgentRun, name: str) -> int:
    """how many times the tool really ran (refused calls do not count)"""
    return sum(o.name == name and o.error_type != "refused" for o in run.observations)


def _returns(problem: str) -> str:
    """the problem, then how before_tool answers"""
    return _(
        "{problem}. before_tool returns None to let the call run, or a str: the refusal the model reads",
        problem=problem,
    )


def _second_run(problem: str, again: bool) -> str:
    return _("{problem} (in the second run)", problem=problem) if again else problem


def _count(times: int) -> str:
    return _("{count} time", count=times) if times == 1 else _("{count} times", count=times)


class _ReferenceMaxUses(Guardrail):
    """the reference: refuse the tool once it has run `limit` times in this run"""

    def __init__(self, name: str, limit: int):
        self.name, self.limit = name, limit

    def before_tool(self, run: AgentRun, call: dict[str, Any]) -> str | None:
        if call["function"]["name"] == self.name and _ran(run, self.name) >= self.limit:
            return f"{self.name} may run {self.limit} times in a run, and it has."
        return None


_USE_MODELS: dict[
    str, tuple[Callable[[], mock.Policy], str]
] = {  # what the model does, described, and (policy, task)
    N_("a model that counts for ever with add and listens when refused"): (
        lambda: Runaway(heeds_errors=True),
        "count",
    ),
    N_("a model that counts for ever with add"): (Runaway, "count"),
    N_("a model that divides for ever and listens when refused"): (
        lambda: Runaway("divide", heeds_errors=True),
        "divide",
    ),
    N_("the calculator on '1+1 and 1+1 and 2+3 and 8/2' (parallel calls in one reply)"): (
        mock.Calculator,
        "1+1 and 1+1 and 2+3 and 8/2",
    ),
    N_("the calculator on '5 + 8/12'"): (mock.Calculator, "5 + 8/12"),
    N_("a model that calls add and add_note for ever"): (_AddsAndNotes, "count and note"),
}


_ALSO = {  # what else happens in a run of check 5.1, said after the model
    "refused": N_("{model}, after another guard that refuses each tool's first call in a run"),
    "failing": N_("{model}, the tools failing on every other call"),
}
Uses = tuple[str, int, str, bool, str]


def _uses(rng: random.Random) -> Uses:
    """a tool, a limit from 0 to 4, a model, whether the same guard serves a second run, and what else
    happens: another guard refusing first, or tools that fail"""
    return (
        rng.choice(("add", "add", "divide", "add_note")),
        rng.randint(0, 4),
        rng.choice(list(_USE_MODELS)),
        rng.random() < 0.3,
        rng.choice(("", "", "refused", "failing")),
    )


def _fewer_uses(scenario: Uses) -> Iterator[Uses]:
    name, limit, model, again, also = scenario
    if also:
        yield name, limit, model, again, ""
    if again:
        yield name, limit, model, False, also
    yield from ((name, fewer, model, again, also) for fewer in smaller_ints(limit, floor=min(limit, 1)))


def _describe_uses(scenario: Uses) -> str:
    name, limit, model, again, also = scenario
    said = _(_ALSO[also], model=_(model)) if also else _(model)
    if again:
        said = _("{model}, the same guard used for a second run", model=said)
    return _("MaxUses({name}, {limit}) with {model}", name=repr(name), limit=limit, model=said)


def _capped_run(guard: Guardrail, model: str, also: str) -> AgentRun:
    policy, task = _USE_MODELS[model]
    guards = [_RefusesFirstCall(), guard] if also == "refused" else [guard]
    tools = _tools(failing=also == "failing")
    return run_agent(mock.client(policy()), task, tools, max_turns=4, guardrails=guards)


@dataclass
class _Decision:
    """one answer of a guard's before_tool, with what the run held when it was asked"""

    call: int  # the call's place in the run (a call an earlier guard refused never reaches this one)
    tool: str  # the tool called
    ran: int  # how many times it had run in this run (a refused call did not run; a failed one did)
    refused: int  # how many of its calls had been refused
    failed: int  # how many of its runs had failed
    said: Any  # what before_tool returned (or the exception it raised)


def _recording(guard: Guardrail, decisions: list[_Decision]) -> Guardrail:
    """the guard, its before_tool's every answer written down (with the call it answered) before the loop
    reads it: the first answer that differs from the reference's is the fault, not a count seen later"""
    answer = guard.before_tool

    def before_tool(run: AgentRun, call: dict[str, Any]) -> str | None:
        name = call["function"]["name"]
        mine = [o for o in run.observations if o.name == name]
        refused = sum(o.error_type == "refused" for o in mine)
        failed = sum(o.is_error and o.error_type != "refused" for o in mine)
        try:
            said = answer(run, call)
        except StopRun as stop:  # a guard may end the run: compared by how the run ends, below
            decisions.append(_Decision(run.tool_calls_made, name, len(mine) - refused, refused, failed, stop))
            raise
        except Exception as error:
            decisions.append(
                _Decision(run.tool_calls_made, name, len(mine) - refused, refused, failed, error)
            )
            raise
        decisions.append(_Decision(run.tool_calls_made, name, len(mine) - refused, refused, failed, said))
        return said

    guard.before_tool = before_tool  # type: ignore[method-assign]  # this one guard, for this check only
    return guard


def _first_different_decision(
    yours: list[_Decision], expected: list[_Decision], name: str, limit: int, again: bool
) -> str | None:
    """the first call your guard answered otherwise than the reference (run it, or refuse it), in words"""
    for mine, theirs in zip(yours, expected, strict=False):
        said = mine.said
        where = _(
            "call {number} of the run ({tool}, which had run {count})",
            number=mine.call,
            tool=mine.tool,
            count=_count(mine.ran),
        )
        if isinstance(said, StopRun):
            return None  # how the run ends says it
        if isinstance(said, Exception):
            return _(
                "on {where} your before_tool raised {error_type}: {error}",
                where=where,
                error_type=type(said).__name__,
                error=said,
            )
        if said is not None and not isinstance(said, str):
            return _returns(
                _(
                    "on {where} your before_tool returned {said}, a {kind}, not a str or None",
                    where=where,
                    said=repr(said),
                    kind=type(said).__name__,
                )
            )
        if (said is None) == (theirs.said is None):
            continue
        if said == "":
            return _returns(
                _(
                    "on {where} your before_tool returned '' (an empty str): any str, even an empty one, "
                    "refuses the call",
                    where=where,
                )
            )
        if mine.tool != name:
            why = (
                _(
                    "MaxUses({name}, {limit}) leaves every other tool alone: {tool} is another tool than "
                    "{name}, compare the whole name",
                    name=repr(name),
                    limit=limit,
                    tool=repr(mine.tool),
                )
                if mine.tool.startswith(name) or name.startswith(mine.tool)
                else _("MaxUses({name}, {limit}) leaves every other tool alone", name=repr(name), limit=limit)
            )
        elif said is not None and again:
            why = _(
                "each run starts at 0 uses: count this run's uses from run.observations, not in the guard"
            )
        elif said is not None and mine.ran < limit <= mine.ran + mine.refused:
            why = _(
                "{count} it was called, another guard refused it: a refused call did not run, it is no use",
                count=_count(mine.refused),
            )
        elif said is None and mine.ran - mine.failed < limit <= mine.ran:
            why = _(
                "{failed} of its runs failed: a call that ran and failed is a use too", failed=mine.failed
            )
        else:
            why = _("{name} may run {limit} in a run, then is refused", name=name, limit=_count(limit))
        if said is not None:
            return _(
                "on {where} your guard refused it; the reference let it run: {why}", where=where, why=why
            )
        return _("on {where} your guard let it run; the reference refused it: {why}", where=where, why=why)
    return None


def _judge_uses(
    max_uses_class: type, name: str, limit: int, model: str, again: bool, also: str
) -> str | None:
    expected_decisions: list[_Decision] = []
    expected = _capped_run(_recording(_ReferenceMaxUses(name, limit), expected_decisions), model, also)
    decisions: list[_Decision] = []
    guard = _recording(max_uses_class(name, limit), decisions)
    try:
        yours = _capped_run(guard, model, also)
        if again:
            decisions.clear()
            yours = _capped_run(guard, model, also)
    except Exception:  # the run broke: on a decision the reference does not make, if one came first
        problem = _first_different_decision(decisions, expected_decisions, name, limit, again)
        if problem:
            return _second_run(problem, again)
        raise
    problem = _first_different_decision(decisions, expected_decisions, name, limit, again)
    if problem:
        return _second_run(problem, again)
    for tool_name in ("add", "divide", "add_note"):
        if _ran(yours, tool_name) != _ran(expected, tool_name):
            ran = _second_run(
                _(
                    "yours let {tool} run {yours}, the reference {expected}",
                    tool=tool_name,
                    yours=_count(_ran(yours, tool_name)),
                    expected=_count(_ran(expected, tool_name)),
                ),
                again,
            )
            if tool_name != name and (tool_name.startswith(name) or name.startswith(tool_name)):
                return _(
                    "{problem}: {tool} is another tool than {name}, compare the whole name",
                    problem=ran,
                    tool=repr(tool_name),
                    name=repr(name),
                )
            return ran
    if yours.stop_reason != expected.stop_reason:
        return _returns(
            _(
                "the run ended with stop_reason {yours}; the reference's ended with {expected}",
                yours=repr(yours.stop_reason),
                expected=repr(expected.stop_reason),
            )
        )
    refusals = [o.content for o in yours.observations if o.error_type == "refused"]
    if len(refusals) != sum(o.error_type == "refused" for o in expected.observations):
        return _(
            "yours refused {count} call(s), the reference refused {expected}",
            count=len(refusals),
            expected=_count(len(refusals)),
        )
    ours = [
        o.content for o in yours.observations if o.error_type == "refused" and "warming up" not in o.content
    ]
    if any(name not in refusal for refusal in ours):
        return _(
            "the refusal should name the tool ({name}), so the model knows which tool it may not use",
            name=repr(name),
        )
    return None


def check_max_uses(max_uses_class: type) -> Verdict:
    """Exercise 5.1: MaxUses(name, limit) refuses a tool once it has run `limit` times in a run

    Scenarios: MaxUses('add', 3) with a runaway model that listens, and a few readable others (one
    behind another guard that refuses first, one with tools that fail); then 10 seeded ones: add, divide
    or add_note, limits from 0 to 4, six models (runaways that listen or not, parallel and repeated
    calls in one reply, a run that needs each tool once, one that calls add and add_note), sometimes the
    same guard used for a second run, sometimes another guard before it that refuses each tool's first
    call, or tools failing on every other call (a call that ran and failed is a use; one a guard refused
    is not). Each run is compared with a reference guard's on the same model: how many times each tool
    ran, how many calls were refused, how the run ended.
    """
    try:
        guard = max_uses_class("add", 3)
    except Exception as error:  # the learner's code: report, don't crash the notebook
        raised = _(
            "MaxUses('add', 3) raised {error_type}: {error}", error_type=type(error).__name__, error=error
        )
        return verdict("5.1", [raised], "")
    if not isinstance(guard, Guardrail):
        return verdict("5.1", [_("MaxUses should be a subclass of Guardrail: class MaxUses(Guardrail)")], "")
    cases = uses_scenarios()
    return judge_scenarios(
        "5.1",
        cases,
        lambda scenario: _judge_uses(max_uses_class, *scenario),
        _describe_uses,
        _("add runs 3 times, then the model reads a refusal and answers."),
        _fewer_uses,
    )


def uses_scenarios() -> list[Uses]:
    """check 5.1's scenarios: the fixed ones, then 10 seeded"""
    models = list(_USE_MODELS)
    fixed = [
        ("add", 3, models[0], False, ""),
        ("add", 3, models[0], True, ""),
        ("divide", 2, models[2], False, ""),
        ("divide", 1, models[1], False, ""),
        ("add", 2, models[3], False, ""),
        ("add", 1, models[4], False, ""),
        ("add", 2, models[1], False, "refused"),
        ("add", 2, models[1], False, "failing"),
        ("add", 1, models[5], False, ""),  # names that share a prefix: add_note is not add
    ]
    return scenarios(fixed, _uses, count=10, seed=6)


# the shapes lesson 05 names for MaxUses, each reached by uses_scenarios() (tests/test_check_shapes.py)
USES_SHAPES: dict[str, Callable[[Uses], bool]] = {
    "tool names that share a prefix": lambda s: "add_note" in s[2] or s[0] == "add_note",
    "a limit of 0": lambda s: s[1] == 0,
    "the same guard for a second run": lambda s: s[3],
    "another guard refusing first": lambda s: s[4] == "refused",
    "tools that fail": lambda s: s[4] == "failing",
    "parallel calls in one reply": lambda s: "parallel" in s[2],
    "a model that does not listen": lambda s: "listens" not in s[2] and "calculator" not in s[2],
}


# a scenario of 5.4: the version of discount.py, then the other files changed, each (path, text or None
# for deleted), in order
_Tree = tuple[str, tuple[tuple[str, str | None], ...]]
_EXTRA_TEST = "def test_extra():\n    assert True\n"
_FIXED_TREES: list[tuple[str, _Tree]] = [
    (N_("the original code (one test fails)"), ("code", ())),
    (N_("the code fixed, the tests untouched"), ("right_fix", ())),
    (
        N_("the failing test edited so that it passes"),
        ("code", (("test_discount.py", "edited_test"),)),
    ),
    (N_("the test file deleted"), ("code", (("test_discount.py", None),))),
    (
        N_("the code fixed and a new test file, test_extra.py, added"),
        ("right_fix", (("test_extra.py", _EXTRA_TEST),)),
    ),
    (N_("discount.py fixed but no longer importing (a syntax error)"), ("broken", ())),
    (  # a name the lesson never shows: a list of known test files does not cover it
        N_("the code fixed and test_rounding.py added"),
        ("right_fix", (("test_rounding.py", "def test_rounding():\n    assert True\n"),)),
    ),
    (
        N_("the code fixed and README.md deleted"),
        ("right_fix", (("README.md", None),)),
    ),  # not a test file
    (  # a test's data: its path starts with test_ though it is no Python file
        N_("the code fixed and test_data.json changed"),
        ("right_fix", (("test_data.json", '{"price": 100, "discount": 0.1}\n'),)),
    ),
    (  # two at once: the report names each, not only the first
        N_("the failing test edited and test_extra.py added"),
        ("code", (("test_discount.py", "edited_test"), ("test_extra.py", _EXTRA_TEST))),
    ),
]
_OTHER_CHANGES: tuple[tuple[str, str | None], ...] = (
    ("README.md", "# Discount\n\nÜberarbeitet: Rabatt ab 100 € ✓\n"),
    ("README.md", None),
    ("notes.txt", "run the tests before saying done\n"),
    ("latest_prices.md", "the latest prices\n"),  # "test_" inside a name that is no test file
    ("testing_utils.py", "def cents(price):\n    return round(price * 100)\n"),  # "test", not "test_"
    ("helpers.py", "def rounded(price):\n    return round(price, 2)\n"),
)
_TEST_CHANGES: tuple[tuple[str, str | None], ...] = (
    ("test_discount.py", "edited_test"),
    ("test_discount.py", None),
    ("test_extra.py", _EXTRA_TEST),
)


def _project_tree(rng: random.Random) -> _Tree:
    """discount.py as shipped, fixed wrongly or fixed; other files added, changed or deleted (notes, a
    README, a helper module, a name holding 'test'), and sometimes a test file"""
    code = rng.choice(("code", "wrong_fix", "right_fix", "right_fix", "broken"))
    changes = [*rng.sample(_OTHER_CHANGES, rng.randint(1 if code == "right_fix" else 0, 2))]
    if rng.random() < 0.4:
        changes.append(rng.choice(_TEST_CHANGES))
    rng.shuffle(changes)
    seen = {change[0]: change for change in changes}  # one change per path
    return code, tuple(seen.values())


def tree_scenarios() -> list[_Tree]:
    """check 5.4's projects: the lesson's seven, a deleted README, test_data.json, two test files
    changed at once, then 7 seeded"""
    return scenarios([tree for _, tree in _FIXED_TREES], _project_tree, count=7, seed=1)


def _changed(test: Callable[[str, str | None], bool]) -> Callable[[_Tree], bool]:
    return lambda tree: any(test(path, text) for path, text in tree[1])


# the shapes lesson 05 names for tests_pass, each reached by tree_scenarios() (tests/test_check_shapes.py)
TREE_SHAPES: dict[str, Callable[[_Tree], bool]] = {
    "the original code, one test failing": lambda t: t[0] == "code",
    "the code fixed": lambda t: t[0] == "right_fix",
    "the code fixed wrongly": lambda t: t[0] == "wrong_fix",
    "code that does not import": lambda t: t[0] == "broken",
    "the failing test edited": _changed(lambda p, x: p == "test_discount.py" and x == "edited_test"),
    "the test file deleted": _changed(lambda p, x: p == "test_discount.py" and x is None),
    "a test file added": _changed(lambda p, x: p.startswith("test_") and p != "test_discount.py"),
    "a test file under a name the lesson never shows": _changed(lambda p, x: p == "test_rounding.py"),
    "two test files changed at once": lambda t: sum(path.startswith("test_") for path, _ in t[1]) >= 2,
    "a test file that is no Python file": _changed(
        lambda p, x: p.startswith("test_") and not p.endswith(".py")
    ),
    "a name holding 'test' that is no test file": _changed(
        lambda p, x: "test" in p and not p.startswith("test_")
    ),
    "a name starting with 'test' that is no test file": _changed(
        lambda p, x: p.startswith("test") and not p.startswith("test_")
    ),
    "another file changed": _changed(lambda p, x: not p.startswith("test_") and x is not None),
    "another file deleted": _changed(lambda p, x: not p.startswith("test_") and x is None),
    "unicode in a file": _changed(lambda p, x: x is not None and not x.isascii()),
    "the code fixed and a test changed": lambda t: (
        t[0] == "right_fix" and any(p.startswith("test_") for p, _ in t[1])
    ),
}


def _smaller_tree(tree: _Tree) -> Iterator[_Tree]:
    code, changes = tree
    yield from ((code, tuple(fewer)) for fewer in smaller_lists(changes))
    if code != "code":
        yield "code", changes


def _describe_tree(tree: _Tree) -> str:
    code, changes = tree
    said = {
        "code": N_("the original code"),
        "wrong_fix": N_("discount.py fixed wrongly"),
        "right_fix": N_("the code fixed"),
        "broken": N_("discount.py no longer importing"),
    }
    parts = _(said[code])
    for path, text in changes:
        part = (
            _("{path} deleted", path=path)
            if text is None
            else _("{path} edited", path=path)
            if path in _SHIPPED
            else _("{path} added", path=path)
        )
        parts = _("{first}, {then}", first=parts, then=part)
    return _("with {parts}", parts=parts)


_SHIPPED = ("README.md", "discount.py", "pytest.ini", "test_discount.py")


def _versions() -> dict[str, str]:
    """the discount project's versions, and "broken": the fix with a syntax error (the tests cannot run)"""
    versions = discount_versions()
    return {**versions, "broken": versions["right_fix"].replace(") -> float:", ") -> float", 1)}


def _set_tree(project: TinyProject, tree: _Tree) -> None:
    versions = _versions()
    code, changes = tree
    project.reset()
    project.files["discount.py"] = versions[code]
    for path, text in changes:
        if text is None:
            project.files.pop(path, None)
        else:
            project.files[path] = versions.get(text, text)


def _judge_tests_pass(tests_pass: Callable[[], Any], project: TinyProject, tree: _Tree) -> str | None:
    """the learner's (ok, report) beside the reference's: ok when the tests pass and no test_ file changed"""
    _set_tree(project, tree)
    report = project.run_tests()
    edited = [path for path in project.changed() if path.startswith("test_")]
    expected = report.startswith("exit code: 0") and not edited
    before = dict(project.files)
    result = tests_pass()
    touched = sorted(
        path for path in {*before, *project.files} if before.get(path) != project.files.get(path)
    )
    if touched:
        return _(
            "tests_pass() changed the project's files ({paths}): a guard reads and decides; the model "
            "makes the changes, after reading the report",
            paths=", ".join(touched),
        )
    if not (isinstance(result, tuple) and len(result) == 2 and isinstance(result[1], str)):
        return _(_PAIR, result=f"{result!r:.120}")
    ok, yours = result
    if bool(ok) != expected:
        said = _("tests_pass() said ok={ok}; it should say ok={expected}", ok=bool(ok), expected=expected)
        data = [path for path in edited if not path.endswith(".py")]  # a test's data file, say
        others = [path for path in project.changed() if path != "discount.py"]
        if expected and others:
            return _(
                "{problem}: {paths} changed, but no test file did (a test file's name starts with test_)",
                problem=said,
                paths=", ".join(others),
            )
        if data and not expected:
            return _(
                "{problem}: {path} changed, and any path starting with test_ is a test file, .py or not",
                problem=said,
                path=data[0],
            )
        if expected or "FAILED" in report or report.startswith("exit code: 0"):
            return said
        return _(
            "{problem}: the tests did not even run (pytest could not import the code: it says ERROR, not "
            "FAILED); judge by the exit code",
            problem=said,
        )
    if expected:
        return None
    if not yours.strip():
        return _("the report is empty: say what is wrong, the model reads it")
    said = yours.replace(report, "")  # the words beside pytest's run: its lines name test files too
    unnamed = [path for path in edited if not _says_changed(said, path)]
    if unnamed:
        return _(
            "ok is False but the report does not say that {path} was changed: the model reads only "
            "the report, so name the file and say it changed",
            path=unnamed[0],
        )
    shown = [line.strip() for line in report.splitlines() if "FAILED" in line or "Error" in line]
    if not edited and not any(line in yours for line in shown):
        return _(
            "the report does not show the test run: put project.run_tests()'s report in it, so the model "
            "sees which test fails"
        )
    return None


_PAIR = N_("tests_pass() should return a pair (ok, report) with report a str; it returned {result}")


# the reports of the check's projects, by the files pytest reads (kept for the whole process: the
# scenarios are the same on every run of the check)
_REPORTS = ReportCache(kept=1_000)


def _files_read(project: TinyProject) -> tuple[tuple[str, str], ...]:
    """the files that decide a pytest run's report: the code, the tests, pytest's settings"""
    return tuple(
        sorted((p, t) for p, t in project.files.items() if p.endswith((".py", ".ini", ".cfg", ".toml")))
    )


def _learn_reports(trees: list[_Tree]) -> None:
    """pytest's reports on these projects, side by side, before the check asks for them one by one
    (in the browser pytest runs in the kernel, one run at a time: nothing to learn ahead)"""
    if IN_BROWSER:
        return
    runs: dict[Hashable, Callable[[], tuple[str, bool]]] = {}
    for tree in trees:
        project = TinyProject()
        _set_tree(project, tree)
        runs.setdefault(_files_read(project), functools.partial(_finished_run, project))
    _REPORTS.report_all(runs)


def _finished_run(project: TinyProject) -> tuple[str, bool]:
    return project.run_tests(), True  # as _remembered_runs keeps it


@contextlib.contextmanager
def _remembered_runs(project: TinyProject) -> Iterator[None]:
    """project.run_tests() runs pytest once per set of files pytest reads; the same files, the same report"""
    real = project.run_tests
    reports = _REPORTS

    @functools.wraps(real)
    def run_tests() -> str:
        return reports.report(_files_read(project), lambda: (real(), True))

    project.run_tests = run_tests  # type: ignore[method-assign]  # for this check only
    try:
        yield
    finally:
        del project.run_tests


def check_tests_pass(tests_pass: Callable[[], Any], project: TinyProject) -> Verdict:
    """Exercise 5.4: tests_pass() -> (ok, report), ok only when the tests pass and no test file changed

    Scenarios: the lesson's seven (the original code, the code fixed, the failing test edited, the
    test file deleted, discount.py that does not import, a test file added under a name the lesson
    shows and one it never shows), a deleted README, a changed test_data.json (a test file that is
    no Python file) and two test files changed at once (each named outside pytest's own lines),
    every problem listed; then 7 seeded ones: discount.py as shipped, fixed wrongly,
    fixed or not importing, with up to three other files added, changed or deleted (notes, a unicode
    README, a helper module, latest_prices.md whose name holds 'test', or a test file). Each is judged
    against the reference on the same files: ok when the tests pass and no path starting with test_
    changed; when not ok, a report that names every changed test file, or shows the failing run;
    either way tests_pass() leaves the files as they were (a guard reads, the model writes). Then
    a run of the model that skips the tests,
    with VerifyBeforeDone(tests_pass). pytest runs once per set of files it reads.
    """
    if not isinstance(project, TinyProject):
        return verdict(
            "5.4",
            [
                _(
                    "pass the lesson's TinyProject as the second argument: "
                    "check_tests_pass(tests_pass, project)"
                )
            ],
            "",
        )
    generated = tree_scenarios()[len(_FIXED_TREES) :]
    problems: list[str] = []
    try:
        with _remembered_runs(project):
            for index, (situation, tree) in enumerate(_FIXED_TREES):
                if index == 1 and not problems:  # right so far: pytest's other runs, side by side
                    _learn_reports([tree for _, tree in _FIXED_TREES[1:]])
                if (
                    problems
                    and any(path.startswith("test_") for path, _ in tree[1][:1])
                    and tree[0] != "code"
                ):
                    break  # a check that misses test_discount.py's changes misses an added test file too
                problem = _judge_tests_pass(tests_pass, project, tree)
                if problem is not None:
                    problems.append(_("with {situation}, {problem}", situation=_(situation), problem=problem))
                    if problem.startswith(_(_PAIR).partition("{result}")[0]):
                        break
            if not problems:
                _learn_reports(generated)
                failure = first_failure(
                    generated,
                    functools.partial(_judge_tests_pass, tests_pass, project),
                    _smaller_tree,
                    budget=20,
                )
                if failure is not None:
                    problems.append(
                        _("{first}, {then}", first=_describe_tree(failure.scenario), then=failure.problem)
                    )
            if not problems:
                project.reset()
                verify = VerifyBeforeDone(tests_pass)
                run = run_agent(
                    mock.client(skips_the_tests()), DISCOUNT_TASK, project.tools, guardrails=[verify]
                )
                if run.stop_reason != "answered" or verify.rejections != 1:
                    problems.append(
                        _(
                            "in a run of the model that skips the tests, expected one rejection and then an "
                            "answer; got {count} rejection(s) and stop_reason {reason}",
                            count=verify.rejections,
                            reason=repr(run.stop_reason),
                        )
                    )
    except Exception as error:
        problems.append(
            _("tests_pass() raised {error_type}: {error}", error_type=type(error).__name__, error=error)
        )
    finally:
        project.reset()
    result = verdict("5.4", problems, _("'done' now needs green tests that nobody edited."))
    result.scenarios = len(_FIXED_TREES) + len(generated)
    return result


def _says_changed(report: str, path: str) -> bool:
    """the report names the test file and says what happened to it"""
    words = (  # in English or Spanish (or German): a word stem that says the file is not as it was
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
        "cambi",
        "borr",
        "elimin",
        "suprim",
        "quitad",
        "añad",
        "cread",
        "creó",
        "nuevo",
        "manipul",
        "tocad",
        "tocó",
        "rewr",  # rewritten, overwritten
        "replac",
        "differ",
        "original",  # "no longer the original", "restore it to the original"
        "restor",
        "mismatch",
        "reemplaz",
        "sobrescri",
        "distint",
        "geänder",  # a German report passes too
        "veränder",
        "gelösch",
        "hinzugef",
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
    def match_cv(requirements: dict) -> str:  # type: ignore[type-arg]  # bare: the schema says "object"
        """Compare the requirements with the CV."""
        return json.dumps({"shown": ["python"], "missing": []})

    @tool
    def draft_application(requirements: dict, fit: dict) -> str:  # type: ignore[type-arg]  # as above
        """Write the application email. Nothing is sent."""
        return json.dumps({"subject": "Application: Data engineer", "body": "Hello"})

    @tool
    def send_application(to: str, subject: str, body: str) -> str:
        """Send the application email now."""
        outbox.append(to)
        return f"Sent to {to}."

    return [analyse_offer, match_cv, draft_application, send_application]


_APPROVAL_REASON = "the person read the draft: send it"  # an approval with a reason still runs


class _DecideFailed(Exception):
    """the person could not be asked (a decider that raises)"""


class _ReferenceAskFirst(Guardrail):
    """the reference: ask decide(call) before a listed tool runs; a denial carries the reason, and a decide
    that raises refuses the call (nobody could say yes), so the run goes on"""

    def __init__(self, decide: Callable[[dict[str, Any]], Decision], tools: Any):
        self.decide, self.tools = decide, tools

    def before_tool(self, run: AgentRun, call: dict[str, Any]) -> str | None:
        if call["function"]["name"] not in self.tools:
            return None
        try:
            decision = self.decide(call)
        except Exception as error:
            return f"nobody could approve this call ({error}): do not try it again"
        return None if decision.approved else f"a person said no: {decision.reason}"


_JOB_TOOLS = ("analyse_offer", "match_cv", "draft_application", "send_application")
_REASONS = ("a person reviews every application", "drafts wait for Ana", "Ana prüft jeden Entwurf ✉", "")
# a scenario: (guarded tool names, as list/tuple/set), the answers of decide, in turn (the last repeats),
# and whether the same guard serves a second offer (so it is asked about the same tool twice)
Approvals = tuple[str, tuple[str, ...], tuple[tuple[str, str], ...], bool]


def _approvals(rng: random.Random) -> Approvals:
    """some of the four tools guarded, given as a list, tuple or set; decide says yes, no or raises;
    sometimes a second offer for the same guard"""
    guarded = tuple(t for t in _JOB_TOOLS if rng.random() < 0.4) or ("send_application",)
    answers = tuple(
        (rng.choice(("yes", "no", "no", "raises")), rng.choice(_REASONS)) for _ in range(rng.randint(1, 3))
    )
    return rng.choice(("list", "tuple", "set")), guarded, answers, rng.random() < 0.4


def approval_scenarios() -> list[Approvals]:
    """check 5.2's scenarios: the lesson's five, a name that only starts a tool's name, then 8 seeded"""
    fixed: list[Approvals] = [
        ("list", ("send_application",), (("no", "a person reviews every application"),), False),
        ("list", ("send_application",), (("yes", ""),), False),
        ("list", ("draft_application",), (("no", "drafts wait for Ana"),), False),
        ("list", ("send_application",), (("raises", ""),), False),
        ("list", ("send_application",), (("yes", ""), ("no", "one application per company")), True),
        ("list", ("send",), (("no", "a person reviews every application"),), False),  # no tool is "send"
    ]
    return scenarios(fixed, _approvals, count=8, seed=7)


def _answered(test: Callable[[str, str], bool]) -> Callable[[Approvals], bool]:
    return lambda s: any(test(answer, reason) for answer, reason in s[2])


# the shapes lesson 05 names for AskFirst, each reached by approval_scenarios() (tests/test_check_shapes.py)
APPROVAL_SHAPES: dict[str, Callable[[Approvals], bool]] = {
    "a person who says no, with a reason": _answered(lambda a, r: a == "no" and bool(r)),
    "a no without a reason": _answered(lambda a, r: a == "no" and not r),
    "a person who says yes": _answered(lambda a, r: a == "yes"),
    "a decide that raises": _answered(lambda a, r: a == "raises"),
    "a reason in another language": _answered(lambda a, r: a == "no" and not r.isascii()),
    "a decision that changes from one call to the next": lambda s: len({a for a, _ in s[2]}) > 1,
    "a tool other than send_application guarded": lambda s: any(t != "send_application" for t in s[1]),
    "send_application not guarded": lambda s: "send_application" not in s[1],
    "several tools guarded": lambda s: len(s[1]) > 1,
    "the tools as a tuple": lambda s: s[0] == "tuple",
    "the tools as a set": lambda s: s[0] == "set",
    "the same guard for a second offer": lambda s: s[3],
    "a listed name that only starts a tool's name": lambda s: any(
        t not in _JOB_TOOLS and any(j.startswith(t) for j in _JOB_TOOLS) for t in s[1]
    ),
}


def _fewer_approvals(scenario: Approvals) -> Iterator[Any]:
    kind, guarded, answers, again = scenario
    if kind != "list":
        yield "list", guarded, answers, again
    yield from ((kind, g, answers, again) for g in map(tuple, smaller_lists(guarded)) if g)
    yield from ((kind, guarded, a, again) for a in map(tuple, smaller_lists(answers)) if a)
    if again:
        yield kind, guarded, answers, False


def _describe_approvals(scenario: Approvals) -> str:
    kind, guarded, answers, again = scenario
    shown: dict[str, Callable[[tuple[str, ...]], Any]] = {
        "list": list,
        "tuple": tuple,
        "set": lambda g: "{" + ", ".join(map(repr, g)) + "}",
    }
    tools = shown[kind](guarded)
    said = [
        _("yes")
        if answer == "yes"
        else _("no ({reason})", reason=repr(reason))
        if answer == "no"
        else _("raises (the person cannot be asked)")
        for answer, reason in answers
    ]
    then = said[0]
    for answer in said[1:]:
        then = _("{first}, then {then}", first=then, then=answer)
    then = (
        _("{answers} (the last answer repeats)", answers=then)
        if len(said) > 1
        else _("{answer}, every time", answer=then)
    )
    if again:
        then = _("{answers}, the same guard then used for a second offer", answers=then)
    return _(
        "AskFirst(decide, {tools}) on the job-offer agent, decide answering {answers}",
        tools=tools,
        answers=then,
    )


@dataclass
class _Approved:
    """what the runs of one scenario did: their observations and stop reasons, what was sent, what decide
    was asked and said, and the exception that escaped run_agent, if one did"""

    observations: list[Any] = field(default_factory=list)
    stop_reasons: list[str | None] = field(default_factory=list)
    outbox: list[str] = field(default_factory=list)
    decisions: list[tuple[str, str, str]] = field(default_factory=list)
    crashed: _DecideFailed | None = None
    misgiven: list[Any] = field(default_factory=list)  # what decide received that is no tool call

    @property
    def asked(self) -> list[str]:
        return [name for name, _, _ in self.decisions]


def _approval_run(
    guard_class: type, kind: str, guarded: tuple[str, ...], answers: Any, again: bool
) -> _Approved:
    done = _Approved()

    def decide(call: dict[str, Any]) -> Decision:
        if not (
            isinstance(call, dict) and isinstance(call.get("function"), dict) and "name" in call["function"]
        ):
            done.misgiven.append(call)
            raise TypeError("decide(call) expects the tool call")
        answer, reason = answers[min(len(done.decisions) + 1, len(answers)) - 1]
        done.decisions.append((call["function"]["name"], answer, reason))
        if answer == "raises":
            raise _DecideFailed("the approval service is down")
        return Decision(answer == "yes", reason or "no reason given" if answer == "no" else _APPROVAL_REASON)

    guard = guard_class(decide, {"list": list, "tuple": tuple, "set": set}[kind](guarded))
    for _offer in range(2 if again else 1):
        try:
            run = run_agent(
                mock.client(JobApplicant()),
                "Apply to this offer.",
                _job_tools(done.outbox),
                guardrails=[guard],
            )
        except _DecideFailed as error:  # the learner's guard let decide's exception out of run_agent
            done.crashed = error
            return done
        done.observations += run.observations
        done.stop_reasons.append(run.stop_reason)
    return done


def _judge_approvals(
    ask_first_class: type, kind: str, guarded: tuple[str, ...], answers: Any, again: bool = False
) -> str | None:
    expected = _approval_run(_ReferenceAskFirst, "list", guarded, answers, again)
    yours = _approval_run(ask_first_class, kind, guarded, answers, again)
    if yours.crashed is not None:
        return _(
            "decide raised an exception ({error}), and it escaped run_agent: the whole run "
            "crashed. When decide raises, nobody could say yes: catch the exception in "
            "before_tool and refuse the call with a text that says so, and the run goes on",
            error=yours.crashed,
        )
    if yours.misgiven:
        return _(
            "decide received {given}, which is not a tool call: pass it the whole call that before_tool "
            'received (the dict with its "id" and "function"), so decide can read the tool\'s name and '
            "arguments",
            given=f"{yours.misgiven[0]!r:.120}",
        )
    prefixed = [(n, t) for n in yours.asked if n not in guarded for t in guarded if n.startswith(t)]
    if prefixed:
        name, start = prefixed[0]
        return _(
            "decide was asked about {name}, which is not in the list {tools} ({start} only "
            "starts its name): compare the whole name, `name in self.tools`",
            name=name,
            tools=list(guarded),
            start=repr(start),
        )
    if yours.asked != expected.asked:
        return _(
            "decide was asked about {asked}; it should be asked about {expected}, once per call of a listed "
            "tool",
            asked=yours.asked,
            expected=expected.asked,
        )
    ran = Counter(o.name for o in yours.observations if o.error_type != "refused")
    expected_ran = Counter(o.name for o in expected.observations if o.error_type != "refused")
    raised_on = {name for name, answer, _ in yours.decisions if answer == "raises"}
    extra, missing = sorted(ran - expected_ran), sorted(expected_ran - ran)
    if extra and extra[0] in raised_on:
        return _(
            "decide raised on {tool}, and yours let {tool} run: when nobody could say yes, it must not run",
            tool=extra[0],
        )
    if extra:
        return _(
            "yours let {tool} run, though the person did not approve it: decide in before_tool, "
            "before the tool runs, and return a refusal text when the decision is not approved",
            tool=extra[0],
        )
    if missing:
        if missing[0] in yours.asked:
            return _(
                "yours did not let {tool} run, though the person approved it: return None when "
                "decision.approved is true, and for the tools not in self.tools",
                tool=missing[0],
            )
        return _(
            "yours did not let {tool} run, though it is not in the list: return None when "
            "decision.approved is true, and for the tools not in self.tools",
            tool=missing[0],
        )
    if yours.outbox != expected.outbox:
        return _(
            "yours sent {count} application(s), the reference {expected}",
            count=len(yours.outbox),
            expected=len(expected.outbox),
        )
    if yours.stop_reasons != expected.stop_reasons:
        return _returns(
            _(
                "the run ended with stop_reason {yours}; the reference's with {expected}",
                yours=repr(yours.stop_reasons[-1]),
                expected=repr(expected.stop_reasons[-1]),
            )
        )
    refusals = [o for o in yours.observations if o.error_type == "refused"]
    for name, answer, reason in yours.decisions:
        if answer == "no" and reason and not any(reason in o.content for o in refusals if o.name == name):
            return _(
                "the refusal of {tool} should carry the person's reason ({reason}): the model reads it",
                tool=name,
                reason=repr(reason),
            )
    return None


def check_ask_first(ask_first_class: type) -> Verdict:
    """Exercise 5.2: AskFirst(decide, tools) asks decide(call) before a listed tool runs; a denial is refused

    Scenarios: the lesson's person who says no, one who says yes with a reason, another person's
    reason on draft_application, a decider that raises, one guard asked about two offers (yes, then
    no); then 8 seeded ones: any of the four tools guarded, given as a list, a tuple or a set, decide
    answering yes, no (with reasons in several languages, or none) or raising, changing from one
    call to the next, sometimes the same guard used for a second offer. Each run of the job-offer
    agent is compared with a reference guard's: whom decide was asked about, which tools ran, what
    was sent, how the run ended; a refusal carries the reason; when decide raises, the tool never
    runs and run_agent still returns.
    """
    try:
        guard = ask_first_class(lambda call: Decision(True), ["send_application"])
    except Exception as error:  # the learner's code: report, don't crash the notebook
        raised = _(
            "AskFirst(decide, tools) raised {error_type}: {error}",
            error_type=type(error).__name__,
            error=error,
        )
        return verdict("5.2", [raised], "")
    if not isinstance(guard, Guardrail):
        return verdict(
            "5.2", [_("AskFirst should be a subclass of Guardrail: class AskFirst(Guardrail)")], ""
        )
    cases = approval_scenarios()
    return judge_scenarios(
        "5.2",
        cases,
        lambda scenario: _judge_approvals(ask_first_class, *scenario),
        _describe_approvals,
        _("nothing is sent until a person says yes, and a no comes back with its reason."),
        _fewer_approvals,
    )


# --- exercise 5.3: the job-offer agent put together -----------------------------------------------

_TITLES = ("Data engineer", "Ingeniera de datos", "Backend developer", "Analyste données")
_MUSTS = ("Python", "SQL", "GCP or AWS", "English", "Kotlin", "Rust")
_SENDS_CALLS = 5  # the whole chain: analyse, match, draft, send, then the answer
_MOST_TURNS = 7  # the chain with two calls to spare
# "when it applies", judged by meaning in English or Spanish: the prompt names what decides it, the
# CV (or profile, experience, skills) against the offer's requirements, or a requirement met or missing
_WHEN_IT_APPLIES = (
    r"\b(must|require\w*|cv|r[ée]sum[ée]|skill\w*|qualif\w*|meet\w*|met|match\w*|fit\w*|suitab\w*|"
    r"miss\w*|lack\w*|need\w*|criteri\w*|profile|experience|eligib\w*|condition\w*|"
    r"requisit\w*|exig\w*|imprescindible\w*|obligatori\w*|curr[íi]cul\w*|perfil\w*|habilidad\w*|"
    r"competencia\w*|cualifica\w*|conocimiento\w*|experiencia\w*|cumpl\w*|encaj\w*|coincid\w*|"
    r"adecu\w*|id[óo]ne\w*|falt\w*|carec\w*|condici[óo]n\w*)\b"
)

# ... and a prompt that says to apply whatever the CV shows contradicts it: a word of "regardless" or
# "always" (in English or Spanish) with no word that restricts when (only, never, unless; solo, nunca, salvo)
_APPLIES_REGARDLESS = (
    r"\b(whatever|regardless|no matter|irrespective|even if|even when|even though|always|"
    r"every (job|offer|position|role)s?|all (the )?(jobs|offers|positions|roles)|"
    r"sin importar|independientemente|pase lo que pase|sea cual sea|aunque|siempre|"
    r"todas las ofertas|cualquier oferta|toda oferta)\b"
)
_ONLY_WHEN = (
    r"\b(only|never|unless|except|do not|don't|solo|sólo|solamente|únicamente|unicamente|nunca|jamás|"
    r"salvo|excepto|a menos)\b"
)


def _offer(rng: random.Random) -> tuple[str, bool, str]:
    """an offer (a title, a contact, 1 to 3 must-haves, some the CV lacks), a person's yes or no, the model"""
    must = ", ".join(rng.sample(_MUSTS, rng.randint(1, 3)))
    contact = rng.choice(("jobs@acme.example", "rrhh@empresa.example", "talent@ünï.example"))
    offer = f"Title: {rng.choice(_TITLES)}\nContact: {contact}\nMust: {must}\nNice: Airflow"
    return offer, rng.random() < 0.5, rng.choice(("job applicant", "job applicant", "runaway"))


_LESSON_OFFER = (
    "Title: Data engineer\nContact: jobs@acme.example\nMust: Python, SQL, GCP or AWS\nNice: Airflow, Spanish"
)


def offer_scenarios() -> list[tuple[str, bool, str]]:
    """check 5.3's scenarios: the lesson's offer four ways, then 8 seeded"""
    fixed = [
        (_LESSON_OFFER, False, "job applicant"),
        (_LESSON_OFFER, True, "job applicant"),
        (_LESSON_OFFER.replace("SQL", "Kotlin"), True, "job applicant"),
        (_LESSON_OFFER, True, "runaway"),
    ]
    return scenarios(fixed, _offer, count=8, seed=8)


def _musts(offer: str) -> list[str]:
    return offer.split("Must: ")[1].split("\n")[0].split(", ")


# the shapes lesson 05 names for the job-offer agent, each reached by offer_scenarios() (test_check_shapes.py)
OFFER_SHAPES: dict[str, Callable[[tuple[str, bool, str]], bool]] = {
    "a person who says yes": lambda s: s[1] and s[2] != "runaway",
    "a person who says no": lambda s: not s[1] and s[2] != "runaway",
    "a must-have the CV lacks": lambda s: any(m in ("Kotlin", "Rust") for m in _musts(s[0])),
    "one must-have": lambda s: len(_musts(s[0])) == 1,
    "three must-haves": lambda s: len(_musts(s[0])) == 3,
    "a title in another language": lambda s: (
        not s[0].splitlines()[0].startswith(("Title: Data engineer", "Title: Backend"))
    ),
    "a model that never stops": lambda s: s[2] == "runaway",
}


def _decider(approves: bool, asked: list[str]) -> Callable[[dict[str, Any]], Decision]:
    def decide(call: dict[str, Any]) -> Decision:
        asked.append(call["function"]["name"])
        return Decision(approves, _APPROVAL_REASON if approves else "a person sends applications themselves")

    return decide


def _describe_offer(scenario: tuple[str, bool, str]) -> str:
    offer, approves, model = scenario
    if model == "runaway":
        return _("with a model that never stops asking for tools")
    if approves:
        return _("on the offer {offer}, with a person who says yes", offer=repr(offer))
    return _("on the offer {offer}, with a person who says no", offer=repr(offer))


def _judge_apply_for(
    apply_for: Callable[..., Any], job_tools: list[Any], offer: str, approves: bool, model: str
) -> str | None:
    asked: list[str] = []
    expected_asked: list[str] = []
    policy = Runaway if model == "runaway" else JobApplicant
    client = mock.client(policy(), reject_unknown_fields=True)
    run = apply_for(client, offer, _decider(approves, asked))
    if not isinstance(run, AgentRun):
        return _(
            "apply_for() should return the run (run_agent's AgentRun); it returned {run}", run=f"{run!r:.80}"
        )
    first = _trace_of(client)[0].request if len(_trace_of(client)) else {}
    messages = first.get("messages") or []
    if not (
        messages and messages[0].get("role") == "system" and len(str(messages[0].get("content")).split()) >= 5
    ):
        return _(
            "the first request has no system prompt: say who the agent is and when it may apply (system=...)"
        )
    prompt = str(messages[0].get("content"))
    if not re.search(_WHEN_IT_APPLIES, prompt, re.IGNORECASE):
        return _(
            "the system prompt {prompt} does not say when the agent applies: a real model follows it, so "
            "give the lesson's condition, that it applies only when the CV meets the offer's must-haves",
            prompt=repr(prompt),
        )
    if re.search(_APPLIES_REGARDLESS, prompt, re.IGNORECASE) and not re.search(
        _ONLY_WHEN, prompt, re.IGNORECASE
    ):
        return _(
            "the system prompt {prompt} tells the agent to apply whatever the CV shows: a real model follows "
            "it, so give the lesson's condition instead, that it applies only when the CV meets the offer's "
            "must-haves",
            prompt=repr(prompt),
        )
    offered = sorted(t["function"]["name"] for t in first.get("tools") or [])
    if offered != sorted(_JOB_TOOLS):
        return _("the model was offered {offered}; offer it the four tools of job_tools", offered=offered)
    if model == "runaway":
        if not _SENDS_CALLS <= run.model_calls <= _MOST_TURNS:
            return _(
                "the run made {made} model calls before it stopped: the chain takes {calls}, so cap the run "
                "at {calls} to {most} (max_turns)",
                made=run.model_calls,
                calls=_SENDS_CALLS,
                most=_MOST_TURNS,
            )
        return None
    expected = run_agent(
        mock.client(JobApplicant()),
        offer,
        job_tools,
        system="You help a person apply for jobs, and never send alone.",
        max_turns=_MOST_TURNS,
        guardrails=[_ReferenceAskFirst(_decider(approves, expected_asked), ["send_application"])],
    )
    ran = [o.name for o in run.observations if o.error_type != "refused"]
    wanted = [o.name for o in expected.observations if o.error_type != "refused"]
    if asked != expected_asked and any(name != "send_application" for name in asked):
        return _(
            "decide was asked before {asked} ran: AskFirst guards the wrong tool; guard send_application, "
            "the only tool that sends anything (AskFirst(decide, ['send_application']))",
            asked=[name for name in asked if name != "send_application"],
        )
    if "send_application" in ran and "send_application" not in wanted and "send_application" not in asked:
        return _(
            "send_application ran and decide was never asked: nothing guards it, so the agent sent without "
            "a yes (AskFirst(decide, ['send_application']))"
        )
    if "send_application" in ran and "send_application" not in wanted:
        return _(
            "send_application ran though the person said no (decide returned Decision(False, ...)): the "
            "agent sent without a yes; let the person's Decision refuse the call"
        )
    if ran != wanted:
        return _("these tools ran: {ran}; in the reference agent: {wanted}", ran=ran, wanted=wanted)
    if asked != expected_asked:
        return _(
            "decide was asked about {asked}: ask a person before send_application runs, and only then",
            asked=asked,
        )
    if run.stop_reason != expected.stop_reason:
        ended = _(
            "the run ended with stop_reason {yours}; the reference's with {expected}",
            yours=repr(run.stop_reason),
            expected=repr(expected.stop_reason),
        )
        if run.stop_reason == "max_turns":
            return _("{problem}: the chain takes {calls} model calls", problem=ended, calls=_SENDS_CALLS)
        return ended
    return None


def check_apply_for(apply_for: Callable[..., Any], job_tools: list[Any]) -> Verdict:
    """Exercise 5.3: apply_for(client, offer, decide) runs the job-offer agent: a system prompt, the four
    tools in the order the model chooses, a turn cap, and nothing sent without a person's yes

    Scenarios: the lesson's offer with a person who says no, then yes, an offer needing Kotlin, a
    model that never stops; then 8 seeded offers (titles in several languages, 1 to 3 must-haves,
    some the CV lacks) with a yes or a no, or a runaway model. Each run is compared with a reference
    agent on the same model and tools: which tools ran, in order, whom decide was asked about, how
    the run ended; the first request must carry a system prompt and the four tools.
    """
    cases = offer_scenarios()
    return judge_scenarios(
        "5.3",
        cases,
        lambda scenario: _judge_apply_for(apply_for, job_tools, *scenario),
        _describe_offer,
        _(
            "the agent chains its tools in the order the model "
            "chooses, within its cap, and sends nothing without a yes."
        ),
    )


# --- the input space the exercises' words name (tests/test_input_space.py) ---------------------------

USES_SPACE: dict[str, Dimension[Uses]] = {
    "tools": Dimension(
        "Other tools are not affected",
        {
            **forms_of(USES_SHAPES, "tool names that share a prefix"),
            "names that share nothing": lambda s: "add_note" not in s[2] and s[0] != "add_note",
        },
    ),
    "limit": Dimension(
        "lets the tool `name` **run** `limit` times",
        {**forms_of(USES_SHAPES, "a limit of 0"), "a limit of 1 or more": lambda s: s[1] >= 1},
    ),
    "uses": Dimension(
        "A run that failed is a use; a refused call is not",
        {
            **forms_of(USES_SHAPES, "another guard refusing first", "tools that fail"),
            "tools that work, no other guard": lambda s: s[4] == "",
        },
    ),
    "runs": Dimension(
        "Count this run's uses only",
        {**forms_of(USES_SHAPES, "the same guard for a second run"), "one run": lambda s: not s[3]},
    ),
    "models": Dimension(
        "The check compares it with a reference guard on many runs",
        {
            **forms_of(USES_SHAPES, "parallel calls in one reply", "a model that does not listen"),
            "a model that listens": lambda s: "listens" in s[2],
        },
    ),
}

APPROVAL_SPACE: dict[str, Dimension[Approvals]] = {
    "answers": Dimension(
        "Denied: return a refusal that carries the reason",
        forms_of(
            APPROVAL_SHAPES,
            "a person who says no, with a reason",
            "a no without a reason",
            "a person who says yes",
            "a reason in another language",
        ),
    ),
    "decide": Dimension(
        "If `decide` raises, refuse",
        {
            **forms_of(APPROVAL_SHAPES, "a decide that raises"),
            "a decide that answers": _answered(lambda a, r: a != "raises"),
        },
    ),
    "every call": Dimension(
        "Ask again for every call",
        forms_of(
            APPROVAL_SHAPES,
            "a decision that changes from one call to the next",
            "the same guard for a second offer",
        ),
    ),
    "tools": Dimension(
        "Other tools run without asking",
        forms_of(
            APPROVAL_SHAPES,
            "a tool other than send_application guarded",
            "send_application not guarded",
            "several tools guarded",
            "the tools as a tuple",
            "the tools as a set",
            "a listed name that only starts a tool's name",
        ),
    ),
}

OFFER_SPACE: dict[str, Dimension[tuple[str, bool, str]]] = {
    "person": Dimension(
        "with a yes or a no", forms_of(OFFER_SHAPES, "a person who says yes", "a person who says no")
    ),
    "offers": Dimension(
        "offers the CV meets and misses",
        {
            **forms_of(OFFER_SHAPES, "a must-have the CV lacks", "one must-have", "three must-haves"),
            "every must-have met": lambda s: not OFFER_SHAPES["a must-have the CV lacks"](s),
            **forms_of(OFFER_SHAPES, "a title in another language"),
        },
    ),
    "model": Dimension(
        "a model that never stops",
        {
            **forms_of(OFFER_SHAPES, "a model that never stops"),
            "the job-offer model": lambda s: s[2] != "runaway",
        },
    ),
}

TREE_SPACE: dict[str, Dimension[_Tree]] = {
    "the code": Dimension(
        "`ok` is true only when the tests pass",
        forms_of(
            TREE_SHAPES,
            "the original code, one test failing",
            "the code fixed",
            "the code fixed wrongly",
            "code that does not import",
        ),
    ),
    "test files": Dimension(
        "a path starting with `test_`",
        forms_of(
            TREE_SHAPES,
            "the failing test edited",
            "the test file deleted",
            "a test file added",
            "a test file under a name the lesson never shows",
            "a test file that is no Python file",
            "a name holding 'test' that is no test file",
            "a name starting with 'test' that is no test file",
        ),
    ),
    "changes": Dimension(
        "`project.changed()` lists the paths created, changed or deleted",
        {
            "a file written": _changed(lambda p, x: x is not None),
            "a file deleted": _changed(lambda p, x: x is None),
            "nothing changed": lambda t: not t[1],
        },
    ),
}
