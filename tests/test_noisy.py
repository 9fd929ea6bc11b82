"""agent_core.mock.noisy: seeded noisy models, and the model that plays lesson 11's suite (lesson 11)."""

import random

import pytest

from agent_core import mock
from agent_core.dispatch import ToolRegistry
from agent_core.evaluation import add, discount_task, divide, multiply, subtract, task_suite, tool_names
from agent_core.guardrails import LoopDetector
from agent_core.loop import run_agent
from agent_core.mock.noisy import Noise, Noisy, SuiteSolver

TOOLS = [add, subtract, multiply, divide]
NOISE = Noise(wrong_tool=0.1, bad_arguments=0.1, early_done=0.05, loop=0.1)


def noisy_run(noise, task="What is 5 + 8/12?", seed=0, **options):
    model = Noisy(mock.Calculator(), seed, noise)
    return run_agent(mock.client(model), task, ToolRegistry(TOOLS), **options), model


def test_the_same_seed_misbehaves_the_same_way():
    assert [noisy_run(NOISE, seed=seed)[1].faults for seed in range(6)] == [
        noisy_run(NOISE, seed=seed)[1].faults for seed in range(6)
    ]


def test_different_seeds_misbehave_differently():
    faults = {seed: noisy_run(NOISE, seed=seed)[1].faults for seed in range(12)}
    assert len({tuple(f) for f in faults.values()}) > 1


def test_noisy_leaves_the_global_random_generator_alone():
    random.seed(7)
    expected = random.random()
    random.seed(7)
    for seed in range(3):
        noisy_run(NOISE, seed=seed)
    assert random.random() == expected


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


def test_noisy_leaves_broken_arguments_as_they_are():
    broken = mock.Script(mock.call("add", '{"a": 1'), "done")
    run = run_agent(
        mock.client(Noisy(broken, 0, Noise(bad_arguments=1.0))), "What is 1 + 2?", ToolRegistry(TOOLS)
    )
    assert run.stop_reason == "answered"
    assert run.observations[0].is_error


@pytest.mark.parametrize("task", task_suite(), ids=lambda task: task.name)
def test_the_suite_solver_does_every_task_of_the_suite(task):
    setup = task.setup()
    run = run_agent(mock.client(SuiteSolver()), task.prompt, setup.tools)
    assert [grader(run) for grader in setup.graders] == [None] * len(setup.graders)


def test_the_suite_solver_fixes_the_discount_project_as_a_careful_agent_would():
    setup = discount_task().setup()
    run = run_agent(mock.client(SuiteSolver()), "Fix it.", setup.tools)
    assert tool_names(run) == ["run_tests", "read_file", "write_file", "run_tests"]
    assert "All 4 tests pass" in run.answer
