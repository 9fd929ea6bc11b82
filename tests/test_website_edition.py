"""The course website and the browser edition together: the "run it in your browser" links work whichever
of the two builds ran first, followed in headless Chromium (a file of its own, so pytest-xdist runs it
beside tests/test_website.py: opening every lesson in the edition is the suite's longest test)."""

import functools
import http.server
import json
import re
import shutil
import sys
import threading
from pathlib import Path

import pytest
from test_website import (  # noqa: F401  (browser is a pytest fixture, used by name)
    ROOT,
    THE_SITE,
    _missing,
    _open,
    _QuietHandler,
    browser,
    website,
)

from agent_core._browser import LOCAL_INSTALL_LESSONS

sys.path.insert(0, str(ROOT / "tools"))

import lite  # noqa: E402


def _in_browser_links(site: Path, folder: str = "lessons") -> dict[str, str]:
    """each lesson page's "run it in your browser" link (folder es/lessons: the Spanish lessons')"""
    links = {}
    for page in sorted((site / folder).glob("*.html")):
        found = re.findall(r'class="in-browser" href="([^"]*)"', page.read_text(encoding="utf-8"))
        assert len(found) <= 1
        if found:
            links[page.stem] = found[0]
    return links


def _browser_lessons() -> list[str]:
    lessons = sorted(p.stem for p in (ROOT / "lessons").glob("[0-9][0-9]_*.ipynb"))
    return [lesson for lesson in lessons if lesson[:2] not in LOCAL_INSTALL_LESSONS]


@pytest.fixture(scope="module")
def edition() -> Path:
    built = ROOT / "build" / "lite"
    if not (built / "jupyter-lite.json").exists():
        _missing("no browser edition in build/lite: run `python tools/lite.py build`")
    return built


def test_the_edition_built_first_is_copied_into_the_website_and_every_lesson_it_runs_links_to_it(
    tmp_path, edition
):
    site = tmp_path / "site"
    website.build(site, log=lambda line: None, edition_from=edition)
    links = _in_browser_links(site)
    assert sorted(links) == _browser_lessons()  # none for 07, 08, 10 and 12
    for lesson, url in links.items():
        assert url == f"../lite/notebooks/index.html?path=lessons/{lesson}.ipynb"
        assert (site / "lite" / "files" / "lessons" / f"{lesson}.ipynb").is_file()
    spanish = _in_browser_links(site, "es/lessons")
    assert sorted(spanish) == [
        lesson for lesson in _browser_lessons() if (ROOT / "lessons" / "es" / f"{lesson}.ipynb").is_file()
    ]
    for lesson, url in spanish.items():
        assert url == f"../../lite/notebooks/index.html?path=lessons/es/{lesson}.ipynb"
        assert (site / "lite" / "files" / "lessons" / "es" / f"{lesson}.ipynb").is_file()
    assert (site / "lite" / "notebooks" / "index.html").is_file()
    # the website's solutions (built with them) released in its edition, kept back in build/lite
    assert (site / "lite" / "files" / "solutions" / "00_one_model_call.ipynb").is_file()
    assert not (edition / "files" / "solutions").exists()
    assert _listed(site / "lite") == ["lessons", "solutions"] and _listed(edition) == ["lessons"]


def _listed(edition: Path, folder: str = "") -> list[str]:
    """what JupyterLab's file browser shows in a folder of an edition (default: at the top)"""
    listing = json.loads((edition / "api" / "contents" / folder / "all.json").read_text(encoding="utf-8"))
    return [entry["name"] for entry in listing["content"]]


def test_the_edition_built_after_the_website_gets_its_links_and_a_rebuild_keeps_it(
    browser, tmp_path, edition
):
    """`tools/lite.py build --out site/lite` after `tools/website.py build`, then the website again;
    every link, English and Spanish, leads to a notebook the edition lists and serves, and the last
    English lesson's link is followed in Chromium to the lesson, opened in the edition (each link
    differs from the others only in the notebook's name and in how many folders up the edition is,
    which the checks above prove; a JupyterLite boot per lesson would make this the suite's longest
    test, and tests/test_lite.py opens a Spanish lesson in the edition)"""
    site = tmp_path / "site"
    website.build(site, solutions=False, log=lambda line: None, edition_from=tmp_path / "none")
    assert _in_browser_links(site) == {}
    shutil.copytree(edition, site / "lite")  # what `tools/lite.py build --out site/lite` writes, then:
    assert lite.link_website(site / "lite", sites=[site]) == [site]
    assert sorted(_in_browser_links(site)) == _browser_lessons()
    assert not (site / "solutions").exists()  # rebuilt as it was built
    website.build(site, solutions=False, log=lambda line: None, edition_from=tmp_path / "none")
    links = _in_browser_links(site)
    assert sorted(links) == _browser_lessons()  # the rebuild kept the edition, and links to it
    assert not (site / "lite" / "files" / "solutions").exists() and _listed(site / "lite") == ["lessons"]
    spanish = _in_browser_links(site, "es/lessons")
    assert sorted(spanish) == [
        lesson for lesson in links if (ROOT / "lessons" / "es" / f"{lesson}.ipynb").is_file()
    ]
    for folder, found in (("lessons", links), ("lessons/es", spanish)):
        listed = _listed(site / "lite", folder)
        for lesson, url in found.items():
            depth = "../" * (folder.count("/") + 1)
            assert url == f"{depth}lite/notebooks/index.html?path={folder}/{lesson}.ipynb"
            assert (
                f"{lesson}.ipynb" in listed
                and (site / "lite" / "files" / folder / f"{lesson}.ipynb").is_file()
            )
    context, refused = browser
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    THE_SITE.append(base)
    # what Chromium asks of every host on its own; neither the site nor the edition links it
    context.route("**/favicon.ico", _no_icon)
    try:
        page, problems = _open(context, f"{base}lessons/{max(links)}.html")
        page.locator("a.in-browser").click()
        page.wait_for_function(
            "(path) => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;"
            " return w && w.context && w.context.path === path; }",
            arg=f"lessons/{max(links)}.ipynb",
            timeout=120_000,
        )
        page.close()  # before its kernel has started: the edition's own tests run the lessons
        assert not problems, problems
    finally:
        context.unroute("**/favicon.ico", _no_icon)
        # its address stays part of the site: the edition's service worker outlives the closed page and
        # may still ask for the app's files, which a closed server refuses (no request leaves the site)
        server.shutdown()
        server.server_close()
    assert not refused


def _no_icon(route) -> None:
    route.fulfill(status=204)


def test_the_edition_opened_as_files_says_to_serve_it_and_how_instead_of_a_blank_page(browser, edition):
    """a website on a USB stick, opened from files: its "run it in your browser" link lands here"""
    context, refused = browser
    page = context.new_page()
    page.goto((edition / "notebooks" / "index.html").as_uri() + "?path=lessons/00_one_model_call.ipynb")
    notice = page.locator("#served-only")
    notice.wait_for(timeout=10_000)
    assert "python tools/lite.py serve --dir site" in notice.locator('p[lang="en"]').inner_text()
    assert notice.locator('p[lang="es"]').inner_text().startswith("La edición para el navegador")
    page.close()
    assert not refused
