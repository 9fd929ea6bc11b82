"""lesson 11: what one attempt runs with (a Task's Setup, the model evaluate() asks for), one attempt run
and graded (whatever raises fails it, not the evaluation), and the calculator tasks' four tools."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

import openai

from ._evaluation_reports import Attempt
from ._shared import safe_one_line
from .costs import Prices
from .dispatch import ToolRegistry
from .loop import AgentRun, Guardrail, run_agent

__all__ = ["Grader", "Setup", "Task", "Model", "M", "run_attempt", "add", "subtract", "multiply", "divide"]

Grader = Callable[[AgentRun], "str | None"]


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


class Model(Protocol):
    """the model of one attempt, as evaluate() reads it: the mistakes it made on purpose, in order
    (a seeded noisy mock knows them; a real model's wrapper says [])"""

    faults: list[str]


M = TypeVar("M", bound=Model)


def run_attempt(
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


# --- the calculator tasks' four tools ---------------------------------------------------------------


def add(a: float, b: float) -> float:
    """Add two numbers: a + b."""
    return a + b


def subtract(a: float, b: float) -> float:
    """Subtract b from a: a - b."""
    return a - b


def multiply(a: float, b: float) -> float:
    """Multiply two numbers: a * b."""
    return a * b


def divide(a: float, b: float) -> float:
    """Divide a by b: a / b."""
    return a / b


# --- graders: a run in, what is wrong with it out (None when nothing is) -------------------------
