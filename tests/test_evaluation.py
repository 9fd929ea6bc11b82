"""agent_core.evaluation: graders, the tasks, the runner, the report (lesson 11)."""

import io
import subprocess
import sys

import pytest
from rich.console import Console

from agent_core import mock
from agent_core._evaluation_reports import RichProgress, TextProgress
from agent_core.coding.tiny_project import TinyProject
from agent_core.dispatch import ToolRegistry
from agent_core.evaluation import (
    Report,
    Task,
    add,
    calculator_task,
    compare,
    discount_task,
    divide,
    evaluate,
    final_number,
    multiply,
    numbers_in,
    passes_tests,
    plot_pass_rates,
    pytest_passed,
    subtract,
    task_suite,
    tool_names,
    tool_sequence,
    wilson,
)
from agent_core.loop import run_agent
from agent_core.mock.misbehaving import discount_versions
from agent_core.mock.noisy import Noise, Noisy, SuiteSolver

TOOLS = [add, subtract, multiply, divide]
NOISE = Noise(wrong_tool=0.1, bad_arguments=0.1, early_done=0.05, loop=0.1)


def noisy(noise):
    """the model of each attempt: the suite's mock, misbehaving at these rates"""
    return lambda task, seed: Noisy(SuiteSolver(), seed, noise)


def evaluated(tasks, seeds, noise, progress=False, **options):
    return evaluate(tasks, seeds, noisy(noise), mock.client, progress=progress, **options)


def scripted_run(*replies, task="What is 5 + 8/12?", max_turns=10):
    return run_agent(mock.client(mock.Script(*replies)), task, ToolRegistry(TOOLS), max_turns=max_turns)


def test_the_same_seeds_give_the_same_figures():
    first = evaluated(task_suite(), range(3), NOISE)
    second = evaluated(task_suite(), range(3), NOISE)
    assert first == second
    assert first.table() == second.table()


def test_each_attempt_runs_on_the_model_made_for_its_task_and_seed_through_the_client_given():
    made, clients = [], []

    def model(task, seed):
        made.append((task.name, seed))
        return Noisy(SuiteSolver(), seed, Noise())

    def client(policy):
        clients.append(policy)
        return mock.client(policy)

    report = evaluate(task_suite()[:2], [3, 5], model, client, progress=False)
    assert made == [("4 + 2", 3), ("4 + 2", 5), ("5 + 8/12", 3), ("5 + 8/12", 5)]
    assert [policy.seed for policy in clients] == [3, 5, 3, 5]
    assert [(a.task, a.seed) for a in report.attempts] == made


def test_the_lesson_module_loads_no_fake_model():
    code = (
        "import sys, agent_core.evaluation\nprint(sorted(m for m in sys.modules if 'agent_core.mock' in m))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "[]"


def test_without_noise_every_task_passes_with_the_calls_it_needs():
    report = evaluated(task_suite(), range(2), Noise())
    assert report.pass_rate() == (10, 10)
    assert all(a.faults == () for a in report.attempts)


def test_numbers_in_reads_whole_numbers_only():
    assert numbers_in("5 + 8/12 = 5.666666666666667.") == [5, 8, 12, 5.666666666666667]
    assert numbers_in("16 apples, item6, 1,250 euros, -3") == [16, 1250, -3]


def test_final_number_reads_the_last_number_of_an_answer():
    grade = final_number(6)
    assert grade(scripted_run("4 + 2 = 6", task="What is 4 + 2?")) is None
    assert "ends with 16" in grade(scripted_run("4 + 2 = 16", task="What is 4 + 2?"))
    assert "no number" in grade(scripted_run("six", task="What is 4 + 2?"))


def test_final_number_fails_a_run_that_did_not_answer():
    run = scripted_run(*[mock.call("add", a=1, b=1)] * 3, max_turns=3)
    assert run.stop_reason == "max_turns" and "3" in run.answer
    assert "did not answer" in final_number(3)(run)


def test_tool_sequence_checks_order_and_budget():
    grade = tool_sequence(["divide", "add"], max_calls=3)
    right = scripted_run(mock.call("divide", a=8, b=12), mock.call("add", a=5, b=0.6666666666666666), "5.67")
    backwards = scripted_run(mock.call("add", a=5, b=8), mock.call("divide", a=8, b=12), "5.67")
    parallel = scripted_run([mock.call("divide", a=8, b=12), mock.call("add", a=5, b=1)], "6")
    too_many = scripted_run(*[mock.call("divide", a=8, b=12)] * 3, mock.call("add", a=5, b=1), "6")
    assert grade(right) is None
    assert "in that order" in grade(backwards)
    assert grade(parallel) is None
    assert tool_names(parallel) == ["divide", "add"]
    assert "4 tool calls, more than 3" in grade(too_many)
    assert "more than 2" in tool_sequence(["divide", "add"])(too_many)


def test_tests_pass_grades_the_project_after_the_run():
    project = TinyProject()
    grade = passes_tests(project, untouched=["test_discount.py"])
    run = scripted_run("done")
    assert "do not pass" in grade(run)
    project.files["discount.py"] = discount_versions()["right_fix"]
    assert grade(run) is None
    project.files["test_discount.py"] = discount_versions()["edited_test"]
    assert "must not touch" in grade(run)


def test_a_grader_that_raises_fails_the_attempt_with_the_reason():
    task = calculator_task("4 + 2", "What is 4 + 2?", 6, ["add"])
    broken = Task(task.name, task.prompt, lambda: _with_grader(task, lambda run: 1 / 0))
    (attempt,) = evaluated([broken], [0], Noise()).attempts
    assert not attempt.passed
    assert attempt.problems == ("the grader raised ZeroDivisionError: division by zero",)


def _with_grader(task, grader):
    setup = task.setup()
    setup.graders.append(grader)
    return setup


def test_wilson_interval_closed_forms():
    z = 1.96
    assert wilson(0, 10) == (0.0, pytest.approx(z * z / (10 + z * z)))
    assert wilson(10, 10) == (pytest.approx(10 / (10 + z * z)), 1.0)
    assert wilson(8, 10) == (pytest.approx(0.4902, abs=1e-4), pytest.approx(0.9433, abs=1e-4))
    assert wilson(0, 0) == (0.0, 1.0)


def test_guardrails_cut_the_cost_of_loops_and_catch_early_done_in_the_coding_task():
    off = evaluated(task_suite(), range(6), Noise(loop=0.3))
    on = evaluated(task_suite(), range(6), Noise(loop=0.3), guardrails=True)
    assert sum(a.model_calls for a in on.attempts) < sum(a.model_calls for a in off.attempts)
    early = Noise(early_done=0.3)
    coding_off = evaluated([discount_task()], range(6), early)
    coding_on = evaluated([discount_task()], range(6), early, guardrails=True)
    assert coding_on.pass_rate()[0] > coding_off.pass_rate()[0]


def test_report_table_and_failures():
    report = evaluated(task_suite(), range(4), NOISE)
    table = report.table()
    passed, n = report.pass_rate()
    assert f"all          {passed:>3}/{n:<3}" in table
    assert sum(report.failures().values()) == n - passed
    assert set(report.failures()) <= {"wrong_tool", "bad_arguments", "early_done", "loop", "none"}


def test_compare_puts_reports_side_by_side():
    one = Report("off", evaluated(task_suite()[:1], range(2), Noise(early_done=1.0)).attempts)
    two = Report("on", evaluated(task_suite()[:1], range(2), Noise()).attempts)
    lines = compare({"off": one, "on": two}).splitlines()
    assert lines[1].split()[-2:] == ["0/2", "2/2"]
    assert lines[-1].split()[-2:] == ["2", "0"] and "early_done" in lines[-1]


def test_text_progress_prints_a_stable_line_per_task():
    printed = []
    evaluated(task_suite()[:2], range(3), Noise(), progress=TextProgress(printed.append))
    assert printed == ["4 + 2        ...  3/3 passed", "5 + 8/12     ...  3/3 passed"]


def test_rich_progress_shows_the_bar_in_a_terminal():
    out = io.StringIO()
    progress = RichProgress(2, console=Console(file=out, width=80))
    evaluated(task_suite()[:2], range(2), Noise(), progress=progress)
    progress.close()
    assert "5 + 8/12: 2/2 passed" in out.getvalue()


def test_the_plot_is_the_same_picture_every_time():
    reports = [evaluated(task_suite()[:2], range(3), NOISE, label=label) for label in ("a", "b")]
    pictures = []
    for _ in range(2):
        figure = plot_pass_rates(reports, title="pass rates")
        picture = io.BytesIO()
        figure.savefig(picture, format="rgba")
        pictures.append(picture.getvalue())
        assert len(figure.axes[0].patches) == 4
    assert pictures[0] == pictures[1]


def test_the_discount_task_reports_what_its_tests_really_say():
    setup = discount_task().setup()
    tools = {tool.__name__: tool for tool in setup.tools}
    assert tools["run_tests"]() == TinyProject().run_tests()
    assert "FAILED" in tools["run_tests"]()
    tools["write_file"]("discount.py", discount_versions()["right_fix"])
    fixed = TinyProject()
    fixed.files["discount.py"] = discount_versions()["right_fix"]
    assert tools["run_tests"]() == fixed.run_tests()
    assert "FAILED" not in tools["run_tests"]()


@pytest.mark.parametrize(
    ("conftest", "passes"),
    [
        ('collect_ignore = ["test_discount.py"]\n', False),  # pytest: "no tests ran", exit code 5
        ("import no_such_module\n", False),  # the tests never start: an ERROR, no FAILED
        (None, True),  # discount.py fixed: the tests pass
    ],
)
def test_the_grader_and_the_guard_read_a_test_report_the_same_way(conftest, passes):
    """discount_task's VerifyBeforeDone and its passes_tests grader agree on every report"""
    setup = discount_task().setup()
    project = setup.tools[0].__self__  # the attempt's TinyProject, whose tools the model gets
    if conftest is None:
        project.files["discount.py"] = discount_versions()["right_fix"]
    else:
        project.files["conftest.py"] = conftest
    report = project.run_tests()
    guard_ok, _ = setup.guardrails[0].check()
    problem = setup.graders[0](run_agent(mock.client(mock.Script("Done.")), "fix it", setup.tools))
    assert pytest_passed(report) is guard_ok is (problem is None) is passes, report
    if conftest and "collect_ignore" in conftest:
        assert "no tests ran" in report
