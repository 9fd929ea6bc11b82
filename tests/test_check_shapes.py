"""Every shape a lesson names is in its check's seeded scenarios: each check lists its shapes in one place
(a dict beside its generator), and each listed shape is reached (the recipe is in checks/_scenarios.py)."""

import pytest

from agent_core.checks import (
    lesson00,
    lesson01,
    lesson02,
    lesson03,
    lesson04,
    lesson05,
    lesson06,
    lesson07,
    lesson08,
    lesson09,
    lesson10,
    lesson11,
    lesson12,
    lesson13,
)

CHECKS = {
    "0.1": (lesson00.ASK_SHAPES, lesson00.ask_scenarios),
    "0.2": (lesson00.REPAIR_SHAPES, lesson00.repair_scenarios),
    "1.1": (lesson01.DEFINITION_SHAPES, lesson01.definition_scenarios),
    "1.2": (lesson01.DELIVERY_SHAPES, lesson01.delivery_scenarios),
    "1.3": (lesson01.CANCEL_SHAPES, lesson01.cancel_scenarios),
    "1.4": (lesson01.ORDER_SHAPES, lesson01.order_scenarios),
    "3.1": (lesson03.DISPATCH_SHAPES, lesson03.dispatch_scenarios),
    "3.2": (lesson03.BOOKING_SHAPES, lesson03.booking_scenarios),
    "2.1": (lesson02.ROUND_TRIP_SHAPES, lesson02.round_trip_scenarios),
    "4.2": (lesson04.PREDICTION_SHAPES, lesson04.prediction_scenarios),
    "4.1": (lesson04.RUN_SHAPES, lesson04.run_scenarios),
    "5.1": (lesson05.USES_SHAPES, lesson05.uses_scenarios),
    "5.2": (lesson05.APPROVAL_SHAPES, lesson05.approval_scenarios),
    "5.3": (lesson05.OFFER_SHAPES, lesson05.offer_scenarios),
    "5.4": (lesson05.TREE_SHAPES, lesson05.tree_scenarios),
    "6.1": (lesson06.USAGE_SHAPES, lesson06.usage_scenarios),
    "6.2": (lesson06.KEEP_SHAPES, lesson06.keep_scenarios),
    "6.3": (lesson06.SPLIT_SHAPES, lesson06.split_scenarios),
    "7.1": (lesson07.READ_SHAPES, lesson07.read_scenarios),
    "7.2": (lesson07.CITING_SHAPES, lesson07.citing_scenarios),
    "7.3": (lesson07.HISTORY_SHAPES, lesson07.history_scenarios),
    "8.1": (lesson08.SETTINGS_SHAPES, lesson08.settings_scenarios),
    "8.2": (lesson08.RECORD_SHAPES, lesson08.record_scenarios),
    "8.3": (lesson08.DIFFERENCE_SHAPES, lesson08.difference_scenarios),
    "9.1": (lesson09.CONVERSATION_SHAPES, lesson09.conversation_scenarios),
    "9.2": (lesson09.LOOP_SHAPES, lesson09.loop_scenarios),
    "10.1": (lesson10.DEFINITION_SHAPES, lesson10.definition_scenarios),
    "10.2": (lesson10.RESULT_SHAPES, lesson10.result_scenarios),
    "10.3": (lesson10.PREFIX_SHAPES, lesson10.prefix_scenarios),
    "11.1": (lesson11.ANSWER_SHAPES, lesson11.answer_scenarios),
    "11.2": (lesson11.CALLS_SHAPES, lesson11.calls_scenarios),
    "11.3": (lesson11.INTERVAL_SHAPES, lesson11.interval_scenarios),
    "12.1": (lesson12.PLAN_SHAPES, lesson12.plan_scenarios),
    "12.2": (lesson12.DELEGATE_SHAPES, lesson12.delegate_scenarios),
    "13.1": (lesson13.PROVENANCE_SHAPES, lesson13.provenance_scenarios),
    "13.2": (lesson13.DECIDE_SHAPES, lesson13.decide_scenarios),
    "13.3": (lesson13.PLAN_SHAPES, lesson13.plan_scenarios),
    "13.4": (lesson13.DELIMIT_SHAPES, lesson13.delimit_scenarios),
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
