"""Every page of the course website loads in headless Chromium with no console error and no request
outside the site, and fits a phone's screen (a file of its own, so pytest-xdist runs this long test
beside the rest of tests/test_website.py)."""

import nbformat
from test_website import (  # noqa: F401  (browser and site are pytest fixtures, used by name)
    DESKTOP,
    PHONE,
    SCREENSHOTS,
    _open,
    _wait_for_widgets,
    browser,
    site,
    website,
)


def test_every_page_loads_with_no_console_errors_and_no_outside_requests_and_fits_a_phone(browser, site):  # noqa: F811 (fixtures)
    """each page is loaded once and looked at twice: on a desktop screen, then on a phone's (390 px)
    screen, where nothing may scroll sideways and a lesson's title is on the first screen"""
    context, refused = browser
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    pages = website.pages()
    assert {"home", "lesson", "solution", "doc"} <= {p.kind for p in pages}
    page, problems = _open(context, "about:blank")  # one tab, every page in turn, as a reader follows links
    for entry in pages:
        page.set_viewport_size(DESKTOP)
        page.goto((site / entry.target).as_uri(), wait_until="load")
        _wait_for_widgets(page)
        assert page.locator("main .jp-Cell").count() >= 1, f"{entry.target} shows no content"
        assert page.title() == entry.title
        if entry.source.suffix == ".ipynb":  # every stored output is on the page, and none is blank
            stored = sum(
                len(cell.get("outputs", [])) for cell in nbformat.read(entry.source, as_version=4).cells
            )
            assert page.locator(".jp-OutputArea-output").count() == stored, entry.target
            blank = page.evaluate(
                "[...document.querySelectorAll('.jp-OutputArea-output')]"
                ".filter(e => !e.innerText.trim() && !e.querySelector('img')).length"
            )
            assert blank == 0, f"{entry.target}: {blank} outputs show nothing"
        page.set_viewport_size(PHONE)
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"{entry.target} scrolls {overflow} px sideways on a 390 px screen"
        if entry.kind in ("lesson", "solution"):
            top = page.locator("main h1").first.bounding_box()["y"]
            assert top < PHONE["height"] - 40, f"{entry.target}: the title starts {top} px down"
        if entry.target in ("index.html", "lessons/00_one_model_call.html", "lessons/04_the_loop.html"):
            page.screenshot(path=str(SCREENSHOTS / ("phone_" + entry.target.replace("/", "_") + ".png")))
        assert not problems, f"{entry.target}: " + "\n".join(problems)
    page.close()
    assert not refused, "requests left the site: " + ", ".join(refused)
    for target in ("index.html", "docs/teaching.html", "lessons/00_one_model_call.html"):
        page, _ = _open(context, (site / target).as_uri())
        page.screenshot(path=str(SCREENSHOTS / (target.replace("/", "_") + ".png")))
        page.close()
