"""agent_core._browser: in the browser, what needs a local install says so in one line; plots are tables."""

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from agent_core import _browser
from agent_core._browser import (
    LOCAL_INSTALL_LESSONS,
    NeedsLocalInstall,
    PlainTable,
    local_install_only,
    needs_local_install,
)
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
    package = {}
    if not path.exists():  # a package: its front module, loaded as a package of agent_core
        path = path.with_suffix("") / "__init__.py"
        package = {"submodule_search_locations": [str(path.parent)]}
    spec = importlib.util.spec_from_file_location(f"agent_core._{module}_in_a_browser", path, **package)
    assert spec is not None and spec.loader is not None
    with pytest.raises(NeedsLocalInstall) as raised:
        spec.loader.exec_module(importlib.util.module_from_spec(spec))
    assert str(raised.value).startswith(said)
    assert str(raised.value).endswith(f"run lesson {lesson} from a local install (README, quick start).")


def test_a_plain_table_shows_the_numbers_as_text_and_html():
    table = PlainTable("cost", ["call", "tokens"], [(1, 120), (2, 1234)])
    assert repr(table) == "cost\ncall  tokens\n1     120\n2     1234"
    assert "<td>1234</td>" in table._repr_html_() and "<caption>cost</caption>" in table._repr_html_()


ROOT = Path(__file__).resolve().parent.parent
LESSONS = sorted(path.stem[:2] for path in (ROOT / "lessons").glob("[0-9][0-9]_*.ipynb"))


def _spoken(numbers: list[str]) -> str:
    """lesson numbers as the docs write them: runs as ranges, the last joined by 'and' (00-06, 09 and 11)"""
    runs: list[list[str]] = []
    for number in numbers:
        if runs and int(number) == int(runs[-1][-1]) + 1:
            runs[-1].append(number)
        else:
            runs.append([number])
    parts = [f"{run[0]}-{run[-1]}" if len(run) > 2 else ", ".join(run) for run in runs]
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"


DOCS = ("README.md", "docs/teaching.md")  # their words joined by single spaces: a line may break anywhere


def test_the_docs_and_the_lessons_name_the_lessons_that_need_a_local_install_from_one_list():
    """agent_core._browser.LOCAL_INSTALL_LESSONS, which the website and the browser edition read"""
    local = sorted(LOCAL_INSTALL_LESSONS)
    assert set(local) <= set(LESSONS)
    readme, teaching = (" ".join((ROOT / doc).read_text(encoding="utf-8").split()) for doc in DOCS)
    assert f"Lessons {_spoken([n for n in LESSONS if n not in local])} run there" in readme
    assert f"{_spoken(local)} start processes or servers" in readme
    assert f"Lessons {_spoken(local)} start processes or servers" in teaching
    for path in sorted((ROOT / "lessons").glob("[0-9][0-9]_*.ipynb")):
        top = "".join(json.loads(path.read_text(encoding="utf-8"))["cells"][0]["source"])
        assert ("**Needs a local install" in top) == (path.stem[:2] in local), path.name


def test_the_first_cell_of_a_local_install_lesson_says_so_once_and_later_cells_do_nothing(in_browser):
    """the cell the browser edition puts first in lessons 07, 08, 10 and 12, in a real IPython shell"""
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    try:
        first = shell.run_cell('from agent_core._browser import local_install_only\nlocal_install_only("10")')
        assert isinstance(first.error_in_exec, NeedsLocalInstall)
        assert str(first.error_in_exec) == (
            "Lesson 10 runs MCP servers as processes, which the browser edition cannot do: "
            "run lesson 10 from a local install (README, quick start)."
        )
        later = shell.run_cell("print(name_never_defined)")
        assert later.success and later.error_in_exec is None
        shell.run_cell('local_install_only("10")')
        assert shell.input_transformers_cleanup.count(_browser._nothing) == 1
    finally:
        shell.input_transformers_cleanup.remove(_browser._nothing)
        InteractiveShell.clear_instance()


def test_outside_the_browser_the_stop_cell_does_nothing():
    local_install_only("07")


def test_in_the_browser_a_package_loads_on_its_first_import_from_the_editions_lock(tmp_path, monkeypatch):
    """LoadOnImport with the edition's file fetch replaced by a local wheel: installed, then imported"""
    import base64
    import hashlib
    import zipfile

    wheel = tmp_path / "lazy_pkg-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("lazy_pkg/__init__.py", "VALUE = 42\n")
        archive.writestr(
            "lazy_pkg-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: lazy-pkg\nVersion: 1.0\n"
        )
    data = wheel.read_bytes()
    fetched = []
    monkeypatch.setattr(_browser, "_fetch", lambda url: fetched.append(url) or data)
    site_packages = tmp_path / "site-packages"
    site_packages.mkdir()
    monkeypatch.setattr("site.getsitepackages", lambda: [str(site_packages)])
    monkeypatch.syspath_prepend(str(site_packages))
    package = {"imports": ["lazy_pkg"], "depends": [], "file_name": wheel.name}
    finder = _browser.LoadOnImport(
        {"lazy-pkg": {**package, "sha256": hashlib.sha256(data).hexdigest()}},
        "http://edition/static/pyodide/",
    )
    monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, finder])
    import lazy_pkg  # type: ignore[import-not-found]

    assert lazy_pkg.VALUE == 42
    assert fetched == [f"http://edition/static/pyodide/{wheel.name}"]
    sys.modules.pop("lazy_pkg")
    wrong = _browser.LoadOnImport(
        {
            "other": {
                **package,
                "imports": ["other_pkg"],
                "sha256": base64.b16encode(b"x" * 32).decode().lower(),
            }
        },
        "http://edition/",
    )
    with pytest.raises(ImportError, match="is not the file the browser edition was built with"):
        wrong.find_spec("other_pkg", None)
