"""The room server (tools/room.py, `python tools/lite.py serve`) and the solutions it keeps back, over HTTP.

The server runs as a teacher starts it, in its own process, on 127.0.0.1 and a free port. Most tests
serve a small edition made in a temporary folder (fast, no build needed); the ones marked by the
`built` fixture serve build/lite itself and skip without it (fail in CI).
"""

import gzip
import http.client
import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from headless_chromium import missing

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))  # tools/ holds scripts, not a package
import lite  # noqa: E402
import room  # noqa: E402

LESSON = "files/lessons/00_one_model_call.ipynb"


def _start(folder: Path, *options: str) -> tuple[subprocess.Popen, list[str]]:
    """the room server's process and the lines it printed up to the address learners open"""
    command = [sys.executable, str(ROOT / "tools" / "lite.py"), "serve", "--dir", str(folder)]
    server = subprocess.Popen(
        [*command, "--host", "127.0.0.1", *options],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: list[str] = []
    assert server.stdout is not None
    for line in server.stdout:
        lines.append(line.rstrip("\n"))
        if line.startswith(("learners open: ", "cannot listen")):
            break
    return server, lines


def _stop(server: subprocess.Popen) -> str:
    server.terminate()
    out, _ = server.communicate(timeout=10)
    return out


def _port(lines: list[str]) -> int:
    address = next(line for line in lines if line.startswith("learners open: "))
    return int(address.rsplit(":", 1)[1].split("/")[0])


def _get(port: int, path: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", "/" + path, headers=headers)
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def _small_edition(folder: Path) -> Path:
    """an edition's shape: a start page, JupyterLite's listing, a lesson, a solution, a big script"""
    (folder / "files" / "lessons").mkdir(parents=True)
    (folder / "files" / "solutions").mkdir(parents=True)
    (folder / "api" / "contents" / "solutions").mkdir(parents=True)
    (folder / "build").mkdir()
    (folder / "index.html").write_text("<!DOCTYPE html><title>start</title>" + "<p>lesson</p>" * 200)
    (folder / "jupyter-lite.json").write_text("{}")
    notebook = json.dumps({"cells": [{"cell_type": "markdown", "source": "# Lesson 00 " * 200}]})
    (folder / LESSON).write_text(notebook)
    (folder / "files" / "solutions" / "00_one_model_call.ipynb").write_text(notebook)
    (folder / "api" / "contents" / "solutions" / "all.json").write_text('{"content": []}')
    entries = [{"name": name, "path": name, "type": "directory"} for name in ("lessons", "solutions")]
    (folder / "api" / "contents" / "all.json").write_text(json.dumps({"content": entries, "name": ""}))
    (folder / "build" / "bundle.abc123.js").write_text("function f() { return 1; }\n" * 2000)
    return folder


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """a small edition, kept back and precompressed as `tools/lite.py build` leaves one, served"""
    folder = _small_edition(tmp_path_factory.mktemp("room") / "lite")
    assert room.keep_back(folder)
    room.precompress(folder)
    server, lines = _start(folder, "--port", "0")
    yield folder, _port(lines), lines
    _stop(server)


def test_the_server_prints_the_start_page_and_serves_it_and_a_lesson_gzipped(small):
    folder, port, lines = small
    assert f"learners open: http://127.0.0.1:{port}/" in lines
    assert "solutions: kept back: python tools/lite.py release-solutions" in lines
    for path in ("", LESSON):
        status, headers, body = _get(port, path, **{"Accept-Encoding": "gzip, deflate"})
        assert status == 200 and headers["content-encoding"] == "gzip", headers
        original = (folder / (path or "index.html")).read_bytes()
        assert gzip.decompress(body) == original and len(body) < len(original) / 5
        assert headers["vary"] == "Accept-Encoding"
    # a client that does not accept gzip gets the file as it is
    status, headers, body = _get(port, LESSON)
    assert status == 200 and "content-encoding" not in headers and body == (folder / LESSON).read_bytes()


def test_the_apps_bundles_are_cached_for_a_day_and_the_pages_and_lessons_revalidated(small):
    _, port, _ = small
    _, bundle, _ = _get(port, "build/bundle.abc123.js", **{"Accept-Encoding": "gzip"})
    assert bundle["cache-control"] == "public, max-age=86400"
    for path in ("", LESSON, "api/contents/all.json"):
        status, headers, _ = _get(port, path, **{"Accept-Encoding": "gzip"})
        assert headers["cache-control"] == "no-cache" and headers["etag"]
        again, repeated, body = _get(
            port, path, **{"Accept-Encoding": "gzip", "If-None-Match": headers["etag"]}
        )
        assert (again, body) == (304, b"") and repeated["etag"] == headers["etag"]


def test_kept_back_solutions_are_neither_served_nor_listed_and_a_release_brings_them_back(tmp_path):
    folder = _small_edition(tmp_path / "lite")
    assert room.keep_back(folder) and not room.keep_back(folder)
    room.precompress(folder)
    server, lines = _start(folder, "--port", "0")
    try:
        port = _port(lines)
        solution = "files/solutions/00_one_model_call.ipynb"
        assert _get(port, solution)[0] == 404
        assert _get(port, ".kept-back/files/solutions/00_one_model_call.ipynb")[0] == 404
        for encoding in ("gzip", "identity"):  # the listing and its .gz copy agree
            _, headers, body = _get(port, "api/contents/all.json", **{"Accept-Encoding": encoding})
            listing = json.loads(gzip.decompress(body) if headers.get("content-encoding") else body)
            assert [entry["name"] for entry in listing["content"]] == ["lessons"]
        assert lite.release_solutions(folder) == 0
        assert _get(port, solution)[0] == 200
        for encoding in ("gzip", "identity"):
            _, headers, body = _get(port, "api/contents/all.json", **{"Accept-Encoding": encoding})
            listing = json.loads(gzip.decompress(body) if headers.get("content-encoding") else body)
            assert [entry["name"] for entry in listing["content"]] == ["lessons", "solutions"]
        assert not (folder / room.KEPT).exists()
    finally:
        _stop(server)


def test_with_its_default_port_busy_the_room_server_takes_a_free_one_and_says_so(tmp_path):
    folder = _small_edition(tmp_path / "lite")
    holder = socket.socket()
    try:
        holder.bind(("127.0.0.1", room.DEFAULT_PORT))
        holder.listen()
    except OSError:
        pass  # another server holds it: busy all the same
    try:
        server, lines = _start(folder)
        try:
            port = _port(lines)
            assert port != room.DEFAULT_PORT
            assert (
                f"port {room.DEFAULT_PORT} is busy (serve-mock or another server?): serving on port {port}"
                in lines
            )
            assert _get(port, "")[0] == 200
        finally:
            _stop(server)
    finally:
        holder.close()


def test_with_its_default_port_busy_serve_mock_takes_a_free_one_and_says_so():
    from agent_core.mock.server import DEFAULT_PORT

    assert DEFAULT_PORT != room.DEFAULT_PORT  # the projector's demo and the room's server side by side
    holder = socket.socket()
    try:
        holder.bind(("127.0.0.1", DEFAULT_PORT))
        holder.listen()
    except OSError:
        pass
    command = [str(Path(sys.executable).parent / "agent-core"), "serve-mock", "--quiet"]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert server.stdout is not None
        busy = server.stdout.readline().rstrip("\n")
        serving = server.stdout.readline()
        port = int(busy.rsplit(" ", 1)[1])
        assert busy == f"port {DEFAULT_PORT} is busy (another server holds it): serving on port {port}"
        assert serving == f"mock model serving at http://127.0.0.1:{port}/v1\n"
    finally:
        server.terminate()
        server.communicate(timeout=10)
        holder.close()


def test_a_port_asked_for_and_busy_is_one_line_and_exit_status_2(tmp_path):
    folder = _small_edition(tmp_path / "lite")
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        server, lines = _start(folder, "--port", str(port))
        out, _ = server.communicate(timeout=10)
    assert server.returncode == 2 and "Traceback" not in out
    assert lines[-1].startswith(f"cannot listen on 127.0.0.1:{port}: ")


# --- the built edition ------------------------------------------------------------------------------

EDITION = ROOT / "build" / "lite"


@pytest.fixture(scope="module")
def built():
    if not (EDITION / "jupyter-lite.json").exists():
        missing(
            "no browser edition in build/lite: run `python tools/lite.py build`", "the room server's tests"
        )
    server, lines = _start(EDITION, "--port", "0")
    yield _port(lines)
    _stop(server)


def test_the_built_edition_keeps_the_solutions_back_and_serves_its_start_page_lesson_and_runtime_gzipped(
    built,
):
    status, headers, body = _get(built, "", **{"Accept-Encoding": "gzip"})
    assert status == 200 and headers["content-encoding"] == "gzip"
    assert b'section lang="es"' in gzip.decompress(body)  # the edition's own start page, not JupyterLab's
    status, headers, body = _get(built, LESSON, **{"Accept-Encoding": "gzip"})
    assert (
        status == 200 and headers["content-encoding"] == "gzip" and json.loads(gzip.decompress(body))["cells"]
    )
    _, headers, _ = _get(built, "static/pyodide/pyodide.asm.wasm", **{"Accept-Encoding": "gzip"})
    assert headers["content-type"] == "application/wasm" and headers["content-encoding"] == "gzip"
    assert headers["cache-control"] == "public, max-age=86400"
    assert _get(built, "files/solutions/00_one_model_call.ipynb")[0] == 404
    listing = json.loads((EDITION / "api" / "contents" / "all.json").read_text(encoding="utf-8"))
    assert [entry["name"] for entry in listing["content"]] == ["lessons"]
    assert not (EDITION / "files" / "solutions").exists()
    assert not (EDITION / "api" / "contents" / "solutions").exists()


def test_the_teachers_page_and_the_readme_serve_the_room_with_the_room_server_on_its_port():
    """not `python -m http.server` (backlog 5: a room of thirty got connection resets); the ports the
    page names are the two servers' defaults, which differ"""
    from agent_core.mock.server import DEFAULT_PORT

    for name in ("docs/teaching.md", "docs/teaching.es.md", "README.md", "README.es.md"):
        text = (ROOT / name).read_text(encoding="utf-8")
        assert "http.server" not in text and "tools/lite.py serve" in text, name
    teaching = (ROOT / "docs" / "teaching.md").read_text(encoding="utf-8")
    assert f"127.0.0.1:{DEFAULT_PORT}, for `curl`" in teaching
    assert f"The room server takes\n  {room.DEFAULT_PORT}" in teaching
    assert "release-solutions" in teaching and "lab/index.html" not in teaching


def test_the_edition_saves_a_learners_work_every_two_minutes_as_the_teachers_page_says():
    """docs/teaching.md: work is kept once saved, by Ctrl-S or the autosave every two minutes; the
    edition's own settings leave JupyterLab's autosave on, at that interval"""
    if not (EDITION / "jupyter-lite.json").exists():
        missing(
            "no browser edition in build/lite: run `python tools/lite.py build`", "the room server's tests"
        )
    plugins = json.loads((EDITION / "build" / "schemas" / "all.json").read_text(encoding="utf-8"))
    docmanager = next(p for p in plugins if p.get("id") == "@jupyterlab/docmanager-extension:plugin")
    properties = docmanager["schema"]["properties"]
    assert properties["autosave"]["default"] is True and properties["autosaveInterval"]["default"] == 120
    overrides = json.loads((EDITION / "overrides.json").read_text(encoding="utf-8"))
    assert "@jupyterlab/docmanager-extension:plugin" not in overrides
    teaching = " ".join((ROOT / "docs" / "teaching.md").read_text(encoding="utf-8").split())
    assert "once it is saved: Ctrl-S, or JupyterLab's autosave every two minutes" in teaching
