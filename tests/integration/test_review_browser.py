"""The review page in a real browser: Debian's headless Chromium, driven by Selenium.

Sign in, open a draft from the queue, see its photos load, approve it, and find the approval
in the catalog and its audit trail. Selenium is given the driver and browser paths, so
Selenium Manager never downloads anything. In CI (``CI`` set) a missing Chromium fails the
test; elsewhere it is skipped with the reason.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from fashion_assets.catalog.runway import add_brand
from fashion_assets.resources import catalog_engine
from fashion_assets.storage import ObjectStore, open_store
from tests.catalog_db import query
from tests.integration.test_review_app import browser_sign_in, review_app, runway_draft, serve

pytestmark = pytest.mark.slow

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
WAIT_S = 20
EDITOR = "browser-editor"


def _browser_or_reason() -> str | None:
    missing = [str(p) for p in (CHROMIUM, CHROMEDRIVER) if not p.exists()]
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("the selenium package (pip install -e '.[test]')")
    return f"missing: {', '.join(missing)}" if missing else None


def text_of(browser: object, css: str) -> str | None:
    """The visible text of the first element ``css`` selects, or None when there is none.

    Read in one script, inside one document: a page that replaces its elements (a click that
    loads the next page, a live re-render) cannot swap the element between finding it and
    reading it, which Chromium reports as a generic "Node ... does not belong to the
    document" error rather than a stale element.
    """
    return browser.execute_script(  # type: ignore[attr-defined]
        "const e = document.querySelector(arguments[0]); return e ? e.innerText : null;", css)


@pytest.fixture
def driver() -> Iterator[object]:
    reason = _browser_or_reason()
    if reason:
        if os.environ.get("CI"):
            pytest.fail(f"the browser test must run in CI: {reason} (.ci/run installs them)")
        pytest.skip(f"no browser to drive ({reason}); apt-get install chromium chromium-driver")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu",
                 "--disable-background-networking", "--no-first-run",
                 "--disable-dev-shm-usage"):
        options.add_argument(flag)
    browser = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)),
                               options=options)
    try:
        yield browser
    finally:
        browser.quit()


@pytest.fixture
def engine(database_url: str) -> Engine:
    engine = catalog_engine(database_url)
    add_brand(engine, "chloe", "Chloé")
    return engine


@pytest.fixture
def store(store_url: str, tmp_path: Path) -> ObjectStore:
    return open_store(store_url, home=tmp_path)


def _all_images_loaded(browser: object) -> bool:
    return bool(browser.execute_script(  # type: ignore[attr-defined]
        "const imgs = Array.from(document.images);"
        " return imgs.length > 0 && imgs.every(i => i.complete && i.naturalWidth > 0);"))


def test_an_editor_signs_in_sees_the_photos_and_approves(driver: object, engine: Engine,
                                                         store: ObjectStore,
                                                         database_url: str) -> None:
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    browser = driver
    draft = runway_draft(engine, store, title="Chloé Spring 2020", photos=3)
    sibling = runway_draft(engine, store, title="Chloé from theImpression",
                           source="theimpression")
    # A page being replaced by the next one has elements that vanish mid-check: wait on.
    wait = WebDriverWait(browser, WAIT_S,  # type: ignore[arg-type]
                         ignored_exceptions=(NoSuchElementException,
                                             StaleElementReferenceException))
    with serve(review_app(engine, store, editors=(EDITOR,))) as url:
        browser.get(f"{url}/")  # type: ignore[attr-defined]
        wait.until(lambda b: b.current_url.endswith("/login"))
        browser_sign_in(browser, EDITOR)
        wait.until(lambda b: b.find_elements(By.CSS_SELECTOR, "tr.draft"))
        wait.until(_all_images_loaded)  # the queue's thumbnails

        browser.find_element(  # type: ignore[attr-defined]
            By.CSS_SELECTOR, f"#draft-runway-{draft} a.open").click()
        wait.until(lambda b: b.current_url.endswith(f"/drafts/runway:{draft}"))
        wait.until(_all_images_loaded)  # the photos and the sibling's thumbnail
        photos = browser.find_elements(By.CSS_SELECTOR, "img.photo")  # type: ignore[attr-defined]
        assert len(photos) == 3
        assert browser.find_elements(  # type: ignore[attr-defined]
            By.CSS_SELECTOR, f'a.sibling[href="/drafts/runway:{sibling}"] img')

        browser.find_element(By.ID, "approve").click()  # type: ignore[attr-defined]
        wait.until(lambda b: text_of(b, "#status") == "approved")
        assert f"draft {draft}: approved" in browser.page_source  # type: ignore[attr-defined]

    assert query(database_url, "SELECT status FROM brand_runway_drafts WHERE id = :id",
                 id=draft) == [("approved",)]
    assert query(database_url, "SELECT draft_kind, draft_id, action, editor FROM draft_reviews"
                 ) == [("runway", draft, "approve", EDITOR)]
