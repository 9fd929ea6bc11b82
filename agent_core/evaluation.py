"""Evaluating an agent: graders, a task suite run over seeds, pass rates with intervals (lesson 11).

The model is the caller's: evaluate() asks for one per attempt (the lesson's noisy mock: mock/noisy.py).
Beneath: `_evaluation_runs.py`, a Task, its Setup and one attempt run; `_evaluation_reports.py`, each
attempt and the figures as shown (table, plot, progress).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import openai

from ._browser import PlainTable
from ._evaluation_reports import (
    Attempt,
    Figures,
    Progress,
    bar_chart,
    mean,
    progress_for,
    rate,
    side_by_side,
    table_text,
)
from ._evaluation_runs import Grader, M, Model, Setup, Task, add, divide, multiply, run_attempt, subtract
from .coding._observations import pytest_report
from .coding.tiny_project import DISCOUNT_TASK, TinyProject
from .costs import Prices
from .guardrails import Limits, LoopDetector, VerifyBeforeDone
from .loop import AgentRun

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["Grader", "numbers_in", "final_number", "tool_names", "tool_sequence", "pytest_passed"]
__all__ += ["passes_tests"]
__all__ += ["Setup", "Task", "calculator_task", "discount_task", "task_suite", "Model", "evaluate"]
__all__ += ["Attempt", "Report", "wilson", "compare", "plot_pass_rates"]
__all__ += ["PRICES", "add", "subtract", "multiply", "divide"]

PRICES = Prices(input=5.00, output=25.00)  # dollars per million tokens: an example, not a quote


_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:,\d{3})*(?:\.\d+)?(?!\w)")


def numbers_in(text: str) -> list[float]:
    """the numbers written in a text, in order, as whole tokens: '16' holds no 6, '1,250' is 1250"""
    return [float(match.replace(",", "")) for match in _NUMBER.findall(text or "")]


def final_number(expected: float, tolerance: float = 1e-9) -> Grader:
    """the run answered (not stopped), and the last number of its answer is `expected`"""

    def grade(run: AgentRun) -> str | None:
        if run.stop_reason != "answered":
            return f"the run did not answer: it stopped with {run.stop_reason!r}"
        numbers = numbers_in(run.answer or "")
        if not numbers:
            return f"the answer has no number: {run.answer!r:.80}"
        if not math.isclose(numbers[-1], expected, rel_tol=tolerance, abs_tol=tolerance):
            return f"the answer ends with {numbers[-1]:g}, expected {expected:g}"
        return None

    return grade


def tool_names(run: AgentRun) -> list[str]:
    """the name of every tool call the model asked for in the run, in order (parallel calls in their order)"""
    calls = [c for m in run.messages if m["role"] == "assistant" for c in m.get("tool_calls") or []]
    return [c["function"]["name"] for c in calls]


def tool_sequence(expected: Sequence[str], max_calls: int | None = None) -> Grader:
    """the run called the tools in `expected` in that order (other calls may come between them),
    and made at most max_calls tool calls in all (default: exactly as many as expected)"""

    def grade(run: AgentRun) -> str | None:
        names = tool_names(run)
        limit = len(expected) if max_calls is None else max_calls
        if len(names) > limit:
            return f"{len(names)} tool calls, more than {limit}: {names}"
        remaining = iter(names)
        if not all(name in remaining for name in expected):  # `in` consumes the iterator: order counts
            return f"the tools called were {names}; expected {list(expected)} in that order"
        return None

    return grade


def pytest_passed(report: str) -> bool:
    """whether a pytest report (TinyProject.run_tests()'s answer) says the tests pass: exit code 0 and at
    least one test passed. "no tests ran" (exit code 5) is no pass, nor is code that does not import"""
    parsed = pytest_report(report)
    return parsed is not None and parsed.green and parsed.passed > 0


def passes_tests(project: TinyProject, untouched: Iterable[str] = ()) -> Grader:
    """after the run, the project's tests pass, and the files in `untouched` are as they were"""

    def grade(run: AgentRun) -> str | None:
        edited = [path for path in untouched if project.files.get(path) != project.original.get(path)]
        if edited:
            return f"the run changed {', '.join(edited)}, which it must not touch"
        report = project.run_tests()
        return None if pytest_passed(report) else "the tests do not pass: " + report.splitlines()[-1]

    return grade


# --- tasks: a prompt, and how to set up, guard and grade one attempt at it ------------------------


def calculator_task(name: str, prompt: str, expected: float, tools_in_order: Sequence[str]) -> Task:
    """an arithmetic task with the four calculator tools, graded on the number and the calls

    The trajectory may hold two calls more than the task needs (a mistake the model recovered from).
    Guardrails on: the loop detector, and a cap of two calls more than the task needs.
    """
    budget = len(tools_in_order) + 2

    def setup() -> Setup:
        graders = [final_number(expected), tool_sequence(tools_in_order, max_calls=budget)]
        guardrails = [LoopDetector(max_repeats=1), Limits(max_tool_calls=budget)]
        return Setup([add, subtract, multiply, divide], graders, guardrails)

    return Task(name, prompt, setup)


def discount_task() -> Task:
    """lesson 05's discount project: fix discount.py so the tests pass, without editing the tests

    Guardrails on: verify before done (the tests must pass) and a cap on tool calls. Not the loop
    detector: run_tests takes no arguments, so a good run repeats it exactly.
    """

    def setup() -> Setup:
        project = TinyProject()

        def check() -> tuple[bool, str]:  # the grader's reading of the report: they agree
            report = project.run_tests()
            return pytest_passed(report), report

        guardrails = [VerifyBeforeDone(check, max_rejections=2), Limits(max_tool_calls=8)]
        return Setup(project.tools, [passes_tests(project, untouched=["test_discount.py"])], guardrails)

    return Task("discount", DISCOUNT_TASK, setup)


def task_suite() -> list[Task]:
    """four calculator tasks and the discount fix"""
    return [
        calculator_task("4 + 2", "What is 4 + 2?", 6, ["add"]),
        calculator_task("5 + 8/12", "What is 5 + 8/12?", 5 + 8 / 12, ["divide", "add"]),
        calculator_task("(3 + 4)*2", "What is (3 + 4) * 2?", 14, ["add", "multiply"]),
        calculator_task("7 - 3*2", "What is 7 - 3 * 2?", 1, ["multiply", "subtract"]),
        discount_task(),
    ]


# --- running the suite: every task once per seed, each attempt graded --------------------------------


def evaluate(
    tasks: Sequence[Task],
    seeds: Iterable[int],
    model: Callable[[Task, int], M],
    client: Callable[[M], openai.OpenAI],
    *,
    guardrails: bool = False,
    max_turns: int = 10,
    prices: Prices = PRICES,
    label: str | None = None,
    progress: Progress | bool | None = None,
) -> Report:
    """every task once per seed, on model(task, seed) called through client(model); each attempt
    graded by all of its task's graders

    progress: called with a task's name and attempts when they are done; None picks a progress bar in
    a terminal and a line per task elsewhere (a notebook), False shows nothing.
    """
    tasks, seeds = list(tasks), list(seeds)
    if not tasks or not seeds:
        raise ValueError(
            f"evaluate() needs at least one task and one seed, got {len(tasks)} tasks and {len(seeds)} "
            "seeds: nothing would run, and a pass rate of nothing is not a number. Pass e.g. "
            "task_suite() and range(10)."
        )
    label = label or f"guardrails {'on' if guardrails else 'off'}, {len(tasks)} tasks x {len(seeds)} seeds"
    show = progress_for(progress, len(tasks))
    attempts: list[Attempt] = []
    for task in tasks:
        of_task = [run_attempt(task, seed, model, client, guardrails, max_turns, prices) for seed in seeds]
        attempts += of_task
        if show:
            show(task.name, of_task)
    return Report(label, tuple(attempts))


# --- the results: pass rates with intervals ------------------------------------------------------------


def wilson(passed: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """the Wilson score interval for a pass rate (95% for z=1.96); it stays inside [0, 1] and
    is not empty at 0/n or n/n, as the textbook p ± z·sqrt(p(1-p)/n) is. E. B. Wilson, 1927,
    "Probable inference, the law of succession, and statistical inference", JASA 22(158)."""
    if n == 0:
        return 0.0, 1.0
    p = passed / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True)
class Report:
    """every attempt of a run of the suite, and the figures drawn from them"""

    label: str
    attempts: tuple[Attempt, ...]

    def tasks(self) -> list[str]:
        """the tasks' names, in the order they ran"""
        return list(dict.fromkeys(a.task for a in self.attempts))

    def of(self, task: str | None = None) -> list[Attempt]:
        """the attempts at one task, or all of them"""
        return [a for a in self.attempts if task is None or a.task == task]

    def pass_rate(self, task: str | None = None) -> tuple[int, int]:
        """(passed, attempts), for one task or all"""
        attempts = self.of(task)
        return sum(a.passed for a in attempts), len(attempts)

    def failures(self) -> Counter[str]:
        """failed attempts by cause: the first thing the model did wrong"""
        return Counter(a.cause for a in self.attempts if not a.passed)

    def figures(self, task: str | None = None) -> Figures:
        """one task's (or all tasks') passes, 95% Wilson interval, and means per attempt"""
        attempts, (passed, n) = self.of(task), self.pass_rate(task)
        calls, tools = mean(a.model_calls for a in attempts), mean(a.tool_calls_made for a in attempts)
        tokens = mean(a.input_tokens + a.output_tokens for a in attempts)
        return Figures(
            task or "all", passed, n, *wilson(passed, n), calls, tools, tokens, mean(a.cost for a in attempts)
        )

    def table(self) -> str:
        """a line per task and one for all: passes, rate, interval, and the means per attempt"""
        return table_text(self.label, [self.figures(task) for task in [*self.tasks(), None]])

    def __str__(self) -> str:
        return self.table()


def compare(reports: Mapping[str, Report] | Sequence[Report]) -> str:
    """pass rate (with its interval), mean calls, tokens and cost per attempt, and the causes of
    failures, one column per report"""
    reports = _some(reports, "compare")
    every = [r.figures() for r in reports]
    rows = [
        ("passed", [f"{f.passed}/{f.n}" for f in every]),
        ("pass rate, 95% interval", [f"{rate(f.passed, f.n)} ({f.low:.0%}-{f.high:.0%})" for f in every]),
        ("model calls per attempt", [f"{f.calls:.1f}" for f in every]),
        ("tokens per attempt", [f"{f.tokens:,.0f}" for f in every]),
        ("cost per attempt", [f"${f.cost:.4f}" for f in every]),
    ]
    causes = sorted({c for r in reports for c in r.failures()}, key=lambda c: (c == "none", c))
    rows += [(f"failed, first fault {c}", [str(r.failures()[c]) for r in reports]) for c in causes]
    return side_by_side([r.label for r in reports], rows)


def plot_pass_rates(reports: Mapping[str, Report] | Sequence[Report], title: str = "") -> Figure | PlainTable:
    """a Figure: each task's pass rate per report, with its 95% Wilson interval as an error bar"""
    reports = _some(reports, "plot_pass_rates")
    tasks = list(dict.fromkeys(t for r in reports for t in r.tasks()))
    return bar_chart(tasks, [(r.label, [r.figures(t) for t in tasks]) for r in reports], title)


def _some(reports: Mapping[str, Report] | Sequence[Report], what: str) -> list[Report]:
    """the reports as a list; a clear error when there are none"""
    reports = list(reports.values()) if isinstance(reports, Mapping) else list(reports)
    if not reports:
        raise ValueError(
            f"{what}() needs at least one Report, got none: pass the reports evaluate() returned"
        )
    return reports
