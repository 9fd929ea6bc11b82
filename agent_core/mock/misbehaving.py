"""Mock models that misbehave on purpose: run away, repeat, act recklessly, claim done unchecked
(lesson 05)."""

from __future__ import annotations

from collections.abc import Sequence
from importlib import resources
from typing import Any

from .._shared import ERROR_PREFIX
from .policy import Policy, ReplyLike, ToolCall, call, tool_results, turn_index

__all__ = [
    "Runaway",
    "Repeater",
    "Reckless",
    "ClaimsDone",
    "skips_the_tests",
    "changes_the_test",
    "discount_versions",
]


class Runaway(Policy):
    """never finishes: on turn n it calls `name`(a=n, b=1), new arguments every turn

    heeds_errors=True: when a call comes back as an error, it stops and says so in text.
    """

    def __init__(self, name: str = "add", *, heeds_errors: bool = False):
        self.name, self.heeds_errors = name, heeds_errors

    def reply(self, request: dict[str, Any]) -> ReplyLike:
        error = _last_error(request)
        if self.heeds_errors and error is not None:
            return f"I stopped, because my last call was refused: {error}"
        return call(self.name, a=turn_index(request), b=1)


class Repeater(Policy):
    """stuck: asks for the same call on every turn, whatever comes back

    heeds_errors=True: when told off (a result that is an error), it answers with the last good result.
    """

    def __init__(self, tool_call: ToolCall, *, heeds_errors: bool = False):
        self.tool_call, self.heeds_errors = tool_call, heeds_errors

    def reply(self, request: dict[str, Any]) -> ReplyLike:
        if self.heeds_errors and _last_error(request) is not None:
            good = [r for r in _results_since_user(request).values() if not _is_error(r)]
            return f"The result is {good[-1]}." if good else "I could not get a result."
        return self.tool_call


class Reckless(Policy):
    """carries out its plan, one call per turn, whatever the results say; then reports each result"""

    def __init__(self, *steps: ToolCall):
        if not steps:
            raise ValueError("give Reckless at least one step, e.g. Reckless(mock.call('send_email', ...))")
        self.steps = steps

    def reply(self, request: dict[str, Any]) -> ReplyLike:
        step = turn_index(request)
        if step < len(self.steps):
            return self.steps[step]
        names = _call_names_since_user(request)
        lines = [f"- {names.get(i, '?')}: {result}" for i, result in _results_since_user(request).items()]
        return "Done. Here is what each step returned:\n" + "\n".join(lines)


class ClaimsDone(Policy):
    """does `work`, then says `claim` without checking anything

    Told that its answer was not accepted (a user message after its claim), it plays
    `after_rejection` once, one reply per turn; rejected again, it just repeats its claim.
    """

    def __init__(self, work: Sequence[ReplyLike], claim: str, after_rejection: Sequence[ReplyLike] = ()):
        self.work, self.claim, self.after_rejection = list(work), claim, list(after_rejection)

    def reply(self, request: dict[str, Any]) -> ReplyLike:
        rejections = _rejections(request)
        plan = [*self.work, self.claim] if rejections == 0 else self.after_rejection
        step = turn_index(request)
        return plan[step] if rejections <= 1 and step < len(plan) else self.claim


# --- the discount task, done badly in two ways coding agents are known for ------------------------------


def discount_versions() -> dict[str, str]:
    """the discount project's files as the scenarios need them

    "code" and "test" as shipped; "wrong_fix" moves the threshold to 99 (another test fails);
    "right_fix" uses >= instead of >; "edited_test" expects no discount at exactly 100.
    """
    # read as package data, not through agent_core.coding: the mock imports nothing of the coding agent
    project = resources.files("agent_core").joinpath("coding", "projects", "discount")
    code, test = (
        project.joinpath(name).read_text(encoding="utf-8") for name in ("discount.py", "test_discount.py")
    )
    return {
        "code": code,
        "test": test,
        "wrong_fix": code.replace("DISCOUNT_FROM = 100", "DISCOUNT_FROM = 99"),
        "right_fix": code.replace("total > DISCOUNT_FROM", "total >= DISCOUNT_FROM"),
        "edited_test": test.replace("is_member=True) == 90", "is_member=True) == 100"),
    }


def _proper_fix(right: str) -> list[ReplyLike]:
    return [
        call("run_tests"),
        call("read_file", path="discount.py"),
        call("write_file", path="discount.py", content=right),
        call("run_tests"),
        "Fixed: an order of exactly 100 now gets the member discount (>= instead of >). "
        "I ran the tests: all 4 pass.",
    ]


def skips_the_tests() -> ClaimsDone:
    """the discount task: reads, writes a wrong fix, claims success without running the tests"""
    versions = discount_versions()
    return ClaimsDone(
        work=[
            call("read_file", path="discount.py"),
            call("write_file", path="discount.py", content=versions["wrong_fix"]),
        ],
        claim="Fixed: members now get their discount from 100 euros.",
        after_rejection=_proper_fix(versions["right_fix"]),
    )


def changes_the_test() -> ClaimsDone:
    """the discount task: runs the tests, then edits the failing test so that it passes"""
    versions = discount_versions()
    return ClaimsDone(
        work=[
            call("run_tests"),
            call("write_file", path="test_discount.py", content=versions["edited_test"]),
        ],
        claim="The test expected the wrong value: an order of 100 gets no discount, so I corrected "
        "the test. The tests pass now.",
        after_rejection=_proper_fix(versions["right_fix"]),
    )


# --- reading a request -----------------------------------------------------------------------


def _since_user(request: dict[str, Any]) -> list[dict[str, Any]]:
    messages = request.get("messages", [])
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    return list(messages[last_user + 1 :])


def _call_names_since_user(request: dict[str, Any]) -> dict[str, str]:
    return {c["id"]: c["function"]["name"] for m in _since_user(request) for c in m.get("tool_calls") or []}


def _results_since_user(request: dict[str, Any]) -> dict[str, str]:
    """tool_call_id -> result text, in order, for the calls made since the latest user message"""
    results = tool_results(request)
    return {i: results[i] for i in _call_names_since_user(request) if i in results}


def _is_error(text: str) -> bool:
    return text.startswith(ERROR_PREFIX)


def _last_error(request: dict[str, Any]) -> str | None:
    """the text of the latest tool result if it is an error, else None"""
    messages = request.get("messages", [])
    if messages and messages[-1].get("role") == "tool":
        content = str(messages[-1].get("content") or "")
        return content if _is_error(content) else None
    return None


def _rejections(request: dict[str, Any]) -> int:
    """user messages that answer a final (text-only) assistant reply: the answer was not accepted"""
    messages = request.get("messages", [])
    return sum(
        1
        for before, message in zip(messages, messages[1:], strict=False)
        if message.get("role") == "user"
        and before.get("role") == "assistant"
        and not before.get("tool_calls")
    )
