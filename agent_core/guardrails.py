"""Guardrails: limits, loop detection, permissions and verify-before-done (lesson 05).

Beneath it: `approval.py` holds human approval (its names are here too); `_guard_calls.py` reads a
tool call as the guardrails do: its arguments, one readable line, the same call again.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Any, NoReturn

from ._guard_calls import call_paths, describe_call, matching_pattern, times_asked, times_text
from ._stop_reasons import StopReason
from .approval import Approval, Decider, Decision, TerminalApproval, resume
from .loop import AgentRun, Guardrail, StopRun

__all__ = ["Limits", "LoopDetector", "Permissions", "RejectThenStop", "VerifyBeforeDone", "AnswerCheck"]
__all__ += ["WRITING_TOOLS"]
__all__ += ["Decision", "Decider", "Approval", "TerminalApproval", "resume", "describe_call"]

WRITING_TOOLS = ("write_file", "edit_file", "delete_file", "run_command")
"""the course's tools that change things (lesson 05's project and lesson 07's workspace): Permissions'
default writing_tools. A name no agent is given costs nothing; a writing tool left out runs unchecked."""


@dataclass(eq=False)
class Limits(Guardrail):
    """the run's budgets in one place; the first one reached stops the run with an honest answer

    A field left at None is not checked. Budgets count per run_agent call.
    """

    max_turns: int | None = None
    """model calls. run_agent's own max_turns (default 10) applies too: the lower one wins."""
    max_tool_calls: int | None = None
    """tool calls the model asks for, refused ones included; the call past the limit is not run."""
    max_seconds: float | None = None
    """wall-clock seconds for the whole run, checked before every model call and tool call. One
    slow tool is cut short by the dispatcher instead: ToolRegistry(tools, timeout=...)."""
    max_tokens: int | None = None
    """prompt + completion tokens over every model call, including calls whose reply was then
    refused or rejected: they were paid for. Checked before each model call, so the call that
    crosses the budget is the last one."""
    tokens_used: int = field(default=0, init=False)
    """tokens counted so far in the current run"""

    def start(self, run: AgentRun) -> None:
        self.tokens_used = 0  # a new run: its budgets start from zero

    def before_model(self, run: AgentRun) -> None:
        if self.max_turns is not None and run.model_calls >= self.max_turns:
            self._stop("max_turns", f"{run.model_calls} model calls (max_turns={self.max_turns})")
        if self.max_tokens is not None and self.tokens_used >= self.max_tokens:
            self._stop(
                "max_tokens",
                f"using {self.tokens_used:,} tokens in {run.model_calls} model calls "
                f"(max_tokens={self.max_tokens:,})",
            )
        self._check_time(run)

    def after_model(self, run: AgentRun, message: dict[str, Any], usage: Any) -> None:
        self.tokens_used += usage.total_tokens if usage is not None else 0  # the SDK's CompletionUsage

    def before_tool(self, run: AgentRun, call: dict[str, Any]) -> str | None:
        if self.max_tool_calls is not None and run.tool_calls_made > self.max_tool_calls:
            self._stop(
                "max_tool_calls",
                f"{self.max_tool_calls} tool calls (max_tool_calls={self.max_tool_calls})",
            )
        self._check_time(run)
        return None

    def _check_time(self, run: AgentRun) -> None:
        if self.max_seconds is not None and run.elapsed > self.max_seconds:
            self._stop(
                "max_seconds",
                f"running for more than {self.max_seconds:g} seconds (max_seconds={self.max_seconds:g})",
            )

    @staticmethod
    def _stop(reason: StopReason, after: str) -> NoReturn:
        raise StopRun(
            reason,
            f"I stopped after {after} without finishing the task. The work so far is in the messages.",
        )


class LoopDetector(Guardrail):
    """the same call (name and arguments) again and again: first feedback to the model, then a stop

    A call may run `max_repeats` times. The next identical call is answered with feedback instead of
    running; one more after that ends the run with stop_reason "repeated_call". It keeps no state:
    it counts the calls in the run's own messages.
    """

    def __init__(self, max_repeats: int = 2):
        if max_repeats < 1:
            raise ValueError(f"max_repeats must be at least 1, got {max_repeats}")
        self.max_repeats = max_repeats

    def before_tool(self, run: AgentRun, call: dict[str, Any]) -> str | None:
        times = self.times_asked(run, call)
        if times <= self.max_repeats:
            return None
        if times == self.max_repeats + 1:
            return (
                f"you already called {call['function']['name']} with exactly these arguments "
                f"{times_text(self.max_repeats)}, and the result will not change. Use the result you "
                "have, or try something different."
            )
        raise StopRun(
            "repeated_call",
            f"I stopped because I kept asking for the same call, {describe_call(call)}, "
            f"{times} times, even after being told it would not help. The work so far is in the "
            "messages.",
        )

    @staticmethod
    def times_asked(run: AgentRun, call: dict[str, Any]) -> int:
        """how many times this run's messages ask for this exact call, up to and including it"""
        return times_asked(run.messages, call)  # arguments compared as JSON values; ids not trusted


@dataclass
class Permissions(Guardrail):
    """which tools may run: allow and deny lists, a read-only mode and protected paths

    A refusal goes back to the model as the call's observation; the run goes on. Better still,
    do not offer a tool the model must never use: Permissions is for tools it may use sometimes.
    """

    allow: Collection[str] | None = None
    """only these tools may run; None allows every tool"""
    deny: Collection[str] = ()
    """these tools never run"""
    read_only: bool = False
    """refuse every tool named in writing_tools"""
    protected: Sequence[str] = ()
    """glob patterns of paths that writing tools must not touch, matched against arguments named
    like a path ("path", "file", "filename"...). A pattern without "/" matches the file name in any folder
    ("test_*.py"); one with "/" matches from the project root ("tests/*")."""
    writing_tools: Collection[str] = WRITING_TOOLS
    """the names of the tools that change things (files, mail, money): read_only refuses them, and
    protected paths are checked on their arguments"""

    def before_tool(self, run: AgentRun, call: dict[str, Any]) -> str | None:
        name = call["function"]["name"]
        if name in self.deny:
            return (
                f"the tool {name!r} is not allowed in this run. Do the task without it, or say that you "
                "cannot."
            )
        if self.allow is not None and name not in self.allow:
            allowed = ", ".join(sorted(self.allow)) or "none"
            return f"the tool {name!r} is not allowed in this run; the allowed tools are: {allowed}."
        if name not in self.writing_tools:
            return None
        if self.read_only:
            return (
                f"this run is read-only and {name!r} changes things, so it was not run. Read and "
                "report instead: say in your answer what you would change."
            )
        for path in self.paths_in(call):
            pattern = self.protecting(path)
            if pattern is not None:
                return (
                    f"{path!r} is protected (it matches {pattern!r}) and must not be changed. "
                    "Change something else; if the task really needs this file changed, say so "
                    "in your answer."
                )
        return None

    @staticmethod
    def paths_in(call: dict[str, Any]) -> list[str]:
        """the path-like arguments of a call, normalised ("./a/../b.py" -> "b.py")"""
        return call_paths(call)

    def protecting(self, path: str) -> str | None:
        """the first protected pattern this path matches, or None"""
        return matching_pattern(path, self.protected)


class RejectThenStop(Guardrail):
    """a judge of final answers: it rejects an answer (its feedback goes back to the model) at most
    `max_rejections` times in a run; the next failure stops the run with stop_reason `reason`"""

    reason: StopReason = "rejected"

    def __init__(self, max_rejections: int):
        self.max_rejections = max_rejections
        self.rejections = 0
        """answers rejected in the current run"""

    def start(self, run: AgentRun) -> None:
        self.rejections = 0

    def reject(self, feedback: str, stop_message: str) -> str:
        """the feedback to send back, or StopRun(reason, stop_message) once the model had its chances"""
        if self.rejections >= self.max_rejections:
            raise StopRun(self.reason, stop_message)
        self.rejections += 1
        return feedback

    def failed(self, report: str) -> str:
        """reject an answer whose check failed with this report"""
        return self.reject(
            f"Your answer was not accepted: the check failed, so the task is not done yet.\n"
            f"{report}\nFix the problem, check your work, then answer again.",
            f"I stopped: my answer was rejected {times_text(self.rejections)} and the check still "
            f"fails, so the task is not done. The last report:\n{report}",
        )


class VerifyBeforeDone(RejectThenStop):
    """when the model says it has finished, run a check; a failure goes back to it and the loop goes on

    check() -> (ok, report), e.g. running the tests: it looks at the world, not at the model's
    words. "Done" is decided by the check, not by the model. After `max_rejections` rejected
    answers, one more failure stops the run (stop_reason "not_verified").
    """

    reason: StopReason = "not_verified"

    def __init__(self, check: Callable[[], tuple[bool, str]], max_rejections: int = 3):
        super().__init__(max_rejections)
        self.check = check

    def check_answer(self, run: AgentRun, answer: str) -> str | None:
        ok, report = self.check()
        return None if ok else self.failed(report)


class AnswerCheck(RejectThenStop):
    """VerifyBeforeDone for a check of the model's words: check(answer) -> (ok, report)

    After `max_rejections` rejected answers, one more failure stops the run (stop_reason `reason`).
    A check that reads the run too (what the model was shown, the diff) overrides problems(); what
    every check found in the current run is kept in `caught`.
    """

    def __init__(self, check: Callable[[str], tuple[bool, str]] | None = None, max_rejections: int = 3):
        super().__init__(max_rejections)
        if check is None and type(self).problems is AnswerCheck.problems:
            raise TypeError("AnswerCheck needs check(answer) -> (ok, report), or a subclass with problems()")
        self.check = check
        self.caught: list[str] = []
        """every problem found in this run's answers, in order"""

    def start(self, run: AgentRun) -> None:
        super().start(run)
        self.caught = []

    def problems(self, run: AgentRun, answer: str) -> list[str]:
        """what is wrong with this answer ([] if nothing): the check's report when it fails"""
        assert self.check is not None  # __init__ made sure
        ok, report = self.check(answer)
        return [] if ok else [report]

    def check_answer(self, run: AgentRun, answer: str) -> str | None:
        problems = self.problems(run, answer)
        if not problems:
            return None
        self.caught += problems
        return self.rejected(problems)

    def rejected(self, problems: list[str]) -> str:
        """the feedback on these problems, or the stop once the model had its chances"""
        return self.failed(problems[0])
