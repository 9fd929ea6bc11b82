"""Modules read in lesson order: a piece imports only its own or earlier lessons' modules, never the fake
model, at module level or inside a function."""

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


def imports_of(path: str, code: str | None = None) -> set[str]:
    """the agent_core modules that `path` imports anywhere: at module level, inside functions and
    classes, and under `if TYPE_CHECKING:` (`code`: read that instead of the file)"""
    name = module_name(path)
    package = name if path.endswith("__init__.py") else name.rpartition(".")[0]
    found = set()
    tree = ast.parse(code if code is not None else (PACKAGE / path).read_text(encoding="utf-8"))
    for node in ast.walk(tree):
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
    # lesson 00's trace shows a Responses API turn as Chat messages, read the way lesson 09 reads them
    ("trace.py", "formats/responses.py"),
}


def pieces() -> list[str]:
    """the lessons' pieces: every numbered module but the fake model's"""
    return [path for path, lesson in LESSON.items() if lesson != "all" and not path.startswith("mock/")]


def test_the_map_gives_every_piece_a_lesson():
    assert {"loop.py", "dispatch.py", "tokens.py", "coding/agent.py"} <= set(pieces())
    assert LESSON["loop.py"] == "04" and LESSON["formats/__init__.py"] == "09"


def test_a_piece_imports_only_its_own_and_earlier_lessons_and_private_helpers():
    later = []
    for path in pieces():
        for module in sorted(imports_of(path)):
            target = PATHS[module]
            if is_private_helper(target) or (path, target) in LEANS_ON_A_LATER_LESSON:
                continue
            if LESSON[target] == "all" or LESSON[target] > LESSON[path]:
                later.append(f"{path} (lesson {LESSON[path]}) imports {target} (lesson {LESSON[target]})")
    assert later == []


# Lesson 08 is about the mock itself as much as real models: its switch falls back to the mock (one
# variable picks mock or real), and a replayed cassette is answered by the mock's router with the real
# API's checks, so a replay refuses what the API refuses. No other piece reaches into mock/.
LESSON_08_USES_THE_MOCK = {
    ("providers.py", "agent_core.mock"),
    ("providers.py", "agent_core.mock.server"),
    ("replay.py", "agent_core.mock.model"),
    ("replay.py", "agent_core.mock.protocol"),
    ("_replayed_answers.py", "agent_core.mock.model"),
    ("_replayed_answers.py", "agent_core.mock._response_events"),
}


def test_no_piece_imports_the_mock():
    """fake models live in mock/; a lesson's piece takes a client, never makes a fake one"""
    reaching = [
        f"{path} (lesson {LESSON[path]}) imports {module}"
        for path in pieces()
        for module in sorted(imports_of(path))
        if (module == "agent_core.mock" or module.startswith("agent_core.mock."))
        and (path, module) not in LESSON_08_USES_THE_MOCK
    ]
    assert reaching == []


def test_the_import_reader_sees_relative_absolute_and_package_imports():
    assert "agent_core.trace" in imports_of("loop.py")  # from .trace import ...
    assert "agent_core.dispatch" in imports_of("coding/agent.py")  # from agent_core.dispatch import


def test_the_import_reader_sees_imports_inside_functions_and_type_checking_blocks():
    code = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from .formats import to_responses\n"
        "def later():\n    from . import mock\n    from .mock import responses_api\n"
        "class Recorder:\n    def replay(self):\n        import agent_core.planning\n"
    )
    assert imports_of("replay.py", code) >= {
        "agent_core.formats",
        "agent_core.mock",
        "agent_core.mock.responses_api",
        "agent_core.planning",
    }
