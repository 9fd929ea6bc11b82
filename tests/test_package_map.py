"""agent_core/README.md maps every module to its lesson, tests and check."""

import re
from pathlib import Path

import agent_core

PACKAGE = Path(agent_core.__file__).parent
MAP = (PACKAGE / "README.md").read_text(encoding="utf-8")
ROWS = [line for line in MAP.splitlines() if re.match(r"\| (\d\d|all) \| `", line)]


def modules() -> set[str]:
    found = {p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py") if "projects" not in p.parts}
    return {m for m in found if not re.fullmatch(r"checks/lesson\d\d\.py", m)}  # listed in the check column


def listed() -> list[str]:
    return [re.match(r"\| \S+ \| `([^`]+)`", row).group(1) for row in ROWS]


def test_every_module_is_on_the_map_once_and_every_line_names_a_module():
    assert sorted(listed()) == sorted(modules())


def test_every_test_and_check_the_map_names_exists():
    tests = Path(__file__).parent
    for row in ROWS:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        for test in re.findall(r"`(test_\w+\.py)`", cells[2]):
            assert (tests / test).is_file(), f"{cells[1]}: no tests/{test}"
        for check in re.findall(r"`(checks/lesson\d\d\.py)`", cells[3]):
            assert (PACKAGE / check).is_file(), f"{cells[1]}: no agent_core/{check}"


def test_every_check_module_is_on_the_map():
    checks = {p.relative_to(PACKAGE).as_posix() for p in (PACKAGE / "checks").glob("lesson*.py")}
    assert checks <= set(re.findall(r"`(checks/lesson\d\d\.py)`", MAP))
