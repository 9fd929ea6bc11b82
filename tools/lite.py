"""The browser edition: the course in JupyterLite (JupyterLab and Python in WebAssembly), as static files.

    python tools/lite.py build   # build/lite/ (or --out site/lite), solutions kept back (--solutions: in)
    python tools/lite.py serve   # serve it to a room: prints the address learners open (tools/room.py)
    python tools/lite.py release-solutions   # give the room the solutions, in seconds, no rebuild
    python tools/lite.py size    # what a learner's browser fetches through lesson 00 (budget 15 MB)
    python tools/lite.py check   # every cell of every lesson, in headless Chromium, against its outputs
    python tools/lite.py lock    # refresh tools/lite/wheels.txt after changing tools/lite/requirements.in

Everything comes from the registries, pinned, and nothing from a CDN: the JupyterLite app from PyPI
(the `lite` extra of pyproject.toml, in requirements-lock.txt), the Pyodide runtime from npm
(tools/lite/package-lock.json, installed by `npm ci`, which checks its integrity), and every wheel
the kernel installs from PyPI (tools/lite/wheels.txt, each file checked against its hash), with the
project's own wheel built from this tree. At run time the edition asks nothing of any other host.
The kernel loads its own packages and agent_core when it starts; every other package waits in the
edition until a lesson first imports it (agent_core._browser.LoadOnImport). Lessons that need a
local install (agent_core._browser.LOCAL_INSTALL_LESSONS) get a first cell that says so once.
"""

import argparse
import contextlib
import dataclasses
import email.parser
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import room

ROOT = Path(__file__).resolve().parent.parent
HERE = ROOT / "tools" / "lite"
WHEELS_LOCK = HERE / "wheels.txt"
OUT = ROOT / "build" / "lite"
WORK = ROOT / "build" / "lite-work"  # downloads and the npm cache: inside the clone, git-ignored
# Pyodide 314.0.6 (the version jupyterlite-pyodide-kernel 0.8.6 loads): Python 3.14, this wheel platform
PYODIDE_PLATFORM = [
    "--platform",
    "pyemscripten_2026_0_wasm32",
    "--python-version",
    "3.14",
    "--implementation",
    "cp",
    "--abi",
    "cp314",
    "--abi",
    "abi3",
    "--abi",
    "none",
]
# what loadPyodide needs of the npm package; its own lock names wheels that live only on the CDN
PYODIDE_FILES = ["pyodide.mjs", "pyodide.js", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip"]
# what the kernel loads before the first cell runs: its own packages and the course's, whose
# dependencies wait in the edition until a lesson imports one (agent_core._browser.LoadOnImport).
# jedi is a stand-in with no module (below): IPython completes names without it, and 4.9 MB less
PRELOAD = ["micropip", "ipython", "comm", "jedi", "agent-core", "agent-core-lite"]
LAZY = "agent-core"  # the package whose dependencies load on first import, not with it
# dependencies a package's import does not need, left out of its "depends" so that the kernel loads
# them only if a cell imports them (LoadOnImport): IPython's terminal (prompt_toolkit, and wcwidth with
# it), rich's Markdown (markdown-it-py): 0.7 MB a learner no longer fetches for lesson 00
ON_IMPORT_ONLY = {"ipython": {"prompt-toolkit"}, "rich": {"markdown-it-py"}}


def _run(command: list[str], **kwargs) -> None:
    print("+", " ".join(str(part) for part in command), flush=True)
    subprocess.run(command, check=True, **kwargs)


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _pip(*args: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "pip",
        "--disable-pip-version-check",
        "--no-cache-dir",
        *args,
    ]  # nothing kept outside the clone


# --- the wheels ---------------------------------------------------------------------------------


def lock() -> int:
    """resolve tools/lite/requirements.in for Pyodide, download each wheel once, write its hash"""
    from uv import find_uv_bin

    compiled = subprocess.run(
        [
            find_uv_bin(),
            "pip",
            "compile",
            str(HERE / "requirements.in"),
            "--quiet",
            "--python-platform",
            "wasm32-pyodide2025",
            "--python-version",
            "3.14",
            "--no-python-downloads",
            "--excludes",
            str(HERE / "excludes.txt"),
            "--no-annotate",
            "--no-header",
            "--constraints",
            str(_constraints()),
        ],
        check=True,
        capture_output=True,
        text=True,
        cwd=ROOT,
    ).stdout
    pins = [line.strip() for line in compiled.splitlines() if "==" in line]
    with tempfile.TemporaryDirectory() as tmp:
        _run(
            _pip(
                "download",
                "--quiet",
                "--no-deps",
                "--only-binary",
                ":all:",
                *PYODIDE_PLATFORM,
                "-d",
                tmp,
                *pins,
            )
        )
        lines = [
            "# The wheels of the browser edition, for Pyodide 314 (Python 3.14, WebAssembly); "
            "each file's hash.",
            "# Made by `python tools/lite.py lock` from tools/lite/requirements.in; "
            "read by `python tools/lite.py build`.",
        ]
        files = {_normal(path.name.split("-")[0]): path for path in Path(tmp).glob("*.whl")}
        for pin in pins:
            name = _normal(pin.split("==")[0])
            digest = hashlib.sha256(files[name].read_bytes()).hexdigest()
            lines.append(f"{pin} --hash=sha256:{digest}")
    WHEELS_LOCK.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{WHEELS_LOCK.relative_to(ROOT)}: {len(pins)} wheels")
    return 0


def _constraints() -> Path:
    """requirements-lock.txt's versions without its hashes: the browser gets the versions laptops get"""
    text = (ROOT / "requirements-lock.txt").read_text(encoding="utf-8")
    pins = [line.rstrip(" \\") for line in text.splitlines() if line[:1].isalnum()]
    path = WORK / "constraints.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(pins) + "\n", encoding="utf-8")
    return path


def download_wheels(dest: Path) -> list[Path]:
    """every wheel of tools/lite/wheels.txt (pip refuses a file whose hash differs), and the project's own"""
    dest.mkdir(parents=True, exist_ok=True)
    _run(
        _pip(
            "download",
            "--quiet",
            "--no-deps",
            "--only-binary",
            ":all:",
            "--require-hashes",
            *PYODIDE_PLATFORM,
            "-d",
            str(dest),
            "-r",
            str(WHEELS_LOCK),
        )
    )
    for old in dest.glob("agent_core-*.whl"):
        old.unlink()
    _run(_pip("wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w", str(dest), str(ROOT)))
    for built in dest.glob("agent_core-*.whl"):
        _for_the_browser(built)
    pins = [line.split()[0].split("==") for line in WHEELS_LOCK.read_text().splitlines() if "==" in line]
    wanted = {(_normal(name), version) for name, version in pins} | {("agent-core", _version())}
    locked = [
        path
        for path in dest.glob("*.whl")
        if (_normal(path.name.split("-")[0]), path.name.split("-")[1]) in wanted
    ]
    return sorted([*locked, stand_in_wheel(dest), *kernel_wheels(dest)])


def _for_the_browser(wheel: Path) -> None:
    """agent_core's wheel without what the browser never runs, so lesson 00 stays within WIRE_BUDGET:
    the checks of the lessons that need a local install (their notebooks stop at their first cell
    here, and nothing else imports those modules), and the catalogue's comments (where each message
    is used; _i18n reads only msgid and msgstr). RECORD is written again for what is left."""
    from agent_core._browser import LOCAL_INSTALL_LESSONS

    left_out = {f"agent_core/checks/lesson{lesson}.py" for lesson in LOCAL_INSTALL_LESSONS}
    with zipfile.ZipFile(wheel) as archive:
        entries = [(info, archive.read(info)) for info in archive.infolist() if info.filename not in left_out]
    files = {}
    for info, data in entries:
        if info.filename.endswith(".po"):
            data = b"".join(line for line in data.splitlines(keepends=True) if not line.startswith(b"#"))
        files[info.filename] = (info, data)
    record = next(name for name in files if name.endswith(".dist-info/RECORD"))
    contents = {name: data for name, (_info, data) in files.items() if name != record}
    files[record] = (files[record][0], _record(record, contents))
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_STORED) as archive:
        for info, data in files.values():
            archive.writestr(info, data)


def _version() -> str:
    """the project's version, as pyproject.toml states it"""
    import tomllib

    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]


def _record(record: str, files: dict[str, bytes]) -> bytes:
    """a wheel's RECORD for these files: each one's sha256 and size, then RECORD itself, unhashed"""
    import base64

    lines = []
    for path, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        lines.append(f"{path},sha256={digest},{len(data)}")
    return ("\n".join([*lines, f"{record},,"]) + "\n").encode()


def _wheel(dest: Path, name: str, version: str, files: dict[str, bytes]) -> Path:
    """a pure wheel made here, its RECORD hashed; its version says it is not one from PyPI"""
    info = f"{name}-{version}.dist-info"
    files = dict(files)
    files[f"{info}/METADATA"] = (
        f"Metadata-Version: 2.1\nName: {name.replace('_', '-')}\nVersion: {version}\n".encode()
    )
    files[f"{info}/WHEEL"] = (
        b"Wheel-Version: 1.0\nGenerator: tools/lite.py\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    )
    files[f"{info}/RECORD"] = _record(f"{info}/RECORD", files)
    wheel = dest / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as archive:
        for path, data in files.items():
            archive.writestr(zipfile.ZipInfo(path, date_time=(2020, 1, 1, 0, 0, 0)), data)
    return wheel


def stand_in_wheel(dest: Path) -> Path:
    """tools/lite/rpds (a pure stand-in for rpds-py, which has no WebAssembly wheel) as a wheel named
    rpds-py, so that referencing's requirement finds it; its version says it is not the real one"""
    files = {f"rpds/{p.name}": p.read_bytes() for p in sorted((HERE / "rpds").glob("*.py"))}
    return _wheel(dest, "rpds_py", "0.0.0+agentcore.lite", files)


def kernel_wheels(dest: Path) -> list[Path]:
    """two wheels of the edition's own: jedi with no module (the kernel installs jedi unless it is
    preloaded; IPython completes without it), and agent-core-lite, whose IPython configuration loads
    agent_core._browser as an extension when the kernel starts (a wheel's data files go to sys.prefix,
    and IPython reads sys.prefix/etc/ipython)"""
    config = b'c.InteractiveShellApp.extensions = ["agent_core._browser"]\n'
    data = "agent_core_lite-0.0.0+agentcore.lite.data/data/etc/ipython/ipython_config.py"
    return [
        _wheel(dest, "jedi", "0.0.0+agentcore.lite.absent", {}),
        _wheel(dest, "agent_core_lite", "0.0.0+agentcore.lite", {data: config}),
    ]


def _environment() -> dict[str, str]:
    """the marker values of Pyodide's Python, for the wheels' Requires-Dist"""
    return {
        "sys_platform": "emscripten",
        "platform_system": "Emscripten",
        "os_name": "posix",
        "platform_machine": "wasm32",
        "python_version": "3.14",
        "python_full_version": "3.14.2",
        "implementation_name": "cpython",
        "platform_python_implementation": "CPython",
        "extra": "",
    }


def stored(archive: Path) -> Path:
    """the zip archive rewritten with every member stored, not deflated, in the same order: gzip over the
    whole file (room.precompress) then finds what the files of a package repeat, and a learner fetches
    about 15% fewer bytes (openai's wheel: 2.15 MB gzipped as it is, 1.24 MB stored then gzipped)"""
    with zipfile.ZipFile(archive) as source:
        members = [(info, source.read(info)) for info in source.infolist()]
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_STORED) as target:
        for info, data in members:
            info.compress_type = zipfile.ZIP_STORED
            target.writestr(info, data)
    return archive


def pyodide_lock(wheels: list[Path], base: dict) -> dict:
    """a pyodide-lock.json that lists exactly the wheels the edition carries, beside it"""
    from packaging.requirements import Requirement

    shipped = {_normal(path.name.split("-")[0]) for path in wheels}
    packages = {}
    for path in wheels:
        with zipfile.ZipFile(path) as wheel:
            info = next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
            metadata = email.parser.Parser().parsestr(wheel.read(info).decode("utf-8"))
            tops = {
                n.split("/")[0].removesuffix(".py")
                for n in wheel.namelist()
                if not n.split("/")[0].endswith((".dist-info", ".data")) and ("/" in n or n.endswith(".py"))
            }
        depends = []
        for line in metadata.get_all("Requires-Dist") or []:
            requirement = Requirement(line)
            if requirement.marker is None or requirement.marker.evaluate(_environment()):
                if _normal(requirement.name) in shipped:
                    depends.append(_normal(requirement.name))
        name = _normal(metadata["Name"])
        if name == LAZY:
            depends = []  # each loads when a lesson first imports it
        depends = [depend for depend in depends if depend not in ON_IMPORT_ONLY.get(name, set())]
        packages[name] = {
            "name": name,
            "version": metadata["Version"],
            "file_name": path.name,
            "install_dir": "site",
            "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
            "package_type": "package",
            "imports": sorted(tops),
            "depends": sorted(set(depends)),
            "unvendored_tests": False,
        }
    return {"info": base["info"], "packages": dict(sorted(packages.items()))}


# --- the edition --------------------------------------------------------------------------------


def npm_pyodide() -> Path:
    """the pinned pyodide npm package, installed by `npm ci` (which checks package-lock.json's integrity)"""
    npm = shutil.which("npm")
    if npm is None:
        sys.exit("tools/lite.py build needs npm (Node.js): https://nodejs.org, or `apt-get install npm`")
    env = dict(os.environ, npm_config_cache=str(WORK / "npm-cache"), npm_config_update_notifier="false")
    _run([npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"], cwd=HERE, env=env)
    return HERE / "node_modules" / "pyodide"


def build(out: Path = OUT, solutions: bool = False) -> Path:
    """the browser edition in `out`: the app, the Pyodide runtime, its wheels, the lessons, and the
    solutions, kept back unless `solutions` (room.release() gives them out later); every file that
    compresses well precompressed beside it for the room server"""
    import importlib.util

    if not all(importlib.util.find_spec(name) for name in ("jupyterlite_core", "jupyterlite_pyodide_kernel")):
        sys.exit('tools/lite.py build needs the lite extra: pip install -e ".[lite]" (or the lock)')
    pyodide = npm_pyodide()
    wheels = download_wheels(WORK / "wheels")
    lite_dir = WORK / "lite-dir"
    shutil.rmtree(lite_dir, ignore_errors=True)
    static = lite_dir / "static" / "pyodide"
    static.mkdir(parents=True)
    for name in PYODIDE_FILES:
        shutil.copy2(pyodide / name, static / name)
    stored(static / "python_stdlib.zip")
    shipped = []
    for wheel in wheels:
        shutil.copy2(wheel, static / wheel.name)
        shipped.append(stored(static / wheel.name))
    base = json.loads((pyodide / "pyodide-lock.json").read_text(encoding="utf-8"))
    (static / "pyodide-lock.json").write_text(
        json.dumps(pyodide_lock(shipped, base), indent=1), encoding="utf-8"
    )
    kernel = {"disablePyPIFallback": True, "loadPyodideOptions": {"packages": PRELOAD}}
    config = {
        "jupyter-lite-schema-version": 0,
        "jupyter-config-data": {
            "appName": "agent-core in the browser",
            "exposeAppInBrowser": True,  # window.jupyterapp: tests/test_lite.py runs cells through it
            "litePluginSettings": {"@jupyterlite/pyodide-kernel-extension:kernel": kernel},
        },
    }
    (lite_dir / "jupyter-lite.json").write_text(json.dumps(config, indent=1), encoding="utf-8")
    (lite_dir / "overrides.json").write_text(json.dumps(SETTINGS, indent=1), encoding="utf-8")
    contents = lite_dir / "files"
    for folder, language in FOLDERS:
        for path in sorted((ROOT / folder).glob("*.ipynb")):
            (contents / folder).mkdir(parents=True, exist_ok=True)
            notebook = json.loads(path.read_text(encoding="utf-8"))
            notebook = edition_notebook(notebook, path.name, language)
            (contents / folder / path.name).write_text(json.dumps(notebook, indent=1), encoding="utf-8")
    shutil.rmtree(out, ignore_errors=True)
    _run(
        [
            sys.executable,
            "-m",
            "jupyterlite_core",
            "build",
            "--lite-dir",
            str(lite_dir),
            "--contents",
            str(contents),
            "--output-dir",
            str(out),
            "--no-sourcemaps",
            "--no-unused-shared-packages",
        ],
        cwd=lite_dir,
    )
    for leftover in (".jupyterlite.doit.db",):
        (out / leftover).unlink(missing_ok=True)
    (out / "index.html").write_text(landing(), encoding="utf-8")  # instead of a redirect to lab/
    for page in sorted(out.glob("**/index.html")):
        if page.relative_to(out).parts[0] not in ("files", "static", "extensions", "build"):
            page.write_text(
                page.read_text(encoding="utf-8").replace("<head>", FILE_NOTICE, 1), encoding="utf-8"
            )
    if not solutions:
        room.keep_back(out)
    count, saved = room.precompress(out)
    shown = out.relative_to(ROOT) if out.is_relative_to(ROOT) else out
    print(f"precompressed {count} files (gzip): {saved / 1e6:.1f} MB less on the wire", flush=True)
    print(
        f"built {shown}, solutions {'included' if solutions else 'kept back'}: "
        f"serve it to a room with `python tools/lite.py serve --dir {shown}`"
    )
    link_website(out)
    return out


def link_website(edition: Path, sites: list[Path] | None = None) -> list[Path]:
    """the course website beside the edition (site/lite's site/) or in site/, rebuilt as it was built,
    so that its lesson pages link to this edition whichever of the two was built first"""
    sys.path.insert(0, str(ROOT / "tools"))
    import website

    rebuilt = []
    for folder in dict.fromkeys(sites or [edition.parent, ROOT / "site"]):
        if (folder / website.MARKER).is_file():
            print(f"rebuilding the website in {folder}: its lesson pages link to this edition", flush=True)
            website.build(
                folder, website.built_with_solutions(folder), log=lambda line: None, edition_from=edition
            )
            rebuilt.append(folder)
    return rebuilt


# opened as files (file://, a USB stick), the browser refuses the edition's scripts and shows a blank
# page: each page of the edition says instead how to serve it, in both languages
FILE_NOTICE = """<head>
<script>if (location.protocol === "file:") addEventListener("DOMContentLoaded", () => {
  document.body.innerHTML = '<main id="served-only" style="font: 16px/1.5 system-ui, sans-serif;'
    + ' max-width: 40em; margin: 2em auto; padding: 0 1em">'
    + '<p lang="en">The browser edition runs only over http, not opened as files. In the course folder'
    + ' run <code>python tools/lite.py serve --dir site</code> (or <code>--dir build/lite</code>) and'
    + ' open the address it prints.</p>'
    + '<p lang="es">La edición para el navegador solo funciona servida por http, no abierta como'
    + ' archivos. En la carpeta del curso ejecuta <code>python tools/lite.py serve --dir site</code>'
    + ' (o <code>--dir build/lite</code>) y abre la dirección que muestra.</p></main>';
});</script>"""

# JupyterLab follows the system's light or dark mode (prefers-color-scheme), as the website does
SETTINGS = {
    "@jupyterlab/apputils-extension:themes": {
        "adaptive-theme": True,
        "preferred-light-theme": "JupyterLab Light",
        "preferred-dark-theme": "JupyterLab Dark",
    }
}
JSON_MIME = re.compile(r"^application/(.+\+)?json$")
# the notebooks of the edition, where the course keeps them (the Spanish ones' links lead to each other)
FOLDERS = [("lessons", "en"), ("solutions", "en"), ("lessons/es", "es"), ("solutions/es", "es")]


def edition_notebook(notebook: dict, name: str, language: str = "en") -> dict:
    """a lesson as the edition ships it: every stored output's text as one string (JupyterLab's table of
    contents reads a markdown output as a string: a list of lines failed it 14 times in lesson 07), and
    a lesson of LOCAL_INSTALL_LESSONS stopped by a first code cell that says so (agent_core._browser;
    its one line is English in the Spanish copies too, as the library's messages are), and every other
    code cell marked so that it says the same if it runs first (agent_core._browser.stop_marked)"""
    from agent_core._browser import LOCAL_INSTALL_LESSONS, STOP_COMMENTS

    for cell in notebook["cells"]:
        for output in cell.get("outputs", []):
            if isinstance(output.get("text"), list):
                output["text"] = "".join(output["text"])
            for mime, value in output.get("data", {}).items():
                if isinstance(value, list) and not JSON_MIME.match(mime):
                    output["data"][mime] = "".join(value)
    if name[:2] in LOCAL_INSTALL_LESSONS:
        mark = STOP_COMMENTS[language].format(lesson=name[:2])
        for cell in notebook["cells"]:
            if cell["cell_type"] == "code":
                cell["source"] = mark + "\n" + "".join(cell["source"])
        first = next(i for i, cell in enumerate(notebook["cells"]) if cell["cell_type"] == "code")
        stop: dict[str, object] = {
            "cell_type": "code",
            "id": "browser-edition-stop",
            "metadata": {"editable": False, "deletable": False},
            "execution_count": None,
            "outputs": [],
            "source": mark + "\nfrom agent_core._browser import local_install_only\n\n"
            f'local_install_only("{name[:2]}")',
        }
        notebook["cells"].insert(first, stop)
    return notebook


# the edition's first page, in both languages: what it says, and its look (light or dark, as the system)
LANDING = {
    "en": {
        "title": "agent-core in the browser",
        "intro": "JupyterLab and Python run in your web browser, with nothing to install. "
        "Start with lesson 00.",
        "local": "needs a local install",
        "all": "Every file in JupyterLab",
        "english": "",
    },
    "es": {
        "title": "agent-core en el navegador",
        "intro": "JupyterLab y Python se ejecutan en tu navegador, sin instalar nada. "
        "Empieza por la lección 00.",
        "local": "necesita una instalación local",
        "all": "Todos los archivos en JupyterLab",
        "english": "en inglés",
    },
}
LANDING_STYLE = """
body { font-family: system-ui, sans-serif; margin: 0; padding: 16px 24px; line-height: 1.5; }
main { display: flex; flex-wrap: wrap; gap: 16px 48px; }
section { flex: 1 1 320px; max-width: 560px; }
h1 { font-size: 22px; } ul { list-style: none; padding: 0; } li { margin: 4px 0; }
a { color: #1565c0; } small { color: #666; }
@media (prefers-color-scheme: dark) {
  body { background: #111; color: #ddd; } a { color: #8ab4f8; } small { color: #aaa; }
}"""


def landing(root: Path = ROOT) -> str:
    """the edition's index.html: the lessons in English and in Spanish, each a link that opens it in
    the edition; where a lesson has no Spanish twin yet, the Spanish list offers the English one"""
    import html
    from urllib.parse import quote

    from agent_core._browser import LOCAL_INSTALL_LESSONS

    lessons = sorted((root / "lessons").glob("[0-9][0-9]_*.ipynb"))
    sections = []
    for language, words in LANDING.items():
        items = []
        for english in lessons:
            spanish = root / "lessons" / "es" / english.name
            path = spanish if language == "es" and spanish.is_file() else english
            notes = [words["local"]] * (english.name[:2] in LOCAL_INSTALL_LESSONS)
            notes += [words["english"]] * (path is english and language != "en")
            note = f" <small>({html.escape(', '.join(notes))})</small>" if notes else ""
            lang = ' lang="en"' if path is english and language != "en" else ""
            url = "notebooks/index.html?path=" + quote(path.relative_to(root).as_posix())
            items.append(
                f'<li><a{lang} href="{html.escape(url)}">{html.escape(_heading(path))}</a>{note}</li>'
            )
        sections.append(
            f'<section lang="{language}"><h1>{words["title"]}</h1><p>{words["intro"]}</p>'
            f'<ul>{"".join(items)}</ul><p><a href="lab/index.html">{words["all"]}</a></p></section>'
        )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="color-scheme" content="light dark">'
        f"<title>{LANDING['en']['title']} · {LANDING['es']['title']}</title>"
        # JupyterLite's pages read their configuration from each parent folder's index.html: the root's
        # is empty, as in the index.html this page replaces (whose script only redirects to lab/)
        '<script id="jupyter-config-data" type="application/json" data-jupyter-lite-root=".">{}</script>'
        f"<style>{LANDING_STYLE}</style></head>\n<body><main>{''.join(sections)}</main></body></html>\n"
    )


def _heading(notebook: Path) -> str:
    """a lesson's first heading: 'Lesson 04 · The loop' ('Lección 04 · El bucle')"""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    text = "".join(next((c["source"] for c in cells if c["cell_type"] == "markdown"), ""))
    heading = next((line[2:] for line in text.splitlines() if line.startswith("# ")), notebook.stem)
    return heading.replace("`", "").strip()


def check() -> int:
    """tests/test_lite.py on every lesson (AGENT_CORE_LITE_LESSONS=all), in one process: a few minutes"""
    if not (OUT / "jupyter-lite.json").exists():
        sys.exit("no browser edition in build/lite: run `python tools/lite.py build` first")
    env = dict(os.environ, AGENT_CORE_LITE_LESSONS="all")
    command = [sys.executable, "-m", "pytest", "-n0", "-v", "tests/test_lite.py"]
    return subprocess.run(command, cwd=ROOT, env=env).returncode


def total_size(out: Path = OUT) -> int:
    return sum(path.stat().st_size for path in out.rglob("*") if path.is_file())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    build_parser = sub.add_parser("build", help="build the browser edition in build/lite/")
    build_parser.add_argument(
        "--out", type=Path, default=OUT, help="where (site/lite: beside the course website)"
    )
    build_parser.add_argument(
        "--solutions", action="store_true", help="include the solved notebooks (default: kept back)"
    )
    serve_parser = sub.add_parser(
        "serve", help="serve the edition (or a website with it) to a room; prints the address to open"
    )
    serve_parser.add_argument("--dir", type=Path, default=OUT, help="what to serve: build/lite, or site")
    serve_parser.add_argument(
        "--port",
        type=int,
        default=None,
        help=f"default {room.DEFAULT_PORT}, or a free one if it is busy (agent-core serve-mock takes 8000)",
    )
    serve_parser.add_argument(
        "--host", default="0.0.0.0", help="address to listen on (default: every one, for the room)"
    )
    release_parser = sub.add_parser(
        "release-solutions", help="give the room the solutions kept back, without rebuilding"
    )
    release_parser.add_argument("--dir", type=Path, default=OUT, help="the edition: build/lite or site/lite")
    size_parser = sub.add_parser(
        "size",
        help="print what a learner's browser fetches on the wire from the room server through lesson 00's "
        f"last cell (exit 1 over {WIRE_BUDGET / 1e6:.0f} MB), and for a room of {ROOM}",
    )
    size_parser.add_argument("--record", type=Path, help="write the requests in order to this file")
    sub.add_parser("lock", help="refresh tools/lite/wheels.txt")
    sub.add_parser(
        "check",
        help="run every cell of every lesson in headless Chromium: those the browser runs against their "
        "stored outputs, those that need a local install (07, 08, 10, 12) to one message; CI runs 00-04",
    )
    args = parser.parse_args(argv)
    if args.command == "lock":
        return lock()
    if args.command == "check":
        return check()
    if args.command == "build":
        build(args.out.resolve(), solutions=args.solutions)
        return 0
    if args.command == "serve":
        return room.serve(args.dir, host=args.host, port=args.port)
    if args.command == "release-solutions":
        return release_solutions(args.dir)
    return size(record=args.record)


def release_solutions(edition: Path) -> int:
    """the kept-back solutions of `edition` (or of a website's lite/) put back in JupyterLab's files"""
    if (edition / "lite" / "jupyter-lite.json").is_file():
        edition = edition / "lite"
    if not (edition / "jupyter-lite.json").is_file():
        sys.exit(f"no browser edition in {edition}: run `python tools/lite.py build` first")
    if room.release(edition):
        print(
            f"the solutions are in {edition}/files/solutions: a learner's file browser shows them on reload"
        )
    else:
        print(
            f"no solutions kept back in {edition}"
            + (" (they are there already)" * room.has_solutions(edition))
        )
    return 0


@contextlib.contextmanager
def room_server(folder: Path = OUT):
    """`tools/lite.py serve` on 127.0.0.1 and a free port, as the room gets it; yields its base URL"""
    command = [sys.executable, str(Path(__file__)), "serve", "--dir", str(folder), "--host", "127.0.0.1"]
    server = subprocess.Popen(
        [*command, "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        assert server.stdout is not None
        lines = []
        for line in server.stdout:
            lines.append(line)
            if line.startswith("learners open: "):
                break
        else:
            raise RuntimeError("the room server did not start: " + "".join(lines))
        url = line.removeprefix("learners open: ").strip()
        yield url[: url.index("/", len("http://")) + 1]
    finally:
        server.terminate()
        server.wait(timeout=10)
        if server.stdout is not None:
            server.stdout.close()


# runs one cell's code on the notebook's kernel, to its end (tests/test_lite.py's RUN_CELL, without outputs)
RUN_CODE = """async (code) => {
  const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
  await kernel.requestExecute({code, stop_on_error: false}).done;
}"""
KERNEL_IDLE = (
    "() => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;"
    " const s = w && w.sessionContext && w.sessionContext.session;"
    " const k = s && s.kernel;"
    " return k && k.status === 'idle'; }"
)
LESSON_00 = "lessons/00_one_model_call.ipynb"


@dataclasses.dataclass
class Fetched:
    """one request a learner's browser made: its path, the bytes on the wire (compressed body and headers;
    0 when the browser's cache answered) and the file's own size"""

    path: str
    wire: int
    size: int
    stage: str  # "kernel": until the kernel is ready; "cells": while lesson 00's cells run


class WireLog:
    """every request a browser context finishes from `base` (the room server serving `out`), in order,
    with its bytes on the wire as Chromium counted them; `stage` names the part of the visit it is in.
    The context must not intercept requests (context.route): that turns the browser's HTTP cache off."""

    def __init__(self, context, base: str, out: Path) -> None:
        self.context, self.base, self.out = context, base, out
        self.fetched: list[Fetched] = []
        self.stage = "kernel"
        context.on("requestfinished", self._finished)

    def _finished(self, request) -> None:
        from playwright.sync_api import Error as PlaywrightError

        if not request.url.startswith(self.base):
            return
        try:
            sizes = request.sizes()
            response = request.response()
        except PlaywrightError:  # the page closed meanwhile
            return
        cached = response is not None and response.from_service_worker
        wire = 0 if cached else sizes["responseBodySize"] + sizes["responseHeadersSize"]
        name = request.url.removeprefix(self.base)
        path = self.out / name.split("?")[0]
        path = path / "index.html" if path.is_dir() else path
        size = path.stat().st_size if path.is_file() else 0
        self.fetched.append(Fetched(name, max(wire, 0), size, self.stage))

    def stop(self) -> list[Fetched]:
        self.context.remove_listener("requestfinished", self._finished)
        return self.fetched


def first_lesson_files(
    out: Path = OUT, lesson: str = LESSON_00, cells: bool = True, second: str | None = None
) -> list[Fetched]:
    """what a fresh Chromium fetches from the room server to open `lesson` until its kernel is ready,
    then (cells) while every code cell of the lesson runs, then (second) opening another lesson to its
    kernel; each request in order (tests/test_lite.py counts lesson 00 the same way, in its own browser)"""
    from playwright.sync_api import sync_playwright

    chromium = (
        os.environ.get("AGENT_CORE_CHROMIUM") or shutil.which("chromium") or shutil.which("google-chrome")
    )
    with room_server(out) as base, sync_playwright() as playwright, tempfile.TemporaryDirectory() as profile:
        # outside hosts resolve to nothing
        flags = ["--no-sandbox", "--disable-gpu", "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"]
        context = playwright.chromium.launch_persistent_context(
            profile, executable_path=chromium, headless=True, args=flags
        )
        wire = WireLog(context, base, out)
        page = context.new_page()
        page.goto(f"{base}notebooks/index.html?path={lesson}")
        page.wait_for_function(KERNEL_IDLE, timeout=300_000)
        if cells:
            wire.stage = "cells"
            for cell in json.loads((ROOT / lesson).read_text(encoding="utf-8"))["cells"]:
                if cell["cell_type"] == "code":
                    page.evaluate(RUN_CODE, "".join(cell["source"]))
            page.wait_for_timeout(LAST_FILES)
        if second:
            wire.stage = "second"
            page.goto(f"{base}notebooks/index.html?path={second}")
            page.wait_for_function(KERNEL_IDLE, timeout=300_000)
        fetched = wire.stop()
        context.close()
    return fetched


LAST_FILES = 500  # ms after a lesson's last cell: the files its last widget asks for


WIRE_BUDGET = 15_000_000  # bytes on the wire per learner through lesson 00: thirty share one Wi-Fi
ROOM = 30


def _group(name: str) -> str:
    """a fetched file's part of the edition: a Python package by its name, the runtime, the app"""
    name = name.split("?")[0]
    if name.startswith("static/pyodide/") and name.endswith(".whl"):
        return f"package {_normal(name.split('/')[-1].split('-')[0])}"
    if name.startswith("static/pyodide/"):
        return f"runtime {name.split('/')[-1]}"
    if name.startswith("extensions/"):
        return "app extension " + "/".join(name.split("/")[1:3])
    return "app (JupyterLab's code, styles and settings)"


def size(out: Path = OUT, record: Path | None = None) -> int:
    """print what a learner's browser fetches on the wire through lesson 00's last cell; exit 1 over
    WIRE_BUDGET. `record`: also write the requests in order (benchmarks/bench_room.py replays them)"""
    if not (out / "jupyter-lite.json").exists():
        sys.exit("no browser edition in build/lite: run `python tools/lite.py build` first")
    print(f"the whole edition: {total_size(out) / 1e6:.1f} MB on disk (its .gz copies included)", flush=True)
    try:
        fetched = first_lesson_files(out, second="lessons/01_tool_schema.ipynb")
    except ImportError:
        print("what the first lesson fetches: needs playwright and Chromium (the test extra) to measure")
        return 0
    lesson = [f for f in fetched if f.stage != "second"]
    groups: dict[str, list[Fetched]] = {}
    for item in lesson:
        groups.setdefault(_group(item.path), []).append(item)
    print("on the wire from the room server (gzip), opening lesson 00 and running every cell:")
    for group, items in sorted(groups.items(), key=lambda item: -sum(f.wire for f in item[1])):
        wire, raw = sum(f.wire for f in items), sum({f.path: f.size for f in items}.values())
        print(f"  {wire / 1e6:6.2f} MB  {group} ({len(items)} requests; {raw / 1e6:.2f} MB as files)")
    ready = sum(f.wire for f in lesson if f.stage == "kernel")
    total = sum(f.wire for f in lesson)
    later = sum(f.wire for f in fetched if f.stage == "second")
    print(
        f"to kernel-ready: {ready / 1e6:.1f} MB; through lesson 00's last cell: {total / 1e6:.1f} MB "
        f"in {len(lesson)} requests"
    )
    print(f"then opening lesson 01 fetches {later / 1e6:.2f} MB (the browser's cache keeps the rest)")
    verdict = "within" if total <= WIRE_BUDGET else "OVER"
    print(
        f"per learner {total / 1e6:.1f} MB, {verdict} the budget of {WIRE_BUDGET / 1e6:.0f} MB; "
        f"a room of {ROOM}: {ROOM * total / 1e6:.0f} MB over its network"
    )
    if record is not None:
        sent = [f for f in lesson if f.wire > 0]  # what reached the server: not the cache, not the worker
        record.write_text("".join(f"{f.path}\n" for f in sent), encoding="utf-8")
        print(f"the {len(sent)} requests that reached the server, in order: {record}")
    return 0 if total <= WIRE_BUDGET else 1


if __name__ == "__main__":
    sys.exit(main())
