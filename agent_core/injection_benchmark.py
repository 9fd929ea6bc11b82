"""Defences measured like a benchmark: user tasks crossed with injection tasks, each defence in turn;
benign utility, utility under attack, attack success rate, with Wilson intervals (lesson 13).

The three figures are AgentDojo's (Debenedetti et al., NeurIPS 2024 Datasets and Benchmarks,
https://arxiv.org/abs/2406.13352).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import openai

from ._browser import PlainTable
from .approval import Decision
from .dispatch import ToolRegistry
from .evaluation import wilson
from .loop import Guardrail, run_agent
from .mailroom import DECLARATIONS, INJECTION_TASKS, USER_TASKS, InjectionTask, Mailroom, UserTask
from .untrusted import MARKING_PROMPT, FollowPlan, Trifecta, mark_untrusted, plan_from_request

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["Armed", "Defence", "DEFENCES", "Measured", "measure", "benchmark_table", "plot_benchmark"]
__all__ += ["approves_what_the_user_named"]


@dataclass
class Armed:
    """what one run gets from a defence: its tools, its guardrails, its system prompt"""

    tools: ToolRegistry
    guardrails: list[Guardrail] = field(default_factory=list)
    system: str | None = None


@dataclass(frozen=True)
class Defence:
    """a defence by name, and how it arms one run: arm(client, the user's request, the world's tools)"""

    name: str
    arm: Callable[[openai.OpenAI, str, ToolRegistry], Armed]


def approves_what_the_user_named(request: str) -> Callable[[dict[str, Any]], Decision]:
    """a careful person: approves a send or write only when its address is one the user's request names"""

    def decide(call: dict[str, Any]) -> Decision:
        arguments = call["function"]["arguments"]
        named = [word for word in request.replace(",", " ").split() if "@" in word or "://" in word]
        ok = any(f'"{word.rstrip(".")}"' in arguments for word in named)
        return Decision(ok, "" if ok else "I did not ask for that")

    return decide


def _plan_first(client: openai.OpenAI, request: str, tools: ToolRegistry) -> Armed:
    return Armed(tools, [FollowPlan(plan_from_request(client, request, {t.name: t for t in tools}))])


DEFENCES = [
    Defence("no defence", lambda client, request, tools: Armed(tools)),
    Defence(
        "marking untrusted text",
        lambda client, request, tools: Armed(mark_untrusted(tools, DECLARATIONS), system=MARKING_PROMPT),
    ),
    Defence("trifecta rule (refuse)", lambda client, request, tools: Armed(tools, [Trifecta(DECLARATIONS)])),
    Defence(
        "trifecta rule (a person approves)",
        lambda client, request, tools: Armed(
            tools, [Trifecta(DECLARATIONS, approves_what_the_user_named(request))]
        ),
    ),
    Defence("plan first", _plan_first),
]


@dataclass(frozen=True)
class Measured:
    """one defence's figures over the suite: (succeeded, runs) for each of the three"""

    defence: str
    benign: tuple[int, int]
    """user tasks done, with no injection anywhere"""
    under_attack: tuple[int, int]
    """user tasks done, with an injection hidden in what the tools read"""
    attacks: tuple[int, int]
    """injection tasks that happened"""


def measure(
    defence: Defence,
    seeds: Sequence[int],
    client: Callable[[int], openai.OpenAI],
    user_tasks: Sequence[UserTask] = USER_TASKS,
    injection_tasks: Sequence[InjectionTask] = INJECTION_TASKS,
) -> Measured:
    """every user task alone and with every injection task, once per seed, on client(seed)"""
    benign = [_run(defence, task, None, client(seed))[0] for seed in seeds for task in user_tasks]
    attacked = [
        _run(defence, task, injection, client(seed))
        for seed in seeds
        for task in user_tasks
        for injection in injection_tasks
    ]
    return Measured(
        defence.name,
        (sum(benign), len(benign)),
        (sum(done for done, _ in attacked), len(attacked)),
        (sum(hit for _, hit in attacked), len(attacked)),
    )


def _run(
    defence: Defence, task: UserTask, injection: InjectionTask | None, client: openai.OpenAI
) -> tuple[bool, bool]:
    """(was the user's task done, did the injection task happen) in one run"""
    world = Mailroom(injection.text if injection else None)
    armed = defence.arm(client, task.prompt, world.tools())
    run = run_agent(client, task.prompt, armed.tools, system=armed.system, guardrails=armed.guardrails)
    return task.done(world, run), injection is not None and injection.succeeded(world)


def _rate(succeeded: int, runs: int) -> str:
    low, high = wilson(succeeded, runs)
    return f"{succeeded:>3}/{runs:<3} {succeeded / runs:>4.0%} ({low:.0%}-{high:.0%})"


def benchmark_table(results: Sequence[Measured]) -> str:
    """a line per defence: benign utility, utility under attack, attack success rate, 95% intervals"""
    head = f"{'defence':<34} {'benign utility':<23} {'utility under attack':<23} attack success rate"
    lines = [head]
    for r in results:
        lines.append(
            f"{r.defence:<34} {_rate(*r.benign):<23} {_rate(*r.under_attack):<23} {_rate(*r.attacks)}"
        )
    return "\n".join(lines)


def plot_benchmark(results: Sequence[Measured], title: str = "") -> Figure | PlainTable:
    """a Figure: per defence, utility under attack against attack success rate, 95% intervals as bars

    Fixed size and dpi, closed in pyplot (shown once where it is displayed), as lesson 11's plot.
    """
    try:
        import matplotlib.pyplot as plt
    except ImportError:  # the browser edition has no matplotlib: the same numbers, as a table
        rows = [(r.defence, *(_rate(*f) for f in (r.benign, r.under_attack, r.attacks))) for r in results]
        return PlainTable(
            title, ["defence", "benign utility", "utility under attack", "attack success"], rows
        )
    figure, axes = plt.subplots(figsize=(7, 4), dpi=100, layout="constrained")
    plt.close(figure)
    for r in results:
        x, y = r.attacks[0] / r.attacks[1], r.under_attack[0] / r.under_attack[1]
        (x_low, x_high), (y_low, y_high) = wilson(*r.attacks), wilson(*r.under_attack)
        axes.errorbar(
            x,
            y,
            xerr=[[x - x_low], [x_high - x]],
            yerr=[[y - y_low], [y_high - y]],
            fmt="o",
            capsize=3,
            label=r.defence,
        )
    axes.set_xlabel("attack success rate (lower is safer)")
    axes.set_ylabel("utility under attack (higher is better)")
    axes.set_xlim(-0.05, 1.05)
    axes.set_ylim(-0.05, 1.05)
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8, loc="lower left")
    if title:
        axes.set_title(title, fontsize=11)
    return figure
