"""The review app's /crawler page and its /crawler.json, through a real server (uvicorn on
loopback) on SQLite and PostgreSQL, with progress written by ``catalog/progress.py``.

What must hold: signed-in editors only; the running crawls with their progress and heartbeat
age, a stale one marked amber; the latest 50 ingest outcomes, newest first; everything
escaped; the page allowed to run its own script and nothing else.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from sqlalchemy import Engine, text

from fashion_assets.catalog import progress
from fashion_assets.catalog.ingest_log import LogEntry, write_log
from fashion_assets.storage import ObjectStore, open_store
from tests.integration.test_review_app import XSS, review_app, runway_draft, serve, sign_in

ROW = re.compile(r'<tr class="([^"]*)" id="crawl-([^"]+)">')
OUTCOME_ROW = re.compile(r'<tr class="outcome" id="outcome-(\d+)">')


@pytest.fixture
def store(tmp_path: Path) -> ObjectStore:
    return open_store(f"file://{tmp_path / 'objects'}", home=tmp_path)


@pytest.fixture
def site(engine: Engine, store: ObjectStore) -> Iterator[str]:
    with serve(review_app(engine, store)) as url:
        yield url


def test_only_signed_in_editors_see_the_crawler(site: str, engine: Engine) -> None:
    progress.start(engine, "run-secret", "runway_drafts", "chloe", 4)
    anonymous = httpx.Client(base_url=site, timeout=30)

    page = anonymous.get("/crawler")
    assert (page.status_code, page.headers["location"]) == (303, "/login")
    data = anonymous.get("/crawler.json")  # a script's fetch: refused, not redirected
    assert data.status_code == 403 and "run-secret" not in data.text

    client = sign_in(site)
    assert client.get("/crawler").status_code == 200
    assert client.get("/crawler.json").json()["running"][0]["run_id"] == "run-secret"


def test_running_crawls_carry_their_progress_and_a_stale_one_is_amber(
        site: str, engine: Engine, store: ObjectStore) -> None:
    now = datetime.now(UTC)
    progress.start(engine, "run-live", "runway_drafts", "chloe", 10, photos_total=120)
    progress.show_done(engine, "run-live", "chloe spring-2020-ready-to-wear",
                       photos_done_delta=12)
    progress.show_done(engine, "run-live", "chloe fall-2020-ready-to-wear",
                       photos_done_delta=12)
    progress.start(engine, "run-stale", "street_snap_drafts", XSS, 5,
                   now=now - timedelta(minutes=10))
    progress.start(engine, "run-done", "runway_drafts", "chloe", 1)
    progress.finish(engine, "run-done")
    for _ in range(2):
        runway_draft(engine, store, photos=0)
    client = sign_in(site)

    data = client.get("/crawler.json")
    assert data.headers["content-type"].startswith("application/json")
    status = data.json()
    assert status["line"] == "crawler: running 2, queued 0, pending review 2"
    by_run = {r["run_id"]: r for r in status["running"]}
    assert set(by_run) == {"run-live", "run-stale"}  # a finished crawl is not running
    live, stale = by_run["run-live"], by_run["run-stale"]
    assert (live["shows_done"], live["shows_total"], live["photos_done"],
            live["photos_total"]) == (2, 10, 24, 120)
    assert live["current_show"] == "chloe fall-2020-ready-to-wear"
    assert live["stale"] is False and live["heartbeat_age_s"] < 300
    assert stale["stale"] is True and stale["heartbeat_age_s"] >= 600
    assert stale["partition_key"] == XSS and status["stale"] == 1

    page = client.get("/crawler")
    html = page.text
    rows = {run: classes.split() for classes, run in ROW.findall(html)}
    assert rows == {"run-live": ["crawl"], "run-stale": ["crawl", "stale", "amber"]}
    assert "crawler: running 2, queued 0, pending review 2" in html
    assert "2/10 shows" in html and "24/120 photos" in html
    assert 'value="2"' in html and 'max="10"' in html  # the progress bar
    assert "chloe fall-2020-ready-to-wear" in html and "10 min" in html
    assert XSS not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    policy = page.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "connect-src 'self'" in policy
    assert "unsafe-inline" not in policy and "<script>" not in html.replace(
        '<script src="/static/crawler.js"></script>', "")
    assert client.get("/static/crawler.js").status_code == 200
    # The other pages run their own keyboard shortcuts only, and fetch nothing.
    queue = client.get("/")
    assert "connect-src" not in queue.headers["content-security-policy"]
    assert "<script>" not in queue.text.replace(
        '<script src="/static/review.js"></script>', "")


def test_the_latest_50_outcomes_are_listed_newest_first(site: str, engine: Engine) -> None:
    base = "https://www.vogue.com/fashion-shows/show-"
    write_log(engine, [LogEntry("run-x", "chloe", "vogue", f"{base}{n}", "ingest", "created",
                                reason=f"note {n}") for n in range(59)])
    write_log(engine, [LogEntry("run-y", "", "theimpression",
                                "https://theimpression.com/album-59/", "ingest", "failed",
                                reason=XSS, partition_key="copenhagen-fashion-week")])
    with engine.begin() as conn:
        conn.execute(text(
            "INSERT INTO runway_shows (brand_slug, source, source_url, source_path, title,"
            " season_code) VALUES ('chloe', 'vogue', :u, '/fashion-shows/show-58',"
            " 'Chloé Spring 2026', 'spring-2026-ready-to-wear')"), {"u": f"{base}58"})
    client = sign_in(site)

    outcomes = client.get("/crawler.json").json()["outcomes"]
    assert len(outcomes) == 50
    assert [o["reason"] for o in outcomes] == [XSS] + [f"note {n}" for n in range(58, 9, -1)]
    assert [o["id"] for o in outcomes] == sorted((o["id"] for o in outcomes), reverse=True)
    newest, titled = outcomes[0], outcomes[1]
    assert (newest["brand"], newest["outcome"]) == ("copenhagen-fashion-week", "failed")
    assert (titled["brand"], titled["title"], titled["outcome"]) == (
        "chloe", "Chloé Spring 2026", "created")
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", newest["time"])

    html = client.get("/crawler").text
    assert [int(i) for i in OUTCOME_ROW.findall(html)] == [o["id"] for o in outcomes]
    assert "Chloé Spring 2026" in html and "note 10<" in html and "note 9<" not in html
    assert XSS not in html
