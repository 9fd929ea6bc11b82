"""lesson 11: an evaluation's results: each attempt, a report of them with pass rates and Wilson intervals,
the table, reports side by side, the plot, progress lines."""

from __future__ import annotations

import math
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from ._browser import PlainTable
from ._stop_reasons import StopReason
from .context import token_ledger
from .costs import Prices, run_cost
from .loop import AgentRun

if TYPE_CHECKING:
    from matplotlib.figure import Figure

Progress = Callable[[str, "list[Attempt]"], None]  # a task's name and its attempts, once they are done

__all__ = ["Attempt", "Report", "wilson", "compare", "plot_pass_rates", "TextProgress", "RichProgress"]
__all__ += ["progress_for"]


@dataclass(frozen=True)
class Attempt:
    """one task, one seed: whether every grader passed, what they said, and what the run cost"""

    task: str
    seed: int
    passed: bool
    problems: tuple[str, ...]
    faults: tuple[str, ...]  # what the model did wrong on purpose (a noisy mock says), in order
    stop_reason: StopReason
    model_calls: int = 0
    tool_calls_made: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float = 0.0
    error: str | None = None
    """what went wrong when the attempt itself broke (a model, tool, guardrail or check raised); it failed"""

    @property
    def cause(self) -> str:
        """where a failure comes from: "error" when the attempt broke, else the first misbehaviour,
        or "none" when the model did nothing wrong"""
        if self.error is not None:
            return "error"
        return self.faults[0] if self.faults else "none"

    @classmethod
    def graded(
        cls,
        task: str,
        seed: int,
        run: AgentRun,
        problems: tuple[str, ...],
        faults: tuple[str, ...],
        prices: Prices,
    ) -> Attempt:
        """a finished run's attempt: passed when no grader found a problem; tokens and cost from its ledger"""
        ledger = token_ledger(run)
        return cls(
            task,
            seed,
            passed=not problems,
            problems=problems,
            faults=faults,
            stop_reason=cast(StopReason, run.stop_reason),
            model_calls=run.model_calls,
            tool_calls_made=run.tool_calls_made,
            input_tokens=ledger.total_input,
            output_tokens=ledger.total_output,
            cost=run_cost(ledger, prices),
        )


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

    def table(self) -> str:
        """a line per task and one for all: passes, rate, interval, and the means per attempt"""
        head = f"{'task':<12} {'passed':>7} {'rate':>5} {'95% interval':>13} {'calls':>6} {'tools':>6} "
        lines = [self.label, head + f"{'tokens':>7} {'cost':>8}"]
        for task in [*self.tasks(), None]:
            attempts = self.of(task)
            passed, n = self.pass_rate(task)
            low, high = wilson(passed, n)
            lines.append(
                f"{task or 'all':<12} {passed:>3}/{n:<3} {_rate(passed, n):>5} "
                f"{f'{low:.0%} - {high:.0%}':>13} "
                f"{_mean(a.model_calls for a in attempts):>6.1f} "
                f"{_mean(a.tool_calls_made for a in attempts):>6.1f} "
                f"{_mean(a.input_tokens + a.output_tokens for a in attempts):>7,.0f} "
                f"${_mean(a.cost for a in attempts):>7.4f}"
            )
        lines.append("calls, tools, tokens and cost are means per attempt")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()


def _rate(passed: int, n: int) -> str:
    return f"{passed / n:.0%}" if n else "-"


def _mean(values: Iterable[float]) -> float:
    values = list(values)
    return sum(values) / len(values) if values else 0.0


def compare(reports: Mapping[str, Report] | Sequence[Report]) -> str:
    """pass rate (with its interval), mean calls, tokens and cost per attempt, and the causes of
    failures, one column per report"""
    reports = _some(reports, "compare")
    figures: dict[str, Callable[[Report], str]] = {
        "passed": lambda r: "{}/{}".format(*r.pass_rate()),
        "pass rate, 95% interval": lambda r: f"{_rate(*r.pass_rate())} ({_interval(r)})",
        "model calls per attempt": lambda r: f"{_mean(a.model_calls for a in r.attempts):.1f}",
        "tokens per attempt": lambda r: f"{_mean(a.input_tokens + a.output_tokens for a in r.attempts):,.0f}",
        "cost per attempt": lambda r: f"${_mean(a.cost for a in r.attempts):.4f}",
    }
    rows = [(name, [figure(r) for r in reports]) for name, figure in figures.items()]
    causes = sorted({c for r in reports for c in r.failures()}, key=lambda c: (c == "none", c))
    rows += [(f"failed, first fault {c}", [str(r.failures()[c]) for r in reports]) for c in causes]
    first, width = max(len(name) for name, _ in rows), max(14, *(len(r.label) for r in reports))
    lines = [f"{'':<{first}} " + " ".join(f"{r.label:>{width}}" for r in reports)]
    lines += [f"{name:<{first}} " + " ".join(f"{v:>{width}}" for v in values) for name, values in rows]
    return "\n".join(lines)


def _some(reports: Mapping[str, Report] | Sequence[Report], what: str) -> list[Report]:
    """the reports as a list; a clear error when there are none"""
    reports = list(reports.values()) if isinstance(reports, Mapping) else list(reports)
    if not reports:
        raise ValueError(
            f"{what}() needs at least one Report, got none: pass the reports evaluate() returned"
        )
    return reports


def _interval(report: Report) -> str:
    low, high = wilson(*report.pass_rate())
    return f"{low:.0%}-{high:.0%}"


def plot_pass_rates(reports: Mapping[str, Report] | Sequence[Report], title: str = "") -> Figure | PlainTable:
    """a Figure: each task's pass rate per report, with its 95% Wilson interval as an error bar

    Fixed size and dpi, closed in pyplot (shown once where it is displayed), as plot_ledgers.
    """
    reports = _some(reports, "plot_pass_rates")
    tasks = list(dict.fromkeys(t for r in reports for t in r.tasks()))
    try:
        import matplotlib.pyplot as plt
    except ImportError:  # the browser edition has no matplotlib: the same numbers, as a table
        rows = [
            (r.label, t, "{}/{}".format(*r.pass_rate(t)), "{:.0%}-{:.0%}".format(*wilson(*r.pass_rate(t))))
            for r in reports
            for t in tasks
        ]
        return PlainTable(title, ["report", "task", "passed", "95% interval"], rows)
    figure, axes = plt.subplots(figsize=(9, 3.2), dpi=100, layout="constrained")
    plt.close(figure)
    width = 0.8 / len(reports)
    for i, report in enumerate(reports):
        rates, below, above = [], [], []
        for task in tasks:
            passed, n = report.pass_rate(task)
            low, high = wilson(passed, n)
            rates.append(passed / n if n else 0.0)
            below.append(rates[-1] - low)
            above.append(high - rates[-1])
        positions = [t + (i - (len(reports) - 1) / 2) * width for t in range(len(tasks))]
        axes.bar(positions, rates, width, yerr=[below, above], capsize=3, label=report.label)
    axes.set_xticks(range(len(tasks)), tasks)
    axes.set_ylim(0, 1.05)
    axes.set_ylabel("pass rate")
    axes.yaxis.set_major_formatter("{x:.0%}")
    axes.grid(axis="y", alpha=0.3)
    axes.legend(fontsize=8, loc="lower right")
    if title:
        axes.set_title(title, fontsize=11)
    return figure


class TextProgress:
    """plain lines, one per task when its attempts are done: the same text on every run (notebooks, logs)"""

    def __init__(self, print: Callable[..., None] = print) -> None:
        self.print = print

    def __call__(self, task: str, attempts: list[Attempt]) -> None:
        marks = "".join("." if a.passed else "F" for a in attempts)
        passed = sum(a.passed for a in attempts)
        self.print(f"{task:<12} {marks}  {passed}/{len(attempts)} passed")


class RichProgress:
    """a rich progress bar in the terminal, advanced once per task; it stops after the last one"""

    def __init__(self, tasks: int, console: Any = None) -> None:
        from rich.progress import Progress

        self.bar = Progress(console=console)
        self.bar.start()
        self.job, self.tasks, self.done = self.bar.add_task("evaluating", total=tasks), tasks, 0

    def __call__(self, task: str, attempts: list[Attempt]) -> None:
        passed = sum(a.passed for a in attempts)
        self.bar.update(self.job, advance=1, description=f"{task}: {passed}/{len(attempts)} passed")
        self.done += 1
        if self.done == self.tasks:
            self.close()

    def close(self) -> None:
        self.bar.stop()


def progress_for(progress: Progress | bool | None, tasks: int) -> Progress | None:
    """what shows evaluate()'s progress: the callable given; for None RichProgress in a terminal and
    TextProgress elsewhere (a notebook); for False nothing"""
    if progress is None:
        return RichProgress(tasks) if sys.stdout.isatty() else TextProgress()
    return progress if callable(progress) else None
