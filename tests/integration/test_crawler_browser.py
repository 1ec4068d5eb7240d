"""The /crawler page in a real browser (Debian's headless Chromium, driven by Selenium): it
shows a running crawl, updates itself without a reload when the crawl commits a show, and
marks a crawl whose heartbeat is too old amber. Same browser setup as the review page's test.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine

from fashion_assets.catalog import progress
from fashion_assets.storage import ObjectStore, open_store
from tests.integration.test_review_app import browser_sign_in, review_app, serve
from tests.integration.test_review_browser import (  # noqa: F401 - the driver fixture
    WAIT_S,
    driver,
    text_of,
)

pytestmark = pytest.mark.slow

REFRESH_S = 0.5


@pytest.fixture
def store(tmp_path: Path) -> ObjectStore:
    """The page shows no photo: one store kind is enough."""
    return open_store(f"file://{tmp_path / 'objects'}", home=tmp_path)


def _row_classes(browser: object, run_id: str) -> list[str] | None:
    """The classes of a run's row, read in one script (see ``text_of``); None without it."""
    classes = browser.execute_script(  # type: ignore[attr-defined]
        "const e = document.getElementById(arguments[0]); return e ? e.className : null;",
        f"crawl-{run_id}")
    return None if classes is None else classes.split()


def test_the_crawler_page_follows_a_crawl_by_itself(driver: object,  # noqa: F811
                                                    engine: Engine,
                                                    store: ObjectStore) -> None:
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    browser = driver
    progress.start(engine, "run-live", "runway_drafts", "chloe", 10, photos_total=120)
    progress.show_done(engine, "run-live", "chloe spring-2020-ready-to-wear",
                       photos_done_delta=12)
    # The page re-renders its rows: an element found a moment ago may be replaced mid-check.
    wait = WebDriverWait(browser, WAIT_S,  # type: ignore[arg-type]
                         ignored_exceptions=(NoSuchElementException,
                                             StaleElementReferenceException))

    def cell(run_id: str, css: str) -> str | None:
        return text_of(browser, f"#crawl-{run_id} {css}")

    with serve(review_app(engine, store, crawler_refresh_s=REFRESH_S)) as url:
        browser.get(f"{url}/crawler")  # type: ignore[attr-defined]
        wait.until(lambda b: b.current_url.endswith("/login"))
        browser_sign_in(browser)
        wait.until(lambda b: b.current_url.endswith("/"))
        browser.get(f"{url}/crawler")  # type: ignore[attr-defined]
        wait.until(lambda b: cell("run-live", ".shows-count") == "1/10 shows")
        # Every read goes through the wait: the page may replace the row between finding an
        # element and reading it, which a bare read would report as a failure.
        wait.until(lambda b: cell("run-live", ".photos-count") == "12/120 photos")
        wait.until(lambda b: _row_classes(b, "run-live") == ["crawl"])
        wait.until(lambda b: (text_of(b, "#status-line") or "").startswith(
            "crawler: running 1, queued 0"))
        # Anything the page keeps in memory is lost by a reload: the update must come without.
        browser.execute_script("window.notReloaded = true;")  # type: ignore[attr-defined]

        progress.show_done(engine, "run-live", "chloe fall-2020-ready-to-wear",
                           photos_done_delta=12)
        wait.until(lambda b: cell("run-live", ".shows-count") == "2/10 shows")
        wait.until(lambda b: cell("run-live", ".photos-count") == "24/120 photos")
        wait.until(lambda b: cell("run-live", ".current-show") == "chloe fall-2020-ready-to-wear")
        wait.until(lambda b: b.execute_script(
            "const e = document.querySelector('#crawl-run-live progress.shows');"
            " return e ? e.getAttribute('value') : null;") == "2")

        progress.start(engine, "run-stuck", "runway_drafts", "dior", 5,
                       now=datetime.now(UTC) - timedelta(minutes=10))
        wait.until(lambda b: "amber" in (_row_classes(b, "run-stuck") or []))
        wait.until(lambda b: _row_classes(b, "run-live") == ["crawl"])
        wait.until(lambda b: (cell("run-stuck", ".heartbeat") or "").startswith("10 min"))
        wait.until(lambda b: (text_of(b, "#status-line") or "").startswith(
            "crawler: running 2,"))
        assert browser.execute_script(  # type: ignore[attr-defined]
            "return window.notReloaded === true;")
        # The amber is the stylesheet's, not just a class name.
        wait.until(lambda b: b.execute_script(
            "const e = document.getElementById('crawl-run-stuck');"
            " return e ? getComputedStyle(e).backgroundColor : null;") == "rgb(251, 191, 36)")
