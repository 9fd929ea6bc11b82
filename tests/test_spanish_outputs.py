"""A Spanish notebook's stored outputs are what a kernel in lessons/es/ prints (agent_core/_i18n.py).

tools/translate.py builds each Spanish notebook from the English one: the same code, and the English
outputs (which nbval proves on every run) with the messages each cell showed put in Spanish, as the
English run logged them, each with its Spanish rendered as a Spanish run renders it (tools/message_log.py;
conftest.py fails a cell whose log no longer matches, test_translation.py a Spanish notebook that is not
the build of the English one). Here a real Spanish run closes the loop: a lesson runs, whole, in a fresh
kernel started in a folder lessons/es/ as JupyterLab starts it, and every cell's outputs must equal the
stored ones. Lesson 05 has failing checks (heading and problem lines), the approval panel (its repr, its
HTML, its status printed) and the course's ordinary outputs.
"""

import shutil
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import notebooks  # noqa: E402

PROVEN = "lessons/es/05_guardrails.ipynb"


def test_a_spanish_kernel_prints_the_stored_outputs_of_a_spanish_lesson(tmp_path, monkeypatch):
    monkeypatch.delenv("AGENT_CORE_LANG", raising=False)  # the folder alone chooses Spanish
    copy = tmp_path / PROVEN
    copy.parent.mkdir(parents=True)
    shutil.copy(ROOT / PROVEN, copy)
    notebooks.run(copy)
    ran, stored = (nbformat.read(path, as_version=4) for path in (copy, ROOT / PROVEN))
    spanish_lines = 0
    for index, (cell, kept) in enumerate(zip(ran.cells, stored.cells, strict=True)):
        if cell.cell_type == "code":
            assert cell.outputs == kept.outputs, f"{PROVEN} cell {index}: a run printed other outputs"
            text = "".join(o.get("text", "") for o in cell.outputs)
            spanish_lines += text.count("✗ Ejercicio 5.") + text.count("Llama a resume()")
            html = "".join(o.get("data", {}).get("text/html", "") for o in cell.outputs)
            spanish_lines += html.count("los botones Aprobar / Rechazar")
    english = nbformat.read(ROOT / "lessons" / Path(PROVEN).name, as_version=4)
    english_text = "".join(
        o.get("text", "") for c in english.cells if c.cell_type == "code" for o in c.outputs
    )
    assert spanish_lines >= 6 and "Exercise 5." in english_text  # the run said it in Spanish
