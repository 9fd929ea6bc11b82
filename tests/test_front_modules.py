"""A lesson's package holds its idea: each lesson's front module defines the references its exercises are
checked against, fits in one sitting, and every private module names the lesson that owns it."""

import ast
import importlib
import inspect
import re
from pathlib import Path

import pytest

import agent_core

PACKAGE = Path(agent_core.__file__).parent

# the module(s) a learner opens to understand each lesson, read first to last (CONTRIBUTING.md's reader's
# check says why each is there); the goal is one, at most two for lessons 07 and 10
FRONT_MODULES = {
    "00": ["mock/__init__.py", "trace.py"],
    "01": ["schema.py"],
    "02": ["calls.py"],
    "03": ["dispatch.py"],
    "04": ["loop.py"],
    "05": ["guardrails.py"],
    "06": ["context/__init__.py"],
    "07": ["coding/workspace.py", "coding/agent.py"],
    "08": ["providers.py", "replay.py"],  # two exercises, one on each piece of lesson 08
    "09": ["formats/__init__.py", "formats/anthropic.py"],  # the idea, then the format the exercise writes
    "10": ["mcp_bridge/__init__.py"],
    "11": ["evaluation.py"],
    "12": ["planning.py"],
}
MAX_FRONT_LINES = 320  # "up to about 320": the idea sets the size, not the number
MAX_FUNCTION_LINES = 40
LONGER_FUNCTIONS: dict[str, str] = {}  # "module.py:function" -> the step a split would hide

# what each lesson's checks compare the learner's code against, as checks/lessonNN.py imports it:
# (module the check imports from, name). Lessons 00, 02 and 05 compare against references written
# inside their checks. Workspace stands for exercise 7.1's resolution (Workspace.resolve).
REFERENCES = {
    "01": [("schema", "tool_definition")],
    "03": [("dispatch", "ToolRegistry"), ("dispatch", "is_error")],
    "04": [("loop", "run_agent")],
    "06": [("context", "split_point"), ("context", "token_ledger")],
    "07": [("coding.agent", "Workspace"), ("coding.guards", "citations"), ("coding.guards", "shown_lines")],
    "08": [("providers", "backend_from_env"), ("replay", "first_difference")],
    "09": [("formats", "to_anthropic")],
    "10": [("mcp_bridge", "openai_name")],
    "11": [("evaluation", n) for n in ("numbers_in", "final_number", "tool_sequence", "wilson")],
    "12": [("planning", "plan_update"), ("planning", "show_plan"), ("planning", "Delegate")],
}

OWNER = re.compile(r"lesson \d\d: ")


def module_of(path: str) -> str:
    parts = Path(path).with_suffix("").parts
    return ".".join(("agent_core", *(parts[:-1] if parts[-1] == "__init__" else parts)))


def fronts(lesson: str) -> set[str]:
    return {module_of(path) for path in FRONT_MODULES[lesson]}


def private_modules() -> list[str]:
    found = [
        path.relative_to(PACKAGE).as_posix()
        for path in sorted(PACKAGE.rglob("_*.py"))
        if not path.name.startswith("__") and "projects" not in path.parts
    ]
    return found


def test_every_lesson_has_a_front_module_and_at_most_two():
    assert sorted(FRONT_MODULES) == [f"{n:02}" for n in range(13)]
    for lesson, paths in FRONT_MODULES.items():
        assert 1 <= len(paths) <= 2, f"lesson {lesson} has {len(paths)} front modules: {paths}"
        for path in paths:
            assert (PACKAGE / path).is_file(), f"lesson {lesson}'s front module {path} does not exist"


@pytest.mark.parametrize("lesson", sorted(REFERENCES))
def test_the_checks_import_every_reference_listed_here(lesson):
    """the table above is the checks' own imports, so a new reference cannot go unlisted by accident"""
    tree = ast.parse((PACKAGE / "checks" / f"lesson{lesson}.py").read_text(encoding="utf-8"))
    imported = {
        (node.module, alias.name)
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.level == 2 and node.module
        for alias in node.names
    }
    missing = [
        f"from ..{module} import {name}"
        for module, name in REFERENCES[lesson]
        if (module, name) not in imported
    ]
    assert missing == [], f"checks/lesson{lesson}.py no longer imports {missing}: update REFERENCES"


@pytest.mark.parametrize(
    ("lesson", "module", "name"),
    [(lesson, module, name) for lesson, names in sorted(REFERENCES.items()) for module, name in names],
)
def test_what_an_exercise_is_checked_against_is_defined_in_its_lessons_front_module(lesson, module, name):
    reference = getattr(importlib.import_module(f"agent_core.{module}"), name)
    defined_in = inspect.getmodule(reference).__name__
    assert defined_in in fronts(lesson), (
        f"exercise {lesson}'s reference {name} is defined in {defined_in}, beneath lesson {lesson}'s front "
        f"module ({', '.join(FRONT_MODULES[lesson])}): move it there, where the learner reads"
    )


def test_exercise_7_1_resolution_is_the_workspaces_own_method():
    from agent_core.coding.workspace import Workspace

    assert "resolve" in vars(Workspace) and inspect.getmodule(Workspace.resolve).__name__ in fronts("07")


@pytest.mark.parametrize("path", [path for paths in FRONT_MODULES.values() for path in paths])
def test_a_front_module_fits_in_one_sitting(path):
    source = (PACKAGE / path).read_text(encoding="utf-8")
    lines = len(source.splitlines())
    assert lines <= MAX_FRONT_LINES, (
        f"{path} has {lines} lines, over about {MAX_FRONT_LINES}: move what makes it trustworthy (not "
        "what the lesson teaches) into a private module beside it"
    )
    long = [
        f"{node.name}() is {node.end_lineno - node.lineno + 1} lines (line {node.lineno})"
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
        and f"{path}:{node.name}" not in LONGER_FUNCTIONS
    ]
    assert long == []


@pytest.mark.parametrize("path", private_modules())
def test_a_private_module_names_its_lesson_on_its_first_line(path):
    docstring = ast.get_docstring(ast.parse((PACKAGE / path).read_text(encoding="utf-8"))) or ""
    first = docstring.splitlines()[0] if docstring else ""
    assert OWNER.match(first), f'{path} starts {first[:60]!r}; start it """lesson NN: what it holds'


def test_the_owner_pattern_reads_the_form_and_nothing_looser():
    assert OWNER.match("lesson 07: the folder the tools may not leave")
    assert not OWNER.match("The folder the tools may not leave (lesson 07).")
    assert not OWNER.match("lessons 05, 07: reading answers")
