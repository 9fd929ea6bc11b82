"""agent_core.evaluation: noisy models, graders, the runner, the report (lesson 11)."""

import io
import random

import pytest
from rich.console import Console

from agent_core import mock
from agent_core.coding.tiny_project import TinyProject
from agent_core.dispatch import ToolRegistry
from agent_core.evaluation import (
    Noise,
    Noisy,
    Report,
    RichProgress,
    TextProgress,
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
    subtract,
    task_suite,
    tool_names,
    tool_sequence,
    wilson,
)
from agent_core.guardrails import LoopDetector
from agent_core.loop import run_agent
from agent_core.mock.misbehaving import discount_versions

TOOLS = [add, subtract, multiply, divide]
NOISE = Noise(wrong_tool=0.1, bad_arguments=0.1, early_done=0.05, loop=0.1)


def noisy_run(noise, task="What is 5 + 8/12?", seed=0, **options):
    model = Noisy(mock.Calculator(), seed, noise)
    return run_agent(mock.client(model), task, ToolRegistry(TOOLS), **options), model


def scripted_run(*replies, task="What is 5 + 8/12?", max_turns=10):
    return run_agent(mock.client(mock.Script(*replies)), task, ToolRegistry(TOOLS), max_turns=max_turns)


def test_the_same_seeds_give_the_same_figures():
    first = evaluate(task_suite(), range(3), NOISE, progress=False)
    second = evaluate(task_suite(), range(3), NOISE, progress=False)
    assert first == second
    assert first.table() == second.table()


def test_different_seeds_misbehave_differently():
    faults = {seed: noisy_run(NOISE, seed=seed)[1].faults for seed in range(12)}
    assert len({tuple(f) for f in faults.values()}) > 1


def test_noisy_leaves_the_global_random_generator_alone():
    random.seed(7)
    expected = random.random()
    random.seed(7)
    evaluate(task_suite()[:2], range(3), NOISE, progress=False)
    assert random.random() == expected


def test_without_noise_every_task_passes_with_the_calls_it_needs():
    report = evaluate(task_suite(), range(2), Noise(), progress=False)
    assert report.pass_rate() == (10, 10)
    assert all(a.faults == () for a in report.attempts)


def test_wrong_tool_asks_for_another_offered_tool():
    run, model = noisy_run(Noise(wrong_tool=1.0), max_turns=1)
    assert model.faults == ["wrong_tool"]
    assert tool_names(run)[0] in {"add", "subtract", "multiply"}


def test_bad_arguments_come_back_as_a_validation_error():
    run, model = noisy_run(Noise(bad_arguments=1.0), max_turns=1)
    assert model.faults == ["bad_arguments"]
    assert run.observations[0].is_error


def test_early_done_answers_with_a_guess_and_no_tool_call():
    run, model = noisy_run(Noise(early_done=1.0))
    assert run.stop_reason == "answered" and run.tool_calls_made == 0
    assert run.answer.startswith("Done. The answer is ")


def test_a_loop_repeats_until_max_turns_and_the_loop_detector_breaks_it():
    noise = Noise(loop=0.5)
    seed = next(s for s in range(50) if noisy_run(noise, seed=s)[0].stop_reason == "max_turns")
    looping, _ = noisy_run(noise, seed=seed)
    assert len(set(tool_names(looping)[-5:])) == 1
    guarded, model = noisy_run(noise, seed=seed, guardrails=[LoopDetector(max_repeats=1)])
    assert guarded.model_calls < looping.model_calls
    assert "loop" in model.faults


def test_noise_rates_must_be_probabilities():
    with pytest.raises(ValueError, match="between 0 and 1"):
        Noise(loop=1.5)
    with pytest.raises(ValueError, match="at most 1"):
        Noise(loop=0.6, early_done=0.6)


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
    broken = type(task)(task.name, task.prompt, task.model, lambda: _with_grader(task, lambda run: 1 / 0))
    (attempt,) = evaluate([broken], [0], Noise(), progress=False).attempts
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
    off = evaluate(task_suite(), range(6), Noise(loop=0.3), progress=False)
    on = evaluate(task_suite(), range(6), Noise(loop=0.3), guardrails=True, progress=False)
    assert sum(a.model_calls for a in on.attempts) < sum(a.model_calls for a in off.attempts)
    early = Noise(early_done=0.3)
    coding_off = evaluate([discount_task()], range(6), early, progress=False)
    coding_on = evaluate([discount_task()], range(6), early, guardrails=True, progress=False)
    assert coding_on.pass_rate()[0] > coding_off.pass_rate()[0]


def test_report_table_and_failures():
    report = evaluate(task_suite(), range(4), NOISE, progress=False)
    table = report.table()
    passed, n = report.pass_rate()
    assert f"all          {passed:>3}/{n:<3}" in table
    assert sum(report.failures().values()) == n - passed
    assert set(report.failures()) <= {"wrong_tool", "bad_arguments", "early_done", "loop", "none"}


def test_compare_puts_reports_side_by_side():
    one = Report("off", evaluate(task_suite()[:1], range(2), Noise(early_done=1.0), progress=False).attempts)
    two = Report("on", evaluate(task_suite()[:1], range(2), Noise(), progress=False).attempts)
    lines = compare({"off": one, "on": two}).splitlines()
    assert lines[1].split()[-2:] == ["0/2", "2/2"]
    assert lines[-1].split()[-2:] == ["2", "0"] and "early_done" in lines[-1]


def test_text_progress_prints_a_stable_line_per_task():
    printed = []
    evaluate(task_suite()[:2], range(3), Noise(), progress=TextProgress(printed.append))
    assert printed == ["4 + 2        ...  3/3 passed", "5 + 8/12     ...  3/3 passed"]


def test_rich_progress_shows_the_bar_in_a_terminal():
    out = io.StringIO()
    progress = RichProgress(2, console=Console(file=out, width=80))
    evaluate(task_suite()[:2], range(2), Noise(), progress=progress)
    progress.close()
    assert "5 + 8/12: 2/2 passed" in out.getvalue()


def test_the_plot_is_the_same_picture_every_time():
    reports = [
        evaluate(task_suite()[:2], range(3), NOISE, label=label, progress=False) for label in ("a", "b")
    ]
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


def test_noisy_leaves_broken_arguments_as_they_are():
    broken = mock.Script(mock.call("add", '{"a": 1'), "done")
    run = run_agent(
        mock.client(Noisy(broken, 0, Noise(bad_arguments=1.0))), "What is 1 + 2?", ToolRegistry(TOOLS)
    )
    assert run.stop_reason == "answered"
    assert run.observations[0].is_error
