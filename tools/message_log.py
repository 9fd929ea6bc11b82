"""The Spanish of what each cell of an English notebook printed, from the run itself (agent_core/_i18n.py).

A kernel whose environment has `AGENT_CORE_MESSAGE_LOG` (agent_core._i18n.MESSAGE_LOG) naming a file
appends to it each run-time message it shows, as English and Spanish. `tools/notebooks.py run` reads
the lines each code cell added and stores them beside the Spanish catalogues, one file per notebook
(`locale/es/outputs/lessons/05_guardrails.json`: a cell's index in the notebook -> its [English,
Spanish] pairs, sorted, each once; only cells that showed a message). A message found only inside a
longer field of another (a joiner such as " and ", one of problems joined by "; ") is left out: the
larger one holds it, and a short text looked for on its own could be a value that is no message.
`tools/translate.py build` puts them into the Spanish notebook's outputs, and conftest.py proves on
every nbval run that each cell still logs what its file says (`problem`), so the Spanish outputs are
what a run prints.
"""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUTPUTS = Path("locale") / "es" / "outputs"
FOLDERS = ("lessons", "solutions")

Pairs = list[list[str]]


def sidecar(notebook: Path, root: Path = ROOT) -> Path | None:
    """the file of an English course notebook's logged messages; None for any other notebook"""
    notebook = notebook.resolve()
    if notebook.parent.parent != root.resolve() or notebook.parent.name not in FOLDERS:
        return None
    return root / OUTPUTS / notebook.parent.name / notebook.with_suffix(".json").name


def read_new(log: Path, offset: int) -> tuple[Pairs, int]:
    """the pairs logged after `offset` (sorted, each once), but those found inside a later message's
    field in the same lines (a joiner, one of several joined), and the log's new end"""
    if not log.exists():
        return [], offset
    with open(log, "rb") as file:
        file.seek(offset)
        data = file.read()
    complete = data[: data.rfind(b"\n") + 1]  # a line still being written waits for the next read
    entries = [json.loads(line) for line in complete.decode("utf-8").splitlines() if line]
    inside = {entry["inside"] for entry in entries if "inside" in entry}
    pairs = {(entry["en"], entry["es"]) for entry in entries if "en" in entry and entry["en"] not in inside}
    return [list(pair) for pair in sorted(pairs)], offset + len(complete)


def load(path: Path | None) -> dict[int, Pairs]:
    """a notebook's stored pairs by cell index (nothing when it has no file)"""
    if path is None or not path.exists():
        return {}
    return {int(index): pairs for index, pairs in json.loads(path.read_text(encoding="utf-8")).items()}


def dump(cells: dict[int, Pairs], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    """write a notebook's pairs: a cell a block, a pair a line (a diff shows which message changed)"""
    blocks = [
        f"  {json.dumps(str(index))}: [\n"
        + ",\n".join(f"    {json.dumps(pair, ensure_ascii=False)}" for pair in cells[index])
        + "\n  ]"
        for index in sorted(cells)
        if cells[index]
    ]
    text = "{\n" + ",\n".join(blocks) + "\n}\n" if blocks else "{}\n"
    path.write_text(text, encoding="utf-8", newline="\n")


def problem(notebook: Path, index: int, logged: Pairs, root: Path = ROOT) -> str:
    """ "" when a cell logged the pairs its notebook's file stores; else one line saying the first
    message that differs and what to run"""
    path = sidecar(notebook, root)
    stored = load(path).get(index, [])
    if logged == stored:
        return ""
    first = next((a, b) for a, b in zip([*logged, None], [*stored, None], strict=False) if a != b)
    ran, kept = first
    if ran is not None and ran not in stored:
        what = f"a run shows {ran[0]!r} (Spanish {ran[1]!r}), which the file does not have"
    else:
        assert kept is not None
        what = f"the file has {kept[0]!r} (Spanish {kept[1]!r}), which a run no longer shows"
    name = notebook.resolve().relative_to(root.resolve()).as_posix()
    return (
        f"{name} cell {index}: its stored Spanish outputs are stale: {what} "
        f"(in {path.relative_to(root).as_posix() if path else '?'}): run python tools/notebooks.py run {name}"
    )
