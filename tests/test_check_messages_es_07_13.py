"""The checks of lessons 07-13 speak the learner's language: no message they show escapes `_()` (read from
their source), and the catalogued wrong answers of tests/test_checks_lessonNN.py, run in Spanish, get
problem lines with none of their English left but the values (agent_core/_i18n.py, CONTRIBUTING.md,
"Messages in the learner's language"), and the English run's message log makes of the English verdict
exactly the Spanish one: messages whose fields are other messages, or joined lists of them, included."""

import ast
import functools
import importlib
import inspect
import re
import sys
from pathlib import Path

import pytest
from test_check_messages_spanish import as_built

ROOT = Path(__file__).resolve().parent.parent
CHECKS = ROOT / "agent_core" / "checks"

# the lessons whose checks are marked; each other one fails the static test below, strictly
MARKED = {"07", "08", "09", "10", "11", "12", "13"}
LESSONS = ["07", "08", "09", "10", "11", "12", "13"]

PROSE = re.compile(r"[A-Za-z]{2,}[ ,;:.'()]+[A-Za-z]{2,}")  # two words: text a person reads

# prose a check writes that the learner never reads as a message: what the mock model says or reads,
# a tool's result, a task sent to the model (the model reads English: never marked)
FOR_THE_MODEL = {
    "07": {
        "Line {} of discount.py.",
        "# the roles of version {}\n",
    },  # a model's answer 7.2 judges; a file's text
    "09": {  # the failed call's result the model reads in the conversation 9.1 rewrites
        "{}the tool 'divide' raised ZeroDivisionError: division by zero. Check the arguments and call it "
        "again, or try another approach.",
    },
    "10": {"a {} in structuredContent"},  # the name of a shape the tests reach (test_input_space.py)
    "11": {  # the model's answers in the runs 11.1 grades; the names of the shapes the tests reach
        "The answer is {}.",
        "Not {}: the result is {}",
        "x = {}; so the answer is {}.",
        "{} was my first guess, but it is {}.",
        "a run stopped by {}",
        "stopped by {}",
    },
    "12": {"Subtask {}: look at notes.txt.", "The helpers are done.", "{} found: hello"},
    "13": {"result of {}", '<untrusted source="{}">\n'},  # a tool's result; the block the answer must open
}

# text from elsewhere inside a problem line, shown as it is: the reference's refusal, which the model
# reads, in English (13.3); the reference grader's verdict, agent_core.evaluation's (11.1, 11.2)
MODEL_TEXT = {
    "09": re.compile(r"(?<=Error: ).*$"),  # an exception's own words, after "raised TypeError: "
    "11": re.compile(r"(?<=but ).*?(?= \(|$)|(?<=pero ).*?(?= \(|$)"),
    "13": re.compile(r"(?<=refused \().*?(?=\); )|(?<=rechazarse \().*?(?=\); )"),
}


def _literal(node: ast.JoinedStr) -> str:
    return "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)


def _unmarked(lesson: str) -> list[str]:
    """each prose text in checks/lessonNN.py not inside a `_()` or `N_()` call, as line: text"""
    tree = ast.parse((CHECKS / f"lesson{lesson}.py").read_text(encoding="utf-8"))
    inside: set[int] = set()  # the ids of every node within a marking call or a docstring
    for node in ast.walk(tree):
        marking = (
            isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("_", "N_")
        )
        if marking:
            inside |= {id(n) for arg in node.args for n in ast.walk(arg)}
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            inside.add(id(body[0].value))  # a docstring (or a bare string): never shown
    found = []
    allowed = FOR_THE_MODEL.get(lesson, set())
    for node in ast.walk(tree):
        if id(node) in inside:
            continue
        if isinstance(node, ast.JoinedStr):
            text = _literal(node)
        elif isinstance(node, ast.Return) and isinstance(node.value, ast.Constant):
            text = node.value.value if isinstance(node.value.value, str) else ""
        elif isinstance(node, ast.Call) and getattr(node.func, "id", "") in ("verdict", "judge_scenarios"):
            success = node.args[-1] if getattr(node.func, "id", "") == "verdict" else node.args[4]
            text = (
                success.value if isinstance(success, ast.Constant) and isinstance(success.value, str) else ""
            )
        else:
            continue
        if PROSE.search(text) and text not in allowed:
            found.append(f"{node.lineno}: {text!r}")
    return found


@pytest.mark.parametrize(
    "lesson",
    [
        lesson
        if lesson in MARKED
        else pytest.param(lesson, marks=pytest.mark.xfail(strict=True, reason="messages not marked yet"))
        for lesson in LESSONS
    ],
)
def test_no_message_of_the_lessons_checks_escapes_translation(lesson):
    unmarked = _unmarked(lesson)
    assert not unmarked, f"checks/lesson{lesson}.py shows text not marked with _(): " + "; ".join(
        unmarked[:5]
    )


def test_the_scan_finds_an_unmarked_message_of_each_kind(tmp_path, monkeypatch):
    """the static test can fail: an f-string, a returned text and a verdict's success, each unmarked"""
    fake = tmp_path / "lesson99.py"
    fake.write_text(
        "def judge(x):\n"
        "    if x:\n"
        "        return f'yours returned {x!r}: return a list'\n"
        "    return 'the call must be refused'\n"
        "def check(f):\n"
        "    return verdict('99.1', [], 'every call is judged.')\n"
        "def fine(x):\n"
        "    return _('yours returned {x}', x=x)\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(sys.modules[__name__], "CHECKS", tmp_path)
    assert sorted(line.split(":")[0] for line in _unmarked("99")) == ["3", "4", "6"]


# --- the catalogued wrong answers, in Spanish ---------------------------------------------------------

QUOTED = re.compile(
    r"'[^']*'|\"[^\"]*\"|`[^`]*`|\[[^\]]*\]|\{[^}]*\}|\b\w+\([^)]*\)"
)  # values shown as they are


def _english_words(line: str) -> set[tuple[str, str, str]]:
    """the line's runs of three plain words, values (quoted, bracketed, calls, names_with_underscores)
    aside"""
    words = [w for w in re.findall(r"[A-Za-z][A-Za-z'-]*|\S+", QUOTED.sub(" | ", line)) if "_" not in w]
    return {
        (a.lower(), b.lower(), c.lower())
        for a, b, c in zip(words, words[1:], words[2:], strict=False)
        if all(w.isalpha() for w in (a, b, c))
    }


def _wrong_answers(lesson: str, per_check: int = 2) -> list[tuple[str, object, object]]:
    """(test name, the check, a wrong answer): the first few of each catalogue of wrong answers"""
    module = importlib.import_module(f"test_checks_lesson{lesson}")
    found = []
    for name, test in vars(module).items():
        if not name.startswith("test_") or "wrong" not in name:
            continue
        marks = [m for m in getattr(test, "pytestmark", []) if m.name == "parametrize"]
        checks = re.findall(r"\b(check_\w+)\(", inspect.getsource(test))
        if not marks or not checks:
            continue
        for case in list(marks[0].args[1])[:per_check]:
            values = case.values if hasattr(case, "values") else case
            found.append((name, getattr(module, checks[0]), values[0]))
    return found


@pytest.mark.parametrize("lesson", sorted(MARKED))
def test_the_catalogued_wrong_answers_read_in_spanish(lesson, monkeypatch, capsys, tmp_path):
    cases = _wrong_answers(lesson)
    assert cases, f"no catalogue of wrong answers found in tests/test_checks_lesson{lesson}.py"
    for name, check, wrong in cases:
        said = {}
        for language in ("en", "es"):
            monkeypatch.setenv("AGENT_CORE_LANG", language)
            assert not check(wrong), name
            said[language] = capsys.readouterr().out.splitlines()
        log = tmp_path / "messages.jsonl"
        assert as_built(functools.partial(check, wrong), monkeypatch, capsys, log) == said["es"], name
        said = {k: [line for line in lines if line.startswith("  - ")] for k, lines in said.items()}
        assert said["en"] and len(said["en"]) == len(said["es"]), (name, said)
        for english, spanish in zip(said["en"], said["es"], strict=True):
            if lesson in MODEL_TEXT:
                english, spanish = (MODEL_TEXT[lesson].sub("", line) for line in (english, spanish))
            left = _english_words(english) & _english_words(spanish)
            assert english != spanish and not left, (
                f"{name}: the Spanish problem line keeps English {sorted(left)[:3]}:\n{spanish}"
            )
