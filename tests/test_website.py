"""The course website (tools/website.py) in a real browser: headless Chromium, every request outside the site refused and reported.

Screenshots of a few pages are kept in test-artifacts/website/ (git-ignored) for a person to look at.
Without Chromium these tests skip, except in CI (CI=true), where a missing browser is a failure.
"""

import functools
import http.server
import json
import os
import re
import shutil
import sys
import threading
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import website  # noqa: E402

SCREENSHOTS = ROOT / "test-artifacts" / "website"
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",  # what slipped past the interception finds no host
]


def _missing(reason: str):
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason} (CI=true: the website tests must run in CI)")
    pytest.skip(reason)


def _chromium() -> str:
    candidates = [os.environ.get("AGENT_CORE_CHROMIUM")]
    candidates += [shutil.which(name) for name in ("chromium", "chromium-browser", "google-chrome", "chrome")]
    found = next((c for c in candidates if c), None)
    if found is None:
        _missing(
            "no Chromium found: install it (Debian or Ubuntu: apt-get install chromium) "
            "or set AGENT_CORE_CHROMIUM to a Chrome or Chromium executable"
        )
    return found


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("website") / "site"
    website.build(out)
    return out


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """a Chromium context with a new, empty profile; yields it and the URLs it refused"""
    executable = _chromium()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing('the playwright package is missing: pip install -e ".[test]"')
    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(profile),
            executable_path=executable,
            headless=True,
            args=CHROMIUM_FLAGS,
            viewport={"width": 1280, "height": 900},
        )
        refused: list[str] = []
        context.route("**/*", lambda route: _only_the_site(route, refused))
        yield context, refused
        context.close()


THE_SITE = ["file://"]  # what the browser may load; the static_host fixture adds its address while it runs


def _only_the_site(route, refused: list[str]) -> None:
    url = route.request.url
    if url.startswith(tuple(THE_SITE)):
        route.continue_()
    else:
        refused.append(url)
        route.abort()


@pytest.fixture(scope="module")
def static_host(site):
    """the site served over HTTP on 127.0.0.1, as any static host would"""
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    THE_SITE.append(base)
    yield base
    THE_SITE.remove(base)
    server.shutdown()
    server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def _open(context, url: str):
    """a new tab on url, with what goes wrong on it collected: console errors, page errors, failed loads"""
    page = context.new_page()
    problems: list[str] = []
    page.on("console", lambda message: problems.append(f"console {message.type}: {message.text}") if message.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(f"uncaught: {error}"))
    page.on("requestfailed", lambda request: problems.append(f"failed to load {request.url}"))
    page.goto(url, wait_until="load")
    return page, problems


def _wait_for_widgets(page) -> None:
    if page.locator('script[type="application/vnd.jupyter.widget-state+json"]').count():
        page.wait_for_selector(".agent-core-kernel-free .widget-toggle-button", timeout=15_000)


def test_every_page_loads_with_no_console_errors_and_no_outside_requests(browser, site):
    context, refused = browser
    pages = website.pages()
    assert {"home", "lesson", "solution", "doc"} <= {p.kind for p in pages}
    for entry in pages:
        page, problems = _open(context, (site / entry.target).as_uri())
        _wait_for_widgets(page)
        assert page.locator("main .jp-Cell").count() >= 1, f"{entry.target} shows no content"
        assert page.title() == entry.title
        if entry.source.suffix == ".ipynb":  # every stored output is on the page, and none is blank
            stored = sum(len(cell.get("outputs", [])) for cell in nbformat.read(entry.source, as_version=4).cells)
            assert page.locator(".jp-OutputArea-output").count() == stored, entry.target
            blank = page.evaluate(
                "[...document.querySelectorAll('.jp-OutputArea-output')]"
                ".filter(e => !e.innerText.trim() && !e.querySelector('img')).length"
            )
            assert blank == 0, f"{entry.target}: {blank} outputs show nothing"
        page.close()
        assert not problems, f"{entry.target}: " + "\n".join(problems)
    assert not refused, "requests left the site: " + ", ".join(refused)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for target in ("index.html", "docs/teaching.html", "lessons/00_one_model_call.html"):
        page, _ = _open(context, (site / target).as_uri())
        page.screenshot(path=str(SCREENSHOTS / (target.replace("/", "_") + ".png")))
        page.close()


def _visible_json(viewer, label: str) -> dict:
    """the JSON under 'request JSON' or 'response JSON' on the page of the viewer that shows"""
    block = viewer.locator(".widget-html:visible", has_text=label)
    pre = block.locator(f"xpath=.//b[text()='{label}']/following-sibling::pre[1]")
    return json.loads(pre.inner_text())


@pytest.mark.parametrize("served", ["file", "http"])
def test_the_step_through_on_lesson_04_moves_through_every_turn_on_clicks(browser, site, static_host, served):
    context, refused = browser
    base = site.as_uri() + "/" if served == "file" else static_host
    page, problems = _open(context, base + "lessons/04_the_loop.html")
    _wait_for_widgets(page)
    viewer = page.locator(".agent-core-kernel-free").first
    buttons = viewer.locator(".widget-toggle-button")
    turns = buttons.count()
    assert turns >= 2
    assert viewer.locator(".widget-html:visible").count() == 1  # one turn on show at a time
    assert f"Turn 1 of {turns}" in viewer.inner_text()
    previous = _visible_json(viewer, "request JSON")
    reply = _visible_json(viewer, "response JSON")["choices"][0]["message"]
    for turn in range(2, turns + 1):
        buttons.nth(turn - 1).click()
        page.wait_for_function(
            "([element, text]) => element.innerText.includes(text)",
            arg=[viewer.element_handle(), f"Turn {turn} of {turns}"],
            timeout=5_000,
        )
        request = _visible_json(viewer, "request JSON")
        # this turn's request is the last one's messages, the reply, and the tool results for its calls
        assert request["messages"][: len(previous["messages"])] == previous["messages"]
        assert request["messages"][len(previous["messages"])]["tool_calls"] == reply["tool_calls"]
        answered = [m["tool_call_id"] for m in request["messages"] if m["role"] == "tool"]
        assert [call["id"] for call in reply["tool_calls"]] == answered[-len(reply["tool_calls"]) :]
        if served == "file" and turn == 2:
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            viewer.scroll_into_view_if_needed()
            page.screenshot(path=str(SCREENSHOTS / "lessons_04_the_loop_turn_2.png"))
        previous, reply = request, _visible_json(viewer, "response JSON")["choices"][0]["message"]
    assert reply.get("content") and not reply.get("tool_calls"), "the last turn is the model's answer"
    page.close()
    assert not problems, "\n".join(problems)
    assert not refused, "requests left the site: " + ", ".join(refused)


def test_links_between_lessons_work_in_the_browser(browser, site):
    context, refused = browser
    page, problems = _open(context, (site / "index.html").as_uri())
    page.locator("main a", has_text="01 The tool schema").first.click()  # the course map on the home page
    assert page.url.endswith("/lessons/01_tool_schema.html")
    page.locator('.course-pager a[rel="next"]').click()
    assert page.url.endswith("/lessons/02_tool_calls.html")
    page.locator('.course-pager a[rel="prev"]').click()
    assert page.url.endswith("/lessons/01_tool_schema.html")
    page.locator(".course-banner a", has_text="the solution").click()
    assert page.url.endswith("/solutions/01_tool_schema.html")
    page.locator(".course-menu a", has_text="Teaching").click()
    assert page.url.endswith("/docs/teaching.html")
    page.locator(".course-menu a.course-title").click()
    assert page.url.endswith("/index.html")
    page.close()
    assert not problems, "\n".join(problems)
    assert not refused


def test_every_link_inside_the_site_leads_to_a_file_of_the_site(site):
    """all pages, every href and src that is not a URL or an anchor (the browser test clicks a few)"""
    broken = []
    for page in site.rglob("*.html"):
        for url in re.findall(r'(?:href|src)="([^"]*)"', page.read_text(encoding="utf-8")):
            path = url.split("#")[0]
            if path.split("lite/notebooks/")[0].strip("./") == "":  # the browser edition: tools/lite.py builds it
                continue
            if path and not re.match(r"[a-zA-Z][a-zA-Z0-9+.-]*:", path):
                if not (page.parent / path).is_file():
                    broken.append(f"{page.relative_to(site)} -> {url}")
    assert not broken, "\n".join(broken)
    lessons = sorted(p.stem for p in (ROOT / "lessons").glob("[0-9][0-9]_*.ipynb"))
    assert sorted(p.stem for p in (site / "lessons").glob("*.html")) == lessons
    home = (site / "index.html").read_text(encoding="utf-8")
    assert all(f'href="lessons/{name}.html"' in home for name in lessons)  # the menu names every lesson


def test_a_site_without_solutions_has_no_solution_pages_and_no_link_to_one():
    everything, lessons_only = website.pages(), website.pages(solutions=False)
    assert {page.kind for page in everything} - {page.kind for page in lessons_only} == {"solution"}
    lesson = next(page for page in lessons_only if page.target == "lessons/04_the_loop.html")
    assert "solutions/" in website._menu(lesson, everything) + website._banner(lesson, everything)
    assert "solutions/" not in website._menu(lesson, lessons_only) + website._banner(lesson, lessons_only)


def test_a_folder_it_did_not_build_is_never_emptied(tmp_path):
    (tmp_path / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(SystemExit, match="was not built by this script"):
        website.build(tmp_path)
    assert (tmp_path / "notes.txt").read_text(encoding="utf-8") == "mine"


def test_a_request_outside_the_site_is_refused_and_reported(browser, tmp_path):
    """the guard the other tests rely on: what nbconvert's stock template would fetch from a CDN"""
    context, refused = browser
    page_file = tmp_path / "cdn.html"
    page_file.write_text(
        '<html><body><script src="https://cdn.jsdelivr.net/npm/requirejs@2.3.7/require.js"></script></body></html>',
        encoding="utf-8",
    )
    before = len(refused)
    page, problems = _open(context, page_file.as_uri())
    page.close()
    assert refused[before:] == ["https://cdn.jsdelivr.net/npm/requirejs@2.3.7/require.js"]
    assert any("failed to load https://cdn.jsdelivr.net" in problem for problem in problems)
    del refused[before:]
