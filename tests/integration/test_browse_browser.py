"""The catalog people browse, in a real browser (Debian's headless Chromium, driven by
Selenium, set up as the review page's test is): every page renders with its thumbnails,
the links work by clicking, from designers to a show to a look's full photo and back, and
the keyboard alone reaches the grid's looks past a skip link, with a visible focus, and the
upload form finds a look from a mirrored copy of its photo.

Screenshots of the designers page, a show's grid and a search's results are saved as PNGs:
into ``FASHION_SCREENSHOT_DIR`` when it is set (``docs/screenshots/`` for the documentation:
``FASHION_SCREENSHOT_DIR=docs/screenshots pytest tests/integration/test_browse_browser.py
-k sqlite``), else into the test's own folder, so taking them is tested either way.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from fashion_assets.catalog_api import create_api
from fashion_assets.catalog_api.pages import BROWSE
from tests.integration.browse_catalog import SITE
from tests.integration.test_browse_pages import Built, browse  # noqa: F401 - the fixture
from tests.integration.test_review_app import serve
from tests.integration.test_review_browser import WAIT_S, driver, text_of  # noqa: F401

pytestmark = pytest.mark.slow

WINDOW = (1200, 1000)
TABS_TO_THE_GRID = 40  # skip link, then the breadcrumb's two links and the first look


@pytest.fixture
def site(browse: Built) -> Iterator[str]:  # noqa: F811
    engine, store, _ = browse
    with serve(create_api(engine, store)) as url:
        yield url


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    """Where screenshots go: the documentation's folder when asked, else the test's."""
    folder = Path(os.environ.get("FASHION_SCREENSHOT_DIR") or tmp_path / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _images_in_view_loaded(browser: object) -> bool:
    """Every image in the window has arrived (a lazy one below it is not asked for yet)."""
    return bool(browser.execute_script(  # type: ignore[attr-defined]
        "const seen = Array.from(document.images).filter("
        "  i => i.getBoundingClientRect().top < window.innerHeight);"
        " return seen.length > 0 && seen.every(i => i.complete && i.naturalWidth > 0);"))


def _wait(browser: object) -> object:
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(browser, WAIT_S,  # type: ignore[arg-type]
                         ignored_exceptions=(NoSuchElementException,
                                             StaleElementReferenceException))


def _click(browser: object, css: str) -> None:
    from selenium.webdriver.common.by import By

    browser.find_element(By.CSS_SELECTOR, css).click()  # type: ignore[attr-defined]


def test_every_page_renders_and_the_links_work_by_clicking(
        driver: object, site: str, shots: Path) -> None:  # noqa: F811
    browser = driver
    wait = _wait(browser)
    brand = SITE.brands[0]
    browser.set_window_size(*WINDOW)  # type: ignore[attr-defined]
    browser.get(f"{site}{BROWSE}/")  # type: ignore[attr-defined]
    wait.until(lambda b: text_of(b, "h1") == "Designers A–Z")  # type: ignore[attr-defined]
    browser.save_screenshot(str(shots / "designers.png"))  # type: ignore[attr-defined]

    _click(browser, f'a.designer[href="{BROWSE}/designers/{brand.slug}"]')
    wait.until(lambda b: text_of(b, "h1") == brand.name)  # type: ignore[attr-defined]
    wait.until(_images_in_view_loaded)  # type: ignore[attr-defined]  # the shows' covers
    show = brand.shows[0]
    _click(browser, f'a.show[href="{BROWSE}/shows/{brand.slug}/{show.season_slug}"]')
    wait.until(lambda b: (text_of(b, "h1") or "").startswith(  # type: ignore[attr-defined]
        f"{brand.name}, "))
    wait.until(_images_in_view_loaded)  # type: ignore[attr-defined]  # the looks' thumbnails
    assert text_of(browser, ".alternates")  # the other source's photos of a look
    browser.save_screenshot(str(shots / "show-grid.png"))  # type: ignore[attr-defined]

    _click(browser, "#look-1 a.photo")  # the full photo, only now
    wait.until(lambda b: "/api/v1/photos/" in b.current_url)  # type: ignore[attr-defined]
    assert browser.execute_script(  # type: ignore[attr-defined]
        "return document.contentType;").startswith("image/")
    browser.back()  # type: ignore[attr-defined]
    wait.until(lambda b: b.current_url.endswith(show.season_slug))  # type: ignore[attr-defined]

    _click(browser, 'nav[aria-label="Catalog"] a[href="/catalog/street"]')
    wait.until(lambda b: text_of(b, "h1") == "Street style")  # type: ignore[attr-defined]
    _click(browser, "a.album")
    wait.until(lambda b: (text_of(b, "h1") or "").startswith(  # type: ignore[attr-defined]
        "Street style, Copenhagen"))
    wait.until(_images_in_view_loaded)  # type: ignore[attr-defined]

    _click(browser, 'nav[aria-label="Catalog"] a[href="/catalog/looks/search"]')
    wait.until(lambda b: text_of(b, "h1") == "Find a look")  # type: ignore[attr-defined]
    assert browser.execute_script(  # type: ignore[attr-defined]
        "const f = document.querySelector('form.search');"
        " return [f.method, f.enctype, document.getElementById('photo').type];") == [
            "post", "multipart/form-data", "file"]


def test_the_keyboard_alone_reaches_the_grid_with_a_visible_focus(
        driver: object, site: str) -> None:  # noqa: F811
    from selenium.webdriver.common.keys import Keys

    browser = driver
    wait = _wait(browser)
    brand, show = SITE.brands[0], SITE.brands[0].shows[0]
    browser.get(f"{site}{BROWSE}/shows/{brand.slug}/{show.season_slug}")  # type: ignore[attr-defined]
    wait.until(_images_in_view_loaded)  # type: ignore[attr-defined]

    def focused() -> dict[str, str]:
        return browser.execute_script(  # type: ignore[attr-defined,no-any-return]
            "const e = document.activeElement; const s = getComputedStyle(e);"
            " return {tag: e.tagName, cls: e.className, text: e.innerText || '',"
            " id: e.id, outline: s.outlineStyle, href: e.getAttribute('href') || ''};")

    body = browser.switch_to.active_element  # type: ignore[attr-defined]
    body.send_keys(Keys.TAB)
    first = focused()
    assert first["cls"] == "skip" and first["text"] == "Skip to content"
    assert first["outline"] != "none"  # the skip link shows itself when focused
    browser.switch_to.active_element.send_keys(Keys.ENTER)  # type: ignore[attr-defined]
    wait.until(lambda b: focused()["id"] == "main")  # type: ignore[attr-defined]

    for _ in range(TABS_TO_THE_GRID):
        browser.switch_to.active_element.send_keys(Keys.TAB)  # type: ignore[attr-defined]
        now = focused()
        if now["cls"] == "photo":
            break
    else:
        pytest.fail(f"{TABS_TO_THE_GRID} tabs past the skip link never reached a look")
    assert now["outline"] != "none", now  # focus is visible
    assert "/api/v1/photos/" in now["href"]
    browser.switch_to.active_element.send_keys(Keys.ENTER)  # type: ignore[attr-defined]
    wait.until(lambda b: "/api/v1/photos/" in b.current_url)  # type: ignore[attr-defined]


def test_the_upload_form_finds_a_look(driver: object, site: str, browse: Built,  # noqa: F811
                                      shots: Path, tmp_path: Path) -> None:
    browser = driver
    wait = _wait(browser)
    _, _, made = browse
    data, _ = made.copy_of_look  # a Vogue look mirrored, as no source published it
    upload = tmp_path / "found-elsewhere.jpg"
    upload.write_bytes(data)
    brand, code = made.merged
    browser.set_window_size(*WINDOW)  # type: ignore[attr-defined]
    browser.get(f"{site}{BROWSE}/looks/search")  # type: ignore[attr-defined]
    wait.until(lambda b: text_of(b, "h1") == "Find a look")  # type: ignore[attr-defined]
    from selenium.webdriver.common.by import By

    browser.find_element(By.ID, "photo").send_keys(str(upload))  # type: ignore[attr-defined]
    _click(browser, "#search")
    wait.until(lambda b: text_of(b, "#results-heading") == "Closest looks")  # type: ignore[attr-defined]
    wait.until(_images_in_view_loaded)  # type: ignore[attr-defined]
    first = browser.execute_script(  # type: ignore[attr-defined]
        "return document.querySelector('.result a.look').getAttribute('href');")
    assert first.startswith(f"{BROWSE}/shows/{brand}/{code}#look-"), first
    browser.save_screenshot(str(shots / "search-results.png"))  # type: ignore[attr-defined]
    _click(browser, ".result a.look")
    wait.until(lambda b: b.current_url.endswith(first))  # type: ignore[attr-defined]
    wait.until(lambda b: (text_of(b, "h1") or "").startswith(  # type: ignore[attr-defined]
        f"{made.brand_names[brand]}, "))
