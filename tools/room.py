"""The room server: the browser edition (and the website, if built) served to a workshop from one laptop.

    python tools/lite.py serve               # build/lite on every address of this laptop, port 8080
    python tools/lite.py serve --dir site    # the website, with the edition in site/lite

Thirty browsers open lesson 00 within the same minute, each with six connections, so this is a real
server (uvicorn, from the lock) with a deep listen backlog, not `python -m http.server` (backlog 5: in
a room of thirty it reset 72 first requests). A file precompressed at build time (file.gz beside it,
written by precompress()) is sent gzip-encoded to a browser that accepts gzip; the app's hashed
bundles, the Python runtime and the wheels are cached by the browser for a day, and every other file
(pages, settings, the notebooks and their listing) is revalidated, so a second lesson reuses the first
one's files and a released solution shows up at once. Nothing under a name starting with "." is served:
solutions kept back wait there (keep_back(), release()).
"""

from __future__ import annotations

import gzip
import ipaddress
import json
import shutil
import socket
import sys
from pathlib import Path

DEFAULT_PORT = 8080  # agent-core serve-mock takes 8000: both run on the teacher's laptop
BACKLOG = 1024  # connections waiting to be accepted: thirty browsers open six each at once
COMPRESSED = ".gz"
MIN_SIZE = 1024  # smaller files are sent as they are
MIN_SAVING = 0.1  # a .gz is kept only when it is at least 10% smaller than its file
# what the app fetches by a name that changes with its content, or that only a rebuild changes
LONG_LIVED = ("build/", "static/", "extensions/", "lab/build/")
LONG_MAX_AGE = 86_400  # seconds: a workshop's day
MEDIA_TYPES = {
    ".wasm": "application/wasm",  # WebAssembly.instantiateStreaming needs exactly this type
    ".mjs": "text/javascript",
    ".js": "text/javascript",
    ".json": "application/json",
    ".ipynb": "application/json",
    ".whl": "application/zip",
    ".webmanifest": "application/manifest+json",
}
KEPT = ".kept-back"  # inside an edition: the solutions while they are kept back, never served


# --- precompression, at build time ----------------------------------------------------------------


def precompress(folder: Path, skip: str | None = None) -> tuple[int, int]:
    """a gzip copy (file.gz, level 9, no timestamp) beside every file of `folder` (but those under
    `skip`) where it saves at least MIN_SAVING; stale copies removed. Returns (files compressed, bytes
    saved)"""
    count = saved = 0
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        hidden = any(part.startswith(".") for part in relative.parts)
        if skip and relative.as_posix().startswith(skip):
            continue
        if not path.is_file() or path.suffix == COMPRESSED or hidden:
            continue
        copy = path.with_name(path.name + COMPRESSED)
        data = path.read_bytes()
        packed = gzip.compress(data, compresslevel=9, mtime=0) if len(data) >= MIN_SIZE else data
        if len(packed) <= len(data) * (1 - MIN_SAVING):
            copy.write_bytes(packed)
            count, saved = count + 1, saved + len(data) - len(packed)
        else:
            copy.unlink(missing_ok=True)
    return count, saved


# --- solutions kept back, and released --------------------------------------------------------------


def _listing(edition: Path) -> Path:
    return edition / "api" / "contents" / "all.json"


def _move(source: Path, target: Path) -> None:
    if source.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.rmtree(target, ignore_errors=True)
        source.rename(target)


def _write_listing(edition: Path, listing: dict) -> None:
    _listing(edition).write_text(json.dumps(listing, indent=2), encoding="utf-8")
    precompress(_listing(edition).parent)  # its .gz follows it, and none is left stale


def keep_back(edition: Path) -> bool:
    """move an edition's solutions out of reach (into .kept-back/, which the room server never serves),
    and their entry out of the file listing, so JupyterLab shows no broken entry; False if none were there"""
    listing = json.loads(_listing(edition).read_text(encoding="utf-8"))
    entries = [entry for entry in listing["content"] if entry["name"] == "solutions"]
    if not entries:
        return False
    kept = edition / KEPT
    _move(edition / "files" / "solutions", kept / "files" / "solutions")
    _move(edition / "api" / "contents" / "solutions", kept / "api" / "contents" / "solutions")
    (kept / "entry.json").write_text(json.dumps(entries[0], indent=2), encoding="utf-8")
    listing["content"] = [entry for entry in listing["content"] if entry["name"] != "solutions"]
    _write_listing(edition, listing)
    return True


def release(edition: Path) -> bool:
    """put kept-back solutions back where JupyterLab lists them, in seconds, with no rebuild; False if
    none were kept back"""
    kept = edition / KEPT
    if not (kept / "entry.json").is_file():
        return False
    _move(kept / "files" / "solutions", edition / "files" / "solutions")
    _move(kept / "api" / "contents" / "solutions", edition / "api" / "contents" / "solutions")
    listing = json.loads(_listing(edition).read_text(encoding="utf-8"))
    entry = json.loads((kept / "entry.json").read_text(encoding="utf-8"))
    listing["content"] = sorted([*listing["content"], entry], key=lambda item: item["name"])
    _write_listing(edition, listing)
    shutil.rmtree(kept)
    return True


def has_solutions(edition: Path) -> bool:
    return (edition / "files" / "solutions").is_dir()


# --- the server ------------------------------------------------------------------------------------


def app(folder: Path):
    """a Starlette app serving `folder`: index.html for a folder, file.gz for gzip-accepting browsers,
    cache headers by kind of file, 404 for anything under a name starting with '.'"""
    from starlette.applications import Starlette
    from starlette.exceptions import HTTPException
    from starlette.responses import FileResponse, Response
    from starlette.routing import Mount
    from starlette.staticfiles import StaticFiles
    from starlette.types import Scope

    class RoomFiles(StaticFiles):
        async def get_response(self, path: str, scope: Scope) -> Response:
            if any(part.startswith(".") for part in Path(path).parts):
                raise HTTPException(status_code=404)
            return await super().get_response(path, scope)

        def file_response(self, full_path, stat_result, scope, status_code=200) -> Response:
            from starlette.datastructures import Headers

            path = Path(full_path)
            name = path.relative_to(folder).as_posix()
            request = Headers(scope=scope)
            media_type = MEDIA_TYPES.get(path.suffix)
            long_lived = name.startswith(LONG_LIVED)
            headers = {
                "Cache-Control": f"public, max-age={LONG_MAX_AGE}" if long_lived else "no-cache",
                "Vary": "Accept-Encoding",
            }
            copy = path.with_name(path.name + COMPRESSED)
            if "gzip" in request.get("accept-encoding", "") and status_code == 200:
                try:
                    packed = copy.stat()
                except OSError:
                    packed = None
                if packed is not None and packed.st_mtime >= stat_result.st_mtime:  # not stale
                    response: Response = FileResponse(
                        copy,
                        stat_result=packed,
                        media_type=media_type or FileResponse(path).media_type,
                        headers={**headers, "Content-Encoding": "gzip"},
                    )
                    if self.is_not_modified(response.headers, request):
                        return Response(status_code=304, headers=_kept(response.headers))
                    return response
            response = FileResponse(
                path, status_code=status_code, stat_result=stat_result, media_type=media_type, headers=headers
            )
            if status_code == 200 and self.is_not_modified(response.headers, request):
                return Response(status_code=304, headers=_kept(response.headers))
            return response

    return Starlette(routes=[Mount("/", app=RoomFiles(directory=folder, html=True))])


def _kept(headers) -> dict[str, str]:
    """the headers a 304 repeats (RFC 9110, 15.4.5)"""
    wanted = ("cache-control", "content-location", "date", "etag", "expires", "vary", "content-encoding")
    return {name: value for name, value in headers.items() if name in wanted}


def lan_address() -> str:
    """this laptop's address on the room's network (the one its default route uses), else 127.0.0.1"""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 1))  # UDP: no packet is sent, only a route chosen
            address = probe.getsockname()[0]
        except OSError:
            return "127.0.0.1"
    return address if not ipaddress.ip_address(address).is_unspecified else "127.0.0.1"


def listen(host: str, port: int | None) -> tuple[socket.socket, str | None]:
    """a socket bound to `port`, or with no port asked for, to DEFAULT_PORT or, if that one is busy, to
    a free one; with a line saying so"""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    for wanted in [port] if port is not None else [DEFAULT_PORT, 0]:
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, wanted))
        except OSError:
            sock.close()
            if port is not None:
                raise
            continue
        taken = sock.getsockname()[1]
        note = None
        if port is None and taken != DEFAULT_PORT:
            note = f"port {DEFAULT_PORT} is busy (serve-mock or another server?): serving on port {taken}"
        return sock, note
    raise OSError("no free port")


def start_page(folder: Path) -> str:
    """where learners land: the edition's own start page, or the website's home"""
    return "" if (folder / "index.html").is_file() else "lab/index.html"


def serve(folder: Path, host: str = "0.0.0.0", port: int | None = None) -> int:
    """serve `folder` until Ctrl-C (or SIGTERM), having printed the address learners open"""
    import uvicorn

    if not (folder / "index.html").is_file():
        print(f"nothing to serve in {folder}: build it first (python tools/lite.py build)", file=sys.stderr)
        return 2
    try:
        sock, note = listen(host, port)
    except OSError as error:
        print(f"cannot listen on {host}:{port}: {error.strerror or error}; try --port 0", file=sys.stderr)
        return 2
    sock.listen(BACKLOG)  # from here a browser's connection waits in the backlog until uvicorn accepts it
    taken = sock.getsockname()[1]
    shown = lan_address() if host in ("0.0.0.0", "::") else host
    if note:
        print(note, flush=True)
    edition = folder / "lite" if (folder / "lite" / "jupyter-lite.json").is_file() else folder
    print(f"serving {folder} to the room (Ctrl-C stops)", flush=True)
    if (edition / "jupyter-lite.json").is_file():
        words = "included" if has_solutions(edition) else "kept back: python tools/lite.py release-solutions"
        print(f"solutions: {words}", flush=True)
    if edition != folder:
        print(f"the browser edition: http://{shown}:{taken}/lite/", flush=True)
    print(f"learners open: http://{shown}:{taken}/{start_page(folder)}", flush=True)
    config = uvicorn.Config(
        app(folder.resolve()),
        backlog=BACKLOG,
        log_level="warning",
        access_log=False,
        timeout_keep_alive=30,  # a browser keeps its six connections open between a page's requests
        lifespan="off",
        server_header=False,  # two headers fewer on each of a learner's 165 responses
        date_header=False,
    )
    try:
        uvicorn.Server(config).run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
    print("room server stopped", flush=True)
    return 0
