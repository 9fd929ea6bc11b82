"""Execute the course notebooks in a fresh kernel and store their outputs; check that stored notebooks are
clean.

    python tools/notebooks.py run            # every notebook in lessons/ and solutions/
    python tools/notebooks.py run lessons/00_one_model_call.ipynb
    python tools/notebooks.py check          # what CI checks (also run by tests/test_notebooks.py)
    python tools/notebooks.py new draft.py NN_name   # a percent-format draft -> lesson and solution

`run` is the one command that regenerates what is stored: each notebook runs top to bottom in a new
kernel, in its own folder, and is saved with normalised metadata (no kernel version, no timings,
cell ids from their position), so the same code stores the same file everywhere. Widgets that work
without a kernel (the step-through viewer) keep their view and saved state, with model ids numbered
by position; other widgets' views are dropped, as their saved state would not work without a kernel.
An English notebook's kernel also logs the run-time messages each cell shows, with their Spanish
(agent_core/_i18n.py), into locale/es/outputs/ (tools/message_log.py): the Spanish notebooks' outputs.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import os
import re
import sys
import tempfile
from pathlib import Path

import message_log
import nbformat
from kernels import kernel_manager_class

from agent_core._i18n import MESSAGE_LOG
from agent_core.widgets import KERNEL_FREE

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("lessons", "solutions")
CLEAN_METADATA = {
    "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
    "language_info": {"name": "python"},
}
ALLOWED_CELL_METADATA = {"tags"}
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
MODEL_REFERENCE = re.compile(r"IPY_MODEL_(\w+)")
MACHINE_SPECIFIC = re.compile(r"(/root/|/home/\w+|/work/|/tmp/\w|\\\\Users\\\\|site-packages|0x[0-9a-f]{8,})")


def notebooks(paths: list[str]) -> list[Path]:
    if paths:
        return [Path(p).resolve() for p in paths]
    return sorted(p for folder in FOLDERS for p in (ROOT / folder).glob("[0-9][0-9]_*.ipynb"))


def normalise(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """metadata that does not depend on the machine or the run"""
    saved_widgets = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    nb.metadata = nbformat.from_dict(CLEAN_METADATA)
    nb.nbformat, nb.nbformat_minor = 4, 5
    for index, cell in enumerate(nb.cells):
        cell.id = f"cell-{index:03d}"
        cell.metadata = nbformat.from_dict(
            {k: v for k, v in cell.metadata.items() if k in ALLOWED_CELL_METADATA}
        )
        if "outputs" in cell:
            cell.outputs = _merge_streams(cell.outputs)
    state = _kernel_free_widgets(nb, saved_widgets)
    if state:
        nb.metadata["widgets"] = nbformat.from_dict(
            {WIDGET_STATE: {"state": state, "version_major": 2, "version_minor": 0}}
        )
    return nb


def _kernel_free_widgets(nb: nbformat.NotebookNode, saved: dict) -> dict:
    """keep the views and state of widgets marked KERNEL_FREE, their model ids renumbered in order

    A widget's model id is random on every run; here it becomes a hash of its position, so the
    stored state is the same on every machine. Any other widget's view is dropped: its saved state
    would show controls that need a kernel (and the widget's own text/html stays beside it).
    """
    order: list[str] = []

    def visit(model_id: str) -> None:
        if model_id in saved and model_id not in order:
            order.append(model_id)
            for child in MODEL_REFERENCE.findall(json.dumps(saved[model_id], sort_keys=True)):
                visit(child)

    views = []
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            view = output.get("data", {}).get(WIDGET_VIEW)
            if view is None:
                continue
            model = saved.get(view.get("model_id"), {})
            if KERNEL_FREE in model.get("state", {}).get("_dom_classes", []):
                views.append(view)
                visit(view["model_id"])
            else:
                del output["data"][WIDGET_VIEW]
    links = []  # links between kept widgets (jslink): nothing refers to them, they refer to widgets
    for model_id, model in saved.items():
        references = MODEL_REFERENCE.findall(json.dumps(model))
        if model_id not in order and references and all(ref in order for ref in references):
            by_position = MODEL_REFERENCE.sub(lambda m: str(order.index(m.group(1))), json.dumps(model))
            links.append((by_position, model_id))
    for _, model_id in sorted(links):
        visit(model_id)
    new_ids = {old: hashlib.sha256(f"widget-{n}".encode()).hexdigest()[:32] for n, old in enumerate(order)}
    for view in views:
        view["model_id"] = new_ids[view["model_id"]]
    text = json.dumps({new_ids[old]: saved[old] for old in order})
    return json.loads(MODEL_REFERENCE.sub(lambda m: "IPY_MODEL_" + new_ids.get(m.group(1), m.group(1)), text))


def _merge_streams(outputs: list) -> list:
    """one output per run of stdout (or stderr) text: how the kernel splits it depends on timing"""
    merged: list = []
    for output in outputs:
        previous = merged[-1] if merged else None
        if (
            output.get("output_type") == "stream"
            and previous is not None
            and previous.get("output_type") == "stream"
            and previous.get("name") == output.get("name")
        ):
            previous["text"] = "".join(previous["text"]) + "".join(output["text"])
        else:
            merged.append(output)
    return merged


def run(path: Path, timeout: int = 300) -> None:
    """execute one notebook in a fresh kernel, in its own folder, and store it; for an English course
    notebook, also the messages each cell showed, with their Spanish (tools/message_log.py)"""
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    sidecar = message_log.sidecar(path)
    logged: dict[int, message_log.Pairs] = {}
    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / "messages.jsonl"
        end = [0]

        def cell_ran(cell: nbformat.NotebookNode, cell_index: int, **_reply: object) -> None:
            # a cell's messages are all written when its reply comes: _() writes as it shows them
            logged[cell_index], end[0] = message_log.read_new(log, end[0])

        client = NotebookClient(
            nb,
            timeout=timeout,
            kernel_name="python3",
            resources={"metadata": {"path": str(path.parent)}},
            record_timing=False,
            store_widget_state=True,
            kernel_manager_class=kernel_manager_class(),  # Unix sockets where there are (tools/kernels.py)
            on_cell_executed=cell_ran if sidecar else None,
        )
        before = os.environ.get(MESSAGE_LOG)
        if sidecar:
            os.environ[MESSAGE_LOG] = str(log)  # the kernel inherits it
        try:
            client.execute()
        finally:
            if before is None:
                os.environ.pop(MESSAGE_LOG, None)
            else:
                os.environ[MESSAGE_LOG] = before
    nbformat.write(normalise(nb), path)
    if sidecar:
        message_log.dump(logged, sidecar)


def problems(path: Path) -> list[str]:
    """what is wrong with a stored notebook, as sentences (empty when it is clean)"""
    found = []
    nb = nbformat.read(path, as_version=4)
    name = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    if {key: value for key, value in nb.metadata.items() if key != "widgets"} != CLEAN_METADATA:
        found.append(f"{name}: notebook metadata is not normalised")
    renormalised = normalise(copy.deepcopy(nb))
    if renormalised.metadata.get("widgets") != nb.metadata.get("widgets") or [
        c.get("outputs") for c in renormalised.cells
    ] != [c.get("outputs") for c in nb.cells]:
        found.append(f"{name}: widget views or saved widget state are not as `run` stores them")
    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    match = MACHINE_SPECIFIC.search(json.dumps(state))
    if match:
        found.append(f"{name}: saved widget state shows something machine-specific: {match.group(0)!r}")
    code = [c for c in nb.cells if c.cell_type == "code"]
    counts = [c.execution_count for c in code]
    if counts != list(range(1, len(code) + 1)):
        found.append(
            f"{name}: execution counts are {counts[:10]}..., not 1..{len(code)} (not run top to bottom)"
        )
    for index, cell in enumerate(nb.cells):
        if cell.get("id") != f"cell-{index:03d}" or set(cell.metadata) - ALLOWED_CELL_METADATA:
            found.append(f"{name}: cell {index} has ids or metadata that `run` would not store")
            break
    for cell in code:
        if len(_merge_streams([dict(o) for o in cell.get("outputs", [])])) != len(cell.get("outputs", [])):
            found.append(f"{name}: a cell stores its printed text in pieces (run merges them)")
        for output in cell.get("outputs", []):
            view = output.get("data", {}).get(WIDGET_VIEW)
            if view is not None and view.get("model_id") not in state:
                found.append(f"{name}: an output shows a widget whose state is not saved")
            if output.get("output_type") == "error" and "raises-exception" not in cell.metadata.get(
                "tags", []
            ):
                found.append(
                    f"{name}: a cell raised {output.get('ename')} (tag it raises-exception if meant)"
                )
            text = str(output.get("text", "")) + str(output.get("data", ""))
            match = MACHINE_SPECIFIC.search(text)
            if match:
                found.append(f"{name}: an output shows something machine-specific: {match.group(0)!r}")
    return found


def from_script(path: Path, name: str) -> list[Path]:
    """turn a percent-format draft into lessons/NAME.ipynb and solutions/NAME.ipynb

    `# %%` starts a code cell (`# %% tags=["raises-exception"]` to tag it), `# %% [markdown]` a
    markdown cell. Lines between `# BEGIN STUB` and `# END STUB` go only to the lesson, lines
    between `# BEGIN SOLUTION` and `# END SOLUTION` only to the solution, so the two notebooks
    are the same everywhere else.
    """
    written = []
    for folder, keep, drop in (("lessons", "STUB", "SOLUTION"), ("solutions", "SOLUTION", "STUB")):
        lines, skipping = [], False
        for line in path.read_text(encoding="utf-8").splitlines():
            marker = line.strip()
            if marker in (f"# BEGIN {drop}", f"# END {drop}"):
                skipping = marker.startswith("# BEGIN")
            elif marker not in (f"# BEGIN {keep}", f"# END {keep}") and not skipping:
                lines.append(line)
        target = ROOT / folder / f"{name}.ipynb"
        nbformat.write(normalise(nbformat.v4.new_notebook(cells=_cells(lines))), target)
        written.append(target)
    return written


def _cells(lines: list[str]) -> list[nbformat.NotebookNode]:
    cells: list[nbformat.NotebookNode] = []
    kind: str | None = None
    tags: list[str] = []
    source: list[str] = []

    def flush():
        text = "\n".join(source).strip("\n")
        if kind == "markdown":
            text = "\n".join(
                line[2:] if line.startswith("# ") else line.lstrip("#") for line in text.splitlines()
            )
            cells.append(nbformat.v4.new_markdown_cell(text))
        elif kind == "code" and text:
            cell = nbformat.v4.new_code_cell(text)
            if tags:
                cell.metadata["tags"] = tags
            cells.append(cell)

    for line in lines:
        if line.startswith("# %%"):
            flush()
            kind, source = ("markdown" if "[markdown]" in line else "code"), []
            tags = json.loads(line.split("tags=", 1)[1]) if "tags=" in line else []
        else:
            source.append(line)
    flush()
    return cells


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("command", choices=["run", "check", "new"])
    parser.add_argument("paths", nargs="*")
    args = parser.parse_args(argv)
    if args.command == "new":
        if len(args.paths) != 2:
            parser.error("new takes a draft .py and a notebook name such as 03_dispatcher")
        for target in from_script(Path(args.paths[0]), args.paths[1]):
            print("wrote", target.relative_to(ROOT))
        return 0
    if args.command == "run":
        for path in notebooks(args.paths):
            print("running", path.relative_to(ROOT) if path.is_relative_to(ROOT) else path, flush=True)
            run(path)
        return 0
    found = [p for path in notebooks(args.paths) for p in problems(path)]
    print("\n".join(found) if found else "all notebooks clean")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
