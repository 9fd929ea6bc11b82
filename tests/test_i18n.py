"""agent_core's run-time messages in the learner's language (agent_core/_i18n.py): the English exactly as
before, the Spanish from agent_core/locale/es/messages.po, chosen by AGENT_CORE_LANG or the notebook's
folder; every marked message has its Spanish (tools/translate.py)."""

import fnmatch
import re
import sys
import tomllib
from pathlib import Path

import pytest

from agent_core import _browser, _i18n
from agent_core.checks import verdict
from agent_core.widgets import ApprovalPanel

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import translate  # noqa: E402

CALL = {"id": "call_1", "type": "function", "function": {"name": "send_application", "arguments": "{}"}}


@pytest.fixture
def english(monkeypatch):
    monkeypatch.delenv("AGENT_CORE_LANG", raising=False)
    monkeypatch.chdir(ROOT)


@pytest.fixture
def spanish_notebook(tmp_path, monkeypatch):
    """a kernel started in lessons/es/, as JupyterLab starts one for a notebook there"""
    monkeypatch.delenv("AGENT_CORE_LANG", raising=False)
    folder = tmp_path / "lessons" / "es"
    folder.mkdir(parents=True)
    monkeypatch.chdir(folder)


def test_the_language_is_the_variables_else_the_notebooks_folders_else_english(tmp_path, monkeypatch):
    monkeypatch.delenv("AGENT_CORE_LANG", raising=False)
    for folder, expected in [
        ("lessons/es", "es"),
        ("solutions/es", "es"),
        ("lessons", "en"),
        ("es", "en"),  # a folder es elsewhere is no notebook of the course
        ("other/es", "en"),
    ]:
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
        monkeypatch.chdir(tmp_path / folder)
        assert _i18n.language() == expected, folder
    monkeypatch.setenv("AGENT_CORE_LANG", "en")  # the variable wins, in the Spanish folder too
    monkeypatch.chdir(tmp_path / "lessons" / "es")
    assert _i18n.language() == "en"
    monkeypatch.chdir(tmp_path / "lessons")
    for value in ("es", "ES", "es_ES.UTF-8"):
        monkeypatch.setenv("AGENT_CORE_LANG", value)
        assert _i18n.language() == "es"
    monkeypatch.setenv("AGENT_CORE_LANG", "fr")  # no such catalogue: the folder decides
    assert _i18n.language() == "en"


def test_a_verdict_in_english_is_byte_for_byte_what_it_was(english, capsys):
    verdict("5.1", ["the guard let a sixth call run", "it raised {KeyError}"], "done.")
    verdict("5.1", [], "your guard stops the loop {as asked}.")
    assert capsys.readouterr().out == (
        "✗ Exercise 5.1: not yet.\n  - the guard let a sixth call run\n  - it raised {KeyError}\n"
        "✓ Exercise 5.1: your guard stops the loop {as asked}.\n"
    )


def test_a_verdict_in_a_spanish_notebook_has_a_spanish_heading(spanish_notebook, capsys):
    solved = verdict("5.1", ["the guard let a sixth call run"], "done.")
    verdict("12.2", [], "el ayudante {falla} bien.")
    assert capsys.readouterr().out == (
        "✗ Ejercicio 5.1: todavía no.\n  - the guard let a sixth call run\n"
        "✓ Ejercicio 12.2: el ayudante {falla} bien.\n"
    )
    assert not solved and solved.exercise == "5.1"


def test_the_approval_panels_labels_follow_the_language(english, monkeypatch):
    panel = ApprovalPanel()
    assert (panel.approve_button.description, panel.deny_button.description) == ("Approve", "Deny")
    assert panel.status == "No call is waiting for approval."
    monkeypatch.setenv("AGENT_CORE_LANG", "es")
    panel = ApprovalPanel()
    assert (panel.approve_button.description, panel.deny_button.description) == ("Aprobar", "Rechazar")
    assert panel.reason_text.placeholder == "¿por qué no? (el modelo lo lee)"
    assert panel.status == "Ninguna llamada espera aprobación."
    assert panel(CALL) is None
    assert panel.status.startswith("El agente quiere ejecutar send_application") and panel.status.endswith(
        "¿La apruebas o la rechazas?"
    )
    assert "Aprobar / Rechazar" in panel._repr_mimebundle_()["text/html"]
    assert repr(panel) == f"ApprovalPanel: {panel.status}"
    panel.deny("  ")
    assert panel.status.endswith(
        ": rechazada (the user clicked Deny). Llama a resume() para seguir con la ejecución."
    )


def test_the_browsers_stop_line_in_spanish_points_to_the_spanish_readmes_quick_start(english, monkeypatch):
    monkeypatch.setattr(_browser, "IN_BROWSER", True)
    with pytest.raises(_browser.NeedsLocalInstall) as raised:
        _browser.local_install_only("07")
    english_line = str(raised.value)
    assert english_line == (
        "Lesson 07 runs commands in processes and limits each search's time, which the browser edition "
        "cannot do: run lesson 07 from a local install (README, quick start)."
    )
    assert "\n## Quick start\n" in (ROOT / "README.md").read_text(encoding="utf-8")
    monkeypatch.setenv("AGENT_CORE_LANG", "es")
    for lesson in _browser.LOCAL_INSTALL_LESSONS:
        with pytest.raises(_browser.NeedsLocalInstall) as raised:
            _browser.local_install_only(lesson)
        line = str(raised.value)
        assert line.startswith(f"La lección {lesson} ") and "Lesson" not in line
        assert line.endswith(
            f"ejecuta la lección {lesson} desde una instalación local (README.es.md, «Para empezar»)."
        )
    section = re.search(r"\(README\.es\.md, «(.+)»\)", line)
    assert section and f"\n## {section[1]}\n" in (ROOT / "README.es.md").read_text(encoding="utf-8")
    with pytest.raises(_browser.NeedsLocalInstall) as raised:
        _browser.needs_local_install("serve() starts an HTTP server on a network port", "06 or 08")
    assert str(raised.value).startswith("serve() arranca un servidor HTTP en un puerto de red, y la edición")
    assert "la lección 06 u 08 desde" in str(raised.value)


def test_every_message_agent_core_marks_has_its_spanish():
    messages = translate.runtime_messages()
    assert "✗ Exercise {exercise}: not yet." in messages and "Approve" in messages
    assert set(_browser.LOCAL_INSTALL_LESSONS.values()) <= set(messages)
    problems = translate.runtime_problems()
    assert not problems, "\n".join(problems) + "\nrun: python tools/translate.py extract"


def test_the_check_names_a_marked_message_with_no_spanish_or_other_fields(tmp_path):
    (tmp_path / "agent_core").mkdir()
    code = 'from ._i18n import _\n\nprint(_("Hello {name}", name="x"), _("07"), _(variable))\n'
    (tmp_path / "agent_core" / "greet.py").write_text(code, encoding="utf-8")
    (problem,) = translate.runtime_problems(tmp_path)
    assert problem == (
        "agent_core/greet.py:3: 'Hello {name}' has no Spanish in agent_core/locale/es/messages.po: "
        "translate it there"
    )
    path = translate.extract_runtime(tmp_path)
    catalogue = translate.read_catalogue(path)
    assert [m.id for m in catalogue if m.id] == ["Hello {name}"]
    catalogue.get("Hello {name}").string = "Hola {nombre}"
    translate.write_catalogue(catalogue, path)
    (problem,) = translate.runtime_problems(tmp_path)
    assert "has the fields ['nombre'], the English ['name']" in problem
    catalogue.get("Hello {name}").string = "Hola {name}"
    translate.write_catalogue(catalogue, path)
    assert translate.runtime_problems(tmp_path) == []
    assert _i18n.read_po(path.read_text(encoding="utf-8")) == {"Hello {name}": "Hola {name}"}
    (tmp_path / "agent_core" / "greet.py").write_text("print('Hello')\n", encoding="utf-8")
    assert translate.runtime_problems(tmp_path) == []  # nothing marked: nothing to check
    (tmp_path / "agent_core" / "other.py").write_text('_("Bye")\n', encoding="utf-8")
    assert any("'Hello {name}' is marked nowhere" in p for p in translate.runtime_problems(tmp_path))


def test_the_po_reader_skips_fuzzy_and_untranslated_entries_and_joins_continued_lines():
    text = (
        'msgid ""\nmsgstr ""\n"Language: es\\n"\n\n'
        '#: a.py\nmsgid "One"\nmsgstr "Uno"\n\n'
        '#, fuzzy\n#| msgid "Tow"\nmsgid "Two"\nmsgstr "Dos"\n\n'
        'msgid "Three"\nmsgstr ""\n\n'
        'msgid ""\n"Four \\"quoted\\"\\n"\n"lines"\nmsgstr ""\n"Cuatro \\"citadas\\"\\n"\n"líneas"\n'
        'msgid "Five"\nmsgstr "Cinco"\n'
    )
    assert _i18n.read_po(text) == {
        "One": "Uno",
        'Four "quoted"\nlines': 'Cuatro "citadas"\nlíneas',
        "Five": "Cinco",
    }


def test_the_package_ships_the_catalogue_for_the_browser_edition_too():
    shipped = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    patterns = shipped["package-data"]["agent_core"]
    catalogue = _i18n.LOCALE / "es" / "messages.po"
    relative = catalogue.relative_to(ROOT / "agent_core").as_posix()
    assert catalogue.exists() and any(fnmatch.fnmatch(relative, pattern) for pattern in patterns)
    assert _i18n.catalogue("es")["Approve"] == "Aprobar" and _i18n.catalogue("en") == {}


def test_the_glossary_applies_to_agent_cores_messages_too(tmp_path):
    (tmp_path / "agent_core").mkdir()
    (tmp_path / "agent_core" / "stop.py").write_text('_("The agent stopped.")\n', encoding="utf-8")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "glossary.es.md").write_text(
        "| inglés | español | también vale | nota |\n|---|---|---|---|\n| agent | agente | agentes | |\n",
        encoding="utf-8",
    )
    path = translate.extract_runtime(tmp_path)
    catalogue = translate.read_catalogue(path)
    catalogue.get("The agent stopped.").string = "El bot se detuvo."
    translate.write_catalogue(catalogue, path)
    (problem,) = translate.glossary_problems(tmp_path)
    assert problem.startswith(
        "agent_core/locale/es/messages.po (agent_core/stop.py:0): the English says 'agent'"
    )
    catalogue.get("The agent stopped.").string = "El agente se detuvo."
    translate.write_catalogue(catalogue, path)
    assert translate.glossary_problems(tmp_path) == []
