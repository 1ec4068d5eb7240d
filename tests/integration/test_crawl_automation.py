"""The pipeline left alone: the weekly crawl yields every brand in batches and holds back
under backpressure, a backfill of several brands is one run, and a run whose heartbeat froze
is ended while a slow one that beats is left alone; a step that finishes nothing (a request
held for ever) stops beating, and is ended too.

Against a Dagster instance on PostgreSQL (``dagster_instance``), the catalog on SQLite and
PostgreSQL, and the replica.
"""

from __future__ import annotations

import asyncio
import os
import signal
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psutil
import pytest
from dagster import (
    AssetCheckKey,
    AssetKey,
    Backoff,
    DagsterInstance,
    DagsterRun,
    DagsterRunStatus,
    Failure,
    Jitter,
    SkipReason,
    build_schedule_context,
    build_sensor_context,
)
from sqlalchemy import Engine, text

from bench.reliability import ONE_AT_A_TIME, CrawlProcess, held_client, wait_until
from fashion_assets import settings
from fashion_assets.assets.policies import CRAWL_BATCHES, CRAWL_RETRY, listing_failures
from fashion_assets.catalog import progress
from fashion_assets.catalog.progress import ProgressRow
from fashion_assets.crawl.runway import ListingError
from fashion_assets.definitions import build_definitions, defs
from fashion_assets.domain.progress import is_stuck
from fashion_assets.launch.partitions import register_brands
from fashion_assets.progress import CrawlProgress
from fashion_assets.replica import ReplicaServer, build_site, start_replica
from fashion_assets.resources import catalog_engine, resources_from_env
from fashion_assets.sensors.stuck_runs import stuck_runs_sensor
from fashion_assets.tags import BRAND_TAG, CRAWL_TAG, PROMOTION_TAG
from tests.catalog_db import query
from tests.conftest import normal_brands, pipeline_env
from tests.integration.test_crawl_progress import _until as until
from tests.pipeline import crawl_partitions
from tests.processes import run_process_pid, state, wait_run_ended

RANGE_START, RANGE_END = "dagster/asset_partition_range_start", "dagster/asset_partition_range_end"
MONDAY = datetime(2026, 12, 7, 2, 0, tzinfo=UTC)


def tick(env: dict[str, str], instance: DagsterInstance):  # -> list[RunRequest] | SkipReason
    schedule = build_definitions(env).resolve_schedule_def("full_crawl_schedule")
    with build_schedule_context(instance=instance, resources=resources_from_env(env),
                                scheduled_execution_time=MONDAY) as context:
        result = schedule(context)
    return result.skip_message if isinstance(result, SkipReason) else result


def add_pending_drafts(database_url: str, count: int) -> None:
    engine = catalog_engine(database_url)
    with engine.begin() as conn:
        for n in range(count):
            conn.execute(text(
                "INSERT INTO brand_runway_drafts (source, source_url, brand_slug, season_code)"
                " VALUES ('vogue', :u, 'brand-00', 'fall-2026')"), {"u": f"https://x/{uuid.uuid4()}"
                                                                   f"/{n}"})


def test_the_schedule_yields_every_brand_in_batches_and_backpressure_holds_it_back(
        tmp_path: Path, database_url: str, replica: ReplicaServer,
        dagster_instance: DagsterInstance) -> None:
    env = pipeline_env(tmp_path, database_url, f"file://{tmp_path / 'objects'}", replica,
                       FASHION_CRAWL_BATCH_BRANDS="2", FASHION_CRAWL_CRON="30 1 * * 0",
                       FASHION_BACKPRESSURE_PAUSE_PENDING="4",
                       FASHION_BACKPRESSURE_ALERT_PENDING="2")
    instance = dagster_instance
    brands = [f"brand-{n:02d}" for n in range(5)]
    register_brands([(b, "") for b in brands], instance, env)
    schedule = build_definitions(env).resolve_schedule_def("full_crawl_schedule")
    assert schedule.cron_schedule == "30 1 * * 0" and schedule.execution_timezone == "UTC"

    requests = tick(env, instance)

    assert [(r.tags[RANGE_START], r.tags[RANGE_END]) for r in requests] == [
        ("brand-00", "brand-01"), ("brand-02", "brand-03"), ("brand-04", "brand-04")]
    assert {r.job_name for r in requests} == {"runway_crawl"}
    assert {r.tags[CRAWL_TAG] for r in requests} == {"brand"}
    assert [r.tags[BRAND_TAG] for r in requests] == [
        "batch:brand-00..brand-01", "batch:brand-02..brand-03", "batch:brand-04"]
    assert len({r.run_key for r in requests}) == 3

    # Backpressure: 4 pending drafts pause (and the run of the week is not requested),
    # 3 keep it paused (between half and the threshold), 1 resumes it.
    add_pending_drafts(database_url, 4)
    paused = tick(env, instance)
    assert isinstance(paused, str) and paused.startswith("paused: 4 drafts wait for review")
    engine = catalog_engine(database_url)
    with engine.begin() as conn:
        conn.execute(text("DELETE FROM brand_runway_drafts WHERE id IN (SELECT min(id) FROM"
                          " brand_runway_drafts)"))
    assert isinstance(tick(env, instance), str)
    with engine.begin() as conn:
        conn.execute(text("DELETE FROM brand_runway_drafts WHERE id NOT IN (SELECT max(id)"
                          " FROM brand_runway_drafts)"))
    assert len(tick(env, instance)) == 3
    assert query(database_url, "SELECT paused FROM backpressure_state") in ([(False,)], [(0,)])


def test_a_backfill_of_several_brands_runs_them_all_in_one_run(
        tmp_path: Path, database_url: str, replica: ReplicaServer,
        dagster_instance: DagsterInstance) -> None:
    env = pipeline_env(tmp_path, database_url, f"file://{tmp_path / 'objects'}", replica)
    instance = dagster_instance
    brands = [b.slug for b in normal_brands(replica)]
    assert len(brands) >= 2
    register_brands([(b, "") for b in brands], instance, env)
    # The assets' policy: a backfill of many brands runs them batch by batch, many per run.
    assert CRAWL_BATCHES.max_partitions_per_run == settings.crawl_batch_brands() > 1
    for key in ("runway_show_listings", "runway_image_manifests", "runway_drafts"):
        assert defs.resolve_assets_def(key).backfill_policy == CRAWL_BATCHES

    [summary] = crawl_partitions([("brand", f"{brands[0]}..{brands[-1]}")], instance, env)

    assert summary["success"], summary
    runs = instance.get_run_records()
    assert len(runs) == 1
    assert runs[0].dagster_run.tags[RANGE_START] == brands[0]
    assert runs[0].dagster_run.tags[BRAND_TAG] == f"batch:{brands[0]}..{brands[-1]}"
    shows = [s for slug in brands for s in replica.site.brand(slug).shows]
    assert summary["shows"]["created"] == len(shows)
    drafted = {u for (u,) in query(database_url, "SELECT source_url FROM brand_runway_drafts")}
    assert drafted == {f"https://www.vogue.com{s.path}" for s in shows}
    assert instance.get_materialized_partitions(AssetKey("runway_drafts")) == set(brands)
    # Each brand of the batch gets its own health evaluation, on its own partition.
    health = instance.event_log_storage.get_asset_check_execution_history(
        AssetCheckKey(AssetKey("runway_drafts"), "partition_health"), limit=50)
    assert sorted((r.event.dagster_event.event_specific_data.partition, r.status.value)
                  for r in health if r.event and r.event.dagster_event) == [
        (brand, "SUCCEEDED") for brand in sorted(brands)]
    [row] = [r for r in progress.running(catalog_engine(database_url))] or [
        progress.get(catalog_engine(database_url), runs[0].dagster_run.run_id)]
    assert row is not None and row.partition_key == f"{brands[0]}..{brands[-1]}"
    assert row.shows_done == row.shows_total == len(shows) and row.status == "finished"


def started_run(instance: DagsterInstance) -> str:
    run = DagsterRun(job_name="runway_crawl", run_id=str(uuid.uuid4()),
                     status=DagsterRunStatus.STARTED)
    instance.add_run(run)
    return run.run_id


def test_a_run_with_a_frozen_heartbeat_is_ended_and_a_slow_beating_one_is_not(
        tmp_path: Path, database_url: str, replica: ReplicaServer,
        dagster_instance: DagsterInstance) -> None:
    env = pipeline_env(tmp_path, database_url, f"file://{tmp_path / 'objects'}", replica)
    instance = dagster_instance
    engine = catalog_engine(database_url)
    now = datetime.now(UTC)
    frozen, slow = started_run(instance), started_run(instance)
    progress.start(engine, frozen, "runway_drafts", "brand-a", 10, now=now - timedelta(minutes=9))
    progress.show_done(engine, frozen, "brand-a fall-2026", now=now - timedelta(minutes=6))
    # Two hours in, and still beating: a long run, never stuck.
    progress.start(engine, slow, "runway_drafts", "brand-b", 500, now=now - timedelta(hours=2))
    progress.beat(engine, slow, now=now - timedelta(seconds=20))

    with build_sensor_context(instance=instance, resources=resources_from_env(env)) as context:
        result = stuck_runs_sensor(context)

    assert isinstance(result, SkipReason)
    assert result.skip_message.startswith("terminated 1 stuck crawl runs: brand-a")
    assert instance.get_run_by_id(frozen).status == DagsterRunStatus.FAILURE
    ended = progress.get(engine, frozen)
    assert ended is not None and ended.status == "terminated"
    assert "no heartbeat for 6 min" in ended.note
    assert instance.get_run_by_id(slow).status == DagsterRunStatus.STARTED
    assert [r.run_id for r in progress.running(engine)] == [slow]

    with build_sensor_context(instance=instance, resources=resources_from_env(env)) as context:
        again = stuck_runs_sensor(context)
    assert again.skip_message == "no stuck crawl run"


def test_a_step_that_finishes_nothing_stops_beating_and_beats_again_once_it_does(
        tmp_path: Path) -> None:
    """The heartbeat says the step gets somewhere: with nothing finished for the threshold
    (1 s) it stops, though the event loop turns; one finished show and it beats again."""
    engine = catalog_engine(f"sqlite:///{tmp_path / 'catalog.db'}")
    warnings: list[str] = []

    def heartbeat() -> datetime:
        row = progress.get(engine, "held")
        assert row is not None
        return row.heartbeat_at

    async def held_then_one_show(tracker: CrawlProgress) -> datetime:
        async with tracker.beating():
            # Beats every 0.05 s would keep it younger than 0.2 s: it must age past 2 s.
            await until(lambda: is_stuck(heartbeat(), datetime.now(UTC), 2.0))
            tracker.show_done("chloe fall-2026")
            await until(lambda: heartbeat() > datetime.now(UTC) - timedelta(seconds=0.5))
            shown = heartbeat()
            # Only a beat moves the heartbeat past the show's own write.
            await until(lambda: heartbeat() > shown + timedelta(seconds=0.2))
            return shown

    with CrawlProgress(engine, "held", "runway_drafts", "chloe", 2, heartbeat_s=0.05,
                       stuck_after_s=1.0, warn=warnings.append) as tracker:
        asyncio.run(held_then_one_show(tracker))
    assert warnings[:1] == ["nothing finished for 1 s: the heartbeat stops, and "
                            "stuck_runs_sensor ends the run unless something finishes first"]


STUCK_DEADLINE_S = 300.0  # the crawl's `dagster dev` started on a loaded machine, its run held


@contextmanager
def crawl_at_the_gate(tmp_path: Path, step: str, held: str, crawl_stuck_after: str
                      ) -> Iterator[tuple[CrawlProcess, dict[str, str], ProgressRow]]:
    """A real crawl of one brand, beating every 0.2 s, held at the replica's gate in its
    ``step`` (``drafts``: every photo fetched there), its first ``held`` request held (a
    ``photo``, or a show ``page``); no timeout cuts the held request. Yields the crawl,
    the sensor's environment (a threshold of 2 s) and the run's progress row; afterwards
    the gate opens and whatever is left of the crawl is killed (its deployment too)."""
    site = build_site(brands=1, shows_per_brand=2, photos_per_show=4, hostile=False, seed=3)
    database_url = f"sqlite:///{tmp_path / 'catalog.db'}"
    with start_replica(site) as server:
        env = pipeline_env(tmp_path, database_url, f"file://{tmp_path / 'objects'}", server,
                           DAGSTER_HOME=str(tmp_path / "dagster-home"),  # dagster_instance's
                           FASHION_HEARTBEAT_SECONDS="0.2", FASHION_STUCK_AFTER_SECONDS="2",
                           **ONE_AT_A_TIME, **held_client(STUCK_DEADLINE_S),
                           FASHION_PHOTOS_WITH_MANIFESTS=str(step != "drafts").lower())
        if held == "page":
            server.hold_requests(after=1, kinds=("page",))  # the designer page passes
        else:
            server.hold_images(after=0)
        crawl = CrawlProcess({**env, "FASHION_STUCK_AFTER_SECONDS": crawl_stuck_after},
                             [site.brands[0].slug], tmp_path / "logs")
        try:
            engine = catalog_engine(database_url)
            wait_until(lambda: server.held_count() >= 1 and [
                r.step for r in progress.running(engine)] == [step],
                f"the crawl at the gate, in its {step} step", [crawl], STUCK_DEADLINE_S)
            [row] = progress.running(engine)
            yield crawl, env, row
        finally:
            server.release_images()
            crawl.kill()


def evaluate_sensor(instance: DagsterInstance, env: dict[str, str]) -> str:
    with build_sensor_context(instance=instance, resources=resources_from_env(env)) as context:
        return stuck_runs_sensor(context).skip_message


def terminated_by_the_sensor(instance: DagsterInstance, engine: Engine, row: ProgressRow,
                             *, frozen: bool = False) -> None:
    """The sensor's part: the run terminated through the run launcher (Dagster logs the
    request and marks it CANCELING, or it ended), or, ``frozen``, its process killed and the
    run failed with why; the catalog's row ended: by the sensor, as stuck, or first by the
    run's step, interrupted."""
    run = instance.get_run_by_id(row.run_id)
    assert run is not None and run.status is not DagsterRunStatus.STARTED
    messages = [entry.message for entry in instance.all_logs(row.run_id)]
    if frozen:
        assert any("its process was frozen, and is killed" in m for m in messages), messages
    else:
        assert "Sending run termination request." in messages, messages
    stopped = progress.get(engine, row.run_id)
    assert stopped is not None and stopped.status == "terminated"
    assert "no heartbeat for" in stopped.note or stopped.note.startswith("interrupted: ")


@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.parametrize(("step", "held"), [("manifests", "page"), ("drafts", "photo")])
def test_a_frozen_run_process_is_ended_and_a_beating_one_left_alone(
        tmp_path: Path, dagster_instance: DagsterInstance, step: str, held: str) -> None:
    """A real crawl frozen at the replica's gate in its manifests step (a show page held)
    or its drafts step (a photo held): while its run process beats (every 0.2 s) it is never
    stuck, however long it waits; stopped with SIGSTOP, its heartbeat freezes, and the
    sensor kills it (the launcher's termination would wait a minute for it) and fails its
    run, which the command reports. The crawl's own
    threshold is long (it beats on though nothing finishes), so only the freezing can make
    it stuck; the sensor's is 2 s. The crawl's deployment and the sensor share the instance
    of ``dagster_instance`` (on PostgreSQL), as a daemon and its runs do."""
    with crawl_at_the_gate(tmp_path, step, held, crawl_stuck_after="600") as (crawl, env, row):
        engine = catalog_engine(env["FASHION_DATABASE_URL"])
        # The crawl's work is in its run's process, in the deployment, not in the command.
        assert row.pid == run_process_pid(dagster_instance, row.run_id) != crawl.process.pid
        process = psutil.Process(row.pid)
        # Past the threshold since it started, and still beating: left alone.
        wait_until(lambda: (datetime.now(UTC) - row.started_at).total_seconds() > 3,
                   "the crawl running longer than the stuck threshold", [crawl], 30)
        assert evaluate_sensor(dagster_instance, env) == "no stuck crawl run"
        assert not crawl.exited() and state(process) != psutil.STATUS_STOPPED

        os.kill(row.pid, signal.SIGSTOP)
        wait_until(lambda: state(process) == psutil.STATUS_STOPPED, "the run process stopped",
                   [], 30)
        said: list[str] = []
        wait_until(lambda: bool(said.append(evaluate_sensor(dagster_instance, env)) or said[
            -1].startswith("terminated 1")), "the sensor ending the frozen run", [], 30)

        terminated_by_the_sensor(dagster_instance, engine, row, frozen=True)
        assert wait_run_ended(dagster_instance, row.run_id, process) == "FAILURE"
        done = crawl.finish(STUCK_DEADLINE_S)
        assert done.returncode == 1 and not done.summaries[0]["success"], done.log_tail


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_crawl_held_by_a_request_that_never_completes_stops_beating_and_is_ended(
        tmp_path: Path, dagster_instance: DagsterInstance) -> None:
    """A real crawl whose first photo request, in its manifests step, never completes (the
    replica's gate holds it, as a host that drips a byte now and then would): its run
    process runs and its loop turns, but nothing finishes, so after
    FASHION_STUCK_AFTER_SECONDS (2 s) it stops beating; its heartbeat then ages past the
    threshold and the sensor terminates its run through the run launcher, which ends it;
    the command reports the partition failed."""
    with crawl_at_the_gate(tmp_path, "manifests", "photo", "2") as (crawl, env, row):
        engine = catalog_engine(env["FASHION_DATABASE_URL"])
        process = psutil.Process(row.pid)

        def stale() -> bool:
            now = progress.get(engine, row.run_id)
            return now is not None and is_stuck(now.heartbeat_at, datetime.now(UTC), 2.0)

        wait_until(stale, "the heartbeat of the held crawl to stop", [crawl], 60)
        assert state(process) not in (psutil.STATUS_STOPPED, "gone")
        said = evaluate_sensor(dagster_instance, env)

        assert said.startswith("terminated 1 stuck crawl runs"), said
        assert any("nothing finished for 2 s: the heartbeat stops" in entry.user_message
                   for entry in dagster_instance.all_logs(row.run_id))
        terminated_by_the_sensor(dagster_instance, engine, row)
        assert wait_run_ended(dagster_instance, row.run_id, process) in ("FAILURE", "CANCELED")
        done = crawl.finish(STUCK_DEADLINE_S)
        assert done.returncode == 1 and not done.summaries[0]["success"], done.log_tail


def test_every_crawl_job_carries_the_crawl_tag_and_promotion_its_own() -> None:
    kinds = {"runway_crawl": "brand", "impression_runway_crawl": "season",
             "street_style_crawl": "week", "runway_coverage_repair": "coverage",
             "impression_coverage_repair": "coverage"}
    for job, kind in kinds.items():
        assert defs.resolve_job_def(job).tags[CRAWL_TAG] == kind, job
    assert defs.resolve_job_def("promote_approved_drafts").tags[PROMOTION_TAG] == "promotion"
    assert CRAWL_TAG not in defs.resolve_job_def("media_cleanup").tags


def test_a_listing_that_failed_for_good_is_not_retried_and_an_outage_is() -> None:
    with pytest.raises(Failure) as failed, listing_failures():
        raise ListingError("listing of chloe not fetched: not_found: 404")
    assert failed.value.allow_retries is False
    with pytest.raises(ListingError), listing_failures():
        raise ListingError("listing of chloe not fetched: timeout", transient=True)
    policy = CRAWL_RETRY
    assert policy.max_retries == 2 and policy.backoff == Backoff.EXPONENTIAL
    assert policy.jitter == Jitter.PLUS_MINUS
    assert all(defs.resolve_assets_def(key).op.retry_policy == policy
               for key in ("runway_show_listings", "runway_drafts", "street_snap_drafts"))
