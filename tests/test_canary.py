"""The canary's report (tools/canary.py): versions against the lock, and what broke with its first
difference."""

import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import nbformat
from packaging.markers import default_environment
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))  # tools/ holds scripts, not a package
from canary import Change, broken_tests, changes, report, unpinned  # noqa: E402

LOCK = """\
openai==3.57.0 \\
    --hash=sha256:aa
    # via agent-core (pyproject.toml)
pywinpty==3.1.2 ; os_name == 'nt' \\
    --hash=sha256:bb
numpy==2.4.6 ; python_full_version < '3.12' \\
    --hash=sha256:cc
numpy==2.5.5 ; python_full_version >= '3.12' \\
    --hash=sha256:dd
rich==15.0.0 \\
    --hash=sha256:ee
"""


def test_versions_are_compared_with_the_pins_for_this_platform_and_python():
    environment = {**default_environment(), "os_name": "posix", "python_full_version": "3.13.1"}
    installed = {"openai": "4.0.0", "numpy": "2.5.5", "rich": "15.0.0", "jiter": "1.0.0"}
    wanted = {"openai": Requirement("openai>=3.50,<4"), "rich": Requirement("rich>=13.7")}
    assert changes(LOCK, installed, environment, wanted) == [
        Change("jiter", None, "1.0.0"),
        Change("openai", "3.57.0", "4.0.0", outside="<4,>=3.50"),
    ]


def test_a_package_no_longer_installed_is_reported_gone():
    environment = {**default_environment(), "os_name": "posix", "python_full_version": "3.11.7"}
    installed = {"openai": "3.57.0", "numpy": "2.4.6"}
    assert changes(LOCK, installed, environment, {}) == [Change("rich", "15.0.0", None)]


def test_the_newest_install_drops_ranges_but_keeps_extras_and_markers():
    assert (
        unpinned(Requirement("mcp[cli]>=1.2,<2; python_version >= '3.12'"))
        == 'mcp[cli]; python_version >= "3.12"'
    )


# the project's plugin options (pyproject.toml's addopts), for a pytest run in a folder outside it:
# without them it loads every installed plugin, and jsonschema builds its IRI grammar (10 s here)
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
ADDOPTS = shlex.split(PYPROJECT["tool"]["pytest"]["ini_options"]["addopts"])
PLUGIN_OPTIONS = [
    word
    for before, word in zip(["", *ADDOPTS], ADDOPTS, strict=False)
    if word in ("--disable-plugin-autoload", "-p") or before == "-p"
]


def test_a_broken_test_and_a_changed_cell_are_named_with_their_first_difference(tmp_path):
    (tmp_path / "test_sample.py").write_text(
        "def test_fields():\n    assert ['content', 'role'] == ['content'], 'the fields changed'\n\n"
        "def test_fine():\n    assert True\n"
    )
    notebook = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell('print("ChatCompletion")\nprint("finish_reason: stop")')
    cell.execution_count = 1
    cell.outputs = [
        nbformat.v4.new_output("stream", name="stdout", text="ChatCompletionV2\nfinish_reason: stop\n")
    ]
    notebook.cells = [cell]
    nbformat.write(notebook, tmp_path / "lesson.ipynb")
    junit = tmp_path / "junit.xml"
    subprocess.run(
        [sys.executable, "-m", "pytest", "--nbval", "--nbval-current-env", *PLUGIN_OPTIONS,
         f"--junitxml={junit}", "-q", "test_sample.py", "lesson.ipynb"],
        cwd=tmp_path, capture_output=True,
    )  # fmt: skip
    counts, broken = broken_tests(junit)
    assert counts == {"tests": 3, "failures": 2, "errors": 0, "skipped": 0}
    assert [(b.file, b.test) for b in broken] == [
        ("test_sample.py", "test_fields"),
        ("lesson.ipynb", "Cell 0"),
    ]
    assert broken[0].first_difference.startswith("AssertionError: the fields changed")
    assert broken[1].first_difference == "'stdout' differs: stored 'ChatCompletionV2', now 'ChatCompletion'"
    text = report([Change("openai", "3.57.0", "4.0.0", "<4,>=3.50")], counts, broken, "3.11.7")
    assert "openai  3.57.0 -> 4.0.0   outside pyproject.toml's <4,>=3.50" in text
    assert "tests: 1 passed, 2 failed, 0 errors, 0 skipped" in text
    assert "  lesson.ipynb: 1 broken\n    Cell 0: 'stdout' differs" in text
