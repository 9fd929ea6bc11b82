"""The repository as a whole: lint-clean, notebooks clean and paired, the console script installed."""

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import notebooks  # noqa: E402


def test_ruff_finds_nothing():
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", str(ROOT)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_python_files_are_formatted_as_ruff_format_writes_them():
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", "--no-cache", str(ROOT)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr + "\nrun: ruff format ."


def test_stored_notebooks_are_clean():
    assert notebooks.notebooks([]), "no notebooks found in lessons/ or solutions/"
    found = [p for path in notebooks.notebooks([]) for p in notebooks.problems(path)]
    assert not found, "\n".join(found) + "\nrun: python tools/notebooks.py run"


def test_every_lesson_has_a_solution_and_the_other_way_round():
    lessons = {p.name for p in (ROOT / "lessons").glob("[0-9][0-9]_*.ipynb")}
    solutions = {p.name for p in (ROOT / "solutions").glob("[0-9][0-9]_*.ipynb")}
    assert lessons == solutions


def test_the_agent_core_command_is_installed_and_answers_help():
    command = Path(sys.executable).parent / "agent-core"
    assert command.exists(), "install the project (pip install -e .) to get the agent-core command"
    result = subprocess.run([str(command), "--help"], capture_output=True, text=True)
    assert result.returncode == 0
    assert "demo" in result.stdout


MAX_PROSE_WORDS = (
    2200  # "about 2,000 words" of markdown per lesson: longer, and it no longer fits its workshop time
)


def _lessons() -> list[Path]:
    return sorted((ROOT / "lessons").glob("[0-9][0-9]_*.ipynb"))


def test_no_lesson_has_more_prose_than_fits_its_workshop_time():
    too_long = {}
    for path in _lessons():
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        words = sum(
            len(re.findall(r"\S+", "".join(c["source"]))) for c in cells if c["cell_type"] == "markdown"
        )
        if words > MAX_PROSE_WORDS:
            too_long[path.name] = words
    assert not too_long, f"lessons over {MAX_PROSE_WORDS} words of prose (split or trim them): {too_long}"


def test_the_course_map_and_the_day_plan_list_every_lesson_with_its_time():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    teaching = (ROOT / "docs" / "teaching.md").read_text(encoding="utf-8")
    for path in _lessons():
        number = path.name[:2]
        assert f"](lessons/{path.name}) |" in readme, f"README's course map has no row for {path.name}"
        row = re.search(rf"^\| {number} [^|]+\| (\d+) min \|", teaching, re.MULTILINE)
        assert row, f"docs/teaching.md's time plan has no row for lesson {number}"
        minutes = re.search(
            rf"\]\(lessons/{re.escape(path.name)}\) \|.*\| (\d+) min \|$", readme, re.MULTILINE
        )
        assert minutes and minutes.group(1) == row.group(1), (
            f"lesson {number}: README says {minutes and minutes.group(1)} min, docs/teaching.md "
            f"{row.group(1)} min"
        )


def _root_conftest(config):
    return next(
        p
        for p in config.pluginmanager.get_plugins()
        if getattr(p, "__file__", None) == str(ROOT / "conftest.py")
    )


def test_on_every_core_the_later_lessons_start_first_and_test_files_keep_xdists_order(request):
    order_files = _root_conftest(request.config).pytest_collection_modifyitems

    class Item:
        def __init__(self, path, cell):
            self.path, self.cell = Path(path), cell

    tests_per_file = {
        "tests/test_big.py": 5,
        "lessons/00_one.ipynb": 9,  # the most cells, the least work
        "lessons/07_coding.ipynb": 3,
        "tests/test_small.py": 1,
        "solutions/07_coding.ipynb": 4,
    }
    collected = [Item(path, cell) for path, count in tests_per_file.items() for cell in range(count)]

    serial = list(collected)
    order_files(type("Config", (), {})(), serial)  # no xdist worker: pytest's own order
    assert serial == collected

    items = list(collected)
    order_files(type("Config", (), {"workerinput": {}})(), items)
    files = list(dict.fromkeys(str(item.path) for item in items))
    # xdist's order by count: 00_one, test_big, solutions/07, lessons/07, test_small; the notebooks'
    # three places go to lesson 07's two copies, then lesson 00
    assert files == [
        "lessons/07_coding.ipynb",
        "tests/test_big.py",
        "solutions/07_coding.ipynb",
        "lessons/00_one.ipynb",
        "tests/test_small.py",
    ]
    assert sorted(items, key=collected.index) == collected  # nothing lost or repeated
    for path in tests_per_file:  # each file's cells whole and in order
        assert [item.cell for item in items if str(item.path) == path] == list(range(tests_per_file[path]))
