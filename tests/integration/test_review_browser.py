"""The review page in a real browser: Debian's headless Chromium, driven by Selenium.

Sign in, open a draft from the queue, see its photos load, approve it, and find the approval
in the catalog and its audit trail; review a 50-draft queue with the keyboard alone (the
next draft opens after each action), see a draft's missing photos, and approve a whole
queue at once. Selenium is given the driver and browser paths, so
Selenium Manager never downloads anything. In CI (``CI`` set) a missing Chromium fails the
test; elsewhere it is skipped with the reason.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from fashion_assets.storage import ObjectStore
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
        # Approved, the page opens the queue's next draft: the sibling, still pending.
        wait.until(lambda b: f"/drafts/runway:{sibling}" in b.current_url)
        assert f"draft {draft}: approved" in browser.page_source  # type: ignore[attr-defined]

    assert query(database_url, "SELECT status FROM brand_runway_drafts WHERE id = :id",
                 id=draft) == [("approved",)]
    assert query(database_url, "SELECT draft_kind, draft_id, action, editor FROM draft_reviews"
                 ) == [("runway", draft, "approve", EDITOR)]


def test_an_editor_reviews_a_50_draft_queue_with_the_keyboard_alone(
        driver: object, engine: Engine, store: ObjectStore, database_url: str) -> None:
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    browser = driver
    drafts = [runway_draft(engine, store, title=f"Look book {n}", photos=1)
              for n in range(50)]
    rejected = set(drafts[9::10])  # every tenth is rejected, with a reason
    wait = WebDriverWait(browser, WAIT_S,  # type: ignore[arg-type]
                         ignored_exceptions=(NoSuchElementException,
                                             StaleElementReferenceException))

    def press(*keys: str) -> None:
        ActionChains(browser).send_keys(*keys).perform()  # type: ignore[arg-type]

    with serve(review_app(engine, store, editors=(EDITOR,))) as url:
        browser.get(f"{url}/login")  # type: ignore[attr-defined]
        browser_sign_in(browser, EDITOR)
        wait.until(lambda b: b.find_elements(By.CSS_SELECTOR, "tr.draft"))
        press("j", Keys.ENTER)  # choose the first draft of the queue, open it
        for draft in drafts:
            wait.until(lambda b, d=draft: b.current_url.split("?")[0].endswith(
                f"/drafts/runway:{d}") and text_of(b, "#status") == "pending")
            if draft in rejected:
                press("r", "not this show", Keys.ENTER)
            else:
                press("a")
        # The last action leaves an empty pending queue: the page says so.
        wait.until(lambda b: text_of(b, "#queue-count") == "0 drafts")

    statuses = dict(query(database_url, "SELECT id, status FROM brand_runway_drafts"))
    assert statuses == {d: "rejected" if d in rejected else "approved" for d in drafts}
    assert sorted(query(database_url, "SELECT draft_id, action, editor FROM draft_reviews")) == (
        sorted((d, "reject" if d in rejected else "approve", EDITOR) for d in drafts))


def test_an_editor_sees_missing_photos_and_approves_a_queue_at_once(
        driver: object, engine: Engine, store: ObjectStore, database_url: str) -> None:
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
    from sqlalchemy import text

    browser = driver
    drafts = [runway_draft(engine, store, photos=2) for _ in range(5)]
    [(source_url,)] = query(database_url, "SELECT source_url FROM brand_runway_drafts"
                                          " WHERE id = :id", id=drafts[0])
    with engine.begin() as conn:
        show = conn.execute(text(
            "INSERT INTO runway_shows (brand_slug, source, source_url, source_path, title,"
            " season_code) VALUES ('chloe', 'vogue', :u, '/x', 'Spring 2020',"
            " 'spring-2020-ready-to-wear') RETURNING id"), {"u": source_url}).scalar_one()
        conn.execute(text("INSERT INTO runway_missing_images (show_id, position, url, reason)"
                          " VALUES (:s, 3, 'https://cdn.example/3.jpg', 'not_found')"),
                     {"s": show})
    wait = WebDriverWait(browser, WAIT_S,  # type: ignore[arg-type]
                         ignored_exceptions=(NoSuchElementException,
                                             StaleElementReferenceException))
    with serve(review_app(engine, store, editors=(EDITOR,))) as url:
        browser.get(f"{url}/login")  # type: ignore[attr-defined]
        browser_sign_in(browser, EDITOR)
        wait.until(lambda b: text_of(b, "#queue-count") is not None)  # signed in: the queue
        browser.get(f"{url}/drafts/runway:{drafts[0]}")  # type: ignore[attr-defined]
        wait.until(lambda b: text_of(b, "#missing-photos") is not None)
        assert "https://cdn.example/3.jpg" in text_of(browser, "#missing-photos")
        assert "not_found" in text_of(browser, "#missing-photos")

        browser.get(f"{url}/?source=vogue")  # type: ignore[attr-defined]
        wait.until(lambda b: text_of(b, "#queue-count") == "5 drafts")
        browser.find_element(By.ID, "bulk-confirm").click()  # type: ignore[attr-defined]
        browser.find_element(By.ID, "bulk-submit").click()  # type: ignore[attr-defined]
        wait.until(lambda b: "approved 5 of 5" in (text_of(b, ".flash.ok") or ""))

    assert query(database_url, "SELECT DISTINCT status FROM brand_runway_drafts") == [
        ("approved",)]
    assert len(query(database_url, "SELECT id FROM draft_reviews")) == 5
