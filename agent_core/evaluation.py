"""Evaluating an agent: seeded noisy models, a task suite, graders, pass rates with intervals (lesson 11)."""

from __future__ import annotations

import json
import math
import random
import re
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from . import mock
from ._browser import PlainTable
from .coding.tiny_project import DISCOUNT_TASK, TinyProject
from .context import token_ledger
from .costs import Prices, run_cost
from .dispatch import ToolRegistry
from .guardrails import Limits, LoopDetector, VerifyBeforeDone
from .loop import AgentRun, Guardrail, run_agent
from .mock.misbehaving import ClaimsDone, discount_versions
from .mock.policy import Policy, PolicyLike, Reply, ToolCall, as_policy, call, offered_tools

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "Noise",
    "Noisy",
    "Grader",
    "Setup",
    "Task",
    "Attempt",
    "Report",
    "final_number",
    "tool_sequence",
    "passes_tests",
    "numbers_in",
    "tool_names",
    "wilson",
    "calculator_task",
    "discount_task",
    "task_suite",
    "evaluate",
    "compare",
    "plot_pass_rates",
    "TextProgress",
    "RichProgress",
    "PRICES",
    "add",
    "subtract",
    "multiply",
    "divide",
]

PRICES = Prices(input=5.00, output=25.00)  # dollars per million tokens: an example, not a quote
MISBEHAVIOURS = ("wrong_tool", "bad_arguments", "early_done", "loop")


# --- a seeded, noisy model ---------------------------------------------------------------------


@dataclass(frozen=True)
class Noise:
    """how often a noisy model misbehaves: each a probability per model call (at most one per call)"""

    wrong_tool: float = 0.0
    """asks for another of the offered tools, with the same arguments"""
    bad_arguments: float = 0.0
    """drops an argument of a call (the dispatcher answers with a validation error)"""
    early_done: float = 0.0
    """stops working and claims to be done, with a guessed number"""
    loop: float = 0.0
    """repeats its previous calls, and keeps repeating them until a call comes back as an error"""

    def __post_init__(self) -> None:
        rates = [getattr(self, kind) for kind in MISBEHAVIOURS]
        if any(not 0 <= rate <= 1 for rate in rates) or sum(rates) > 1:
            raise ValueError(f"each rate must be between 0 and 1, and together at most 1; got {self}")

    def draw(self, rng: random.Random) -> str | None:
        """one misbehaviour for this call, or None"""
        roll, threshold = rng.random(), 0.0
        for kind in MISBEHAVIOURS:
            threshold += getattr(self, kind)
            if roll < threshold:
                return kind
        return None


class Noisy(Policy):
    """wraps a policy and makes it misbehave at the given rates, the same way for the same seed

    Each model call draws from its own random.Random, seeded with the seed, the task and the call's
    position in the conversation, never from the global generator: the same conversation gets the
    same misbehaviour on every machine and in any order of runs. `faults` lists what it did.
    """

    def __init__(self, policy: PolicyLike, seed: int, noise: Noise):
        self.policy, self.seed, self.noise = as_policy(policy), seed, noise
        self.faults: list[str] = []

    def reply(self, request: dict[str, Any]) -> Reply:
        messages = request.get("messages", [])
        turn = sum(m.get("role") == "assistant" for m in messages)
        task = next((str(m.get("content")) for m in messages if m.get("role") == "user"), "")
        rng = random.Random(f"{self.seed}/{turn}/{task}")  # str seeds hash with SHA-512: same everywhere
        previous = _last_calls(messages)
        if previous and _still_looping(messages):
            return self._fault("loop", Reply(tool_calls=previous))
        kind = self.noise.draw(rng)
        if kind == "early_done":
            return self._fault(kind, Reply(content=f"Done. The answer is {rng.randint(1, 99)}."))
        if kind == "loop" and previous:
            return self._fault(kind, Reply(tool_calls=previous))
        reply = self.policy(request)
        if not reply.tool_calls or kind not in ("wrong_tool", "bad_arguments"):
            return reply
        calls = list(reply.tool_calls)
        index = rng.randrange(len(calls))
        changed = (
            _wrong_tool(calls[index], request, rng)
            if kind == "wrong_tool"
            else _bad_arguments(calls[index], rng)
        )
        if changed is None:
            return reply
        calls[index] = changed
        return self._fault(kind, Reply(content=reply.content, tool_calls=tuple(calls)))

    def _fault(self, kind: str, reply: Reply) -> Reply:
        self.faults.append(kind)
        return reply


def _last_calls(messages: list[dict[str, Any]]) -> tuple[ToolCall, ...]:
    """the calls of the latest assistant message, as the model would write them again"""
    for message in reversed(messages):
        if message.get("role") == "assistant":
            return tuple(
                ToolCall(c["function"]["name"], c["function"].get("arguments") or "{}")
                for c in message.get("tool_calls") or []
            )
    return ()


def _still_looping(messages: list[dict[str, Any]]) -> bool:
    """the last two assistant messages asked for the same calls, and no result since was an error"""
    assistants = [i for i, m in enumerate(messages) if m.get("role") == "assistant"]
    if len(assistants) < 2:
        return False
    last, before = (messages[i] for i in assistants[-2:][::-1])
    if not last.get("tool_calls") or _call_keys(last) != _call_keys(before):
        return False
    results = [m for m in messages[assistants[-1] + 1 :] if m.get("role") == "tool"]
    return not any(str(m.get("content") or "").startswith("ERROR") for m in results)


def _call_keys(message: dict[str, Any]) -> list[tuple[str, str]]:
    return [
        (c["function"]["name"], c["function"].get("arguments") or "") for c in message.get("tool_calls") or []
    ]


def _wrong_tool(tool_call: ToolCall, request: dict[str, Any], rng: random.Random) -> ToolCall | None:
    others = sorted(name for name in offered_tools(request) if name != tool_call.name)
    return ToolCall(rng.choice(others), tool_call.arguments) if others else None


def _bad_arguments(tool_call: ToolCall, rng: random.Random) -> ToolCall | None:
    arguments = tool_call.arguments
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments or "{}")
        except ValueError:  # already broken: nothing to drop
            return None
    if not isinstance(arguments, dict) or not arguments:
        return None
    dropped = rng.choice(sorted(arguments))
    return ToolCall(tool_call.name, {k: v for k, v in arguments.items() if k != dropped})


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
    return [
        c["function"]["name"]
        for m in run.messages
        if m["role"] == "assistant"
        for c in m.get("tool_calls") or []
    ]


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


# --- tasks --------------------------------------------------------------------------------------


@dataclass
class Setup:
    """what one attempt at a task runs with, made fresh for every attempt"""

    tools: ToolRegistry | list[Callable[..., Any]]
    graders: list[Grader]
    guardrails: list[Guardrail] = field(default_factory=list)
    """what "guardrails on" adds for this task"""


@dataclass(frozen=True)
class Task:
    """a prompt, the model that works on it, and how to set up, guard and grade one attempt"""

    name: str
    prompt: str
    model: Callable[[], PolicyLike]
    setup: Callable[[], Setup]


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


def calculator_task(name: str, prompt: str, expected: float, tools_in_order: Sequence[str]) -> Task:
    """an arithmetic task for the Calculator model with the four tools, graded on the number and the calls

    The trajectory may hold two calls more than the task needs (a mistake the model recovered from).
    Guardrails on: the loop detector, and a cap of two calls more than the task needs.
    """

    def setup() -> Setup:
        return Setup(
            tools=[add, subtract, multiply, divide],
            graders=[
                final_number(expected),
                tool_sequence(tools_in_order, max_calls=len(tools_in_order) + 2),
            ],
            guardrails=[LoopDetector(max_repeats=1), Limits(max_tool_calls=len(tools_in_order) + 2)],
        )

    return Task(name, prompt, mock.Calculator, setup)


def discount_task() -> Task:
    """lesson 05's discount project: fix discount.py so the tests pass, without editing the tests

    The model works through a fix (run the tests, read, write, run them again) and then says so.
    Guardrails on: verify before done (the tests must pass) and a cap on tool calls. Not the loop
    detector: run_tests takes no arguments, so a good run repeats it exactly.
    """
    versions = discount_versions()
    proper_fix = [
        call("run_tests"),
        call("read_file", path="discount.py"),
        call("write_file", path="discount.py", content=versions["right_fix"]),
        call("run_tests"),
    ]
    claim = "Fixed: an order of exactly 100 now gets the member discount. All 4 tests pass."

    def setup() -> Setup:
        project = TinyProject()

        def check() -> tuple[bool, str]:
            report = project.run_tests()
            return "FAILED" not in report and "ERROR" not in report, report

        return Setup(
            tools=project.tools,
            graders=[passes_tests(project, untouched=["test_discount.py"])],
            guardrails=[VerifyBeforeDone(check, max_rejections=2), Limits(max_tool_calls=8)],
        )

    return Task("discount", DISCOUNT_TASK, lambda: ClaimsDone(proper_fix, claim, [*proper_fix, claim]), setup)


def task_suite() -> list[Task]:
    """four calculator tasks and the discount fix"""
    return [
        calculator_task("4 + 2", "What is 4 + 2?", 6, ["add"]),
        calculator_task("5 + 8/12", "What is 5 + 8/12?", 5 + 8 / 12, ["divide", "add"]),
        calculator_task("(3 + 4)*2", "What is (3 + 4) * 2?", 14, ["add", "multiply"]),
        calculator_task("7 - 3*2", "What is 7 - 3 * 2?", 1, ["multiply", "subtract"]),
        discount_task(),
    ]


# --- running the suite ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Attempt:
    """one task, one seed: whether every grader passed, what they said, and what the run cost"""

    task: str
    seed: int
    passed: bool
    problems: tuple[str, ...]
    faults: tuple[str, ...]  # what the noisy model did wrong, in order
    stop_reason: str
    model_calls: int
    tool_calls_made: int
    input_tokens: int
    output_tokens: int
    cost: float
    error: str | None = None
    """what went wrong when the attempt itself broke (a model, tool, guardrail or check raised); it failed"""

    @property
    def cause(self) -> str:
        """where a failure comes from: "error" when the attempt broke, else the first misbehaviour,
        or "none" when the model did nothing wrong"""
        if self.error is not None:
            return "error"
        return self.faults[0] if self.faults else "none"


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
        return list(dict.fromkeys(a.task for a in self.attempts))

    def of(self, task: str | None = None) -> list[Attempt]:
        return [a for a in self.attempts if task is None or a.task == task]

    def pass_rate(self, task: str | None = None) -> tuple[int, int]:
        """(passed, attempts), for one task or all"""
        attempts = self.of(task)
        return sum(a.passed for a in attempts), len(attempts)

    def failures(self) -> Counter[str]:
        """failed attempts by cause: the first thing the model did wrong"""
        return Counter(a.cause for a in self.attempts if not a.passed)

    def table(self) -> str:
        head = (
            f"{'task':<12} {'passed':>7} {'rate':>5} {'95% interval':>13} {'calls':>6} {'tools':>6} "
            f"{'tokens':>7} {'cost':>8}"
        )
        lines = [f"{self.label}", head]
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


def evaluate(
    tasks: Sequence[Task],
    seeds: Iterable[int],
    noise: Noise,
    *,
    guardrails: bool = False,
    max_turns: int = 10,
    prices: Prices = PRICES,
    label: str | None = None,
    progress: Callable[[Task, list[Attempt]], None] | None | bool = None,
) -> Report:
    """every task once per seed, on a Noisy model; each attempt graded by all of its task's graders

    progress: called after each task's attempts; None picks RichProgress in a terminal and
    TextProgress elsewhere (a notebook), False shows nothing.
    """
    tasks, seeds = list(tasks), list(seeds)
    if not tasks or not seeds:
        raise ValueError(
            f"evaluate() needs at least one task and one seed, got {len(tasks)} tasks and {len(seeds)} "
            "seeds: nothing would run, and a pass rate of nothing is not a number. Pass e.g. "
            "task_suite() and range(10)."
        )
    label = label or f"guardrails {'on' if guardrails else 'off'}, {len(tasks)} tasks x {len(seeds)} seeds"
    show = progress if callable(progress) else None
    if progress is None:
        show = RichProgress(len(tasks)) if sys.stdout.isatty() else TextProgress()
    attempts: list[Attempt] = []
    for task in tasks:
        of_task = [_attempt(task, seed, noise, guardrails, max_turns, prices) for seed in seeds]
        attempts += of_task
        if show:
            show(task, of_task)
    if isinstance(show, RichProgress):
        show.close()
    return Report(label, tuple(attempts))


def _attempt(
    task: Task, seed: int, noise: Noise, guardrails: bool, max_turns: int, prices: Prices
) -> Attempt:
    """one graded attempt; whatever raises inside it (the task's setup, its model, a tool, a
    guardrail, a check) fails this attempt with the error, and the evaluation goes on"""
    model, stage = None, "setting up the task"
    try:
        setup = task.setup()
        stage = "making the model"
        model = Noisy(task.model(), seed, noise)
        stage = "the run"
        run = run_agent(
            mock.client(model),
            task.prompt,
            setup.tools,
            guardrails=setup.guardrails if guardrails else [],
            max_turns=max_turns,
        )
        stage = "grading"
        problems = tuple(str(p) for p in (_grade(grader, run) for grader in setup.graders) if p)
        ledger = token_ledger(run)
        return Attempt(
            task=task.name,
            seed=seed,
            passed=not problems,
            problems=problems,
            faults=tuple(model.faults),
            stop_reason=run.stop_reason or "",
            model_calls=run.model_calls,
            tool_calls_made=run.tool_calls_made,
            input_tokens=ledger.total_input,
            output_tokens=ledger.total_output,
            cost=run_cost(ledger, prices),
        )
    except Exception as error:
        error_text = f"{stage} raised {type(error).__name__}: {_one_line(error)}"
        return Attempt(
            task=task.name,
            seed=seed,
            passed=False,
            problems=(error_text,),
            faults=tuple(model.faults) if model else (),
            stop_reason="error",
            model_calls=0,
            tool_calls_made=0,
            input_tokens=0,
            output_tokens=0,
            cost=0.0,
            error=error_text,
        )


def _grade(grader: Grader, run: AgentRun) -> str | None:
    try:
        return grader(run)
    except (
        Exception
    ) as error:  # a broken grader fails the attempt, with the reason, instead of the evaluation
        return f"the grader raised {type(error).__name__}: {_one_line(error)}"


def _one_line(error: BaseException) -> str:
    """an exception's message on one line, cut at 300 characters; a message that cannot be shown says so"""
    try:
        text = " ".join(str(error).split()) or "(no message)"
    except Exception:
        return "(its message cannot be shown)"
    return text if len(text) <= 300 else text[:300] + "..."


# --- showing the results ----------------------------------------------------------------------


def compare(reports: Mapping[str, Report] | Sequence[Report]) -> str:
    """pass rate (with its interval), mean calls, tokens and cost per attempt, and the causes of
    failures, one column per report"""
    reports = _some(reports, "compare")
    width = max(14, *(len(r.label) for r in reports))
    rows: list[tuple[str, list[str]]] = []
    for name, figure in (
        ("passed", lambda r: "{}/{}".format(*r.pass_rate())),
        ("pass rate, 95% interval", lambda r: f"{_rate(*r.pass_rate())} ({_interval(r)})"),
        ("model calls per attempt", lambda r: f"{_mean(a.model_calls for a in r.attempts):.1f}"),
        (
            "tokens per attempt",
            lambda r: f"{_mean(a.input_tokens + a.output_tokens for a in r.attempts):,.0f}",
        ),
        ("cost per attempt", lambda r: f"${_mean(a.cost for a in r.attempts):.4f}"),
    ):
        rows.append((name, [figure(r) for r in reports]))
    causes = sorted(
        {c for r in reports for c in r.failures()},
        key=lambda c: (c == "none", MISBEHAVIOURS.index(c) if c in MISBEHAVIOURS else 0),
    )
    for cause in causes:
        rows.append((f"failed, first fault {cause}", [str(r.failures()[cause]) for r in reports]))
    first = max(len(name) for name, _ in rows)
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

    def __init__(self, print: Callable[..., None] = print):
        self.print = print

    def __call__(self, task: Task, attempts: list[Attempt]) -> None:
        marks = "".join("." if a.passed else "F" for a in attempts)
        passed = sum(a.passed for a in attempts)
        self.print(f"{task.name:<12} {marks}  {passed}/{len(attempts)} passed")


class RichProgress:
    """a rich progress bar in the terminal, advanced once per task"""

    def __init__(self, tasks: int, console: Any = None):
        from rich.progress import Progress

        self.bar = Progress(console=console)
        self.bar.start()
        self.job = self.bar.add_task("evaluating", total=tasks)

    def __call__(self, task: Task, attempts: list[Attempt]) -> None:
        passed = sum(a.passed for a in attempts)
        self.bar.update(self.job, advance=1, description=f"{task.name}: {passed}/{len(attempts)} passed")

    def close(self) -> None:
        self.bar.stop()
