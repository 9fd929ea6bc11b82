"""The Spanish edition (tools/translate.py): in step with the English, same code and outputs, links and
terms in Spanish."""

import io
import re
import subprocess
import sys
import tokenize
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import message_log  # noqa: E402
import notebooks  # noqa: E402
import translate  # noqa: E402

SPANISH_NOTEBOOKS = sorted(
    p for folder in ("lessons", "solutions") for p in (ROOT / folder / "es").glob("*.ipynb")
)
SPANISH_PAGES = sorted([ROOT / "README.es.md", *(ROOT / "docs").glob("*.es.md")])


def test_the_spanish_edition_is_in_step_with_the_english():
    problems = translate.check()
    assert not problems, (
        "\n".join(problems) + "\nsee locale/es/ and: python tools/translate.py extract, build"
    )


def test_every_catalogue_has_its_spanish_files_and_lesson_00_is_in_the_edition():
    documents = translate.documents()
    targets = {translate.spanish_path(source) for doc in documents for source in doc.sources}
    assert {"lessons/es/00_one_model_call.ipynb", "solutions/es/00_one_model_call.ipynb"} <= targets
    assert {"README.es.md", "docs/teaching.es.md"} <= targets
    assert all((ROOT / target).exists() for target in targets)


def _without_comments(source: str) -> str:
    """the code of a cell with its comments and blank lines taken out (tokenize: a '#' in a string stays)"""
    lines = source.split("\n")
    for token in reversed(list(tokenize.generate_tokens(io.StringIO(source).readline))):
        if token.type == tokenize.COMMENT:
            row, col = token.start
            lines[row - 1] = lines[row - 1][:col]
    return "\n".join(line.rstrip() for line in lines if line.strip())


@pytest.mark.parametrize("spanish", SPANISH_NOTEBOOKS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_a_spanish_notebook_has_the_english_code_and_outputs_so_nbval_need_not_run_it(spanish):
    """the same code, and the same outputs but for agent_core's run-time messages, in Spanish as the run of
    the English notebook logged them (locale/es/outputs/; conftest.py proves the log on every nbval run)"""
    english = spanish.parent.parent / spanish.name
    es, en = (nbformat.read(p, as_version=4) for p in (spanish, english))  # a text's lines joined
    assert es["metadata"] == en["metadata"] and len(es["cells"]) == len(en["cells"])
    logged = message_log.load(message_log.sidecar(english))
    for index, (cell, original) in enumerate(zip(es["cells"], en["cells"], strict=True)):
        if original["cell_type"] == "code":
            original = {
                **original,
                "outputs": translate.spanish_outputs(original["outputs"], logged.get(index, [])),
            }
        assert {k: v for k, v in cell.items() if k != "source"} == {
            k: v for k, v in original.items() if k != "source"
        }, f"cell {index}: outputs, metadata or type differ"
        if cell["cell_type"] == "code":
            code, english_code = ("".join(c["source"]) for c in (cell, original))
            assert _without_comments(code) == _without_comments(english_code), f"cell {index}: code differs"
    translated = [i for i, c in enumerate(es["cells"]) if c["source"] != en["cells"][i]["source"]]
    assert translated, "not one cell is translated"


def test_comments_are_the_only_difference_the_comparison_forgives():
    code = 'x = "# not a comment"  # a comment\n# a whole-line comment\ny = 1'
    assert _without_comments(code) == 'x = "# not a comment"\ny = 1'
    assert _without_comments(code) != _without_comments(code.replace("y = 1", "y = 2"))


@pytest.mark.parametrize("spanish", SPANISH_NOTEBOOKS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_a_spanish_notebook_is_clean_as_tools_notebooks_checks_the_english_ones(spanish):
    assert not notebooks.problems(spanish)


def test_nbval_does_not_collect_the_spanish_notebooks():
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-n", "0", "lessons", "solutions"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    collected = {line.split("::")[0] for line in result.stdout.splitlines() if "::" in line}
    assert "lessons/00_one_model_call.ipynb" in collected
    assert not [path for path in collected if "/es/" in path]


def _links(markdown: str) -> list[str]:
    """the relative link targets of a markdown text, outside code"""
    prose = re.sub(r"(`+).+?\1", "", markdown, flags=re.DOTALL)
    targets = re.findall(r"\]\(\s*<?([^)\s>]+)", prose) + re.findall(r'(?:href|src)="([^"]+)"', prose)
    return [t.split("#")[0] for t in targets if not re.match(r"[A-Za-z][\w+.-]*:|[#/]", t)]


def _spanish_files() -> list[tuple[Path, str]]:
    files = [(path, path.read_text(encoding="utf-8")) for path in SPANISH_PAGES]
    for path in SPANISH_NOTEBOOKS:
        cells = nbformat.read(path, as_version=4).cells
        files.append((path, "\n\n".join(c.source for c in cells if c.cell_type == "markdown")))
    return files


def test_links_in_the_spanish_edition_lead_to_the_spanish_version_where_there_is_one():
    checked, wrong = 0, []
    for path, text in _spanish_files():
        english_self = path.with_name(path.name.replace(".es.md", ".md"))
        for target in _links(text):
            linked = (path.parent / target).resolve()
            checked += 1
            if not linked.exists():
                wrong.append(f"{path.relative_to(ROOT)}: {target} does not exist")
                continue
            twin = ROOT / translate.spanish_path(linked.relative_to(ROOT).as_posix())
            if twin.exists() and linked != twin and linked != english_self:
                wrong.append(
                    f"{path.relative_to(ROOT)}: {target} has a Spanish version, {twin.relative_to(ROOT)}"
                )
    assert not wrong, "\n".join(wrong)
    assert checked > 20  # the README's course map alone has 13


def test_the_readme_and_the_teaching_guide_link_to_their_spanish_twin_and_back():
    for english, spanish in (("README.md", "README.es.md"), ("docs/teaching.md", "docs/teaching.es.md")):
        first = (ROOT / english).read_text(encoding="utf-8").splitlines()[0]
        back = (ROOT / spanish).read_text(encoding="utf-8").splitlines()[0]
        assert f"[Español]({Path(spanish).name})" in first
        assert f"[English]({Path(english).name})" in back


def test_the_spanish_readme_says_first_what_stays_in_english_and_links_the_glossary():
    readme = (ROOT / "README.es.md").read_text(encoding="utf-8")
    top = readme[: readme.index("## Para empezar")]
    box = " ".join(line.lstrip("> ") for line in top.splitlines() if line.startswith(">"))
    assert "Qué está en español y qué en inglés" in box
    assert re.search(r"en inglés los textos propios de la API y de los modelos", box)
    assert "los nombres de la biblioteca" in box
    assert "](docs/glossary.es.md)" in box and (ROOT / "docs" / "glossary.es.md").exists()


def test_the_spanish_readmes_quick_start_opens_the_spanish_lessons():
    readme = (ROOT / "README.es.md").read_text(encoding="utf-8")
    quick_start = readme[readme.index("## Para empezar") :].split("\n## ")[0]
    assert re.search(r"jupyter lab lessons/es/(\s|$)", quick_start, re.MULTILINE)
    assert not re.search(r"jupyter lab lessons/?(\s|$)", quick_start, re.MULTILINE)
    english = (ROOT / "README.md").read_text(encoding="utf-8")
    assert re.search(r"jupyter lab lessons/(\s|$)", english, re.MULTILINE)  # the English opens its own


def test_the_spanish_readme_marks_links_to_english_only_pages_en_ingles():
    readme = (ROOT / "README.es.md").read_text(encoding="utf-8")
    english_only = []
    for match in re.finditer(r"\]\(([^)\s#]+\.md)(?:#[^)]*)?\)(\s*\(en inglés\))?", readme):
        target, marked = match[1], bool(match[2])
        if re.match(r"[A-Za-z][\w+.-]*:", target) or target.endswith(".es.md") or target == "README.md":
            continue
        english_only.append(target)
        twin = ROOT / translate.spanish_path(target)
        assert twin.exists() != marked, f"{target}: {'marked (en inglés), but' if marked else 'no'} twin"
    assert {"CONTRIBUTING.md", "CHANGELOG.md", "docs/maintaining.md"} <= set(english_only)


def test_a_spanish_pages_shell_command_opens_the_spanish_notebooks():
    page = "Run:\n\n```bash\n.venv/bin/jupyter lab lessons/  # open\npytest lessons/\n```\n\n"
    page += "`jupyter lab lessons/`"
    spanish = translate.spanish_commands(page)
    assert ".venv/bin/jupyter lab lessons/es/  # open\npytest lessons/\n" in spanish
    assert spanish.endswith("`jupyter lab lessons/`")  # prose keeps what it says


def test_translations_use_the_glossarys_terms():
    terms = dict((english[0], spanish) for english, spanish in translate.glossary())
    assert terms["tool call"][0] == "llamada a herramienta" and terms["loop"][0] == "bucle"
    problems = translate.glossary_problems()
    assert not problems, "\n".join(problems)


def test_the_glossary_settles_the_terms_the_first_language_review_found_inconsistent():
    terms = dict((english[0], spanish) for english, spanish in translate.glossary())
    assert terms["a count"][0] == "recuento" and terms["parse"][0] == "parsear"
    assert terms["bug"][0] == "error" and terms["script"][0] == "script"
    assert terms["runs as you"][0] == "con tus permisos" and terms["mock server"][0] == "servidor simulado"
    ruled_out = {form for forms, _ in translate.avoided() for form in forms}
    assert {"bug", "las cuentas de tokens", "con tu usuario", "servidor del modelo simulado"} <= ruled_out


def test_spanish_prose_writes_decimals_with_a_comma_and_a_space_before_percent():
    """the glossary's style: 0,8 and 83 % in the text; code, outputs and quoted commands stay as they are
    (versions and addresses such as 3.11 or 127.0.0.1 are not decimals: a decimal here is a time in
    seconds, a percentage or a probability)"""
    decimal = re.compile(r"\b\d+\.\d+(?= ?(?:s|ms|segundos?|%)\b)|(?:probabilidad|con) \d+\.\d+")
    found = []
    for document in translate.documents():
        path = ROOT / document.catalogue
        for message in translate.read_catalogue(path):
            if not isinstance(message.string, str) or not message.id:
                continue
            said = translate.prose(message.string)
            for bad in (*re.findall(r"\d%", said), *decimal.findall(said)):
                found.append(f"{document.catalogue.as_posix()}: {bad!r} in {said[:80]!r}")
    assert not found, "\n".join(found)


# --- the tool itself, on a course of one lesson ----------------------------------------------------


def _course(tmp_path: Path, intro: str = "The **agent** calls a tool.") -> Path:
    cells = [
        nbformat.v4.new_markdown_cell(f"# Lesson 00\n\n{intro}\n\nSee [lesson 01](01_next.ipynb)."),
        nbformat.v4.new_code_cell('# ask the model\nx = "# kept"  # the answer\nprint(x)'),
    ]
    for folder in ("lessons", "solutions"):
        (tmp_path / folder).mkdir(exist_ok=True)
        nb = nbformat.v4.new_notebook(cells=cells)
        for index, cell in enumerate(nb.cells):
            cell.id = f"cell-{index:03d}"
        nbformat.write(nb, tmp_path / folder / "00_first.ipynb")
    (tmp_path / "docs").mkdir(exist_ok=True)
    (tmp_path / "docs" / "glossary.es.md").write_text(
        "| inglés | español | también vale | nota |\n|---|---|---|---|\n| agent | agente | agentes | |\n",
        encoding="utf-8",
    )
    return tmp_path


SPANISH = {
    "# Lesson 00": "# Lección 00",
    "The **agent** calls a tool.": "El **agente** llama a una herramienta.",
    "See [lesson 01](01_next.ipynb).": "Mira la [lección 01](01_next.ipynb).",
    "ask the model": "pregunta al modelo",
    "the answer": "la respuesta",
}


def _translate_all(root: Path, strings: dict[str, str]) -> None:
    path = root / "locale" / "es" / "00_first.po"
    catalogue = translate.read_catalogue(path)
    for message in catalogue:
        if message.id in strings:
            message.string = strings[message.id]
            message.flags.discard("fuzzy")
    translate.write_catalogue(catalogue, path)


def test_extract_build_and_check_on_a_small_course(tmp_path):
    root = _course(tmp_path)
    translate.extract(["00"], root)
    catalogue = translate.read_catalogue(root / "locale" / "es" / "00_first.po")
    assert [m.id for m in catalogue if m.id] == list(SPANISH)
    assert ("lessons/00_first.ipynb", 1) in catalogue.get("ask the model").locations
    assert any(
        "not translated yet" in p and "lessons/00_first.ipynb cell 0" in p for p in translate.check(root)
    )
    _, problems = translate.build(root)
    assert problems and not (root / "lessons" / "es").exists()  # never silently English

    _translate_all(root, SPANISH)
    files, problems = translate.build(root)
    assert not problems and translate.check(root) == []
    nb = nbformat.read(root / "lessons" / "es" / "00_first.ipynb", as_version=4)
    assert (
        nb.cells[0].source
        == "# Lección 00\n\nEl **agente** llama a una herramienta.\n\nMira la [lección 01](../01_next.ipynb)."
    )
    assert nb.cells[1].source == '# pregunta al modelo\nx = "# kept"  # la respuesta\nprint(x)'

    (root / "solutions" / "es" / "00_first.ipynb").write_text("{}", encoding="utf-8")
    assert translate.check(root) == [
        "solutions/es/00_first.ipynb differs from what build writes: run python tools/translate.py build"
    ]


def test_a_changed_english_cell_fails_the_check_naming_the_notebook_the_cell_and_the_change(tmp_path):
    root = _course(tmp_path)
    translate.extract(["00"], root)
    _translate_all(root, SPANISH)
    translate.build(root)
    _course(tmp_path, intro="The **agent** calls a tool twice.")
    for step in ("before extract", "after extract", "after a second extract"):
        problems = translate.check(root)
        assert len(problems) == 1, (step, problems)
        assert problems[0].startswith("lessons/00_first.ipynb cell 0, solutions/00_first.ipynb cell 0: ")
        assert (
            "the English changed since it was translated: The **agent** calls a [-tool.-]{+tool twice.+}"
            in (problems[0])
        ), step
        translate.extract([], root)
    message = translate.read_catalogue(root / "locale" / "es" / "00_first.po").get(
        "The **agent** calls a tool twice."
    )
    assert message.fuzzy and message.string == "El **agente** llama a una herramienta."
    assert message.previous_id == ["The **agent** calls a tool."]
    _translate_all(
        root, {"The **agent** calls a tool twice.": "El **agente** llama dos veces a una herramienta."}
    )
    translate.build(root)
    assert translate.check(root) == []


def test_the_glossary_check_names_an_entry_that_does_not_use_the_term(tmp_path):
    root = _course(tmp_path)
    translate.extract(["00"], root)
    _translate_all(root, SPANISH | {"The **agent** calls a tool.": "El **bot** llama a una herramienta."})
    (problem,) = translate.glossary_problems(root)
    assert "the English says 'agent', the Spanish does not say 'agente'" in problem
    assert "lessons/00_first.ipynb:0" in problem


def test_the_glossary_check_names_an_entry_that_uses_a_form_it_rules_out(tmp_path):
    root = _course(tmp_path)
    with (root / "docs" / "glossary.es.md").open("a", encoding="utf-8") as glossary:
        glossary.write("\n| no escribas | escribe | nota |\n|---|---|---|\n| bug, bugs | *error* | |\n")
    translate.extract(["00"], root)
    _translate_all(root, SPANISH | {"ask the model": "pregunta al modelo por el bug"})
    (problem,) = translate.glossary_problems(root)
    assert "the Spanish says 'bug', write *error*" in problem and "lessons/00_first.ipynb:1" in problem
    _translate_all(root, SPANISH | {"ask the model": "pregunta al modelo (`bug` en el código no cuenta)"})
    assert translate.glossary_problems(root) == []


def test_markdown_units_keep_lists_tables_and_code_whole_and_code_comments_apart():
    text = (
        "## A heading\nA paragraph\non two lines.\n\n"
        "- one\n\n  ```bash\n  # install it\n  pip install x\n  ```\n"
        "- two\n\n| name | value |\n|---|---|\n| one | 2 |\n\n```python\nprint(1)  # one\n```"
    )
    found = []
    out = translate.translate_markdown(text, lambda t, kind, line: found.append((kind, t)) or t.upper())
    assert found == [
        ("text", "## A heading"),
        ("text", "A paragraph\non two lines."),
        ("text", "- one\n\n  ```bash\n  # install it\n  pip install x\n  ```\n- two"),
        ("text", "| name | value |\n|---|---|\n| one | 2 |"),
        ("trailing comment", "one"),
    ]
    assert out.endswith("```python\nprint(1)  # ONE\n```")
    assert translate.fenced_code(found[2][1]) == ["pip install x"]
    comment = translate.translate_code(
        "if x:\n    # two lines\n    # of comment\n    y()", lambda t, k, n: "una línea"
    )
    assert comment == "if x:\n    # una línea\n    y()"


def test_the_previous_english_of_a_long_fuzzy_entry_survives_a_write_and_a_read(tmp_path):
    """Babel wraps the `#| msgid` comment anywhere, even inside its quoted pieces: the check's word diff
    must still show the English as it was, not pieces of it"""
    from babel.messages.catalog import Catalog

    before = (
        '| **Cap the loop** | a model that never stops asking costs money for ever | lesson 04, "Exercise '
        '4.1: your own loop"; lesson 05, "Limits: model calls, tool calls, time and tokens" | ' * 3
    )
    catalogue = Catalog(locale="es")
    catalogue.add("the new English", "el español", flags=["fuzzy"], previous_id=before)
    path = tmp_path / "long.po"
    translate.write_catalogue(catalogue, path)
    assert "#| " in path.read_text(encoding="utf-8")
    (message,) = [m for m in translate.read_catalogue(path) if m.id]
    assert message.previous_id == [before]


def test_the_build_puts_a_cells_logged_messages_in_spanish_and_nothing_else():
    """longest first, each occurrence once, in printed text, text/plain and text/html (escaped)"""
    pairs = [
        ["nothing", "nada"],
        ["✗ Exercise 9.1: nothing <sent>", "✗ Ejercicio 9.1: nada <enviado>"],
        ["no calls", "ninguna llamada"],
    ]
    outputs = [
        nbformat.from_dict(
            {
                "output_type": "stream",
                "name": "stdout",
                "text": ["✗ Exercise 9.1: nothing <sent>\n", "nothing, nothing\n"],
            }
        ),
        nbformat.from_dict(
            {
                "output_type": "display_data",
                "metadata": {},
                "data": {
                    "text/plain": "no calls; nothing else",
                    "text/html": "<b>✗ Exercise 9.1: nothing &lt;sent&gt;</b> no calls",
                },
            }
        ),
        nbformat.from_dict({"output_type": "stream", "name": "stderr", "text": "no call, nothingness"}),
    ]
    spanish = translate.spanish_outputs(outputs, pairs)
    assert spanish[0]["text"] == "✗ Ejercicio 9.1: nada <enviado>\nnada, nada\n"
    assert spanish[1]["data"] == {
        "text/plain": "ninguna llamada; nada else",
        "text/html": "<b>✗ Ejercicio 9.1: nada &lt;enviado&gt;</b> ninguna llamada",
    }
    assert spanish[2]["text"] == "no call, nothingness"  # never a part of a longer word
    assert translate.spanish_outputs(outputs, []) == outputs  # a cell that showed no message: as it is
    assert outputs[0]["text"][0].startswith("✗ Exercise")  # the English notebook's outputs untouched


def test_a_cell_whose_messages_differ_from_its_stored_spanish_fails_naming_the_first(tmp_path):
    """conftest.py's check after each nbval cell: the pairs the cell logged against the stored ones"""
    notebook = tmp_path / "lessons" / "08_real_models.ipynb"
    notebook.parent.mkdir()
    notebook.write_text("{}", encoding="utf-8")
    stored = [["a verdict", "un veredicto"], ["with nothing defined", "con nada definidas"]]
    message_log.dump({3: stored}, message_log.sidecar(notebook, tmp_path))
    assert message_log.problem(notebook, 3, stored, tmp_path) == ""
    assert message_log.problem(notebook, 4, [], tmp_path) == ""  # a cell that shows no message
    ran = [["a verdict", "un veredicto"], ["with nothing defined", "sin nada definido"]]
    problem = message_log.problem(notebook, 3, ran, tmp_path)
    assert problem == (
        "lessons/08_real_models.ipynb cell 3: its stored Spanish outputs are stale: a run shows "
        "'with nothing defined' (Spanish 'sin nada definido'), which the file does not have "
        "(in locale/es/outputs/lessons/08_real_models.json): "
        "run python tools/notebooks.py run lessons/08_real_models.ipynb"
    )
    assert "the file has 'with nothing defined'" in message_log.problem(notebook, 3, stored[:1], tmp_path)
    assert "a run shows 'a verdict'" in message_log.problem(notebook, 5, stored[:1], tmp_path)
    assert message_log.sidecar(tmp_path / "lessons" / "es" / "08_real_models.ipynb", tmp_path) is None
