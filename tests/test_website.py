"""The course website (tools/website.py) in a real browser: headless Chromium, every request outside the site
refused and reported.

Screenshots of a few pages are kept in test-artifacts/website/ (git-ignored) for a person to look at.
Without Chromium these tests skip, except in CI (CI=true), where a missing browser is a failure.
"""

import functools
import gzip
import html
import http.server
import json
import re
import subprocess
import sys
import threading
from pathlib import Path
from urllib.parse import unquote

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import website  # noqa: E402
from headless_chromium import CHROMIUM_FLAGS, chromium, missing  # noqa: E402

SCREENSHOTS = ROOT / "test-artifacts" / "website"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


def _missing(reason: str) -> None:
    missing(reason, "the website tests")


def _chromium() -> str:
    return chromium("the website tests")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("website") / "site"
    website.build(
        out, edition_from=out.parent / "no-edition"
    )  # the tests of the browser edition's links: below
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
            viewport=DESKTOP,
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
    page.on(
        "console",
        lambda message: (
            problems.append(f"console {message.type}: {message.text}") if message.type == "error" else None
        ),
    )
    page.on("pageerror", lambda error: problems.append(f"uncaught: {error}"))
    page.on("requestfailed", lambda request: problems.append(f"failed to load {request.url}"))
    page.goto(url, wait_until="load")
    return page, problems


def _wait_for_widgets(page) -> None:
    if page.locator('script[type="application/vnd.jupyter.widget-state+json"]').count():
        page.wait_for_selector(".agent-core-kernel-free .widget-toggle-button", timeout=15_000)


def _visible_json(viewer, label: str) -> dict:
    """the JSON under 'request JSON' or 'response JSON' on the page of the viewer that shows"""
    block = viewer.locator(".widget-html:visible", has_text=label)
    pre = block.locator(f"xpath=.//b[text()='{label}']/following-sibling::pre[1]")
    return json.loads(pre.inner_text())


@pytest.mark.parametrize(
    "served, lesson",
    [
        ("file", "lessons/04_the_loop.html"),
        ("http", "lessons/04_the_loop.html"),
        ("file", "es/lessons/04_the_loop.html"),
    ],
)
def test_the_step_through_on_lesson_04_moves_through_every_turn_on_clicks(
    browser, site, static_host, served, lesson
):
    """in English, from a file and from a static host; in Spanish, from a file (its outputs, the
    viewer's included, are the English ones: tests/test_translation.py)"""
    if not (site / lesson).is_file():
        pytest.skip(f"no {lesson}: lessons/es/04_the_loop.ipynb is not translated yet (tools/translate.py)")
    context, refused = browser
    base = site.as_uri() + "/" if served == "file" else static_host
    page, problems = _open(context, base + lesson)
    _wait_for_widgets(page)
    viewer = page.locator(".agent-core-kernel-free").first
    buttons = viewer.locator(".widget-toggle-button")
    turns = buttons.count()
    assert turns >= 2
    assert viewer.locator(".widget-html:visible").count() == 1  # one turn on show at a time
    # the viewer's words in the page's language (static/course.js)
    spanish = lesson.startswith("es/")
    turn_of = "Turno {} de {}" if spanish else "Turn {} of {}"
    asked, answered_json = ("JSON de la petición", "JSON de la respuesta") if spanish else WIRE_JSON
    page.wait_for_function(
        "([element, text]) => element.innerText.includes(text)",
        arg=[viewer.element_handle(), turn_of.format(1, turns)],
        timeout=5_000,
    )
    assert viewer.locator(".widget-label").first.inner_text() == ("turno" if spanish else "turn")
    previous = _visible_json(viewer, asked)
    reply = _visible_json(viewer, answered_json)["choices"][0]["message"]
    live = viewer.locator('.course-live[aria-live="polite"]')
    for turn in range(2, turns + 1):
        buttons.nth(turn - 1).click()
        page.wait_for_function(
            "([element, text]) => element.innerText.includes(text)",
            arg=[viewer.element_handle(), turn_of.format(turn, turns)],
            timeout=5_000,
        )
        assert live.text_content() == turn_of.format(turn, turns)  # what a screen reader announces
        request = _visible_json(viewer, asked)
        # this turn's request is the last one's messages, the reply, and the tool results for its calls
        assert request["messages"][: len(previous["messages"])] == previous["messages"]
        assert request["messages"][len(previous["messages"])]["tool_calls"] == reply["tool_calls"]
        answered = [m["tool_call_id"] for m in request["messages"] if m["role"] == "tool"]
        assert [call["id"] for call in reply["tool_calls"]] == answered[-len(reply["tool_calls"]) :]
        if served == "file" and turn == 2 and not lesson.startswith("es/"):
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            viewer.scroll_into_view_if_needed()
            page.screenshot(path=str(SCREENSHOTS / "lessons_04_the_loop_turn_2.png"))
        previous, reply = request, _visible_json(viewer, answered_json)["choices"][0]["message"]
    assert reply.get("content") and not reply.get("tool_calls"), "the last turn is the model's answer"
    page.keyboard.press("Shift+Tab")  # the keyboard moves to the turn before: its focus ring shows
    ring = page.evaluate("() => getComputedStyle(document.activeElement).outlineWidth")
    assert page.evaluate("() => document.activeElement.matches(':focus-visible')") and ring == "3px"
    heights = [buttons.nth(i).bounding_box()["height"] for i in range(turns)]
    assert min(heights) >= 24, heights
    page.close()
    assert not problems, "\n".join(problems)
    assert not refused, "requests left the site: " + ", ".join(refused)


WIRE_JSON = ("request JSON", "response JSON")


def test_every_json_toggle_of_a_lesson_is_at_least_24_px_tall(browser, site):
    """WCAG 2.2's minimum target size: the request/response JSON toggles of lesson 02's outputs"""
    context, _ = browser
    page, _ = _phone_page(context, (site / "lessons/02_tool_calls.html").as_uri())
    toggles = page.locator("details > summary")
    heights = [toggles.nth(i).bounding_box()["height"] for i in range(min(toggles.count(), 20))]
    page.close()
    assert len(heights) >= 2 and min(heights) >= 24, heights


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


# --- the two languages: the Spanish pages in es/, a language switch on every page ---------------------


def _follow_the_switch(page, site: Path, expected: str) -> None:
    """click the page's language switch; fails unless it lands on `expected` (a path in the site)"""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    leaving = page.url
    page.locator(".course-menu .course-language a").click()
    try:
        page.wait_for_url(f"{site.as_uri()}/{expected}", wait_until="domcontentloaded", timeout=10_000)
    except PlaywrightTimeoutError:
        pytest.fail(f"the switch on {leaving} led to {page.url}, not to {expected}")


def _english_pages_with_a_twin(page, site: Path) -> list[str]:
    """the links of a Spanish page, as the browser resolves them, that lead to an English page of the
    site whose Spanish twin exists (its language switch aside)"""
    hrefs = page.eval_on_selector_all(
        "a[href]", "links => links.filter(a => !a.closest('.course-language')).map(a => a.href)"
    )
    wrong = []
    for href in hrefs:
        if href.startswith(site.as_uri() + "/"):
            path = unquote(href.removeprefix(site.as_uri() + "/").split("#")[0].split("?")[0])
            if not path.startswith("es/") and (site / "es" / path).is_file():
                wrong.append(f"{page.url.removeprefix(site.as_uri())} -> {path}")
    return wrong


def _switch_pairs(site: Path) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """where each page's language switch must lead: every English page to its Spanish twin (the same path
    under es/) or, with no twin, to the Spanish home page; every Spanish page back to its English twin or,
    with none (the glossary), to the English home page. Twins first, then the pages with none."""
    targets = sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html"))
    english = [t for t in targets if not t.startswith(("es/", "static/", "lite/"))]
    spanish = [t for t in targets if t.startswith("es/")]
    pairs, alone = [], []
    for target in english:
        twin = f"es/{target}"
        (pairs if twin in spanish else alone).append((target, twin if twin in spanish else "es/index.html"))
    twins = {twin for _, twin in pairs}
    pairs += [(twin, english) for english, twin in pairs]
    alone += [(target, "index.html") for target in spanish if target not in twins]
    return pairs, alone


def _links_of(site: Path, target: str) -> tuple[list[str], list[str]]:
    """a page's links as a browser resolves them, as paths in the site: its language switch's, the rest"""
    text = (site / target).read_text(encoding="utf-8")
    switch = SWITCH.findall(text)
    where = (site / target).parent

    def inside(hrefs: list[str]) -> list[str]:
        paths = []
        for href in hrefs:
            path = unquote(html.unescape(href).split("#")[0].split("?")[0])
            if path and not re.match(r"[a-zA-Z][a-zA-Z0-9+.-]*:", path):
                paths.append((where / path).resolve().relative_to(site.resolve()).as_posix())
        return paths

    links = re.findall(r'<a\s[^>]*?href="([^"]*)"', SWITCH.sub("", text))
    return inside(re.findall(r'href="([^"]*)"', "".join(switch))), inside(links)


def test_the_language_switch_on_every_page_leads_to_the_same_page_in_the_other_language_and_back(site):
    """every page's switch, as its link resolves: an English page to its Spanish twin and the twin back,
    an English page with no twin to the Spanish home page, a page only in Spanish (the glossary) to the
    English home page. On every Spanish page, a link to an English page whose Spanish twin exists is a
    fault. (The browser test below clicks the switch on one page of each kind.)"""
    pairs, alone = _switch_pairs(site)
    if not pairs:
        pytest.skip("no Spanish page: README.es.md, lessons/es/ and docs/*.es.md are all missing")
    assert ("index.html", "es/index.html") in pairs and len(pairs) >= 2 * 20
    wrong = []
    for target, expected in pairs + alone:
        switch, links = _links_of(site, target)
        if switch != [expected]:
            wrong.append(f"the switch on {target} leads to {switch}, not to {expected}")
        if target.startswith("es/"):
            wrong += [
                f"{target} links {path}, not es/{path}"
                for path in links
                if not path.startswith("es/") and (site / "es" / path).is_file()
            ]
    assert not wrong, "\n".join(wrong)


def test_in_the_browser_the_language_switch_leads_to_the_other_language_and_back(browser, site):
    """clicked on one page of each kind: the home pair, a lesson pair, an English page with no twin and a
    page only in Spanish; on each Spanish page it reaches, the links as the browser resolves them lead to
    no English page whose Spanish twin exists"""
    context, refused = browser
    pairs, alone = _switch_pairs(site)
    if not pairs:
        pytest.skip("no Spanish page: README.es.md, lessons/es/ and docs/*.es.md are all missing")
    english_alone = [pair for pair in alone if not pair[0].startswith("es/")]
    spanish_alone = [pair for pair in alone if pair[0].startswith("es/")]
    chosen = [("index.html", "es/index.html"), ("lessons/04_the_loop.html", "es/lessons/04_the_loop.html")]
    chosen += english_alone[:1] + spanish_alone[:1]
    assert all(pair in pairs + alone for pair in chosen) and english_alone and spanish_alone
    page, problems = context.new_page(), []
    page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(f"uncaught: {error}"))
    wrong: list[str] = []
    for target, expected in chosen:
        page.goto(f"{site.as_uri()}/{target}", wait_until="domcontentloaded")
        if target.startswith("es/"):
            wrong += _english_pages_with_a_twin(page, site)
        _follow_the_switch(page, site, expected)
        if expected.startswith("es/"):
            assert page.evaluate("document.documentElement.lang") == "es", expected
            wrong += _english_pages_with_a_twin(page, site)
        if (expected, target) in pairs:
            _follow_the_switch(page, site, target)  # and back
    page.close()
    assert not wrong, "Spanish pages that link the English page, not its Spanish twin:\n" + "\n".join(wrong)
    assert not problems, "\n".join(problems)
    assert not refused


SWITCH = re.compile(r'<span class="course-language">.*?</span>', re.S)


def test_the_spanish_pages_are_the_spanish_files_in_spanish_and_the_english_ones_link_them_only_by_the_switch(
    site,
):
    spanish = {p.relative_to(site).as_posix() for p in (site / "es").rglob("*.html")}
    expected = {
        f"es/{f}/{p.stem}.html" for f in ("lessons", "solutions") for p in (ROOT / f / "es").glob("*.ipynb")
    }
    expected |= {f"es/docs/{p.name.removesuffix('.es.md')}.html" for p in (ROOT / "docs").glob("*.es.md")}
    expected |= {"es/index.html"} if (ROOT / "README.es.md").is_file() else set()
    assert expected <= spanish
    for extra in spanish - expected:  # a page for another *.es.md that a Spanish page links to
        assert (ROOT / (extra.removeprefix("es/").removesuffix(".html") + ".es.md")).is_file(), extra
    for page in site.rglob("*.html"):
        name = page.relative_to(site).as_posix()
        text = page.read_text(encoding="utf-8")
        assert len(SWITCH.findall(text)) == (1 if spanish else 0), name
        if name.startswith("es/"):
            assert '<html lang="es">' in text and "<h2>Lecciones</h2>" in text, name
            for english in (
                "<h2>Lessons</h2>",
                ">Menu<",
                "This page shows the notebook",
                "Back to the lesson",
            ):
                assert english not in text, f"{name}: {english}"
        else:
            assert '<html lang="en">' in text, name
            links = re.findall(r'href="([^"#]*)', SWITCH.sub("", text))
            into_spanish = [
                url for url in links if (page.parent / unquote(url)).resolve().is_relative_to(site / "es")
            ]
            assert not into_spanish, f"{name} links Spanish pages outside its switch: {into_spanish}"
    if "es/index.html" in spanish:
        menu = (site / "index.html").read_text(encoding="utf-8").split("</nav>")[0]
        assert ".es." not in menu and "Glosario" not in menu  # no Spanish doc in the English menu


def test_every_link_inside_the_site_leads_to_a_file_of_the_site(site):
    """all pages, every href and src that is not a URL or an anchor (the browser test clicks a few)"""
    broken = []
    for page in site.rglob("*.html"):
        for url in re.findall(r'(?:href|src)="([^"]*)"', page.read_text(encoding="utf-8")):
            path = url.split("#")[0]
            if path and not re.match(r"[a-zA-Z][a-zA-Z0-9+.-]*:", path):
                if not (page.parent / path).is_file():
                    broken.append(f"{page.relative_to(site)} -> {url}")
    assert not broken, "\n".join(broken)
    lessons = sorted(p.stem for p in (ROOT / "lessons").glob("[0-9][0-9]_*.ipynb"))
    assert sorted(p.stem for p in (site / "lessons").glob("*.html")) == lessons
    home = (site / "index.html").read_text(encoding="utf-8")
    assert all(f'href="lessons/{name}.html"' in home for name in lessons)  # the menu names every lesson


def broken_anchors(site: Path) -> list[str]:
    """every link with a #fragment, on every page, whose target page has no element with that id"""
    ids: dict[Path, set[str]] = {}
    broken = []
    for page in sorted(site.rglob("*.html")):
        for url in re.findall(r'href="([^"]*#[^"]*)"', page.read_text(encoding="utf-8")):
            path, _, fragment = html.unescape(url).partition("#")
            if re.match(r"[a-zA-Z][a-zA-Z0-9+.-]*:", path) or not fragment:
                continue
            target = (page.parent / path).resolve() if path else page.resolve()
            if target not in ids:
                text = target.read_text(encoding="utf-8") if target.is_file() else ""
                ids[target] = set(re.findall(r'\s(?:id|name)="([^"]+)"', text))
            if fragment not in ids[target]:
                broken.append(f"{page.relative_to(site)} -> {url}")
    return broken


def test_every_anchor_of_every_page_leads_to_an_element_of_its_page(site):
    """a heading linked as GitHub names it (docs/maintaining.md#the-version) is found under the id
    nbconvert gives it (The-version)"""
    broken = broken_anchors(site)
    assert not broken, "\n".join(broken)
    changelog = (site / "CHANGELOG.html").read_text(encoding="utf-8")
    assert 'href="docs/maintaining.html#The-version"' in changelog


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


# --- a phone, dark mode, the markdown pages ----------------------------------------------------


def _phone_page(context, url: str, dark: bool = False):
    page, problems = _open(context, url)
    page.set_viewport_size(PHONE)
    page.emulate_media(color_scheme="dark" if dark else "light")
    _wait_for_widgets(page)
    return page, problems


def test_on_a_phone_the_menu_opens_from_a_button(browser, site):
    context, _ = browser
    page, _ = _phone_page(context, (site / "lessons/01_tool_schema.html").as_uri())
    lessons = page.locator(".course-menu a", has_text="The loop")
    assert not lessons.is_visible()
    assert page.locator(".course-menu").bounding_box()["height"] < 80
    page.locator(".course-menu-button").click()
    assert lessons.is_visible()
    page.screenshot(path=str(SCREENSHOTS / "phone_menu_open.png"))
    lessons.click()
    assert page.url.endswith("/lessons/04_the_loop.html")
    page.close()


def test_on_a_phone_every_menu_link_and_the_menu_button_is_at_least_24_px_tall(browser, site):
    """WCAG 2.2's minimum target size, measured in Chromium with the menu open"""
    context, _ = browser
    page, _ = _phone_page(context, (site / "lessons/01_tool_schema.html").as_uri())
    page.locator(".course-menu-button").click()
    targets = page.locator(".course-menu a, .course-menu-button")
    heights = [targets.nth(i).bounding_box()["height"] for i in range(targets.count())]
    page.close()
    assert len(heights) > 30
    assert min(heights) >= 24, sorted(heights)[:5]


def test_on_a_phone_the_step_through_stacks_request_over_response(browser, site):
    context, _ = browser
    page, problems = _phone_page(context, (site / "lessons/04_the_loop.html").as_uri())
    viewer = page.locator(".agent-core-kernel-free").first
    viewer.scroll_into_view_if_needed()
    request = viewer.locator(".widget-html:visible b", has_text="request JSON").bounding_box()
    response = viewer.locator(".widget-html:visible b", has_text="response JSON").bounding_box()
    assert response["y"] > request["y"] + request["height"], "the panels are still side by side"
    assert response["x"] + response["width"] <= PHONE["width"]
    page.screenshot(path=str(SCREENSHOTS / "phone_lessons_04_step_through.png"), full_page=False)
    page.close()
    assert not problems


def _luminance(page, selector: str, what: str) -> float:
    """0 (black) to 255 (white): the computed colour of the first element matching selector"""
    rgb = page.evaluate(
        "([selector, what]) => getComputedStyle(document.querySelector(selector))[what]", [selector, what]
    )
    red, green, blue = (float(x) for x in re.findall(r"[\d.]+", rgb)[:3])
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def test_in_dark_mode_the_pages_are_dark_outputs_and_widgets_included(browser, site):
    context, _ = browser
    for target in (
        "index.html",
        "lessons/00_one_model_call.html",
        "lessons/04_the_loop.html",
        "agent_core/README.html",
    ):
        page, problems = _open(context, (site / target).as_uri())
        page.emulate_media(color_scheme="dark")
        _wait_for_widgets(page)
        assert _luminance(page, "body", "backgroundColor") < 60, target
        assert _luminance(page, "main", "color") > 150, target
        assert _luminance(page, ".course-menu", "backgroundColor") < 60, target
        if target.startswith("lessons/"):
            assert _luminance(page, ".jp-OutputArea-output pre, .jp-RenderedHTMLCommon", "color") > 150, (
                target
            )
        if target == "lessons/04_the_loop.html":
            assert _luminance(page, ".widget-html-content", "color") > 150
            page.locator(".agent-core-kernel-free").first.scroll_into_view_if_needed()
        page.screenshot(path=str(SCREENSHOTS / ("dark_" + target.replace("/", "_") + ".png")))
        page.close()
        assert not problems, "\n".join(problems)


def test_the_markdown_pages_the_site_links_are_pages_with_the_menu(browser, site):
    context, _ = browser
    for target, heading in (
        ("agent_core/README.html", "agent_core"),
        ("agent_core/coding/SANDBOX.html", "sandbox"),
    ):
        page, problems = _open(context, (site / target).as_uri())
        assert page.locator(".course-menu .course-title").count() == 1
        assert heading.lower() in page.locator("main h1").first.inner_text().lower()
        page.screenshot(path=str(SCREENSHOTS / target.replace("/", "_").replace(".html", ".png")))
        page.close()
        assert not problems
    page, _ = _open(context, (site / "index.html").as_uri())
    page.locator("main a[href$='agent_core/README.html']").first.click()
    assert page.url.endswith("/agent_core/README.html")
    page.close()


def test_no_page_links_a_raw_markdown_file(site):
    raw = [
        f"{page.relative_to(site)} -> {url}"
        for page in site.rglob("*.html")
        for url in re.findall(r'href="([^"]*)"', page.read_text(encoding="utf-8"))
        if url.split("#")[0].endswith(".md") and not url.startswith(("http://", "https://"))
    ]
    assert not raw, "\n".join(raw)
    assert (
        not list(site.rglob("*.md"))
        or {p.name for p in site.rglob("*.md")} <= {"README.md"}
        and all("html-manager" in str(p) for p in site.rglob("*.md"))
    )


def test_a_json_box_shows_every_field_without_scrolling_inside_it(browser, site):
    context, _ = browser
    page, _ = _open(context, (site / "lessons/00_one_model_call.html").as_uri())
    fingerprint = page.locator("pre", has_text='"system_fingerprint"').first
    clipped = fingerprint.evaluate("element => element.scrollHeight - element.clientHeight")
    assert clipped <= 1
    page.close()


@pytest.mark.parametrize(
    "source", ["lessons/04_the_loop.ipynb", "lessons/06_context_and_cost.ipynb", "README.es.md"]
)
def test_a_page_is_what_nbconvert_writes_once_both_are_parsed(source):
    """the course's exporter skips nbconvert's second parse of each page: the same page (widgets,
    plots with no alt text, markdown), every input and output focusable, every image with its alt"""
    from bs4 import BeautifulSoup
    from nbconvert import HTMLExporter

    page = next(p for p in website.pages() if p.source == ROOT / source)
    label = website.WORDS[page.language]["course"]
    ours = website._render(website._exporter(), page, ROOT, label)
    theirs = website._render(website._exporter(HTMLExporter), page, ROOT, label)
    assert str(BeautifulSoup(ours, features="html.parser")) == theirs
    soup = BeautifulSoup(ours, features="html.parser")
    focusable = soup.select("div.jp-Cell-inputWrapper, div.jp-OutputArea-output")
    assert focusable and all(element.get("tabindex") == "0" for element in focusable)
    assert all(image.get("alt") for image in soup.select("img"))
    if "06_" in source:
        assert ours.count(f'alt="{website.NO_ALT}"') >= 3  # the lesson's plots


def test_building_prints_a_line_per_page_and_says_where_the_site_is(tmp_path, capsys, monkeypatch):
    course = _course(tmp_path, {"00_first.ipynb": _notebook("# Lesson 00 · First")})
    monkeypatch.setattr(website.webbrowser, "open", lambda url: False)  # no browser on this machine
    assert website.main(["build", "--course", str(course), "--out", str(tmp_path / "site"), "--open"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "[ 1/2] index.html" and lines[1] == "[ 2/2] lessons/00_first.html"
    assert (
        lines[-1]
        == f"could not start a web browser here: open {(tmp_path / 'site' / 'index.html').as_uri()} in one "
        f"yourself"
    )


# --- a hostile notebook: built into a site that runs nothing of it and publishes nothing else ---

SECRET = "agent-core-secret-value"
ALERT = "window.__pwned = 1"


def _notebook(*markdown: str, outputs=(), widgets=None, raw: str = "") -> nbformat.NotebookNode:
    cells = [nbformat.v4.new_markdown_cell(text) for text in markdown]
    code = nbformat.v4.new_code_cell("1")
    code.outputs = [nbformat.from_dict(output) for output in outputs]
    cells.append(code)
    if raw:
        cells.append(nbformat.v4.new_raw_cell(raw, metadata={"raw_mimetype": "text/html"}))
    nb = nbformat.v4.new_notebook(cells=cells)
    if widgets is not None:
        nb.metadata["widgets"] = widgets
    return nb


def _course(tmp_path: Path, notebooks: dict, readme: str = "# A course\n") -> Path:
    course = tmp_path / "course"
    (course / "lessons").mkdir(parents=True)
    (course / "docs").mkdir()
    (course / "README.md").write_text(readme, encoding="utf-8")
    for name, nb in notebooks.items():
        path = course / "lessons" / name
        if isinstance(nb, (str, bytes)):
            path.write_bytes(nb.encode() if isinstance(nb, str) else nb)
        else:
            nbformat.write(nb, path)
    return course


def _html_output(html_text: str) -> dict:
    return {
        "output_type": "display_data",
        "data": {"text/html": html_text, "text/plain": "x"},
        "metadata": {},
    }


HOSTILE_HTML = [
    f"<script>{ALERT}</script>",
    f'<img src="x" onerror="{ALERT}">',
    f'<a href="javascript:{ALERT}">click</a>',
    f'<a href="JaVaScRiPt&colon;{ALERT}">click</a>',
    f'<iframe srcdoc="<script>{ALERT}</script>"></iframe>',
    '<object data="x.swf"></object><embed src="x.swf">',
    f'<svg onload="{ALERT}"><script>{ALERT}</script></svg>',
    f'<form action="javascript:{ALERT}"><button>go</button></form>',
    '<meta http-equiv="refresh" content="0;url=https://example.com">',
    '<base href="https://example.com/">',
    f'<div style="background:url(https://example.com/track.png)" onmouseover="{ALERT}">hover</div>',
    f"<scr<script>ipt>{ALERT}</script>",
    f'<math><mi xlink:href="javascript:{ALERT}">x</mi></math>',
    f'<details open ontoggle="{ALERT}">x</details>',
    '<link rel="stylesheet" href="https://example.com/x.css"><style>@import "https://example.com/y.css";</style>',
]


def _hostile_course(tmp_path: Path) -> Path:
    outside = tmp_path / "outside.txt"
    outside.write_text(SECRET, encoding="utf-8")
    title = f'# Lesson 01 · <img src=x onerror="{ALERT}"> & "quotes"'
    links = (
        "[env](../.env) [git](../.git/config) [passwd](/etc/passwd) [up](../../../../../../etc/passwd) "
        '[link](../linked.txt) [tools](../tools/secret.txt) <img src="../.env"> '
        f'<a href="../linked.txt">x</a> <script>{ALERT}</script> <img src=x onerror="{ALERT}">'
    )
    outputs = [_html_output(html_text) for html_text in HOSTILE_HTML]
    outputs += [
        {"output_type": "display_data", "data": {"application/javascript": ALERT}, "metadata": {}},
        {
            "output_type": "display_data",
            "data": {"image/svg+xml": f'<svg xmlns="http://www.w3.org/2000/svg" onload="{ALERT}"/>'},
            "metadata": {},
        },
        {"output_type": "display_data", "data": {"image/png": f'x" onerror="{ALERT}'}, "metadata": {}},
        {
            "output_type": "display_data",
            "data": {"image/png": "iVBORw0KGgo="},
            "metadata": {"filenames": {"image/png": "../.env"}},
        },
        {
            "output_type": "display_data",
            "data": {"text/markdown": f"<script>{ALERT}</script> **md**"},
            "metadata": {},
        },
        {
            "output_type": "display_data",
            "data": {
                "application/vnd.jupyter.widget-view+json": {
                    "model_id": f"</script><script>{ALERT}</script>",
                    "version_major": 2,
                    "version_minor": 0,
                }
            },
            "metadata": {},
        },
    ]
    widgets = {
        "application/vnd.jupyter.widget-state+json": {
            "version_major": 2,
            "version_minor": 0,
            "state": {
                "evil": {
                    "model_module": "evil-widgets",
                    "model_module_version": "1.0.0",
                    "model_name": "EvilModel",
                    "state": {},
                },
                "html": {
                    "model_module": "@jupyter-widgets/controls",
                    "model_module_version": "2.0.0",
                    "model_name": "HTMLModel",
                    "state": {"value": f'<img src=x onerror="{ALERT}"></script><script>{ALERT}</script>'},
                },
            },
        }
    }
    nb = _notebook(title, links, outputs=outputs, widgets=widgets, raw=f"<script>{ALERT}</script>")
    course = _course(
        tmp_path, {"01_hostile.ipynb": nb, '02_a"b<c>&d.ipynb': _notebook('# "><script>x</script>')}
    )
    (course / ".env").write_text(f"OPENAI_API_KEY={SECRET}\n", encoding="utf-8")
    (course / ".git").mkdir()  # not a repository: only the hidden-file rule applies
    (course / ".git" / "config").write_text(SECRET, encoding="utf-8")
    (course / "linked.txt").symlink_to(outside)
    (course / "tools").symlink_to(tmp_path, target_is_directory=True)
    (course / "lessons" / "03_elsewhere.ipynb").symlink_to(tmp_path / "elsewhere.ipynb")
    nbformat.write(_notebook("# Lesson 03 · " + SECRET), tmp_path / "elsewhere.ipynb")
    return course


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory) -> Path:
    tmp_path = tmp_path_factory.mktemp("hostile")
    course = _hostile_course(tmp_path)
    out = tmp_path / "site"
    website.build(out, root=course, log=lambda line: None)
    return out


class _Elements(__import__("html.parser").parser.HTMLParser):
    """every element of a page: (tag, attributes, the text of a script)"""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[str, dict, str]] = []

    def handle_starttag(self, tag, attrs):
        self.found.append((tag, dict(attrs), ""))

    def handle_data(self, data):
        if self.found and self.found[-1][0] == "script":
            tag, attrs, text = self.found[-1]
            self.found[-1] = (tag, attrs, text + data)


def _elements(page: Path) -> list[tuple[str, dict, str]]:
    parser = _Elements()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser.found


def test_a_hostile_notebooks_page_runs_only_the_courses_own_scripts(hostile_site):
    pages = sorted(hostile_site.rglob("*.html"))
    assert [p.relative_to(hostile_site).as_posix() for p in pages] == [
        "index.html",
        "lessons/01_hostile.html",
        'lessons/02_a"b<c>&d.html',
    ]
    for page in pages:
        for tag, attrs, text in _elements(page):
            where = f"{page.name}: <{tag} {attrs}>"
            assert tag not in {"iframe", "object", "embed", "frame", "form", "base", "svg", "math"}, where
            assert not [name for name in attrs if name.lower().startswith("on")], where
            for name in ("href", "src", "action", "xlink:href", "formaction"):
                assert not (attrs.get(name) or "").strip().lower().startswith(("javascript:", "data:text")), (
                    where
                )
            if tag == "script":
                if "src" in attrs:
                    assert attrs["src"].endswith(("static/html-manager/embed.js", "static/course.js")), where
                else:
                    assert attrs.get("type") in (website.WIDGET_STATE, website.WIDGET_VIEW), where
                    json.loads(text)  # data, never code
            if tag == "meta":
                assert set(attrs) <= {"charset", "name", "content"}, where
            if tag == "link":
                assert not attrs.get("href", "").startswith(("http:", "https:", "//")), where
            assert "url(" not in (attrs.get("style") or ""), where
    lesson = (hostile_site / "lessons" / "01_hostile.html").read_text(encoding="utf-8")
    state = json.loads(lesson.split(f'<script type="{website.WIDGET_STATE}">')[1].split("</script>")[0])
    assert list(state["state"]) == ["html"]  # the custom widget, whose code would come from a CDN, is gone
    assert "onerror" not in state["state"]["html"]["state"]["value"]


def test_a_hostile_notebook_copies_nothing_from_outside_the_course(hostile_site):
    files = sorted(p.relative_to(hostile_site).as_posix() for p in hostile_site.rglob("*") if p.is_file())
    assert not [
        f
        for f in files
        if not f.startswith("static/") and not f.endswith((".html", ".html.gz")) and f != website.MARKER
    ]
    for copy in hostile_site.rglob("*.html.gz"):  # the room server's gzip copies: each one of its page
        assert gzip.decompress(copy.read_bytes()) == copy.with_suffix("").read_bytes(), copy
    for path in hostile_site.rglob("*"):
        if path.is_file() and "static" not in path.parts:
            assert SECRET not in path.read_text(encoding="utf-8", errors="replace"), path


def test_every_name_and_title_of_a_hostile_notebook_is_escaped(hostile_site):
    home = (hostile_site / "index.html").read_text(encoding="utf-8")
    assert "<script>x</script>" not in home and "<img src=x" not in home
    assert "&lt;img src=x onerror=" in home  # the title is shown as text
    assert 'href="lessons/02_a%22b%3Cc%3E%26d.html"' in home
    lesson = (hostile_site / "lessons" / "01_hostile.html").read_text(encoding="utf-8")
    title = lesson.split("<title>")[1].split("</title>")[0]
    assert "<" not in title and "&lt;img" in title


def test_a_hostile_notebook_runs_nothing_in_the_browser(browser, hostile_site):
    context, refused = browser
    before = len(refused)
    for name in ("index.html", "lessons/01_hostile.html"):
        page, _ = _open(context, (hostile_site / name).as_uri())
        page.mouse.move(200, 300)
        page.wait_for_timeout(500)
        assert page.evaluate("window.__pwned") is None, name
        page.close()
    assert not refused[before:], refused[before:]


@pytest.mark.parametrize(
    "content, words",
    [
        ("{not json", "is not valid JSON"),
        ("", "is not valid JSON"),
        (b"\xff\xfe{}", "is not UTF-8 text"),
        ("[]", "is not a notebook"),
        ('{"cells": 3}', "is not a notebook"),
        (
            '{"cells": [{"cell_type": "markdown", "source": 5}], "metadata": {}, "nbformat": 4, '
            '"nbformat_minor": 5}',
            "is not a notebook",
        ),
        ("[" * 100_000, "is not"),
    ],
)
def test_a_notebook_that_is_not_valid_is_named_in_one_line(tmp_path, capsys, content, words):
    course = _course(tmp_path, {"00_fine.ipynb": _notebook("# Lesson 00 · Fine"), "01_broken.ipynb": content})
    status = website.main(["build", "--course", str(course), "--out", str(tmp_path / "site")])
    err = capsys.readouterr().err
    assert status == 1
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert err.startswith("website.py: lessons/01_broken.ipynb ") and words in err, err


def test_without_its_packages_the_builder_says_what_to_install_in_one_line(tmp_path):
    """bleach made missing for a real `python tools/website.py build`: one line, no traceback"""
    block = (
        "import runpy, sys\n"
        "class NoBleach:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'bleach':\n"
        "            raise ModuleNotFoundError(\"No module named 'bleach'\", name='bleach')\n"
        "sys.meta_path.insert(0, NoBleach())\n"
        f"sys.argv = ['website.py', 'build', '--out', {str(tmp_path / 'site')!r}]\n"
        f"runpy.run_path({str(ROOT / 'tools' / 'website.py')!r}, run_name='__main__')\n"
    )
    done = subprocess.run([sys.executable, "-c", block], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr == (
        "tools/website.py needs the course's packages (bleach is missing): "
        "pip install -r requirements-lock.txt, then pip install --no-deps -e .\n"
    )
    assert not (tmp_path / "site").exists()


def test_with_no_browser_edition_the_pages_offer_no_link_to_one(site):
    assert not re.search(
        r'class="in-browser"', "".join(p.read_text(encoding="utf-8") for p in site.rglob("*.html"))
    )
    assert not (site / "lite").exists()


# --- contrast, computed from the stylesheets (WCAG 2.2, 1.4.3: 4.5:1 for text) ----------------------


def _luminance_of(color: str) -> float:
    """a #rgb or #rrggbb colour's relative luminance (WCAG 2.2's definition)"""
    digits = color.lstrip("#")
    digits = "".join(c * 2 for c in digits) if len(digits) == 3 else digits
    channels = [int(digits[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    light, dark = sorted((_luminance_of(a), _luminance_of(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def _themes(css: str) -> dict[str, str]:
    """a stylesheet's rules for the light theme (outside every dark media query) and for the dark one"""
    themes = {"light": "", "dark": ""}
    while "@media (prefers-color-scheme: dark)" in css:
        start = css.index("@media (prefers-color-scheme: dark)")
        depth, opening = 0, css.index("{", start)
        for end in range(opening, len(css)):  # noqa: B007  # where the media query's braces close
            depth += {"{": 1, "}": -1}.get(css[end], 0)
            if depth == 0:
                break
        themes["dark"] += css[opening + 1 : end]
        css = css[:start] + css[end + 1 :]
    themes["light"] = css
    return themes


def test_code_and_text_on_the_website_are_at_least_4_5_to_1_in_both_themes(site):
    """every code colour against the code background, every text colour against every background the
    course's rules set, in the light and the dark theme; every editor colour JupyterLab's themes define
    is the course's own, so none falls back to a theme's (the dark theme's comments were 2.1:1)"""
    course = (website.ASSETS / "course.css").read_text(encoding="utf-8")
    themes = _themes(course)
    editor = set(
        re.findall(
            r"--(jp-mirror-editor-[a-z-]+-color):", (site / "static/jupyterlab/theme-dark.css").read_text()
        )
    )
    low = []
    for theme, rules in themes.items():
        code = dict(re.findall(r"--(jp-mirror-editor-[a-z-]+-color): (#[0-9a-fA-F]{3,6});", rules))
        assert editor <= set(code), (theme, sorted(editor - set(code)))
        background = re.findall(r"--course-code-background: (#[0-9a-fA-F]{3,6});", rules)
        assert len(background) == 1, theme
        low += [f"{theme} {name} {c}" for name, c in code.items() if contrast(c, background[0]) < 4.5]
        # each rule's text against its own background, or against every background of the theme's
        # page, menu and banner (a button's background is its own: it sets its text colour with it)
        rules_ = re.findall(r"([^{}]+)\{([^{}]*)\}", rules)
        grounds = ["#ffffff" if theme == "light" else "#111111"]
        grounds += [
            b for sel, body in rules_ if "button" not in sel for b in re.findall(r"background: (#\w+)", body)
        ]
        texts = []
        for selector, body in rules_:
            colors = re.findall(r"(?<![-\w])color: (#[0-9a-fA-F]{3,6})", body)
            own = re.findall(r"background: (#[0-9a-fA-F]{3,6})", body)
            texts += colors
            pairs = [(c, b) for c in colors for b in (own if "button" in selector and own else grounds)]
            low += [f"{theme} {selector.strip()}: {c} on {b}" for c, b in pairs if contrast(c, b) < 4.5]
        assert texts and code, theme
    assert not low, low
