"""Every shape a lesson names is in its check's seeded scenarios: each check lists its shapes in one place
(a dict beside its generator), and each listed shape is reached (the recipe is in checks/_scenarios.py)."""

import pytest

from agent_core.checks import lesson02, lesson04, lesson05, lesson08

CHECKS = {
    "2.1": (lesson02.ROUND_TRIP_SHAPES, lesson02.round_trip_scenarios),
    "4.1": (lesson04.RUN_SHAPES, lesson04.run_scenarios),
    "5.1": (lesson05.USES_SHAPES, lesson05.uses_scenarios),
    "8.3": (lesson08.DIFFERENCE_SHAPES, lesson08.difference_scenarios),
}


@pytest.mark.parametrize(
    ("exercise", "shape"), [(exercise, shape) for exercise, (shapes, _) in CHECKS.items() for shape in shapes]
)
def test_the_seeded_scenarios_reach_every_shape_the_lesson_names(exercise, shape):
    shapes, cases = CHECKS[exercise]
    assert any(shapes[shape](case) for case in cases()), f"check {exercise}: no scenario is {shape!r}"


@pytest.mark.parametrize("exercise", CHECKS)
def test_no_shape_holds_for_every_scenario(exercise):
    """a shape that every scenario has tells nothing apart: its test could not fail"""
    shapes, cases = CHECKS[exercise]
    everywhere = [name for name, holds in shapes.items() if all(holds(case) for case in cases())]
    assert everywhere == []
