"""lesson 11: an evaluation's results as they are shown: each attempt, a report's figures as a table, reports
side by side, the plot, progress lines (evaluation.py computes the figures: pass rates, Wilson intervals)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
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

__all__ = ["Attempt", "Figures", "rate", "mean", "table_text", "side_by_side", "bar_chart"]
__all__ += ["TextProgress", "RichProgress", "progress_for"]


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


@dataclass(frozen=True)
class Figures:
    """a line of a report's table: a task's (or every task's) passes, 95% interval and means per attempt"""

    name: str
    passed: int
    n: int
    low: float
    high: float
    calls: float
    tools: float
    tokens: float
    cost: float


def rate(passed: int, n: int) -> str:
    """a pass rate as a percentage; "-" when nothing ran"""
    return f"{passed / n:.0%}" if n else "-"


def mean(values: Iterable[float]) -> float:
    values = list(values)
    return sum(values) / len(values) if values else 0.0


def table_text(label: str, rows: list[Figures]) -> str:
    """the label, a header, then a line per row: passes, rate, interval, and the means per attempt"""
    head = f"{'task':<12} {'passed':>7} {'rate':>5} {'95% interval':>13} {'calls':>6} {'tools':>6} "
    lines = [label, head + f"{'tokens':>7} {'cost':>8}"]
    for row in rows:
        lines.append(
            f"{row.name:<12} {row.passed:>3}/{row.n:<3} {rate(row.passed, row.n):>5} "
            f"{f'{row.low:.0%} - {row.high:.0%}':>13} "
            f"{row.calls:>6.1f} {row.tools:>6.1f} {row.tokens:>7,.0f} ${row.cost:>7.4f}"
        )
    lines.append("calls, tools, tokens and cost are means per attempt")
    return "\n".join(lines)


def side_by_side(labels: list[str], rows: list[tuple[str, list[str]]]) -> str:
    """a column per label, a line per (name, values)"""
    first, width = max(len(name) for name, _ in rows), max(14, *(len(label) for label in labels))
    lines = [f"{'':<{first}} " + " ".join(f"{label:>{width}}" for label in labels)]
    lines += [f"{name:<{first}} " + " ".join(f"{v:>{width}}" for v in values) for name, values in rows]
    return "\n".join(lines)


def bar_chart(
    tasks: list[str], bars: list[tuple[str, list[Figures]]], title: str = ""
) -> Figure | PlainTable:
    """a Figure: each task's pass rate per (label, its figures per task), its interval as an error bar

    Fixed size and dpi, closed in pyplot (shown once where it is displayed), as plot_ledgers.
    """
    try:
        import matplotlib.pyplot as plt
    except ImportError:  # the browser edition has no matplotlib: the same numbers, as a table
        rows = [
            (label, f.name, f"{f.passed}/{f.n}", f"{f.low:.0%}-{f.high:.0%}")
            for label, figures in bars
            for f in figures
        ]
        return PlainTable(title, ["report", "task", "passed", "95% interval"], rows)
    figure, axes = plt.subplots(figsize=(9, 3.2), dpi=100, layout="constrained")
    plt.close(figure)
    width = 0.8 / len(bars)
    for i, (label, figures) in enumerate(bars):
        rates = [f.passed / f.n if f.n else 0.0 for f in figures]
        below = [rate - f.low for rate, f in zip(rates, figures, strict=True)]
        above = [f.high - rate for rate, f in zip(rates, figures, strict=True)]
        positions = [t + (i - (len(bars) - 1) / 2) * width for t in range(len(tasks))]
        axes.bar(positions, rates, width, yerr=[below, above], capsize=3, label=label)
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
