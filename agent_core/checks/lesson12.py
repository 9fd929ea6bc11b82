"""Checks for lesson 12's exercises: the plan tool and delegate, judged beside the reference on seeded
scenarios."""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any

from .. import mock
from .._i18n import N_, _
from ..dispatch import ERROR_PREFIX, is_error
from ..guardrails import Limits, Permissions
from ..loop import Guardrail, run_agent
from ..planning import Delegate, plan_update, show_plan
from . import Verdict, _trace_of, verdict
from ._scenarios import Dimension, judge_scenarios, scenarios, smaller_ints, smaller_lists
from .lesson03 import is_failure, plain_str_problem

__all__ = [
    "PLAN_SPACE",
    "check_plan_update",
    "plan_scenarios",
    "PLAN_SHAPES",
    "check_delegate",
    "delegate_scenarios",
    "DELEGATE_SHAPES",
    "DELEGATE_SPACE",
    "PLAN_SCENARIOS",
    "DELEGATE_SCENARIOS",
    "DELEGATE_GENERATED",
    "DELEGATE_SEED",
]

# --- 12.1: the plan tool ------------------------------------------------------------------------

Step = tuple[str, str] | tuple[str, str, int]
"""(action, text) on the plan; (action, text, 2) on a second plan beside it, as two agents would keep"""

PLAN_FIXED: list[list[Step]] = [
    [("add", "read the code"), ("add", "fix the bug"), ("start", "read the code"), ("done", "read the code")],
    [("add", "read the code"), ("add", "fix the bug"), ("start", "read the code"), ("start", "fix the bug")],
    [("add", "read the code"), ("done", "read the code")],
    [("add", "read the code"), ("add", "read the code")],
    [("start", "read the code")],
    [("add", "  ")],
    [
        ("add", "read the code"),
        ("start", "read the code"),
        ("done", "read the code"),
        ("start", "read the code"),
    ],
    [("add", "read the code"), ("remove", "read the code")],
    [  # the plan worked through: the second item starts once the first is done
        ("add", "read the code"),
        ("add", "fix the bug"),
        ("start", "read the code"),
        ("done", "read the code"),
        ("start", "fix the bug"),
        ("done", "fix the bug"),
    ],
    [
        ("add", "read the code"),
        ("start", "read the code"),
        ("done", "read the code"),
        ("done", "read the code"),
    ],
    [
        ("add", "read the code"),
        ("start", "read the code"),
        ("done", "read the code"),
        ("add", "read the code"),
    ],
    [("add", "\t")],
    [*(("add", f"step {n}") for n in range(1, 12)), ("start", "step 11"), ("done", "step 11")],
    [  # each plan keeps its own item in progress: the other plan's start changes nothing here
        ("add", "read the code"),
        ("start", "read the code"),
        ("add", "fix the bug", 2),
        ("start", "fix the bug", 2),
        ("add", "run the tests"),
        ("start", "run the tests"),
    ],
]
_TEXTS = (
    "read the code",
    "fix the bug",
    "run the tests",
    "write the notes",
    "update the docs",
    "ask for a review",
    "écrire le résumé",
)
_NEAR = ("Fix the bug", "fix the bug ", " read the code", "run  the tests")  # none of them in _TEXTS
_BLANKS = ("", " ", "\t", "\n", " \t\n")
_ODD_ACTIONS = ("remove", "complete", "ADD", "Start", "finish")
PLAN_SCENARIOS = len(PLAN_FIXED) + 200


def _plan_steps(rng: random.Random) -> list[Step]:
    """a plan worked through as a model would, mostly in order (add, start, done, start the next),
    with wrong moves mixed in: any item added, started or finished again, near-duplicate and blank
    texts, unknown actions; plans grow to eleven items. One list in four has a second plan beside
    the first, its steps mixed in"""
    plans: list[list[dict[str, str]]] = [[], []]
    steps: list[Step] = []
    two = rng.random() < 0.25
    for _step in range(rng.randint(1, 16)):
        which = 2 if two and rng.random() < 0.4 else 1
        items = plans[which - 1]
        busy = [item["text"] for item in items if item["status"] == "in_progress"]
        pending = [item["text"] for item in items if item["status"] == "pending"]
        fresh = [text for text in _TEXTS if all(item["text"] != text for item in items)]
        kind = (
            "next" if rng.random() < 0.55 else rng.choice(("again", "start", "done", "near", "blank", "odd"))
        )
        if kind == "next" and busy:
            step = ("done", busy[0])
        elif kind == "next" and pending and (not fresh or rng.random() < 0.5):
            step = ("start", rng.choice(pending))
        elif kind == "next" or (kind in ("again", "start", "done") and not items):
            step = ("add", rng.choice(fresh or list(_TEXTS)))
        elif kind in ("start", "done"):  # any item: pending, in progress or done, another one busy or not
            step = (kind, rng.choice(items)["text"])
        elif kind == "again":  # a text already in the plan, done ones too
            step = ("add", rng.choice(items)["text"])
        elif kind == "near":
            step = (rng.choice(("add", "start", "done")), rng.choice(_NEAR))
        elif kind == "blank":
            step = ("add", rng.choice(_BLANKS))
        else:
            step = (rng.choice(_ODD_ACTIONS), rng.choice(_TEXTS))
        plan_update(items, *step)  # the reference keeps the plan the next step is drawn from
        steps.append(step if which == 1 else (*step, 2))
    return steps


def _describe_steps(steps: list[Step]) -> str:
    shown = ", ".join(_describe_step(step) for step in steps) or _("no steps")
    if any(len(step) == 3 for step in steps):
        return _("from two empty plans: {steps}", steps=shown)
    return _("from an empty plan: {steps}", steps=shown)


def _describe_step(step: Step) -> str:
    if len(step) == 3:
        return _("{action} {text} on plan 2", action=step[0], text=repr(step[1]))
    return f"{step[0]} {step[1]!r}"


def plan_scenarios() -> list[list[Step]]:
    """check 12.1's step lists: the readable ones, then 200 generated"""
    return scenarios(PLAN_FIXED, _plan_steps, count=200, seed=1201)


def _worked(steps: list[Step]) -> list[tuple[Step, str, list[dict[str, str]]]]:
    """each step with the reference's answer and the plan before it"""
    plans: list[list[dict[str, str]]] = [[], []]
    seen = []
    for step in steps:
        items = plans[len(step) - 2]
        before = [dict(item) for item in items]
        seen.append((step, plan_update(items, step[0], step[1]), before))
    return seen


def _a_step(test: Callable[[Step, str, list[dict[str, str]]], bool]) -> Callable[[list[Step]], bool]:
    return lambda steps: any(test(*worked) for worked in _worked(steps))


def _status(items: list[dict[str, str]], text: str) -> str | None:
    return next((item["status"] for item in items if item["text"] == text), None)


def _busy(items: list[dict[str, str]]) -> bool:
    return any(item["status"] == "in_progress" for item in items)


def _started_elsewhere_then_here(steps: list[Step]) -> bool:
    """a start on a plan that has an item in progress, after the other plan last started one"""
    last = 0  # the plan of the last start that worked
    for step, answer, items in _worked(steps):
        plan = len(step) - 1
        if (
            step[0] == "start"
            and _busy(items)
            and _status(items, step[1]) == "pending"
            and last not in (0, plan)
        ):
            return True
        if step[0] == "start" and not is_failure(answer):
            last = plan
    return False


# the shapes lesson 12 names for the plan tool, each reached by plan_scenarios() (tests/test_check_shapes.py)
PLAN_SHAPES: dict[str, Callable[[list[Step]], bool]] = {
    "an empty text": _a_step(lambda step, _, __: step[:2] == ("add", "")),
    "a blank text (spaces)": _a_step(
        lambda step, _, __: step[0] == "add" and step[1] != "" and not step[1].strip(" ")
    ),
    "a tab or a newline": _a_step(
        lambda step, _, __: step[0] == "add" and ("\t" in step[1] or "\n" in step[1])
    ),
    "a text already in the plan": _a_step(
        lambda step, _, items: step[0] == "add" and _status(items, step[1]) is not None
    ),
    "a text already done, added again": _a_step(
        lambda step, _, items: step[0] == "add" and _status(items, step[1]) == "done"
    ),
    "a near-duplicate text (case, spaces)": lambda steps: any(step[1] in _NEAR for step in steps),
    "start an item not in the plan": _a_step(
        lambda step, _, items: step[0] == "start" and _status(items, step[1]) is None
    ),
    "start while another is in progress": _a_step(
        lambda step, _, items: step[0] == "start" and _status(items, step[1]) == "pending" and _busy(items)
    ),
    "start an item already in progress": _a_step(
        lambda step, _, items: step[0] == "start" and _status(items, step[1]) == "in_progress"
    ),
    "start a done item": _a_step(
        lambda step, _, items: step[0] == "start" and _status(items, step[1]) == "done"
    ),
    "done a pending item": _a_step(
        lambda step, _, items: step[0] == "done" and _status(items, step[1]) == "pending"
    ),
    "done twice": _a_step(lambda step, _, items: step[0] == "done" and _status(items, step[1]) == "done"),
    "an unknown action": lambda steps: any(step[0] not in ("add", "start", "done") for step in steps),
    "an action in another case (ADD)": lambda steps: any(step[0] in ("ADD", "Start") for step in steps),
    "the next item started once the first is done": _a_step(
        lambda step, answer, items: (
            step[0] == "start" and not is_failure(answer) and any(item["status"] == "done" for item in items)
        )
    ),
    "a plan of eleven items": _a_step(
        lambda step, answer, items: step[0] == "add" and not is_failure(answer) and len(items) >= 10
    ),
    "two plans side by side": lambda steps: any(len(step) == 3 for step in steps),
    "a start while busy, after the other plan started one": _started_elsewhere_then_here,
    "a non-ASCII text": lambda steps: any(not step[1].isascii() for step in steps),
}


# what exercise 12.1's words say varies, each form reached by plan_scenarios() (test_input_space.py)
PLAN_SPACE: dict[str, Dimension[list[Step]]] = {
    "add": Dimension(
        "Refuse an empty or blank text, and a text already in the plan (texts are compared exactly)",
        {
            "an empty text": PLAN_SHAPES["an empty text"],
            "spaces": PLAN_SHAPES["a blank text (spaces)"],
            "a tab or a newline": PLAN_SHAPES["a tab or a newline"],
            "a text already in the plan": PLAN_SHAPES["a text already in the plan"],
            "a near-duplicate": PLAN_SHAPES["a near-duplicate text (case, spaces)"],
            "non-ASCII": PLAN_SHAPES["a non-ASCII text"],
            "eleven items": PLAN_SHAPES["a plan of eleven items"],
        },
    ),
    "start": Dimension(
        "Refuse if there is no such item, if it is not pending, or if another item is in progress",
        {
            "no such item": PLAN_SHAPES["start an item not in the plan"],
            "in progress already": PLAN_SHAPES["start an item already in progress"],
            "done": PLAN_SHAPES["start a done item"],
            "another in progress": PLAN_SHAPES["start while another is in progress"],
            "the next, once one is done": PLAN_SHAPES["the next item started once the first is done"],
            "another plan busy": PLAN_SHAPES["a start while busy, after the other plan started one"],
        },
    ),
    "done": Dimension(
        'the item in progress becomes `"done"`. Refuse any other.',
        {
            "a pending item": PLAN_SHAPES["done a pending item"],
            "done twice": PLAN_SHAPES["done twice"],
            "the item in progress": _a_step(
                lambda step, answer, items: step[0] == "done" and not is_failure(answer)
            ),
        },
    ),
    "other actions": Dimension(
        "Any other action: refuse.",
        {
            "an unknown action": PLAN_SHAPES["an unknown action"],
            "an action in another case": PLAN_SHAPES["an action in another case (ADD)"],
        },
    ),
}


def check_plan_update(plan_update_function: Callable[..., Any]) -> Verdict:
    """Exercise 12.1: plan_update(items, action, text) changes the plan in place, or refuses with failure()

    Runs 14 fixed step lists (one of eleven items, one with two plans side by side), then 200
    generated ones (1 to 16 steps: plans of up to eleven items worked through in order, with any
    item added, started or finished again, near-duplicate and blank texts, tabs and newlines,
    unknown actions; one in four with a second plan's steps mixed in), each from empty plans,
    beside the reference; after every step it compares whether the step was refused, what it
    returned, and the items of both plans.
    """

    def judge(steps: list[Step]) -> str | None:
        expected_plans: list[list[dict[str, str]]] = [[], []]
        your_plans: list[list[dict[str, str]]] = [[], []]
        for number, step in enumerate(steps, start=1):
            action, text = step[0], step[1]
            which = 2 if len(step) == 3 else 1
            expected, yours = expected_plans[which - 1], your_plans[which - 1]
            reference = plan_update(expected, action, text)
            answer = plan_update_function(yours, action, text)
            where = _("at step {number} ({step})", number=number, step=_describe_step(step))
            if not isinstance(answer, str):
                return _(
                    "{where} yours returned {answer}: return the plan as text, or a refusal",
                    where=where,
                    answer=repr(answer),
                )
            refused = is_failure(reference)
            if refused and not is_failure(answer):
                if plain := plain_str_problem(answer, repr(answer)):
                    return _(
                        "{where} the change is impossible and should be refused: {problem}",
                        where=where,
                        problem=plain,
                    )
                if action == "start" and _busy(expected) and any(len(other) == 3 for other in steps):
                    return _(
                        '{where} the change is impossible and should be refused with failure("..."); yours '
                        "returned {answer} (the item in progress is this plan's: find it in `items`, "
                        "not in a "
                        "variable that every plan shares)",
                        where=where,
                        answer=repr(answer),
                    )
                return _(
                    '{where} the change is impossible and should be refused with failure("..."); yours '
                    "returned "
                    "{answer}",
                    where=where,
                    answer=repr(answer),
                )
            if not refused and is_failure(answer):
                return _(
                    "{where} the change is allowed, but yours refused it: {answer}",
                    where=where,
                    answer=repr(answer),
                )
            if your_plans != expected_plans:
                if yours == expected:  # the other plan changed: state shared between plans
                    return _(
                        "{where} the other plan changed too: each plan is its own list of items; "
                        "keep nothing "
                        "about a plan outside the items you are given",
                        where=where,
                    )
                return _(
                    "{where} the items should be {expected}; yours are {yours}",
                    where=where,
                    expected=repr(expected),
                    yours=repr(yours),
                )
            if not refused and answer != show_plan(yours):
                return _(
                    "{where} yours returned {answer}; return show_plan(items), the plan the model reads",
                    where=where,
                    answer=repr(answer),
                )
        return None

    cases = plan_scenarios()
    return judge_scenarios(
        "12.1",
        cases,
        judge,
        _describe_steps,
        _("every change applied, every impossible one refused, one item in progress at a time."),
        smaller_lists,
    )


# --- 12.2: delegate ------------------------------------------------------------------------------

CHILD_SYSTEM = "You are a helper agent. Use your tools, then answer in one line."
PARENT_TASK = "Parent task: hand the work to helpers."


@dataclass(frozen=True)
class DelegationCase:
    """one parent task that delegates; what each child does; how the delegate is set up"""

    subtasks: int = 1  # delegate calls in the parent's one reply
    child: tuple[str, ...] = (
        "read",
        "answer",
    )  # each child's replies: read, write, delegate, then answer/loop/fail
    given: tuple[str, ...] = ("read_file",)  # the tools a child is given
    max_turns: int = 3
    max_depth: int = 1
    read_only: bool = False  # the parent's Permissions(read_only=True), inherited
    recursion: bool = False  # the child is given the delegate tool too
    limit: bool = False  # the parent's guardrails start with Limits(max_tool_calls=2), inherited
    late_tool: bool = False  # after the run a tool is added to the list, and delegate is called by hand
    # the child is given another delegate (a second make_delegate on the same tools), whose children are
    # given this one: two delegates nested, each counting its own children
    other: bool = False


DELEGATE_FIXED = [
    DelegationCase(),
    DelegationCase(child=("read", "read", "loop"), max_turns=2),
    DelegationCase(child=("write", "answer"), given=("read_file",)),
    DelegationCase(child=("read", "fail")),
    DelegationCase(subtasks=2),
    DelegationCase(child=("delegate", "answer"), recursion=True),
    DelegationCase(child=("write", "answer"), given=("read_file", "write_file"), read_only=True),
    DelegationCase(child=("read", "read", "read", "answer"), max_turns=4, limit=True),
    DelegationCase(child=("write", "answer"), given=("read_file", "write_file"), read_only=True, limit=True),
    DelegationCase(late_tool=True),
    DelegationCase(child=("delegate", "answer"), other=True),
]
# five generated: with the fixed cases, the seed's five reach every shape in DELEGATE_SHAPES
# (tests/test_check_shapes.py keeps it so), and each is two whole agent runs with children
DELEGATE_GENERATED, DELEGATE_SEED = 5, 1798
DELEGATE_SCENARIOS = len(DELEGATE_FIXED) + DELEGATE_GENERATED


def _delegation(rng: random.Random) -> DelegationCase:
    steps = tuple(rng.choice(("read", "write", "delegate")) for _ in range(rng.randint(0, 3)))
    return DelegationCase(
        subtasks=rng.choice((1, 1, 2)),
        child=(*steps, rng.choice(("answer", "answer", "loop", "fail"))),
        given=rng.choice((("read_file",), ("read_file", "write_file"), ("write_file",), ())),
        max_turns=rng.randint(1, 4),
        max_depth=rng.choice((1, 1, 2)),
        read_only=rng.random() < 0.4,
        recursion=(nested := rng.random()) < 0.4,
        other=nested > 0.8,
    )


def delegate_scenarios() -> list[DelegationCase]:
    """check 12.2's cases: the readable ones, then the generated ones"""
    return scenarios(DELEGATE_FIXED, _delegation, count=DELEGATE_GENERATED, seed=DELEGATE_SEED)


# the shapes lesson 12 names for delegate, each reached by delegate_scenarios() (tests/test_check_shapes.py)
DELEGATE_SHAPES: dict[str, Callable[[DelegationCase], bool]] = {
    "a child that answers": lambda case: case.child[-1] == "answer",
    "a child that never answers (max_turns)": lambda case: case.child[-1] == "loop",
    "a child whose model call fails": lambda case: case.child[-1] == "fail",
    "two delegations in one reply": lambda case: case.subtasks == 2,
    "two delegations, the first child failing": lambda case: (case.subtasks, case.child[-1]) == (2, "fail"),
    "a child delegating again, max_depth=1": lambda case: (
        case.recursion and "delegate" in case.child and case.max_depth == 1
    ),
    "a child delegating again, max_depth=2": lambda case: (
        case.recursion and "delegate" in case.child and case.max_depth == 2
    ),
    "a child writing without write_file": lambda case: (
        "write" in case.child and "write_file" not in case.given
    ),
    "a child writing under a read-only parent": lambda case: (
        case.read_only and "write" in case.child and "write_file" in case.given
    ),
    "a child without read_file": lambda case: "read_file" not in case.given,
    "the parent's limit stopping a child": lambda case: case.limit,
    "max_turns=1": lambda case: case.max_turns == 1,
    "max_turns=4": lambda case: case.max_turns == 4,
    "a tool added to the list after the first child": lambda case: case.late_tool,
    "two delegates nested, max_depth=1": lambda case: (
        case.other and "delegate" in case.child and case.max_depth == 1
    ),
    "two delegates nested, max_depth=2": lambda case: (
        case.other and "delegate" in case.child and case.max_depth == 2
    ),
}


# what exercise 12.2's words say varies, each form reached by delegate_scenarios() (test_input_space.py)
DELEGATE_SPACE: dict[str, Dimension[DelegationCase]] = {
    "nesting": Dimension(
        "`max_depth` children of this delegate are already running",
        {
            "no child delegates": lambda case: "delegate" not in case.child,
            "a child given this delegate, max_depth=1": DELEGATE_SHAPES[
                "a child delegating again, max_depth=1"
            ],
            "a child given this delegate, max_depth=2": DELEGATE_SHAPES[
                "a child delegating again, max_depth=2"
            ],
            "a child given another delegate, max_depth=1": DELEGATE_SHAPES[
                "two delegates nested, max_depth=1"
            ],
            "a child given another delegate, max_depth=2": DELEGATE_SHAPES[
                "two delegates nested, max_depth=2"
            ],
        },
    ),
    "the tools": Dimension(
        "`ToolRegistry(tools)` built when the child starts",
        {
            "read_file only": lambda case: case.given == ("read_file",),
            "read_file and write_file": lambda case: case.given == ("read_file", "write_file"),
            "write_file only": lambda case: case.given == ("write_file",),
            "no tools": lambda case: case.given == (),
            "a tool added after the first child": DELEGATE_SHAPES[
                "a tool added to the list after the first child"
            ],
        },
    ),
    "the guardrails": Dimension(
        "`system`, `max_turns` and `guardrails`",
        {
            "none": lambda case: not (case.read_only or case.limit),
            "read-only": lambda case: case.read_only and not case.limit,
            "a limit": lambda case: case.limit and not case.read_only,
            "both": lambda case: case.read_only and case.limit,
            "max_turns=1": DELEGATE_SHAPES["max_turns=1"],
            "max_turns=4": DELEGATE_SHAPES["max_turns=4"],
        },
    ),
    "how the child ends": Dimension(
        "returns the child's answer when it answered",
        {
            "it answers": DELEGATE_SHAPES["a child that answers"],
            "it runs out of turns": DELEGATE_SHAPES["a child that never answers (max_turns)"],
            "the parent's limit stops it": DELEGATE_SHAPES["the parent's limit stopping a child"],
            "its model call fails": DELEGATE_SHAPES["a child whose model call fails"],
        },
    ),
    "delegations per reply": Dimension(
        "one or two delegations in one reply",
        {"one": lambda case: case.subtasks == 1, "two": DELEGATE_SHAPES["two delegations in one reply"]},
    ),
}


def _describe_delegation(case: DelegationCase) -> str:
    said = {
        "read": N_("reads a file"),
        "write": N_("writes a file"),
        "delegate": N_("delegates again"),
        "answer": N_("answers"),
        "loop": N_("keeps reading for ever"),
        "fail": N_("then its model call fails (HTTP 500)"),
    }
    given = ", ".join(case.given) or _("no tools")
    if case.recursion and case.other:
        given = _(
            "given {names} and the delegate tool and another delegate (a second make_delegate), "
            "whose children "
            "are given this one",
            names=given,
        )
    elif case.recursion:
        given = _("given {names} and the delegate tool", names=given)
    elif case.other:
        given = _(
            "given {names} and another delegate (a second make_delegate), whose children are given this one",
            names=given,
        )
    else:
        given = _("given {names}", names=given)
    parts = [
        _("the parent delegates twice in one reply")
        if case.subtasks == 2
        else _("the parent delegates once"),
        _("each child {steps}", steps=", ".join(_(said[step]) for step in case.child)),
        given,
        f"max_turns={case.max_turns}, max_depth={case.max_depth}",
    ]
    guards = [
        name
        for name, on in (
            ("Limits(max_tool_calls=2)", case.limit),
            ("Permissions(read_only=True)", case.read_only),
        )
        if on
    ]
    if guards:
        parts.append(_("the parent's guardrails: {guards}", guards=", ".join(guards)))
    if case.late_tool:
        parts.append(_("then write_file is added to the tools list and delegate is called by hand"))
    return "; ".join(parts)


def _shrink_delegation(case: DelegationCase) -> Iterator[DelegationCase]:
    if case.subtasks == 2:
        yield replace(case, subtasks=1)
    for steps in smaller_lists(case.child[:-1]):
        yield replace(case, child=(*steps, case.child[-1]))
    if case.child[-1] != "answer":
        yield replace(case, child=(*case.child[:-1], "answer"))
    for turns in smaller_ints(case.max_turns, floor=1):
        yield replace(case, max_turns=turns)
    if case.max_depth > 1:
        yield replace(case, max_depth=1)
    if case.read_only:
        yield replace(case, read_only=False)
    if case.limit:
        yield replace(case, limit=False)
    if case.recursion:
        yield replace(case, recursion=False)
    if case.other:
        yield replace(case, other=False)


def _policy(case: DelegationCase) -> Callable[[dict[str, Any]], Any]:
    def reply(request: dict[str, Any]) -> Any:
        messages = request["messages"]
        task = next(str(m["content"]) for m in messages if m["role"] == "user")
        last_user = max(i for i, m in enumerate(messages) if m["role"] == "user")
        turn = sum(m["role"] == "assistant" for m in messages[last_user:])
        if task == PARENT_TASK:  # children's tasks start "Subtask", or "> " once per level of nesting
            if turn == 0:
                return mock.calls(
                    *(
                        mock.call("delegate", task=f"Subtask {n}: look at notes.txt.")
                        for n in range(1, case.subtasks + 1)
                    )
                )
            return "The helpers are done."
        step = case.child[min(turn, len(case.child) - 1)]
        if step == "read" or step == "loop":
            return mock.call("read_file", path="notes.txt")
        if step == "write":
            return mock.call("write_file", path="notes.txt", content="changed")
        if (
            step == "delegate" and task.count(">") < 3
        ):  # deeper than any max_depth here: an unbounded delegate
            return mock.call("delegate", task=f"> {task}")
        if step == "fail":
            raise RuntimeError("the helper's model is overloaded")
        return f"{task.split(':')[0]} found: hello"

    return reply


@dataclass
class _Outcome:
    observations: list[tuple[bool, str]]  # what the parent read for each delegate call: (error?, text)
    # who, messages, roles, tools, status, and the results of the delegate calls the request sends back
    turns: list[tuple[str, int, tuple[str, ...], tuple[str, ...], int, tuple[str, ...]]]
    files: dict[str, str]
    per_call: dict[int, int]  # delegate call number -> its children's model calls
    direct: Any = None  # what delegate(task) returned called by hand (children fail, or a tool added late)
    levels: dict[int, int] = field(default_factory=dict)  # nesting (0: the parent's children) -> model calls
    # the user messages of the child request that sent the most: two, and a child heard another's task
    child_tasks: tuple[str, ...] = ()


_DIRECT_NUMBER = 9
_DIRECT_TASK = f"Subtask {_DIRECT_NUMBER}: look at notes.txt."


def _outcome(make_delegate: Callable[..., Any], case: DelegationCase) -> _Outcome:
    files = {"notes.txt": "hello"}

    def read_file(path: str) -> str:
        """Read a text file."""
        return files[path]

    def write_file(path: str, content: str) -> str:
        """Write a text file."""
        files[path] = content
        return "written"

    client = mock.client(_policy(case))
    by_name: dict[str, Callable[..., Any]] = {"read_file": read_file, "write_file": write_file}
    tools: list[Callable[..., Any]] = [by_name[n] for n in case.given]
    guards: list[Guardrail] = [Limits(max_tool_calls=2)] if case.limit else []
    guards += [Permissions(read_only=True)] if case.read_only else []
    delegate = make_delegate(
        client,
        tools,
        system=CHILD_SYSTEM,
        max_turns=case.max_turns,
        guardrails=guards,
        max_depth=case.max_depth,
    )
    if case.recursion:
        tools.append(delegate)
    if case.other:
        other_tools = [*tools, delegate]
        tools.append(
            make_delegate(
                client,
                other_tools,
                system=CHILD_SYSTEM,
                max_turns=case.max_turns,
                guardrails=guards,
                max_depth=case.max_depth,
            )
        )
    run = run_agent(client, PARENT_TASK, [delegate], max_turns=3, guardrails=guards)
    direct: Any = None
    if case.child[-1] == "fail" or case.late_tool:  # called by hand, not through a dispatcher that catches
        if case.late_tool:
            tools.append(write_file)  # ToolRegistry(tools) is built when a child starts: it has it
        try:
            direct = delegate(_DIRECT_TASK)
        except Exception as error:  # the learner's delegate let the child's failure out
            direct = error
    turns = []
    child_tasks: tuple[str, ...] = ()
    per_call: Counter[int] = Counter()
    levels: Counter[int] = Counter()
    for turn in _trace_of(client):
        messages = turn.messages
        task = next((str(m["content"]) for m in messages if m["role"] == "user"), "")
        who = "parent" if task == PARENT_TASK else "child"
        roles = tuple(m["role"] for m in messages[:2])
        offered = tuple(sorted(t["function"]["name"] for t in turn.request.get("tools") or []))
        asked = {  # the delegate calls in the child's history: their results are what depth decides
            call["id"]
            for m in messages
            if m["role"] == "assistant"
            for call in m.get("tool_calls") or []
            if call["function"]["name"] == "delegate"
        }
        results = tuple(
            str(m.get("content")) for m in messages if m["role"] == "tool" and m.get("tool_call_id") in asked
        )
        turns.append((who, len(messages), roles, offered, turn.status, results))
        if who == "child":
            levels[task.count(">")] += 1  # each level of nesting adds "> " to the sub-task
            heard = tuple(str(m["content"]) for m in messages if m["role"] == "user")
            child_tasks = heard if len(heard) > len(child_tasks) else child_tasks
        if who == "child":  # which delegate call: "Subtask N", in whichever user message holds it
            said = " ".join(str(m["content"]) for m in messages if m["role"] == "user")
            number = re.search(r"Subtask (\d+):", said)
            per_call[int(number.group(1)) if number else 0] += 1
    # as the dispatcher judged each: failed (a raised exception or an ErrorText), and the text read
    observations = [(o.is_error, o.content) for o in run.observations]
    return _Outcome(observations, turns, dict(files), dict(per_call), direct, dict(levels), child_tasks)


def _reference(client: Any, tools: list[Any], **options: Any) -> Any:
    return Delegate(client, tools, **options).tool


@cache
def _expected(case: DelegationCase) -> _Outcome:
    """the reference's outcome: the same on every run, so a check run again does not redo it"""
    return _outcome(_reference, case)


def _compare(case: DelegationCase, make_delegate: Callable[..., Any]) -> str | None:
    expected, yours = _expected(case), _outcome(make_delegate, case)
    children = [t for t in expected.turns if t[0] == "child"]
    your_children = [t for t in yours.turns if t[0] == "child"]
    if children and not your_children:
        if yours.observations and yours.observations[0][0]:  # refused or stopped before any call
            return _(
                "no child made a model call; the parent read {read}. With no child running yet, delegate "
                "should start one, and run_agent with max_turns={max_turns} makes at least one call",
                read=repr(yours.observations[0][1]),
                max_turns=case.max_turns,
            )
        return _(
            "no child's model call reached the client you were given: run the child with run_agent on "
            "that client, so its calls (and tokens) are recorded with the parent's"
        )
    if len(yours.child_tasks) > max(1, len(expected.child_tasks)):
        return _(
            "a child's request held {count} user messages {tasks}: an earlier delegation's conversation was "
            "sent again. Each child starts fresh, with the system prompt and its own sub-task only: keep no "
            "messages between delegations",
            count=len(yours.child_tasks),
            tasks=list(yours.child_tasks),
        )
    for number in sorted(expected.per_call):
        if number == _DIRECT_NUMBER and not yours.per_call.get(number):
            return _(
                "delegate({task}), called by hand after the parent's run with no child running, started no "
                "child; it returned {returned}. A child that has ended, even by raising, no longer counts "
                "towards max_depth",
                task=repr(_DIRECT_TASK),
                returned=repr(yours.direct),
            )
        if expected.per_call[number] and not yours.per_call.get(number):
            read = repr(yours.observations[number - 1][1] if number <= len(yours.observations) else None)
            if number == 1:
                return _(
                    "delegate call {number} started no child (the parent read {read})",
                    number=number,
                    read=read,
                )
            message = (
                N_(
                    "delegate call {number} started no child (the parent read {read}), though no child was "
                    "running then: delegate call {previous}'s child had ended without an answer, and a child "
                    "that has ended, even by raising, no longer counts towards max_depth"
                )
                if expected.observations[number - 2][0]
                else N_(
                    "delegate call {number} started no child (the parent read {read}), though no child was "
                    "running then: delegate call {previous}'s child had answered, and a child that "
                    "has ended, "
                    "even by raising, no longer counts towards max_depth"
                )
            )
            return _(message, number=number, read=read, previous=number - 1)
    if len(your_children) != len(children):
        return _depth_or_turns(case, expected, yours)
    for mine, theirs in zip(your_children, children, strict=True):
        if mine[3] != theirs[3]:
            return _(
                "a child was offered the tools {yours}; it should be offered exactly {wanted}: the "
                "tools it was "
                "given, when it starts",
                yours=list(mine[3]),
                wanted=list(theirs[3]),
            )
        if mine[1:3] != theirs[1:3]:
            return _(
                "a child's request sent {yours} messages where the reference's sent {wanted}: a child starts "
                "fresh, with the system prompt and its sub-task only",
                yours=mine[1],
                wanted=theirs[1],
            )
        # a tool message on the wire has no field for a failure: the child's model reads it by the text the
        # dispatcher wrote, ERROR_PREFIX first (is_error on the message); the parent's observations above
        # are judged by the dispatcher's own verdict
        for your_result, result in zip(mine[5], theirs[5], strict=False):
            if is_error(result) and not is_error(your_result):
                return _(
                    "a child's delegate call was answered {answer}; max_depth children were running, so it "
                    'should be refused with failure("...") (a failed call, which the child\'s model reads as '
                    "one)",
                    answer=repr(your_result),
                )
    if yours.files != expected.files:
        return _("notes.txt was changed: a child must run with the parent's guardrails")
    if len(yours.observations) != len(expected.observations):
        return _(
            "the parent read {yours} results; it should read {wanted}",
            yours=len(yours.observations),
            wanted=len(expected.observations),
        )
    for number, ((error, text), (your_error, your_text)) in enumerate(
        zip(expected.observations, yours.observations, strict=True), start=1
    ):
        if not error and your_text != text:
            return _(
                "for delegate call {number} the parent should read the child's answer {answer}; yours gave "
                "{yours}",
                number=number,
                answer=repr(text),
                yours=repr(your_text),
            )
        if error and not your_error:
            if plain := plain_str_problem(your_text, repr(your_text)):
                return _(
                    "for delegate call {number} the child did not answer, and delegate {problem}",
                    number=number,
                    problem=plain,
                )
            return _(
                "for delegate call {number} the child did not answer, but the parent read {yours}: return "
                'failure("...") saying why',
                number=number,
                yours=repr(your_text),
            )
        stopped = re.search(r"stop_reason '(\w+)'", text) if error else None
        if stopped and stopped.group(1) not in your_text:
            return _(
                "for delegate call {number} the child stopped with stop_reason {reason}; the parent read "
                "{yours}, which does not say why (name the stop_reason)",
                number=number,
                reason=repr(stopped.group(1)),
                yours=repr(your_text),
            )
        if error and not stopped and not _says_it_failed(your_text):
            return _(
                "for delegate call {number} the child's model call failed (HTTP 500); the parent read "
                "{yours}, which does not say that the helper failed",
                number=number,
                yours=repr(your_text),
            )
    if isinstance(yours.direct, Exception) and case.child[-1] == "fail":
        return _(
            "delegate({task}) called by hand let {error} out: the child's model call failed (the server "
            "answered HTTP 500), run_agent raised, and your delegate did not catch it. The parent's "
            'dispatcher caught it for you, but delegate itself should return failure("...") saying the '
            "helper failed, whoever calls it",
            task=repr(_DIRECT_TASK),
            error=type(yours.direct).__name__,
        )
    if isinstance(yours.direct, Exception):
        return _(
            "delegate({task}) called by hand raised {error}: {message}. The parent's dispatcher "
            "caught it for "
            'you, but delegate itself should return failure("...") when run_agent raises, '
            "whoever calls it",
            task=repr(_DIRECT_TASK),
            error=type(yours.direct).__name__,
            message=yours.direct,
        )
    if case.child[-1] == "fail" and not is_failure(yours.direct):
        if plain := plain_str_problem(yours.direct, repr(yours.direct)):
            return _(
                "delegate({task}) called by hand, when the child's run raises: {problem}",
                task=repr(_DIRECT_TASK),
                problem=plain,
            )
        return _(
            "delegate({task}) called by hand returned {returned}; when the child's run raises, it should "
            'return failure("...") saying so',
            task=repr(_DIRECT_TASK),
            returned=repr(yours.direct),
        )
    return None


def _depth_or_turns(case: DelegationCase, expected: _Outcome, yours: _Outcome) -> str:
    """the children made another number of model calls: because they nested deeper or shallower than
    max_depth allows, or because a child ran past (or short of) its own max_turns"""
    deepest, your_deepest = (max(outcome.levels, default=-1) + 1 for outcome in (expected, yours))
    if your_deepest != deepest:
        message = (
            N_(
                "children ran {yours} deep (the parent's child is 1 deep, its own child 2); with "
                "max_depth={max_depth} they should run {wanted} deep: refuse a delegate call when max_depth "
                "children of this delegate are running, and not before. Only this delegate's own children "
                "count: the other delegate's children are not among them (keep the count in "
                "make_delegate, one "
                "per delegate, not shared)"
            )
            if case.other and your_deepest < deepest
            else N_(
                "children ran {yours} deep (the parent's child is 1 deep, its own child 2); with "
                "max_depth={max_depth} they should run {wanted} deep: refuse a delegate call when max_depth "
                "children of this delegate are running, and not before"
            )
        )
        return _(message, yours=your_deepest, max_depth=case.max_depth, wanted=deepest)
    calls, your_calls = sum(expected.levels.values()), sum(yours.levels.values())
    return _(
        "the children made {yours} model calls in all; the reference's made {wanted}, at the same "
        "depth: each "
        "child has its own max_turns ({max_turns}), and stops after that many model calls",
        yours=your_calls,
        wanted=calls,
        max_turns=case.max_turns,
    )


def _says_it_failed(text: str) -> bool:
    """a failure text that says the helper failed, in any words, English or Spanish: fail, error, raised,
    crashed, the server, HTTP 500, the exception's name; falló, excepción, servidor"""
    words = text.removeprefix(ERROR_PREFIX).lower()
    english = ("fail", "error", "rais", "crash", "server", "500", "exception", "overloaded")
    spanish = (
        "fall",
        "excepci",
        "lanz",
        "servidor",
        "sobrecarg",
        "rompi",
        "cay",
    )  # falló, lanzó una excepción
    return any(w in words for w in english + spanish)


def check_delegate(make_delegate: Callable[..., Any]) -> Verdict:
    """Exercise 12.2: make_delegate(client, tools, *, system, max_turns, guardrails, max_depth) -> a delegate
    tool

    Runs 10 fixed cases, then 6 generated ones (one or two delegations in one reply; children that
    read, write, delegate again, then answer, loop or fail; tool subsets; max_turns 1-4; max_depth
    1-2; an inherited read-only guard, alone or after a Limits guard that stops a child; the
    delegate given to its own children; a tool added to the list after the first child; among them
    two delegations whose first child fails, and a child that writes under a read-only parent),
    beside agent_core.planning.Delegate, and compares the children's requests and the tool results
    they read back, their number of model calls, the files, and what the parent reads (an answer,
    or a failure that names the stop_reason or says the helper failed).
    """
    try:
        probe = make_delegate(mock.client(), [], system=CHILD_SYSTEM, max_turns=1, guardrails=[], max_depth=1)
    except Exception as error:  # the learner's code: report, don't crash the notebook
        return verdict(
            "12.2",
            [_("make_delegate(...) raised {error}: {message}", error=type(error).__name__, message=error)],
            "",
        )
    if not callable(probe) or getattr(probe, "__name__", getattr(probe, "name", "")) != "delegate":
        return verdict("12.2", [_("make_delegate should return the inner function, named delegate")], "")
    cases = delegate_scenarios()
    return judge_scenarios(
        "12.2",
        cases,
        lambda case: _compare(case, make_delegate),
        _describe_delegation,
        _(
            "fresh children with their own tools and turns, the parent's guards, bounded depth, "
            "clear failures."
        ),
        _shrink_delegation,
    )
