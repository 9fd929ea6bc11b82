"""agent_core._browser: in the browser, what needs a local install says so in one line; plots are tables."""

import importlib.util
from pathlib import Path

import pytest

from agent_core import _browser
from agent_core._browser import NeedsLocalInstall, PlainTable, needs_local_install
from agent_core.coding import Workspace, sandbox
from agent_core.mock.server import MockServer


@pytest.fixture
def in_browser(monkeypatch):
    monkeypatch.setattr(_browser, "IN_BROWSER", True)


def test_outside_the_browser_nothing_is_stopped():
    needs_local_install("Running a command starts a process", "07")


def test_a_command_in_the_browser_names_the_lesson_to_run_locally(in_browser, tmp_path):
    with pytest.raises(NeedsLocalInstall) as raised:
        sandbox.run_sandboxed("echo hi", tmp_path, timeout=5)
    assert str(raised.value) == (
        "Running a command starts a process, which the browser edition cannot do: "
        "run lesson 07 from a local install (README, quick start)."
    )
    assert raised.value._render_traceback_() == [
        f"NeedsLocalInstall: {raised.value}"
    ]  # IPython: no traceback


def test_a_server_in_the_browser_is_refused_before_it_opens_a_port(in_browser):
    with pytest.raises(NeedsLocalInstall, match="serve\\(\\) starts an HTTP server"):
        MockServer(port=0)


def test_a_workspace_in_the_browser_names_lessons_07_and_12_before_a_search_that_never_stops(
    in_browser, tmp_path
):
    with pytest.raises(NeedsLocalInstall) as raised:
        Workspace(tmp_path)
    assert str(raised.value) == (
        "A workspace runs commands in processes and limits each search's time, which the browser edition "
        "cannot do: run lesson 07 or 12 from a local install (README, quick start)."
    )


@pytest.mark.parametrize(
    ("module", "lesson", "said"),
    [
        # before it imports what Pyodide lacks (the mcp package, regex)
        ("mcp_bridge", "10", "MCP's stdio servers run as processes, which the browser edition cannot do: "),
        ("providers", "08", "Lesson 08 talks to servers over the network and records them, which "),
    ],
)
def test_a_local_only_lessons_module_in_the_browser_stops_on_import_with_one_line(
    in_browser, module, lesson, said
):
    path = Path(_browser.__file__).with_name(f"{module}.py")
    spec = importlib.util.spec_from_file_location(f"agent_core._{module}_in_a_browser", path)
    assert spec is not None and spec.loader is not None
    with pytest.raises(NeedsLocalInstall) as raised:
        spec.loader.exec_module(importlib.util.module_from_spec(spec))
    assert str(raised.value).startswith(said)
    assert str(raised.value).endswith(f"run lesson {lesson} from a local install (README, quick start).")


def test_a_plain_table_shows_the_numbers_as_text_and_html():
    table = PlainTable("cost", ["call", "tokens"], [(1, 120), (2, 1234)])
    assert repr(table) == "cost\ncall  tokens\n1     120\n2     1234"
    assert "<td>1234</td>" in table._repr_html_() and "<caption>cost</caption>" in table._repr_html_()
