"""Each check's input space, written from its exercise's words: every dimension the exercise names is quoted
from the lesson's text, and the check's seeded scenarios reach every form of it (so each is varied)."""

import json
import re
from pathlib import Path

import pytest

from agent_core.checks import lesson07, lesson08, lesson09, lesson10, lesson11, lesson12

ROOT = Path(__file__).resolve().parent.parent

# exercise -> (the English lesson notebook, the check's space, its seeded scenarios)
# lessons 00-06
SPACES_00_06: dict[str, tuple[str, dict, object]] = {}
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
SPACES_13: dict[str, tuple[str, dict, object]] = {}

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
