"""Each check's input space, written from its exercise's words: every dimension the exercise names is quoted
from the lesson's text, and the check's seeded scenarios reach every form of it (so each is varied)."""

import json
import re
from pathlib import Path

import pytest

from agent_core.checks import lesson13

ROOT = Path(__file__).resolve().parent.parent

# exercise -> (the English lesson notebook, the check's space, its seeded scenarios)
# lessons 00-06
SPACES_00_06: dict[str, tuple[str, dict, object]] = {}
# lessons 07-12
SPACES_07_12: dict[str, tuple[str, dict, object]] = {}
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
