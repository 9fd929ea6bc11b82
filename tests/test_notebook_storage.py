"""How tools/notebooks.py stores widgets: the step-through's saved state kept, with ids that are the same on
every run."""

import copy
import json
import sys
from pathlib import Path

import ipywidgets as widgets
import nbformat

from agent_core import mock
from agent_core.widgets import ApprovalPanel, step_through

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import notebooks  # noqa: E402


def executed_notebook() -> nbformat.NotebookNode:
    """what nbclient hands over: outputs with random model ids, and the state of every widget alive"""
    client = mock.client(mock.Script(mock.call("add", a=1, b=2), "3"))
    for _ in range(2):
        client.chat.completions.create(model="mock-model", messages=[{"role": "user", "content": "1+2?"}])
    cells = []
    for shown in (step_through(client.trace), ApprovalPanel()):
        cell = nbformat.v4.new_code_cell("shown")
        cell.outputs = [
            nbformat.v4.new_output("execute_result", data=shown._repr_mimebundle_(), execution_count=1)
        ]
        cells.append(cell)
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["widgets"] = {notebooks.WIDGET_STATE: widgets.Widget.get_manager_state(drop_defaults=False)}
    return nbformat.from_dict(json.loads(json.dumps(nb)))


def test_the_step_through_keeps_its_view_and_state_with_the_same_ids_on_every_run():
    first, second = notebooks.normalise(executed_notebook()), notebooks.normalise(executed_notebook())
    assert json.dumps(first, sort_keys=True) == json.dumps(second, sort_keys=True)
    state = first.metadata["widgets"][notebooks.WIDGET_STATE]["state"]
    view = first.cells[0].outputs[0].data[notebooks.WIDGET_VIEW]
    assert state[view["model_id"]]["model_name"] == "VBoxModel"
    names = sorted(model["model_name"] for model in state.values())
    assert names.count("HTMLModel") == 2 and "ToggleButtonsModel" in names and "StackModel" in names
    # the browser-side link between buttons and pages: nothing refers to it, it must be kept all the same
    (link,) = [model["state"] for model in state.values() if model["model_name"] == "LinkModel"]
    assert {ref.removeprefix("IPY_MODEL_") for ref in (link["source"][0], link["target"][0])} <= set(state)
    assert notebooks.normalise(copy.deepcopy(first)) == first  # storing again changes nothing


def test_a_widget_that_needs_a_kernel_loses_its_view_and_state_but_keeps_its_text():
    nb = notebooks.normalise(executed_notebook())
    data = nb.cells[1].outputs[0].data
    assert notebooks.WIDGET_VIEW not in data
    assert "the Approve / Deny buttons need a running kernel" in data["text/html"]
    state = nb.metadata["widgets"][notebooks.WIDGET_STATE]["state"]
    assert "ButtonModel" not in {model["model_name"] for model in state.values()}


def test_check_reports_widget_state_that_run_would_not_store(tmp_path):
    path = tmp_path / "04_example.ipynb"
    nb = notebooks.normalise(executed_notebook())
    for index, cell in enumerate(nb.cells):  # what `run` also stores: counts from 1
        cell.execution_count = index + 1
        cell.outputs[0].execution_count = index + 1
    nbformat.write(nb, path)
    assert notebooks.problems(path) == []

    raw = executed_notebook()  # random ids, and the state of widgets that need a kernel
    raw.metadata.update(notebooks.CLEAN_METADATA)
    raw.cells = nb.cells[:1]
    raw.cells[0].outputs[0].data[notebooks.WIDGET_VIEW]["model_id"] = "0123456789abcdef0123456789abcdef"
    nbformat.write(raw, path)
    found = " ".join(notebooks.problems(path))
    assert "widget views or saved widget state are not as `run` stores them" in found
    assert "an output shows a widget whose state is not saved" in found
