"""Crawl progress in the catalog, on SQLite and PostgreSQL: the row's life, concurrent
updates, the shell's writer, and a real crawl over the replica committing it show by show."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from dagster import DagsterInstance
from sqlalchemy import Engine, event

from fashion_assets.catalog import progress
from fashion_assets.progress import CrawlProgress, ShowsDone
from fashion_assets.replica import ReplicaServer
from fashion_assets.resources import catalog_engine
from tests.conftest import normal_brands, pipeline_env
from tests.pipeline import crawl_partitions

WAIT_S = 20


@pytest.fixture
def engine(database_url: str) -> Engine:
    return catalog_engine(database_url)


async def _until(condition: Callable[[], bool], timeout_s: float = WAIT_S) -> None:
    """Wait for ``condition`` like WebDriverWait does: poll it, fail after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        await asyncio.sleep(0.01)


def test_a_row_starts_counts_by_deltas_and_ends_once(engine: Engine) -> None:
    t0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
    progress.start(engine, "run-1", "runway_drafts", "chloe", 3, photos_total=30, now=t0)
    assert progress.show_done(engine, "run-1", "chloe spring-2020", photos_done_delta=10,
                              now=t0 + timedelta(seconds=5))
    # A skipped show: none of its 10 planned photos downloaded, the total corrected.
    assert progress.show_done(engine, "run-1", "chloe fall-2020", photos_total_delta=-10,
                              now=t0 + timedelta(seconds=6))
    assert progress.beat(engine, "run-1", now=t0 + timedelta(seconds=40))

    row = progress.get(engine, "run-1")
    assert row is not None
    assert (row.kind, row.partition_key, row.status) == ("runway_drafts", "chloe", "running")
    assert (row.shows_done, row.shows_total, row.photos_done, row.photos_total) == (2, 3, 10,
                                                                                    20)
    assert row.current_show == "chloe fall-2020"
    assert (row.started_at, row.heartbeat_at, row.finished_at) == (
        t0, t0 + timedelta(seconds=40), None)
    assert [r.run_id for r in progress.running(engine)] == ["run-1"]

    assert progress.finish(engine, "run-1", "terminated", "no heartbeat for 5 minutes",
                           now=t0 + timedelta(minutes=6))
    # The run did not know: its late updates and its own failure change nothing.
    assert not progress.show_done(engine, "run-1", "chloe resort-2021", photos_done_delta=5)
    assert not progress.beat(engine, "run-1")
    assert not progress.finish(engine, "run-1", "failed", "interrupted")
    row = progress.get(engine, "run-1")
    assert row is not None
    assert (row.status, row.note, row.shows_done, row.finished_at) == (
        "terminated", "no heartbeat for 5 minutes", 2, t0 + timedelta(minutes=6))
    assert progress.running(engine) == []

    # A later step of the terminated run (its process went on) does not bring it back.
    progress.start(engine, "run-1", "runway_drafts", "chloe", 3, photos_total=30)
    row = progress.get(engine, "run-1")
    assert row is not None and row.status == "terminated"

    # Dagster retrying a failed step in the same run starts the row over; the run's start
    # time stays, the counters are the new attempt's.
    progress.start(engine, "run-2", "runway_drafts", "dior", 3, now=t0)
    progress.show_done(engine, "run-2", "dior fall-2020", photos_done_delta=4)
    assert progress.finish(engine, "run-2", "failed", "database gone")
    progress.start(engine, "run-2", "runway_drafts", "dior", 3, photos_total=30,
                   now=t0 + timedelta(minutes=1))
    row = progress.get(engine, "run-2")
    assert row is not None
    assert (row.status, row.shows_done, row.photos_done, row.finished_at, row.started_at) == (
        "running", 0, 0, None, t0)


def test_each_step_starts_the_row_over_and_only_the_last_ends_it(engine: Engine) -> None:
    progress.start(engine, "run-s", "runway_show_listings", "chloe", 1, step="listing",
                   unit="brands")
    progress.show_done(engine, "run-s", "chloe")
    assert progress.step_done(engine, "run-s")
    [row] = progress.running(engine)
    assert (row.step, row.shows_done, row.unit, row.note) == ("listing", 1, "brands",
                                                             "listing done")
    progress.start(engine, "run-s", "runway_image_manifests", "chloe", 30, step="manifests")
    [row] = progress.running(engine)
    assert (row.step, row.kind, row.shows_done, row.shows_total, row.unit, row.note) == (
        "manifests", "runway_image_manifests", 0, 30, "shows", "")
    assert progress.finish(engine, "run-s")
    assert not progress.step_done(engine, "run-s")  # an ended row stays ended
    assert progress.running(engine) == []


def test_bad_statuses_and_naive_times_are_refused(engine: Engine) -> None:
    progress.start(engine, "run-2", "street_snap_drafts", "copenhagen-fashion-week", 1)
    with pytest.raises(ValueError, match="ends as one of"):
        progress.finish(engine, "run-2", "running")
    with pytest.raises(ValueError, match="timezone-aware"):
        progress.beat(engine, "run-2", now=datetime(2026, 3, 1, 12, 0))
    assert progress.get(engine, "nope") is None


def test_concurrent_show_updates_lose_none(engine: Engine) -> None:
    """Shows finish in parallel: deltas in SQL, so no update overwrites another."""
    progress.start(engine, "run-3", "runway_drafts", "chloe", 200, photos_total=0)
    barrier = threading.Barrier(8)
    errors: list[BaseException] = []

    def shows(worker: int) -> None:
        barrier.wait()
        try:
            for n in range(25):
                progress.show_done(engine, "run-3", f"show {worker}-{n}", photos_done_delta=2,
                                   photos_total_delta=2)
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=shows, args=(w,)) for w in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    assert not errors
    row = progress.get(engine, "run-3")
    assert row is not None
    assert (row.shows_done, row.photos_done, row.photos_total) == (200, 400, 400)


def test_the_writer_ends_the_row_by_how_the_step_ended(engine: Engine) -> None:
    warnings: list[str] = []
    with CrawlProgress(engine, "ok", "runway_drafts", "chloe", 2, photos_total=8,
                       warn=warnings.append) as tracker:
        tracker.show_done("chloe a", photos_done_delta=4)
        tracker.show_done("chloe b", photos_done_delta=3, photos_total_delta=-1)
    row = progress.get(engine, "ok")
    assert row is not None
    assert (row.status, row.shows_done, row.photos_done, row.photos_total) == (
        "finished", 2, 7, 7)
    assert tracker.shows_done == 2 and warnings == []

    with pytest.raises(ZeroDivisionError), CrawlProgress(engine, "bad", "runway_drafts",
                                                         "chloe", 2):
        1 / 0  # noqa: B018 - the step's error
    row = progress.get(engine, "bad")
    assert row is not None
    assert (row.status, row.note) == ("failed", "ZeroDivisionError: division by zero")

    with pytest.raises(KeyboardInterrupt), CrawlProgress(engine, "stopped", "runway_drafts",
                                                         "chloe", 2):
        raise KeyboardInterrupt  # what Dagster's interrupt is: a BaseException
    row = progress.get(engine, "stopped")
    assert row is not None and row.status == "terminated"


def test_shows_finished_while_the_writer_is_busy_go_in_one_update(engine: Engine) -> None:
    """A burst of finished shows (a drafts step whose photos are in) queues behind the
    writer's commit: what queued goes as one UPDATE, deltas summed, the latest show current."""
    updates: list[str] = []
    entered, release = threading.Event(), threading.Event()

    def held(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if statement.startswith("UPDATE crawl_progress SET shows_done"):
            updates.append(statement)
            if len(updates) == 1:  # the first show's update: hold the writer there
                entered.set()
                assert release.wait(WAIT_S)

    event.listen(engine, "before_cursor_execute", held)
    try:
        with CrawlProgress(engine, "burst", "runway_drafts", "chloe", 50,
                           photos_total=100) as tracker:
            tracker.show_done("chloe 0", photos_done_delta=2)
            assert entered.wait(WAIT_S)
            for n in range(1, 50):
                tracker.show_done(f"chloe {n}", photos_done_delta=2, photos_total_delta=-1)
            release.set()
    finally:
        event.remove(engine, "before_cursor_execute", held)
    assert len(updates) == 2  # the first show's, then the 49 that queued behind it
    row = progress.get(engine, "burst")
    assert row is not None
    assert (row.status, row.shows_done, row.current_show, row.photos_done, row.photos_total) \
        == ("finished", 50, "chloe 49", 100, 51)


def test_queued_updates_add_up_in_order() -> None:
    first = ShowsDone(1, "a", photos_done=4, photos_total=-1, shows_total=0)
    both = first.then(ShowsDone(2, "b", photos_done=3, photos_total=2, shows_total=1))
    assert both == ShowsDone(3, "b", photos_done=7, photos_total=1, shows_total=1)


def test_a_step_beats_while_no_show_finishes(engine: Engine) -> None:
    """A long show still beats: the heartbeat moves on the event loop's clock."""
    with CrawlProgress(engine, "slow", "runway_drafts", "chloe", 1,
                       heartbeat_s=0.05) as tracker:
        started = progress.get(engine, "slow")
        assert started is not None

        def moved() -> bool:
            row = progress.get(engine, "slow")
            return row is not None and row.heartbeat_at > started.heartbeat_at

        async def long_show() -> None:
            async with tracker.beating():
                await _until(moved)

        asyncio.run(long_show())
    row = progress.get(engine, "slow")
    assert row is not None and row.shows_done == 0 and row.status == "finished"


def test_a_crawl_commits_its_progress_per_show_and_reports_it(
        tmp_path: Path, database_url: str, replica: ReplicaServer) -> None:
    env = pipeline_env(tmp_path, database_url, f"file://{tmp_path / 'objects'}", replica)
    brand = normal_brands(replica)[0]
    photos = sum(len(s.photos) for s in brand.shows)
    week = replica.site.impression.week("sao-paulo-fashion-week")
    assert week is not None
    week_photos = sum(len(a.photos) for a in week.articles)
    instance = DagsterInstance.ephemeral()
    engine = catalog_engine(database_url)

    first, street = crawl_partitions([("brand", brand.slug), ("week", week.slug)], instance,
                                     env)
    again = crawl_partitions([("brand", brand.slug)], instance, env)[0]

    assert first["success"] and street["success"] and again["success"]
    assert set(first["shows"]) == set(again["shows"]) and "done" not in first["shows"]
    shows = len(brand.shows)
    rows = {r: progress.get(engine, r) for r in (first["run_id"], street["run_id"],
                                                  again["run_id"])}
    done = {r: (p.kind, p.partition_key, p.status, p.shows_done, p.shows_total, p.photos_done,
                p.photos_total) for r, p in rows.items() if p is not None}
    assert done == {
        first["run_id"]: ("runway_drafts", brand.slug, "finished", shows, shows, photos, photos),
        street["run_id"]: ("street_snap_drafts", week.slug, "finished", len(week.articles),
                           len(week.articles), week_photos, week_photos),
        # Every show skipped: nothing to download, nothing planned.
        again["run_id"]: ("runway_drafts", brand.slug, "finished", shows, shows, 0, 0),
    }
    assert progress.running(engine) == []

    # The same progress is in the run's log and in the drafts asset's metadata.
    log = "\n".join(e.user_message for e in instance.all_logs(first["run_id"]))
    assert f"[{shows}/{shows}] {brand.slug} " in log
    [materialization] = [
        e.asset_materialization for e in instance.all_logs(first["run_id"])
        if e.asset_materialization is not None
        and e.asset_materialization.asset_key.to_user_string() == "runway_drafts"]
    metadata = {k: v.value for k, v in materialization.metadata.items()}
    assert (metadata["shows_done"], metadata["shows_total"]) == (shows, shows)
