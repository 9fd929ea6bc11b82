"""Modules read in lesson order: a piece imports only its own or earlier lessons' modules, never the fake
model."""

import ast
import re
from pathlib import Path

import agent_core

PACKAGE = Path(agent_core.__file__).parent
ROWS = [
    [cell.strip() for cell in line.strip("|").split("|")]
    for line in (PACKAGE / "README.md").read_text(encoding="utf-8").splitlines()
    if re.match(r"\| (\d\d|all) \| `", line)
]
LESSON = {re.match(r"`([^`]+)`", cells[1]).group(1): cells[0] for cells in ROWS}  # "coding/agent.py" -> "07"


def module_name(path: str) -> str:
    parts = Path(path).with_suffix("").parts
    return ".".join(("agent_core", *(parts[:-1] if parts[-1] == "__init__" else parts)))


PATHS = {module_name(path): path for path in LESSON}


def is_private_helper(path: str) -> bool:
    name = Path(path).name
    return name.startswith("_") and not name.startswith("__")


def imports_at_module_level(path: str) -> set[str]:
    """the agent_core modules that `path` imports in its top-level statements (not in functions)"""
    name = module_name(path)
    package = name if path.endswith("__init__.py") else name.rpartition(".")[0]
    found = set()
    for node in ast.parse((PACKAGE / path).read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            for alias in node.names:  # `from agent_core import mock` imports the module agent_core.mock
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in PATHS else base)
    return {module for module in found if module in PATHS and module != name}


# the one place a piece leans on a later lesson, on purpose: lesson 05's practice project runs its
# tests with real pytest in the sandbox lesson 07 teaches, on files read the way lesson 07 reads them
LEANS_ON_A_LATER_LESSON = {
    ("coding/tiny_project.py", "coding/sandbox.py"),
    ("coding/tiny_project.py", "coding/workspace.py"),
}


def pieces() -> list[str]:
    """the lessons' pieces: every numbered module but the fake model's"""
    return [path for path, lesson in LESSON.items() if lesson != "all" and not path.startswith("mock/")]


def test_the_map_gives_every_piece_a_lesson():
    assert {"loop.py", "dispatch.py", "tokens.py", "coding/agent.py"} <= set(pieces())
    assert LESSON["loop.py"] == "04" and LESSON["formats.py"] == "09"


def test_a_piece_imports_only_its_own_and_earlier_lessons_and_private_helpers():
    later = []
    for path in pieces():
        for module in sorted(imports_at_module_level(path)):
            target = PATHS[module]
            if is_private_helper(target) or (path, target) in LEANS_ON_A_LATER_LESSON:
                continue
            if LESSON[target] == "all" or LESSON[target] > LESSON[path]:
                later.append(f"{path} (lesson {LESSON[path]}) imports {target} (lesson {LESSON[target]})")
    assert later == []


def test_no_piece_of_lessons_00_to_07_imports_the_mock():
    reaching = [
        f"{path} (lesson {LESSON[path]}) imports {module}"
        for path in pieces()
        if LESSON[path] <= "07"
        for module in sorted(imports_at_module_level(path))
        if module == "agent_core.mock" or module.startswith("agent_core.mock.")
    ]
    assert reaching == []


def test_the_import_reader_sees_relative_absolute_and_package_imports():
    assert "agent_core.trace" in imports_at_module_level("loop.py")  # from .trace import ...
    assert "agent_core.dispatch" in imports_at_module_level(
        "coding/agent.py"
    )  # from agent_core.dispatch import
    assert "agent_core.mock" in imports_at_module_level("evaluation.py")  # from . import mock
    assert "agent_core.coding.tiny_project" in imports_at_module_level("evaluation.py")
