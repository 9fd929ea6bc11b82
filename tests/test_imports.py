"""agent_core's modules import each other without a cycle, and the mock stays light."""

import ast
import subprocess
import sys
from pathlib import Path

import agent_core

PACKAGE = Path(agent_core.__file__).parent


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py")) if "projects" not in p.parts}


def imported(name: str, path: Path, known: set[str]) -> set[str]:
    """the agent_core modules `name` imports, anywhere in its code, with the packages that loads"""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(
                    package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else [])
                )
            targets |= {base} | {f"{base}.{alias.name}" for alias in node.names}
    found = set()
    for target in targets:
        parts = target.split(".")
        for end in range(2, len(parts) + 1):  # importing a.b.c runs a.b's __init__ first
            candidate = ".".join(parts[:end])
            if candidate in known and not name.startswith(candidate + ".") and candidate != name:
                found.add(candidate)
    return found


def part_of(name: str) -> str:
    return ".".join(name.split(".")[:2])


def find_cycle(graph: dict[str, set[str]]) -> list[str]:
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        path.append(node)
        for following in sorted(graph[node]):
            if state.get(following) == 1:
                return path[path.index(following) :] + [following]
            if following not in state and (cycle := visit(following)):
                return cycle
        state[node] = 2
        path.pop()
        return []

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return []


def test_no_module_of_agent_core_imports_itself_round_a_cycle():
    known = modules()
    graph = {name: imported(name, path, set(known)) for name, path in known.items()}
    assert "agent_core.coding.tiny_project" in graph["agent_core.evaluation"]  # the graph sees real imports
    assert find_cycle(graph) == [], "import cycle: " + " -> ".join(find_cycle(graph))


def test_no_part_of_agent_core_imports_itself_round_a_cycle():
    # coarser: a subpackage counts as one part, so mock -> coding -> mock is a cycle even when
    # no single module takes part in one
    known = modules()
    graph: dict[str, set[str]] = {}
    for name, path in known.items():
        part = part_of(name)
        graph.setdefault(part, set()).update(
            part_of(m) for m in imported(name, path, set(known)) if part_of(m) != part
        )
    assert {"agent_core.mock", "agent_core.coding", "agent_core.loop"} <= set(graph)
    assert find_cycle(graph) == [], "import cycle: " + " -> ".join(find_cycle(graph))


def test_the_cycle_finder_finds_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) == []


def test_the_mock_alone_does_not_load_the_rest_of_the_course():
    # every notebook starts with `from agent_core import mock`; in a fresh kernel each of these
    # would cost a few tenths of a second
    code = (
        "import sys\nfrom agent_core import mock\n"
        "mock.client().chat.completions.create(model='m', messages=[{'role': 'user', 'content': 'hi'}])\n"
        "print(' '.join(sorted(sys.modules)))\n"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    heavy = [
        "jsonschema",
        "rich",
        "ipywidgets",
        "agent_core.coding",
        "agent_core.guardrails",
        "agent_core.loop",
    ]
    assert [name for name in heavy if name in loaded] == []
    assert "agent_core.mock" in loaded


def test_the_mock_imports_only_the_wire_from_the_rest_of_agent_core():
    # fake models live in mock/ (agent_core/README.md); what they need from outside is the wire
    known = modules()
    outside = set()
    for name, path in known.items():
        if part_of(name) == "agent_core.mock":
            outside |= {m for m in imported(name, path, set(known)) if part_of(m) != "agent_core.mock"}
    wire = {"agent_core.trace", "agent_core.formats", "agent_core.schema", "agent_core._jsonschema"}
    shared = {"agent_core.tokens", "agent_core._shared"}
    browser = {"agent_core._bpe", "agent_core._browser"}  # the browser edition's helpers
    observations = {"agent_core.coding", "agent_core.coding._observations"}  # what the coding tools print
    assert "agent_core.tokens" in outside
    assert outside <= wire | shared | observations | browser


def test_the_validator_loads_no_format_library_and_still_validates():
    # `import jsonschema` would load every string-format library installed (JupyterLab brings
    # them; rfc3987_syntax alone builds a grammar for about a second); the dispatcher never checks
    # formats, so agent_core._jsonschema keeps them out, and puts them back for later imports
    code = (
        "import sys\nfrom agent_core._jsonschema import Draft202012Validator, FORMAT_LIBRARIES\n"
        "schema = {'type': 'object', 'properties': {'when': {'type': 'string', 'format': 'date'}}}\n"
        "errors = list(Draft202012Validator(schema).iter_errors({'when': 3}))\n"
        "print(len(errors), ' '.join(name for name in FORMAT_LIBRARIES if name in sys.modules) or '-')\n"
        "import idna\n"  # hidden only while jsonschema loaded: importable again now
        "print(idna.__name__)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == ["1", "-", "idna"]
