"""lesson 07: one coding-agent run as the lesson reports it: the loop's run, the final diff, the verdict, and
what each guardrail caught."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..dispatch import ERROR_PREFIX
from ..guardrails import AnswerCheck, Permissions, VerifyBeforeDone
from ..loop import AgentRun, Guardrail
from ._verdict import TestRun
from .workspace import Workspace

__all__ = ["CodingRun", "caught_by"]


@dataclass
class CodingRun:
    """one coding-agent run: the loop's record, the workspace, the final diff and the verdict"""

    project: str
    workspace: Workspace
    run: AgentRun
    guardrails: list[Guardrail] = field(default_factory=list)
    diff: str = ""
    tests: TestRun | None = None  # None when the run was made with verdict=False

    @property
    def caught(self) -> dict[str, list[str]]:
        """what each guardrail caught, by class name (only the guardrails that caught something)"""
        found: dict[str, list[str]] = {}
        for guard in self.guardrails:
            items = caught_by(guard, self.run)
            if items:
                found.setdefault(type(guard).__name__, []).extend(items)
        if self.tests is not None and self.tests.ignored:  # guarded or not, the verdict says so
            found["project_tests"] = [f"left out of the verdict: {item}" for item in self.tests.ignored]
        return found


def caught_by(guard: Guardrail, run: AgentRun) -> list[str]:
    """what one guardrail caught in the run: the calls it refused (the run records which guardrail
    refused each), its failed checks, or the problems an AnswerCheck kept"""
    if isinstance(guard, AnswerCheck):
        return list(guard.caught)
    if isinstance(guard, VerifyBeforeDone):
        times = guard.rejections + (run.stop_reason == guard.reason)
        return [f"the tests failed when the model said it was done ({times}x)"] * (times > 0)
    paths = {
        call["id"]: Permissions.paths_in(call)
        for message in run.messages
        for call in message.get("tool_calls") or []
    }
    return [
        f"refused {o.name}"
        + (f" on {', '.join(paths[o.tool_call_id])}" if paths.get(o.tool_call_id) else "")
        + f": {o.content.removeprefix(ERROR_PREFIX)}"
        for o, refuser in run.refusals
        if refuser is guard
    ]
