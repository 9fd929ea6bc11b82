"""Evaluating an agent: graders, a task suite run over seeds, pass rates with intervals (lesson 11).

The model is the caller's: evaluate() asks for one per attempt (the lesson's noisy mock: mock/noisy.py).
Beneath: `_evaluation_reports.py`, the results (Attempt, Report, Wilson intervals, tables, the plot,
progress as it goes); `_calculator_tools.py`, the four tools of the calculator tasks.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

import openai

from ._calculator_tools import add, divide, multiply, subtract
from ._evaluation_reports import Attempt, Progress, Report, compare, plot_pass_rates, progress_for, wilson
from ._shared import safe_one_line
from .coding.tiny_project import DISCOUNT_TASK, TinyProject
from .costs import Prices
from .dispatch import ToolRegistry
from .guardrails import Limits, LoopDetector, VerifyBeforeDone
from .loop import AgentRun, Guardrail, run_agent

__all__ = ["Grader", "numbers_in", "final_number", "tool_names", "tool_sequence", "passes_tests"]
__all__ += ["Setup", "Task", "calculator_task", "discount_task", "task_suite", "Model", "evaluate"]
__all__ += ["Attempt", "Report", "wilson", "compare", "plot_pass_rates"]
__all__ += ["PRICES", "add", "subtract", "multiply", "divide"]

PRICES = Prices(input=5.00, output=25.00)  # dollars per million tokens: an example, not a quote


# --- graders: a run in, what is wrong with it out (None when nothing is) -------------------------

Grader = Callable[[AgentRun], "str | None"]

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


def passes_tests(project: TinyProject, untouched: Iterable[str] = ()) -> Grader:
    """after the run, the project's tests pass, and the files in `untouched` are as they were"""

    def grade(run: AgentRun) -> str | None:
        edited = [path for path in untouched if project.files.get(path) != project.original.get(path)]
        if edited:
            return f"the run changed {', '.join(edited)}, which it must not touch"
        report = project.run_tests()
        if "FAILED" in report or "ERROR" in report or "passed" not in report:
            return "the tests do not pass: " + report.splitlines()[-1]
        return None

    return grade


# --- tasks: a prompt, and how to set up, guard and grade one attempt at it ------------------------


@dataclass
class Setup:
    """what one attempt at a task runs with, made fresh for every attempt"""

    tools: ToolRegistry | list[Callable[..., Any]]
    graders: list[Grader]
    guardrails: list[Guardrail] = field(default_factory=list)
    """what "guardrails on" adds for this task"""


@dataclass(frozen=True)
class Task:
    """a prompt, and how to set up, guard and grade one attempt at it"""

    name: str
    prompt: str
    setup: Callable[[], Setup]


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

        def check() -> tuple[bool, str]:
            report = project.run_tests()
            return "FAILED" not in report and "ERROR" not in report, report

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


class Model(Protocol):
    """the model of one attempt, as evaluate() reads it: the mistakes it made on purpose, in order
    (a seeded noisy mock knows them; a real model's wrapper says [])"""

    faults: list[str]


M = TypeVar("M", bound=Model)


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
        of_task = [_attempt(task, seed, model, client, guardrails, max_turns, prices) for seed in seeds]
        attempts += of_task
        if show:
            show(task.name, of_task)
    return Report(label, tuple(attempts))


def _attempt(
    task: Task,
    seed: int,
    make_model: Callable[[Task, int], M],
    client: Callable[[M], openai.OpenAI],
    guardrails: bool,
    max_turns: int,
    prices: Prices,
) -> Attempt:
    """one graded attempt; whatever raises inside it (the task's setup, its model, a tool, a
    guardrail, a check) fails this attempt with the error, and the evaluation goes on"""
    model, stage = None, "setting up the task"
    try:
        setup = task.setup()
        stage = "making the model"
        model = make_model(task, seed)
        stage = "the run"
        guards = setup.guardrails if guardrails else []
        run = run_agent(client(model), task.prompt, setup.tools, guardrails=guards, max_turns=max_turns)
        stage = "grading"
        problems = tuple(str(p) for p in (_grade(grader, run) for grader in setup.graders) if p)
        return Attempt.graded(task.name, seed, run, problems, tuple(model.faults), prices)
    except Exception as error:
        text = f"{stage} raised {type(error).__name__}: {safe_one_line(error)}"
        faults = tuple(model.faults) if model else ()
        return Attempt(task.name, seed, False, (text,), faults, stop_reason="error", error=text)


def _grade(grader: Grader, run: AgentRun) -> str | None:
    """a broken grader fails the attempt, with the reason, instead of the evaluation"""
    try:
        return grader(run)
    except Exception as error:
        return f"the grader raised {type(error).__name__}: {safe_one_line(error)}"
