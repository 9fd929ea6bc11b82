"""Each check's input space, written from its exercise's words: every dimension the exercise names is quoted
from the lesson's text, and the check's seeded scenarios reach every form of it (so each is varied)."""

import json
import re
from pathlib import Path

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

ROOT = Path(__file__).resolve().parent.parent

# exercise -> (the English lesson notebook, the check's space, its seeded scenarios)
# lessons 00-06
SPACES_00_06: dict[str, tuple[str, dict, object]] = {
    "0.1": ("00_one_model_call.ipynb", lesson00.ASK_SPACE, lesson00.ask_scenarios),
    "0.2": ("00_one_model_call.ipynb", lesson00.REPAIR_SPACE, lesson00.repair_scenarios),
    "1.1": ("01_tool_schema.ipynb", lesson01.DEFINITION_SPACE, lesson01.definition_scenarios),
    "1.2": ("01_tool_schema.ipynb", lesson01.DELIVERY_SPACE, lesson01.delivery_scenarios),
    "1.3": ("01_tool_schema.ipynb", lesson01.CANCEL_SPACE, lesson01.cancel_scenarios),
    "1.4": ("01_tool_schema.ipynb", lesson01.ORDER_SPACE, lesson01.order_scenarios),
    "2.1": ("02_tool_calls.ipynb", lesson02.ROUND_TRIP_SPACE, lesson02.round_trip_scenarios),
    "3.1": ("03_dispatcher.ipynb", lesson03.DISPATCH_SPACE, lesson03.dispatch_scenarios),
    "3.2": ("03_dispatcher.ipynb", lesson03.BOOKING_SPACE, lesson03.booking_scenarios),
    "4.1": ("04_the_loop.ipynb", lesson04.RUN_SPACE, lesson04.run_scenarios),
    "4.2": ("04_the_loop.ipynb", lesson04.PREDICTION_SPACE, lesson04.prediction_scenarios),
    "5.1": ("05_guardrails.ipynb", lesson05.USES_SPACE, lesson05.uses_scenarios),
    "5.2": ("05_guardrails.ipynb", lesson05.APPROVAL_SPACE, lesson05.approval_scenarios),
    "5.3": ("05_guardrails.ipynb", lesson05.OFFER_SPACE, lesson05.offer_scenarios),
    "5.4": ("05_guardrails.ipynb", lesson05.TREE_SPACE, lesson05.tree_scenarios),
    "6.1": ("06_context_and_cost.ipynb", lesson06.USAGE_SPACE, lesson06.usage_scenarios),
    "6.2": ("06_context_and_cost.ipynb", lesson06.KEEP_SPACE, lesson06.keep_scenarios),
    "6.3": ("06_context_and_cost.ipynb", lesson06.SPLIT_SPACE, lesson06.split_scenarios),
}
# lessons 07-12
SPACES_07_12: dict[str, tuple[str, dict, object]] = {
    "7.1": ("07_coding_agent.ipynb", lesson07.READ_FILE_SPACE, lesson07.read_scenarios),
    "7.2": ("07_coding_agent.ipynb", lesson07.CITING_SPACE, lesson07.citing_scenarios),
    "7.3": ("07_coding_agent.ipynb", lesson07.TESTS_AFTER_CHANGE_SPACE, lesson07.history_scenarios),
    "8.1": ("08_real_models.ipynb", lesson08.SETTINGS_SPACE, lesson08.settings_scenarios),
    "8.2": ("08_real_models.ipynb", lesson08.RECORD_SPACE, lesson08.record_scenarios),
    "8.3": ("08_real_models.ipynb", lesson08.DIFFERENCE_SPACE, lesson08.difference_scenarios),
    "9.1": ("09_wire_formats.ipynb", lesson09.CONVERSATION_SPACE, lesson09.conversation_scenarios),
    "9.2": ("09_wire_formats.ipynb", lesson09.LOOP_SPACE, lesson09.loop_scenarios),
    "10.1": ("10_mcp_tools.ipynb", lesson10.DEFINITION_SPACE, lesson10.definition_scenarios),
    "10.2": ("10_mcp_tools.ipynb", lesson10.RESULT_SPACE, lesson10.result_scenarios),
    "10.3": ("10_mcp_tools.ipynb", lesson10.PREFIX_SPACE, lesson10.prefix_scenarios),
    "11.1": ("11_evaluating_an_agent.ipynb", lesson11.ANSWER_SPACE, lesson11.answer_scenarios),
    "11.2": ("11_evaluating_an_agent.ipynb", lesson11.GRADE_CALLS_SPACE, lesson11.calls_scenarios),
    "11.3": ("11_evaluating_an_agent.ipynb", lesson11.INTERVAL_SPACE, lesson11.interval_scenarios),
    "12.1": ("12_planning_and_subagents.ipynb", lesson12.PLAN_SPACE, lesson12.plan_scenarios),
    "12.2": ("12_planning_and_subagents.ipynb", lesson12.DELEGATE_SPACE, lesson12.delegate_scenarios),
}
# lesson 13
SPACES_13: dict[str, tuple[str, dict, object]] = {
    "13.1": ("13_untrusted_content.ipynb", lesson13.PROVENANCE_SPACE, lesson13.provenance_scenarios),
    "13.2": ("13_untrusted_content.ipynb", lesson13.DECIDE_SPACE, lesson13.decide_scenarios),
    "13.3": ("13_untrusted_content.ipynb", lesson13.PLAN_SPACE, lesson13.plan_scenarios),
    "13.4": ("13_untrusted_content.ipynb", lesson13.DELIMIT_SPACE, lesson13.delimit_scenarios),
}

SPACES = {**SPACES_00_06, **SPACES_07_12, **SPACES_13}


def _prose(notebook: str) -> str:
    cells = json.loads((ROOT / "lessons" / notebook).read_text(encoding="utf-8"))["cells"]
    text = " ".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    return re.sub(r"\s+", " ", text)


DIMENSIONS = [(exercise, name) for exercise, (_, space, _) in SPACES.items() for name in space]


@pytest.mark.parametrize(("exercise", "dimension"), DIMENSIONS)
def test_each_dimension_is_quoted_from_the_lesson(exercise, dimension):
    notebook, space, _ = SPACES[exercise]
    words = re.sub(r"\s+", " ", space[dimension].words)
    assert words in _prose(notebook), f"check {exercise}: {dimension!r} quotes words the lesson does not say"


@pytest.mark.parametrize(("exercise", "dimension"), DIMENSIONS)
def test_the_seeded_scenarios_vary_each_dimension(exercise, dimension):
    _, space, cases = SPACES[exercise]
    forms = space[dimension].forms
    assert len(forms) >= 2, f"check {exercise}: {dimension!r} names one form, so nothing varies"
    seeded = cases()
    missed = [form for form, holds in forms.items() if not any(holds(case) for case in seeded)]
    assert missed == [], f"check {exercise}: no scenario has {dimension!r} as {missed}"
