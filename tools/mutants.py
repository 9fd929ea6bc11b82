"""Mutants of each official solution cell, each judged by its exercise's check: a check that cannot tell a
changed solution from the official one either has a reason (the survivor is listed) or misses a fault.

    python tools/mutants.py                  # every exercise of every lesson
    python tools/mutants.py 00 05            # the exercises of lessons 00 and 05
    python tools/mutants.py --exercise 5.1   # one exercise
    python tools/mutants.py --sample 4       # each exercise's listed survivors and 4 other mutants (seeded)
    python tools/mutants.py --jobs 1         # one mutant at a time (default: one per core)

An exercise cell is a code cell of solutions/NN_*.ipynb whose last line calls a `check_...` function. Each
notebook's cells run in order up to its last exercise, in one process, in the notebook's folder; at an
exercise cell, each statement but the last line that the lesson's cell does not have too (the answer, not
the given code or imports) is mutated, one change at a time: a comparison flipped or moved across its
boundary, a number moved by one, a string emptied, True and False swapped, `and` and `or` swapped, an
arithmetic operator swapped, a `not` dropped, a statement deleted, a returned value emptied, `break` and
`continue` swapped. Each mutant runs in a forked copy of the notebook's state: its cell, then the check
(without shrinking its failure: whether the check fails is all that counts here); one copy per core runs
at a time, each from the same state, so the verdicts do not depend on how many run together. A mutant is
killed when the check says "not yet", raises, or runs past its time (a mutant that never ends would hang
the learner's cell too); it survives when the check passes.

Every survivor must be listed in agent_core/checks/survivors/lessonNN.toml, under its exercise, as
"equivalent: why" (it behaves as the solution does on every input the exercise allows), "overridden: why"
(it changes a default or a value the check always sets) or "allowed: why" (the lesson's words allow that
behaviour). The command prints `killed K of N` for each exercise and its survivors, and exits 1 when a
survivor is not listed. tests/test_mutants.py runs lesson 13 whole within the suite's time budget; CI
(.ci/run) runs every lesson.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import copy
import json
import os
import random
import re
import select
import signal
import sys
import time
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SURVIVORS = ROOT / "agent_core" / "checks" / "survivors"
KINDS = ("equivalent", "overridden", "allowed")
SLOWEST = 60.0  # seconds a mutant may take at most, however slow its official solution

_FLIPPED: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.Lt: ast.GtE,
    ast.GtE: ast.Lt,
    ast.Gt: ast.LtE,
    ast.LtE: ast.Gt,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}
_BOUNDARY: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
}
_ARITHMETIC: dict[type[ast.operator], type[ast.operator]] = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.Div,
    ast.Div: ast.Mult,
    ast.FloorDiv: ast.Div,
    ast.Mod: ast.FloorDiv,
}


@dataclass
class Mutant:
    """one change to a solution cell: where (the cell's line), what it was, what it became"""

    key: str  # "line 4: `a < b` -> `a >= b`", unique within its cell
    body: ast.Module  # the cell's statements but its last, with the change


@dataclass
class Outcome:
    """how one exercise's check met the mutants of its solution"""

    exercise: str
    notebook: str
    cell: int
    total: int = 0
    killed: int = 0
    survivors: list[str] = field(default_factory=list)
    seconds: float = 0.0
    broken: str = ""  # the official solution itself failed its check here (then nothing else is judged)


def _one_line(text: str, limit: int = 70) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the constants that are docstrings (changing one changes no behaviour a check can see)"""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def _changes(node: ast.AST, docstrings: set[int], parent: ast.AST | None) -> Iterator[tuple[str, Any]]:
    """(what it becomes, a function that makes the change on a copy of the node) for each mutation"""
    if isinstance(node, ast.Compare):
        for index, op in enumerate(node.ops):
            for table in (_FLIPPED, _BOUNDARY):
                if type(op) in table:
                    yield "compare", (index, table[type(op)])
    elif (
        isinstance(node, ast.Constant)
        and id(node) not in docstrings
        and not isinstance(parent, ast.JoinedStr)
    ):
        value = node.value
        if isinstance(value, bool):
            yield "constant", not value
        elif isinstance(value, int | float):
            yield "constant", value + 1
            yield "constant", value - 1
        elif isinstance(value, str) and value:
            yield "constant", ""
    elif isinstance(node, ast.BoolOp):
        yield "boolop", ast.Or if isinstance(node.op, ast.And) else ast.And
    elif isinstance(node, ast.BinOp | ast.AugAssign) and type(node.op) in _ARITHMETIC:
        yield "arithmetic", _ARITHMETIC[type(node.op)]
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        yield "not", None
    elif isinstance(node, ast.Return) and node.value is not None:
        if not (isinstance(node.value, ast.Constant) and node.value.value is None):
            yield "return", None
    elif isinstance(node, ast.Break | ast.Continue):
        yield "loop", None


def _bodies(tree: ast.AST) -> Iterator[tuple[ast.AST, str, int]]:
    """(node, field, index) of each statement that may be deleted: not a docstring, def, class or import"""
    for node in ast.walk(tree):
        for name in ("body", "orelse", "finalbody"):
            statements = getattr(node, name, None)
            if not isinstance(statements, list):
                continue
            for index, statement in enumerate(statements):
                if not isinstance(statement, ast.stmt):
                    continue
                if isinstance(
                    statement,
                    ast.FunctionDef
                    | ast.AsyncFunctionDef
                    | ast.ClassDef
                    | ast.Import
                    | ast.ImportFrom
                    | ast.Pass
                    | ast.Global
                    | ast.Nonlocal,
                ):
                    continue
                if (
                    index == 0
                    and isinstance(statement, ast.Expr)
                    and isinstance(statement.value, ast.Constant)
                ):
                    continue
                yield node, name, index


def mutants(source: str, body: ast.Module) -> list[Mutant]:
    """every single-change mutant of `body` (the cell's statements but its last), in source order"""
    found: list[Mutant] = []
    docstrings = _docstrings(body)
    parents = {id(child): node for node in ast.walk(body) for child in ast.iter_child_nodes(node)}
    nodes = list(ast.walk(body))

    def was(node: ast.AST) -> str:
        return _one_line(ast.get_source_segment(source, node) or ast.unparse(node))

    def add(line: int, before: str, after: str, changed: ast.Module) -> None:
        key = f"line {line}: `{before}` -> {after}"
        keys = {m.key for m in found}
        number = 2
        unique = key
        while unique in keys:
            unique, number = f"{key} #{number}", number + 1
        found.append(Mutant(unique, ast.fix_missing_locations(changed)))

    for position, node in enumerate(nodes):
        for kind, how in _changes(node, docstrings, parents.get(id(node))):
            changed = copy.deepcopy(body)
            target: Any = list(ast.walk(changed))[position]  # the same node as `node`, in the copy
            line = getattr(node, "lineno", 0)
            before = was(node)
            if kind == "compare":
                index, op = how
                target.ops[index] = op()
                after = f"`{_one_line(ast.unparse(target))}`"
            elif kind == "constant":
                target.value = how
                after = f"`{_one_line(ast.unparse(target))}`"
            elif kind in ("boolop", "arithmetic"):
                target.op = how()
                after = f"`{_one_line(ast.unparse(target))}`"
            elif kind == "not":
                parent = next(p for p in ast.walk(changed) if target in list(ast.iter_child_nodes(p)))
                _replace(parent, target, target.operand)
                after = f"`{_one_line(ast.unparse(target.operand))}`"
            elif kind == "return":
                target.value = None
                after = "`return`"
            else:  # loop
                parent = next(p for p in ast.walk(changed) if target in list(ast.iter_child_nodes(p)))
                swapped = ast.Continue() if isinstance(target, ast.Break) else ast.Break()
                _replace(parent, target, ast.copy_location(swapped, target))
                after = f"`{'continue' if isinstance(target, ast.Break) else 'break'}`"
            add(line, before, after, changed)
    statement_positions = {id(n): i for i, n in enumerate(nodes)}
    for holder, name, index in list(_bodies(body)):
        statement = getattr(holder, name)[index]
        changed = copy.deepcopy(body)
        copied_holder = list(ast.walk(changed))[statement_positions[id(holder)]]
        getattr(copied_holder, name)[index] = ast.copy_location(ast.Pass(), statement)
        add(statement.lineno, was(statement), "deleted", changed)
    return found


def _replace(parent: ast.AST, old: ast.AST, new: ast.AST) -> None:
    for name, value in ast.iter_fields(parent):
        if value is old:
            setattr(parent, name, new)
            return
        if isinstance(value, list):
            for index, item in enumerate(value):
                if item is old:
                    value[index] = new
                    return


def exercise_cells(notebook: Path) -> list[tuple[int, str]]:
    """(code cell number, source) of each code cell, in order"""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return [(i, "".join(c["source"])) for i, c in enumerate(c for c in cells if c["cell_type"] == "code")]


def _is_check_call(statement: ast.stmt) -> bool:
    if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)):
        return False
    function = statement.value.func
    return isinstance(function, ast.Name) and function.id.startswith("check_")


def _judged(namespace: dict[str, Any], body: ast.Module, check: ast.Expr, limit: float) -> tuple[str, str]:
    """run the cell (body, then its check) in a forked copy of the notebook's state: (result, exercise)

    result: "solved", "not yet", "raised", "timeout"
    """
    return _judged_together(namespace, [body], check, limit, jobs=1)[0]


def _started(namespace: dict[str, Any], body: ast.Module, check: ast.Expr) -> tuple[int, int]:
    """a forked copy of the notebook's state running the cell, then its check: (its pid, the pipe it
    writes [result, exercise] to)"""
    reading, writing = os.pipe()
    child = os.fork()
    if child == 0:  # the copy: run, say how it went, and leave without running anything of the parent's
        os.setpgid(0, 0)
        os.close(reading)
        result, exercise = "raised", ""
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.dup2(devnull, 2)
            from agent_core.checks import _scenarios

            _scenarios.SHRINK = False
            exec(compile(body, "<solution cell>", "exec", dont_inherit=True), namespace)
            verdict = eval(
                compile(ast.Expression(check.value), "<check>", "eval", dont_inherit=True), namespace
            )
            exercise = str(getattr(verdict, "exercise", ""))
            result = "solved" if verdict else "not yet"
        except BaseException:  # the mutant raised (or called exit): the learner would see it fail
            result = "raised"
        os.write(writing, json.dumps([result, exercise]).encode())
        os._exit(0)
    os.close(writing)
    return child, reading


def _judged_together(
    namespace: dict[str, Any], bodies: list[ast.Module], check: ast.Expr, limit: float, jobs: int
) -> list[tuple[str, str]]:
    """each body judged as _judged does, up to `jobs` forked copies at a time (each copy starts from the
    same state, so they cannot see one another's changes), in the order of `bodies`"""
    results: list[tuple[str, str]] = [("raised", "")] * len(bodies)
    waiting = list(enumerate(bodies))
    running: dict[int, tuple[int, int, float]] = {}  # pipe -> (index, pid, deadline)
    while waiting or running:
        while waiting and len(running) < max(1, jobs):
            index, body = waiting.pop(0)
            child, reading = _started(namespace, body, check)
            running[reading] = (index, child, time.monotonic() + limit)
        soonest = min(deadline for _, _, deadline in running.values())
        ready, _, _ = select.select(list(running), [], [], max(0.0, soonest - time.monotonic()))
        for reading in ready:
            index, child, _ = running.pop(reading)
            data = b""
            while chunk := os.read(reading, 65536):
                data += chunk
            os.close(reading)
            os.waitpid(child, 0)
            try:
                result, exercise = json.loads(data)
                results[index] = (str(result), str(exercise))
            except ValueError:
                results[index] = ("raised", "")
        now = time.monotonic()
        for reading, (index, child, deadline) in list(running.items()):
            if deadline <= now and reading not in ready:
                del running[reading]
                os.killpg(child, signal.SIGKILL)  # the copy and every process it started
                os.waitpid(child, 0)
                os.close(reading)
                results[index] = ("timeout", "")
    return results


def listed(lesson: str) -> dict[str, dict[str, str]]:
    """exercise -> {survivor key: "kind: why"} from agent_core/checks/survivors/lessonNN.toml"""
    path = SURVIVORS / f"lesson{lesson}.toml"
    if not path.exists():
        return {}
    return {
        exercise: dict(keys) for exercise, keys in tomllib.loads(path.read_text(encoding="utf-8")).items()
    }


def run_notebook(
    notebook: Path,
    only: set[str] | None = None,
    sample: int | None = None,
    seed: int = 0,
    report: Any = None,
    jobs: int = 1,
) -> list[Outcome]:
    """each exercise cell's mutants judged by its check; cells that are not exercises run as they are"""
    lesson = notebook.name[:2]
    survivors = listed(lesson)
    stubs = dict(exercise_cells(ROOT / "lessons" / notebook.name))
    namespace: dict[str, Any] = {"__name__": "__main__"}
    outcomes = []
    met: set[str] = set()  # the exercises met so far
    here = os.getcwd()
    os.chdir(notebook.parent)
    sys.path.insert(0, str(notebook.parent))
    cells = exercise_cells(notebook)
    checked = [number for number, source in cells if _ends_with_a_check(source)]
    try:
        for number, source in cells:
            if not checked or number > checked[-1] or only is not None and only <= met:
                break  # the cells after the last exercise (or the last one asked for) judge nothing
            tree = ast.parse(source)
            if not tree.body or not _is_check_call(tree.body[-1]):
                _run_quietly(source, number, namespace)
                continue
            body = ast.Module(body=tree.body[:-1], type_ignores=[])
            given = _given(stubs.get(number, ""))
            mutable = ast.Module(body=[s for s in body.body if ast.dump(s) not in given], type_ignores=[])
            check = tree.body[-1]
            assert isinstance(check, ast.Expr)
            started = time.monotonic()
            result, exercise = _judged(namespace, body, check, SLOWEST)
            took = time.monotonic() - started
            outcome = Outcome(exercise or f"cell {number}", str(notebook.relative_to(ROOT)), number)
            met.add(exercise)
            wanted = only is None or exercise in only
            if result != "solved":
                outcome.broken = f"the official solution's check says {result}"
            elif wanted:
                every = [
                    Mutant(m.key, ast.Module(body=_merged(body, mutable, m.body.body), type_ignores=[]))
                    for m in mutants(source, mutable)
                ]
                chosen = every
                if sample is not None:
                    known = survivors.get(exercise, {})
                    others = [m for m in every if m.key not in known]
                    chosen = [m for m in every if m.key in known]
                    chosen += random.Random(f"{seed} {exercise}").sample(others, min(sample, len(others)))
                limit = min(SLOWEST, max(10.0, 10 * took))
                verdicts = _judged_together(namespace, [m.body for m in chosen], check, limit, jobs)
                for mutant, (verdict, _) in zip(chosen, verdicts, strict=True):
                    outcome.total += 1
                    if verdict == "solved":
                        outcome.survivors.append(mutant.key)
                    else:
                        outcome.killed += 1
                outcome.seconds = time.monotonic() - started
            if wanted:
                outcomes.append(outcome)
                if report is not None:
                    report(outcome, survivors.get(outcome.exercise, {}))
            _run_quietly(source, number, namespace)  # on to the next cells, as a run does
    finally:
        os.chdir(here)
        sys.path.remove(str(notebook.parent))
    return outcomes


def _ends_with_a_check(source: str) -> bool:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    return bool(tree.body) and _is_check_call(tree.body[-1])


def _given(stub: str) -> set[str]:
    """the statements of the lesson's cell (the exercise's given code, the same in its solution)"""
    try:
        return {ast.dump(statement) for statement in ast.parse(stub).body}
    except SyntaxError:  # a stub with a blank to fill in
        return set()


def _merged(body: ast.Module, mutable: ast.Module, changed: list[ast.stmt]) -> list[ast.stmt]:
    """the cell's statements in order, the mutable ones taken from their changed copy"""
    replacement = iter(changed)
    return [next(replacement) if statement in mutable.body else statement for statement in body.body]


def _run_quietly(source: str, number: int, namespace: dict[str, Any]) -> None:
    with (
        open(os.devnull, "w") as devnull,
        contextlib.redirect_stdout(devnull),
        contextlib.redirect_stderr(devnull),
    ):
        exec(compile(source, f"<cell {number}>", "exec", dont_inherit=True), namespace)


def problems_of(outcome: Outcome, known: dict[str, str]) -> list[str]:
    """what is wrong with one exercise's outcome: the solution failing, a survivor not listed, a listed
    one that no longer survives (every listed survivor runs, whatever the sample), a reason without a kind"""
    where = f"check {outcome.exercise}"
    if outcome.broken:
        return [f"{where}: {outcome.broken}"]
    return [
        *(f"{where}: survivor not listed: {key}" for key in outcome.survivors if key not in known),
        *(
            f"{where}: listed, but no longer a survivor (remove it): {key}"
            for key in known
            if key not in outcome.survivors
        ),
        *(f"{where}: listed without a kind and a why: {key}" for key in badly_listed(known)),
    ]


def badly_listed(known: dict[str, str]) -> list[str]:
    """entries whose reason does not start with equivalent:, overridden: or allowed: and a why"""
    return [
        key
        for key, why in known.items()
        if not any(why.startswith(f"{kind}: ") and len(why) > len(kind) + 8 for kind in KINDS)
    ]


def _print(outcome: Outcome, known: dict[str, str]) -> None:
    if outcome.broken:
        print(f"check {outcome.exercise} ({outcome.notebook} code cell {outcome.cell}): {outcome.broken}")
        return
    print(
        f"check {outcome.exercise} ({outcome.notebook} code cell {outcome.cell}): killed {outcome.killed} of "
        f"{outcome.total} in {outcome.seconds:.1f} s"
    )
    for key in outcome.survivors:
        print(f"  survivor {key}\n    {known.get(key, 'NOT LISTED')}")
    sys.stdout.flush()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("lessons", nargs="*", help="lesson numbers (00 05 ...); all when none")
    parser.add_argument("--exercise", action="append", help="only this exercise (5.1); may repeat")
    parser.add_argument("--sample", type=int, help="the listed survivors and this many other mutants each")
    parser.add_argument("--seed", type=int, default=0, help="which sample (with --sample)")
    parser.add_argument(
        "--jobs",
        type=int,
        default=len(os.sched_getaffinity(0)),
        help="mutants run at once (default: the cores)",
    )
    options = parser.parse_args(argv)
    notebooks = sorted((ROOT / "solutions").glob("[0-9][0-9]_*.ipynb"))
    if options.lessons:
        notebooks = [n for n in notebooks if n.name[:2] in {f"{int(x):02d}" for x in options.lessons}]
    if options.exercise:
        notebooks = [
            n for n in notebooks if str(int(n.name[:2])) in {e.split(".")[0] for e in options.exercise}
        ]
    started = time.monotonic()
    problems = []
    killed = total = 0
    for notebook in notebooks:
        only = set(options.exercise) if options.exercise else None
        for outcome in run_notebook(notebook, only, options.sample, options.seed, _print, options.jobs):
            known = listed(notebook.name[:2]).get(outcome.exercise, {})
            killed, total = killed + outcome.killed, total + outcome.total
            problems += problems_of(outcome, known)
    print(f"killed {killed} of {total} in {time.monotonic() - started:.0f} s")
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
