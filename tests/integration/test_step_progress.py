"""Every step of a real crawl is seen while it runs: a ``fashion-assets crawl`` process held
at the replica's gate in its listing, its manifests and (no photo fetched with the
manifests) its drafts step, read through the review app's /crawler.json
(a real server), ``fashion-assets status`` and a browser."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from sqlalchemy import Engine

from bench.reliability import ONE_AT_A_TIME, CrawlProcess, wait_until
from fashion_assets.catalog import progress
from fashion_assets.cli import main
from fashion_assets.replica import ReplicaServer, build_site, start_replica
from fashion_assets.resources import catalog_engine
from fashion_assets.storage import ObjectStore, open_store
from tests.conftest import pipeline_env
from tests.integration.test_review_app import browser_sign_in, review_app, serve, sign_in
from tests.integration.test_review_browser import (  # noqa: F401 - the driver fixture
    WAIT_S,
    driver,
    text_of,
)

DEADLINE_S = 120.0


@pytest.fixture
def held_replica() -> Iterator[ReplicaServer]:
    """A replica of this test's own, whose gate the test moves step by step."""
    server = start_replica(build_site(brands=1, shows_per_brand=2, photos_per_show=3,
                                      hostile=False, seed=4))
    try:
        yield server
    finally:
        server.release_images()
        server.stop()


@dataclass(frozen=True)
class HeldCrawl:
    """What a crawl held at the gate needs: its settings, catalog, store and instance home."""

    env: dict[str, str]
    engine: Engine
    store: ObjectStore
    dagster_home: Path


@pytest.fixture
def held_crawl(tmp_path: Path, held_replica: ReplicaServer) -> HeldCrawl:
    database_url = f"sqlite:///{tmp_path / 'catalog.db'}"
    dagster_home = tmp_path / "dagster"
    dagster_home.mkdir()
    (dagster_home / "dagster.yaml").write_text("telemetry:\n  enabled: false\n")
    # Held requests wait for the test, not for a fault: no timeout while they do.
    env = pipeline_env(tmp_path, database_url, f"file://{tmp_path / 'objects'}", held_replica,
                       DAGSTER_HOME=str(dagster_home), FASHION_HTTP_TIMEOUT=str(DEADLINE_S),
                       **ONE_AT_A_TIME)
    return HeldCrawl(env, catalog_engine(database_url),
                     open_store(f"file://{tmp_path / 'objects'}", home=tmp_path), dagster_home)


def running(engine: Engine) -> list[tuple[str, str, int, int, str]]:
    return [(r.step, r.kind, r.shows_done, r.shows_total, r.unit)
            for r in progress.running(engine)]


def test_a_crawl_is_seen_running_in_each_of_its_steps(
        tmp_path: Path, held_replica: ReplicaServer, held_crawl: HeldCrawl,
        monkeypatch: pytest.MonkeyPatch) -> None:
    server = held_replica
    brand = server.site.brands[0]
    env, engine, store = held_crawl.env, held_crawl.engine, held_crawl.store
    for name, value in env.items():
        monkeypatch.setenv(name, value)

    server.hold_requests(after=0, kinds=("page",))  # the designer page
    crawl = CrawlProcess(env, [brand.slug], tmp_path / "logs")
    try:
        with serve(review_app(engine, store)) as url:
            page = sign_in(url)

            def seen(step: str, kind: str, done: int, total: int, unit: str) -> dict[str, Any]:
                """The crawl in ``step``, as the catalog, /crawler.json and status say."""
                wanted = (step, kind, done, total, unit)
                wait_until(lambda: server.held_count() == 1 and running(engine) == [wanted],
                           f"the crawl held in its {step} step", [crawl], DEADLINE_S)
                [row] = page.get("/crawler.json").json()["running"]
                status = CliRunner().invoke(main, ["status"], catch_exceptions=False).output
                assert (f"running {brand.slug} ({kind}): {step} {done}/{total} {unit}"
                        in status), status
                assert "crawler: running 1," in status
                return row

            listing = seen("listing", "runway_show_listings", 0, 1, "brands")
            assert listing["partition_key"] == brand.slug

            # The designer page goes; the first show page is held: the manifests step.
            server.advance_gate(after=0)
            seen("manifests", "runway_image_manifests", 0, len(brand.shows), "shows")
            server.advance_gate(after=0)  # one show page read, the second one held
            manifests = seen("manifests", "runway_image_manifests", 1, len(brand.shows),
                             "shows")
            assert manifests["current_show"].startswith(brand.slug)
            assert manifests["started_at"] == listing["started_at"]  # one row, the run's

            # Every page goes; the second show's first photo is held: the manifests step
            # fetches the photos of each show it read (the first show's are stored).
            server.advance_gate(after=0, kinds=("image",))
            seen("manifests", "runway_image_manifests", 1, len(brand.shows), "shows")

            server.release_images()
            run = crawl.finish(DEADLINE_S)
            assert run.ok, run.log_tail
            assert page.get("/crawler.json").json()["running"] == []
    finally:
        if not crawl.exited():
            crawl.kill()
    # The last step ended the row; no earlier one did.
    ended = progress.get(engine, listing["run_id"])
    assert ended is not None and (ended.status, ended.step) == ("finished", "drafts")
    assert ended.shows_done == len(brand.shows)


@pytest.mark.slow
def test_the_crawler_page_follows_a_real_crawl_in_a_browser(
        tmp_path: Path, held_replica: ReplicaServer, held_crawl: HeldCrawl,
        driver: object) -> None:  # noqa: F811
    """Chromium on /crawler while a real crawl is held in its drafts step (no photo fetched
    with the manifests), its first show drafted and the second one's first photo held:
    the running row with its step, progress and heartbeat age, a queued run, and the first
    show's outcome; then nothing running."""
    from dagster import DagsterInstance, DagsterRun, DagsterRunStatus
    from selenium.webdriver.support.ui import WebDriverWait

    server = held_replica
    brand = server.site.brands[0]
    first, second = brand.shows[:2]
    env, engine, store = held_crawl.env, held_crawl.engine, held_crawl.store
    dagster_home = held_crawl.dagster_home
    # Every photo fetched in the drafts step: its image client reads the CDN's robots.txt
    # through the gate, then the first show's photos, one at a time, and the second show's
    # first photo is held.
    server.hold_requests(after=1 + len(first.photos), kinds=("image",))
    crawl = CrawlProcess({**env, "FASHION_PHOTOS_WITH_MANIFESTS": "false"}, [brand.slug],
                         tmp_path / "logs")
    try:
        wait_until(lambda: server.held_count() == 1 and [r[:4] for r in running(engine)] == [
            ("drafts", "runway_drafts", 1, len(brand.shows))],
            "the crawl held in its drafts step", [crawl], DEADLINE_S)
        [row] = progress.running(engine)
        with DagsterInstance.from_config(str(dagster_home)) as instance:
            waiting = DagsterRun(job_name="runway_crawl", run_id="queued-run-1",
                                 status=DagsterRunStatus.NOT_STARTED,
                                 tags={"dagster/partition": "dior"})
            instance.add_run(waiting)
            app = review_app(engine, store, instance=instance,
                             crawler_refresh_s=0.5)
            with serve(app) as url:
                browser = driver
                wait = WebDriverWait(browser, WAIT_S)  # type: ignore[arg-type]
                browser.get(f"{url}/login")  # type: ignore[attr-defined]
                browser_sign_in(browser)
                wait.until(lambda b: b.current_url.endswith("/"))
                browser.get(f"{url}/crawler")  # type: ignore[attr-defined]

                crawl_row = f"#crawl-{row.run_id}"
                wait.until(lambda b: (text_of(b, f"{crawl_row} .step") or "").startswith(
                    "drafts"))
                assert text_of(browser, f"{crawl_row} .shows-count") == (
                    f"1/{len(brand.shows)} shows")
                assert text_of(browser, f"{crawl_row} .photos-count") == (
                    f"{len(first.photos)}/{len(first.photos) + len(second.photos)} photos")
                assert (text_of(browser, f"{crawl_row} .heartbeat") or "").endswith(" ago")
                assert text_of(browser, f"{crawl_row} .current-show") == (
                    f"{brand.slug} {first.season_slug}")
                assert "dior" in (text_of(browser, "#queued-queued-run-1") or "")
                assert (text_of(browser, "#status-line") or "").startswith(
                    "crawler: running 1, queued 1")
                assert "created" in (text_of(browser, "#outcomes .outcome .result") or "")

                server.release_images()
                assert crawl.finish(DEADLINE_S).ok
                # The page follows by itself: the crawl leaves the running table.
                wait.until(lambda b: text_of(b, "#running .empty") == "No crawl running.")
    finally:
        if not crawl.exited():
            crawl.kill()
