"""Each lesson's module reads in one sitting, and nothing in agent_core hides a protocol in another
library's objects."""

import ast
import re
from pathlib import Path

import pytest

import agent_core
from agent_core._stop_reasons import STOP_REASONS

PACKAGE = Path(agent_core.__file__).parent

# the module each lesson names, the one a learner reads right after the lesson
LESSON_MODULES = {
    "00": ["trace.py", "render/__init__.py", "tokens.py", "mock/__init__.py"],
    "01": ["schema.py"],
    "02": ["calls.py"],
    "03": ["dispatch.py"],
    "04": ["loop.py"],
    "05": ["guardrails.py", "approval.py"],
    "06": ["context/__init__.py", "costs.py"],
    "07": ["coding/__init__.py", "coding/workspace.py", "coding/agent.py"],
    "08": ["providers.py", "replay.py"],
    "09": [
        "formats/__init__.py",
        "formats/responses.py",
        "formats/anthropic.py",
        "formats/ollama.py",
        "anthropic_loop.py",
    ],
    "10": ["mcp_bridge/__init__.py"],
    "11": ["evaluation.py"],
    "12": ["planning.py"],
    "13": ["untrusted.py"],
}
HELD = [path for paths in LESSON_MODULES.values() for path in paths]
MAX_LINES = 320  # "up to about 320": the idea sets the size
MAX_FUNCTION_LINES = 40


def source(path: str) -> str:
    return (PACKAGE / path).read_text(encoding="utf-8")


def python_files() -> list[Path]:
    return [path for path in sorted(PACKAGE.rglob("*.py")) if "projects" not in path.parts]


@pytest.mark.parametrize("path", HELD)
def test_a_lesson_module_fits_in_one_sitting(path):
    lines = len(source(path).splitlines())
    assert lines <= MAX_LINES, (
        f"{path} has {lines} lines: move its hardening into a private module beneath it"
    )


@pytest.mark.parametrize("path", HELD)
def test_no_function_of_a_lesson_module_is_over_40_lines(path):
    long = [
        f"{node.name}() is {node.end_lineno - node.lineno + 1} lines (line {node.lineno})"
        for node in ast.walk(ast.parse(source(path)))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
    ]
    assert long == []


@pytest.mark.parametrize("path", HELD)
def test_a_lesson_module_names_its_concept_in_a_short_docstring(path):
    docstring = ast.get_docstring(ast.parse(source(path))) or ""
    assert docstring, f"{path} has no module docstring"
    first_paragraph = docstring.split("\n\n")[0]
    assert len(first_paragraph.splitlines()) <= 3, f"{path}: the first paragraph of its docstring is long"


def test_every_lesson_module_exists_and_is_in_the_package_map():
    listed = (PACKAGE / "README.md").read_text(encoding="utf-8")
    for path in HELD:
        assert (PACKAGE / path).is_file(), path
        assert f"`{path}`" in listed, f"{path} is not in agent_core/README.md"


def assignments_to_private_attributes(tree: ast.AST) -> list[str]:
    """`thing._name = ...` where thing is not self or cls: writing another object's private state"""
    found = []
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        for target in targets:
            if (
                isinstance(target, ast.Attribute)
                and target.attr.startswith("_")
                and not target.attr.startswith("__")
                and not (isinstance(target.value, ast.Name) and target.value.id in ("self", "cls"))
            ):
                found.append(f"line {node.lineno}: {ast.unparse(target)} = ...")
    return found


def test_the_private_attribute_finder_sees_a_write_and_ignores_self():
    tree = ast.parse("http._transport = x\nself._cache = {}\nclient.trace = t\n")
    assert assignments_to_private_attributes(tree) == ["line 1: http._transport = ..."]


def test_nothing_writes_a_private_attribute_of_another_object():
    found = [
        f"{path.relative_to(PACKAGE)} {where}"
        for path in python_files()
        for where in assignments_to_private_attributes(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert found == []


def test_nothing_adds_attributes_to_objects_it_does_not_declare():
    """setattr, or an attribute mypy does not know (hidden with `type: ignore[attr-defined]`), is a
    new attribute hung on an object whose class does not declare it"""
    found = [
        f"{path.relative_to(PACKAGE)}:{number}: {line.strip()}"
        for path in python_files()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"\bsetattr\(|ignore\[[^]]*attr-defined", line)
    ]
    assert found == []


# the names of the hooks and fields the issue found looked up by name instead of declared
HOOK_NAMES = {
    "start",
    "before_model",
    "after_model",
    "before_tool",
    "after_tool",
    "check_answer",
    "caught",
    "trace",
    "backend",
    "endpoints",
    "check",
    "events",
}


def test_hooks_are_declared_methods_not_attributes_looked_up_by_name():
    found = []
    for path in python_files():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("getattr", "hasattr")
                and len(node.args) >= 2
                and isinstance(node.args[1], ast.Constant)
                and node.args[1].value in HOOK_NAMES
            ):
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: {ast.unparse(node)}")
    assert found == []


def written_stop_reasons(tree: ast.AST) -> set[str]:
    """every string the code gives as a stop reason: StopRun("x", ...), `.stop_reason = "x"`,
    `stop_reason="x"`, a guard's class-level `reason = "x"`, and `run.stop_reason == "x"`"""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "StopRun":
            if node.args and isinstance(node.args[0], ast.Constant):
                found.add(node.args[0].value)
        if isinstance(node, ast.Call):
            for keyword in node.keywords:
                if keyword.arg == "stop_reason" and isinstance(keyword.value, ast.Constant):
                    found.add(keyword.value.value)
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            for target in node.targets:
                name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
                if (
                    name in ("stop_reason", "reason")
                    and isinstance(node.value.value, str)
                    and node.value.value
                ):
                    found.add(node.value.value)
        if isinstance(node, ast.Compare) and isinstance(node.left, ast.Attribute):
            owner = node.left.value  # a run's stop_reason (Anthropic's responses have their own)
            ran = (isinstance(owner, ast.Name) and owner.id == "run") or (
                isinstance(owner, ast.Attribute) and owner.attr == "run"
            )
            if node.left.attr == "stop_reason" and ran:
                found |= {
                    c.value for c in node.comparators if isinstance(c, ast.Constant) and c.value is not None
                }
    return found


def test_the_stop_reason_finder_sees_each_way_of_writing_one():
    code = (
        'raise StopRun("a", "m")\nrun.stop_reason = "b"\nRecord(stop_reason="c")\n'
        'class G:\n    reason = "d"\nok = run.stop_reason == "e"\n'
    )
    assert written_stop_reasons(ast.parse(code)) == {"a", "b", "c", "d", "e"}


def test_every_stop_reason_written_anywhere_is_in_the_one_typed_set():
    unknown = {
        f"{path.relative_to(PACKAGE)}: {reason!r}"
        for path in python_files()
        if "checks" not in path.parts and "mock" not in path.parts
        for reason in written_stop_reasons(ast.parse(path.read_text(encoding="utf-8")))
        if reason not in STOP_REASONS
    }
    assert unknown == set()
