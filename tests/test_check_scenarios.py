"""How a check judges: fixed then seeded scenarios, the first failure shrunk to the smallest, exceptions
reported."""

from agent_core.checks._scenarios import (
    first_failure,
    judge_scenarios,
    scenarios,
    smaller_ints,
    smaller_lists,
    smaller_texts,
)


def _numbers(rng):
    return [rng.randint(-5, 50) for _ in range(rng.randint(0, 8))]


def test_generated_scenarios_are_the_same_on_every_call_and_follow_the_fixed_ones():
    first = scenarios([[1, 2]], _numbers, count=30, seed=7)
    assert first == scenarios([[1, 2]], _numbers, count=30, seed=7)
    assert first[0] == [1, 2] and len(first) == 31
    assert first != scenarios([[1, 2]], _numbers, count=30, seed=8)


def test_a_failure_is_shrunk_to_the_smallest_scenario_that_still_fails():
    def judge(numbers):  # a "learner" sum that drops numbers above 40
        expected, got = sum(numbers), sum(n for n in numbers if n <= 40)
        return None if expected == got else f"expected {expected}, got {got}"

    cases = scenarios([], _numbers, count=200, seed=1)
    failure = first_failure(cases, judge, smaller_lists)
    assert failure is not None
    assert len(failure.scenario) == 1 and failure.scenario[0] > 40
    assert failure.problem == f"expected {failure.scenario[0]}, got 0"


def test_no_failure_when_every_scenario_agrees():
    assert (
        first_failure(scenarios([], _numbers, count=50, seed=3), lambda numbers: None, smaller_lists) is None
    )


def test_an_exception_in_the_learners_code_is_the_problem_reported_not_a_crash():
    def judge(numbers):
        return None if len(numbers) < 3 else str(numbers[10])

    failure = first_failure([[1, 2, 3, 4]], judge, smaller_lists)
    assert failure is not None
    assert len(failure.scenario) == 3
    assert failure.problem == "your code raised IndexError: list index out of range"


def test_the_judge_gets_a_copy_so_a_scenario_changed_by_the_learner_is_retried_intact():
    seen = []

    def judge(numbers):
        seen.append(list(numbers))
        numbers.clear()  # a learner's function that empties what it is given
        return "wrong"

    failure = first_failure([[5, 6]], judge, smaller_lists)
    assert seen[0] == [5, 6] and failure is not None and failure.scenario == []


def test_shrinking_stops_at_its_budget():
    calls = []

    def judge(text):
        calls.append(text)
        return "always wrong"

    first_failure(["x" * 10_000], judge, smaller_texts, budget=25)
    assert len(calls) <= 26


def test_the_verdict_names_the_smallest_scenario_and_counts_the_scenarios(capsys):
    cases = [[1], [1, 99, 2]]
    result = judge_scenarios(
        "9.9",
        cases,
        lambda numbers: None if max(numbers, default=0) < 50 else "a number over 50 was kept",
        lambda numbers: f"the list {numbers}",
        "solved",
        smaller_lists,
    )
    assert not result and result.scenarios == 2
    assert (
        capsys.readouterr().out == "✗ Exercise 9.9: not yet.\n  - the list [99]: a number over 50 was kept\n"
    )


def test_shrinkers_offer_only_smaller_values():
    assert list(smaller_ints(10)) == [0, 5, 9]
    assert list(smaller_ints(3, floor=3)) == []
    assert all(len(s) < 4 for s in smaller_lists([1, 2, 3, 4]))
    assert list(smaller_texts("ab")) == ["", "a"]
