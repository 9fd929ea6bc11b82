"""An evaluation whose pieces break: a model, a tool, a guardrail, a check, a setup or a grader raises in one
attempt; lists that are empty."""

import pytest

from agent_core import mock
from agent_core.evaluation import (
    Report,
    Setup,
    Task,
    add,
    calculator_task,
    compare,
    evaluate,
    final_number,
    plot_pass_rates,
)
from agent_core.guardrails import VerifyBeforeDone
from agent_core.loop import Guardrail
from agent_core.mock.noisy import Noise, Noisy

GOOD = calculator_task("4 + 2", "What is 4 + 2?", 6, ["add"])


def task_with(name="4 + 2", tools=(add,), guardrails=(), graders=None, setup=None):
    """the 4 + 2 task with one piece replaced; guardrails apply with guardrails=True"""

    def make_setup():
        return Setup(tools=list(tools), graders=graders or [final_number(6)], guardrails=list(guardrails))

    return Task(name, "What is 4 + 2?", setup or make_setup)


def calculator(task, seed):
    return Noisy(mock.Calculator(), seed, Noise())


def breaks_on_seed(task_name, broken_seed):
    """a model that raises during the attempt at that task with that seed; the calculator otherwise"""

    def make_model(task, seed):
        model = mock.Calculator()

        def reply(request):
            if (task.name, seed) == (task_name, broken_seed):
                raise RuntimeError("the model's server fell over")
            return model(request)

        return Noisy(reply, seed, Noise())

    return make_model


def evaluated(*tasks, seeds=range(3), guardrails=False, model=calculator):
    return evaluate(list(tasks), seeds, model, mock.client, guardrails=guardrails, progress=False)


def test_a_model_that_raises_fails_its_attempt_and_keeps_the_others():
    report = evaluated(task_with(name="flaky"), GOOD, model=breaks_on_seed("flaky", 1))
    assert [(a.task, a.seed, a.passed) for a in report.attempts] == [
        ("flaky", 0, True), ("flaky", 1, False), ("flaky", 2, True),
        ("4 + 2", 0, True), ("4 + 2", 1, True), ("4 + 2", 2, True),
    ]  # fmt: skip
    broken = report.attempts[1]
    assert broken.stop_reason == "error" and broken.cause == "error"
    assert (
        broken.error.startswith("the run raised InternalServerError")
        and "the model's server fell over" in broken.error
    )
    assert broken.problems == (broken.error,)
    assert report.failures() == {"error": 1}
    assert "5/6" in report.table() and "error" in compare([report])


def test_a_tool_that_raises_is_an_observation_not_a_broken_attempt():
    def add(a: float, b: float) -> float:
        """Add two numbers: a + b."""
        raise OSError("disk on fire")

    report = evaluated(task_with(tools=[add]), seeds=[0])
    attempt = report.attempts[0]
    assert attempt.error is None and attempt.stop_reason == "answered" and not attempt.passed


class RaisingGuardrail(Guardrail):
    def before_tool(self, run, call):
        raise KeyError("no such budget")


def test_a_guardrail_that_raises_fails_its_attempt_only_when_it_runs():
    task = task_with(guardrails=[RaisingGuardrail()])
    off, on = evaluated(task, seeds=[0]), evaluated(task, seeds=[0], guardrails=True)
    assert off.attempts[0].passed
    assert on.attempts[0].error == "the run raised KeyError: 'no such budget'"


def test_a_check_that_raises_fails_its_attempt():
    def check():
        raise ZeroDivisionError("division by zero in the check")

    report = evaluated(task_with(guardrails=[VerifyBeforeDone(check)]), seeds=[0, 1], guardrails=True)
    assert [a.error for a in report.attempts] == [
        "the run raised ZeroDivisionError: division by zero in the check"
    ] * 2


def test_a_setup_or_model_factory_that_raises_fails_its_attempt():
    def setup():
        raise FileNotFoundError("project.zip")

    def model(task, seed):
        if task.name == "model":
            raise ImportError("no module named 'llm'")
        return calculator(task, seed)

    report = evaluated(task_with(name="setup", setup=setup), task_with(name="model"), seeds=[0], model=model)
    assert [a.error for a in report.attempts] == [
        "setting up the task raised FileNotFoundError: project.zip",
        "making the model raised ImportError: no module named 'llm'",
    ]


def test_a_grader_that_raises_or_answers_oddly_fails_only_its_attempt():
    def broken(run):
        raise ValueError("grader bug\nwith two lines")

    def odd(run):
        return 42  # a grader should return None or a string

    report = evaluated(
        task_with(name="broken", graders=[broken]), task_with(name="odd", graders=[odd]), seeds=[0]
    )
    assert report.attempts[0].problems == ("the grader raised ValueError: grader bug with two lines",)
    assert report.attempts[1].problems == ("42",)
    assert report.pass_rate() == (0, 2)


@pytest.mark.parametrize(
    ("tasks", "seeds", "counts"), [([], range(3), "0 tasks and 3 seeds"), ([GOOD], [], "1 tasks and 0 seeds")]
)
def test_empty_task_or_seed_lists_give_a_clear_message(tasks, seeds, counts):
    with pytest.raises(ValueError, match=f"at least one task and one seed, got {counts}"):
        evaluate(tasks, seeds, calculator, mock.client, progress=False)


def test_reports_with_nothing_in_them_show_without_dividing_by_zero():
    empty = Report("empty", ())
    assert "all            0/0       -     0% - 100%" in empty.table()
    assert "- (0%-100%)" in compare([empty])
    with pytest.raises(ValueError, match="compare\\(\\) needs at least one Report"):
        compare([])
    with pytest.raises(ValueError, match="plot_pass_rates\\(\\) needs at least one Report"):
        plot_pass_rates({})
