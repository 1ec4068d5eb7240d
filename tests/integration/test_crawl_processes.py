"""Crawls as separate commands: two of one brand at once, and one killed with SIGKILL
mid-show, whose run the next crawl finds left behind and fails.

Both are synchronised through the replica's image gate (requests past a count block until
released), never by sleeping: the test waits for the gate to hold the expected requests,
and for a killed command's deployment (``dagster dev``, its run processes) to be gone.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from dagster import DagsterInstance, DagsterRunStatus

from bench.reliability import ONE_AT_A_TIME, CrawlProcess, held_client, own_instance, wait_until
from fashion_assets.catalog import progress
from fashion_assets.replica import ReplicaServer
from fashion_assets.resources import catalog_engine
from tests.conftest import normal_brands, pipeline_env

# Each crawl starts a `dagster dev` (a minute on a loaded 2-core machine).
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

DEADLINE_S = 300.0  # a crawl of one brand of the replica, its `dagster dev` started and stopped


def brand_of(replica: ReplicaServer) -> tuple[str, int, int]:
    """A normal brand, its show count and the photo count of its first show."""
    brand = normal_brands(replica)[0]
    return brand.slug, len(brand.shows), len(brand.shows[0].photos)


def crawl_env(tmp_path: Path, database_url: str, replica: ReplicaServer,
              **overrides: str) -> dict[str, str]:
    """The crawl of one brand, one show and one photo at a time; a held photo is never
    timed out (it would be retried into the gate)."""
    return pipeline_env(tmp_path, database_url, f"file://{tmp_path / 'objects'}", replica,
                        DAGSTER_HOME=str(tmp_path / "dagster"), **ONE_AT_A_TIME,
                        **held_client(DEADLINE_S), **overrides)


def drafts(database_url: str) -> list[tuple[str, int]]:
    from sqlalchemy import create_engine, text

    engine = create_engine(database_url)
    try:
        with engine.connect() as conn:
            return [tuple(r) for r in conn.execute(text(
                "SELECT d.source_url, count(i.position) FROM brand_runway_drafts d"
                " LEFT JOIN brand_runway_draft_images i ON i.draft_id = d.id"
                " GROUP BY d.id, d.source_url ORDER BY d.source_url"))]
    finally:
        engine.dispose()


def expected_drafts(replica: ReplicaServer, brand: str) -> list[tuple[str, int]]:
    return sorted((f"https://www.vogue.com{s.path}", len(s.photos))
                  for s in replica.site.brand(brand).shows)


def test_two_concurrent_runs_of_one_brand_make_no_duplicate_and_both_succeed(
        tmp_path: Path, database_url: str, replica: ReplicaServer) -> None:
    """Each command on a Dagster instance of its own: one instance's queue would run the
    two crawls of the brand one after the other, and the catalog must hold without it."""
    env = crawl_env(tmp_path, database_url, replica)
    brand, shows, _ = brand_of(replica)
    crawls: list[CrawlProcess] = []
    replica.hold_images(after=0)
    try:
        crawls = [CrawlProcess(own_instance(env, name, runs=1), [brand], tmp_path / "logs")
                  for name in ("a", "b")]
        # Each run has one photo request in flight: both are inside the same show.
        wait_until(lambda: replica.held_count() == 2, "both runs to reach a photo", crawls,
                   DEADLINE_S)
    finally:
        replica.release_images()
        if len(crawls) < 2:
            for crawl in crawls:
                crawl.kill()
    done = [crawl.finish(DEADLINE_S) for crawl in crawls]

    for run in done:
        assert run.ok, run.log_tail
    assert drafts(database_url) == expected_drafts(replica, brand)
    assert sum(run.shows("created") for run in done) == shows
    assert sum(run.shows("failed") for run in done) == 0


def test_a_run_killed_mid_show_then_run_again_loses_nothing_and_duplicates_nothing(
        tmp_path: Path, database_url: str, replica: ReplicaServer) -> None:
    """The command is killed (SIGKILL) mid-show and its deployment goes with it, run process
    included; its run stays STARTED (nothing of its deployment is left to say otherwise)
    until the next crawl, which fails it before it starts its own."""
    # Every photo fetched in the drafts step, so that a show is drafted as its photos are in.
    env = crawl_env(tmp_path, database_url, replica, FASHION_PHOTOS_WITH_MANIFESTS="false")
    brand, _, first_show_photos = brand_of(replica)
    # Let the first show complete and the second get three photos in, then freeze.
    replica.hold_images(after=first_show_photos + 3)
    crawl = CrawlProcess(env, [brand], tmp_path / "logs")
    try:
        wait_until(lambda: replica.held_count() == 1, "the run to be mid-show", [crawl],
                   DEADLINE_S)
    finally:
        # The command alone, and its deployment gone, before the gate opens: no run process
        # of the killed crawl drafts on.
        crawl.kill()
        replica.release_images()
    killed = drafts(database_url)
    assert len(killed) == 1, "the show completed before the kill is committed"

    rerun = CrawlProcess(env, [brand], tmp_path / "logs").finish(DEADLINE_S)

    assert rerun.ok, rerun.log_tail
    assert drafts(database_url) == expected_drafts(replica, brand)
    [summary] = rerun.summaries
    assert summary["shows"]["skipped_already_ingested"] == 1
    assert summary["shows"]["created"] == len(expected_drafts(replica, brand)) - 1
    with DagsterInstance.from_config(env["DAGSTER_HOME"]) as instance:
        [killed_run] = [r for r in instance.get_runs() if r.run_id != summary["run_id"]]
    assert killed_run.status == DagsterRunStatus.FAILURE
    assert (f"run {killed_run.run_id} failed: the command that started its `dagster dev` was"
            " killed") in rerun.log_tail
    row = progress.get(catalog_engine(database_url), killed_run.run_id)
    assert row is not None and row.status == "failed"
    assert "the command that started the `dagster dev` of this run was killed" in row.note
