"""A backfill of brands launched through the webserver, as the UI's backfill dialog sends it.

The production processes of docs/operations.md (``bench/topology.py``: a gRPC code server,
``dagster-webserver`` and ``dagster-daemon`` on ``deploy/``'s files, Dagster's storage on
PostgreSQL), with the steps executed on the daemon's host (no Celery worker): the backfill
daemon turns the backfill into runs of ``FASHION_CRAWL_BATCH_BRANDS`` brands (the assets'
backfill policy), each run a partition range, and Dagster adds the assets' checks to every
run of an asset backfill. Each run must succeed, its check step included, and every show of
every brand be drafted.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.topology import (
    BACKFILL_RUNS,
    LAUNCH_BACKFILL,
    Topology,
    dagster_pg_env,
    wait_for,
)
from fashion_assets.launch.graphql import GraphQL
from fashion_assets.replica import ReplicaServer, build_site, start_replica
from fashion_assets.sources.registry import VOGUE
from tests.catalog_db import fresh_postgres_database, query
from tests.conftest import PG_ENV, new_s3_bucket, pipeline_env
from tests.s3server import S3Server

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

BRANDS, SHOWS, PHOTOS, PER_RUN = 4, 2, 3, 2
DEADLINE_S = 600
assert VOGUE.runway_names is not None
ASSETS = (VOGUE.runway_names.listings, VOGUE.runway_names.manifests, VOGUE.runway_names.drafts)

BACKFILL_STATUS = """
query BackfillStatus($id: String!) {
  partitionBackfillOrError(backfillId: $id) { ... on PartitionBackfill { status } }
}"""


@pytest.fixture(scope="module")
def site() -> Iterator[ReplicaServer]:
    server = start_replica(build_site(brands=BRANDS, shows_per_brand=SHOWS,
                                      photos_per_show=PHOTOS, hostile=False))
    yield server
    server.stop()


@pytest.fixture
def topology(tmp_path: Path, site: ReplicaServer, s3_server: S3Server,
             monkeypatch: pytest.MonkeyPatch) -> Iterator[Topology]:
    monkeypatch.setenv("AWS_ENDPOINT_URL_S3", s3_server.endpoint_url)
    admin = os.environ[PG_ENV]
    with fresh_postgres_database(admin) as catalog, \
            fresh_postgres_database(admin, prefix="fa_dagster") as dagster_db:
        env = pipeline_env(tmp_path / "fashion", catalog, new_s3_bucket(s3_server), site,
                           **dagster_pg_env(dagster_db),
                           AWS_ENDPOINT_URL_S3=s3_server.endpoint_url,
                           FASHION_CRAWL_BATCH_BRANDS=str(PER_RUN))
        with Topology(tmp_path / "deployment", env, workers=()) as started:
            yield started


def test_a_backfill_of_brands_from_the_ui_runs_every_batch_and_its_checks(
        topology: Topology, site: ReplicaServer) -> None:
    brands = [brand.slug for brand in site.site.brands]
    for slug in brands:
        topology.fashion_assets("brands", "add", slug)
    graphql = GraphQL(topology.web_url)

    answer = graphql(LAUNCH_BACKFILL, params={
        "assetSelection": [{"path": [asset]} for asset in ASSETS], "partitionNames": brands,
        "title": "every brand (test_ui_backfill)"})["launchPartitionBackfill"]
    assert answer["__typename"] == "LaunchBackfillSuccess", answer
    backfill = answer["backfillId"]

    def ended() -> bool:
        status = graphql(BACKFILL_STATUS, id=backfill)["partitionBackfillOrError"]["status"]
        return status in ("COMPLETED", "COMPLETED_SUCCESS", "COMPLETED_FAILED", "FAILED",
                          "CANCELED")

    wait_for(ended, "the backfill to end", DEADLINE_S, topology.check_running)
    runs = graphql(BACKFILL_RUNS, id=backfill)["runsOrError"]["results"]
    assert len(runs) == BRANDS // PER_RUN
    assert [run["status"] for run in runs] == ["SUCCESS"] * len(runs), topology.logs()
    assert all({key["path"][-1] for key in run["assetSelection"]} == set(ASSETS)
               for run in runs)

    with topology.instance() as instance:
        checks = [_check_evaluations(instance, run_id) for run_id in _run_ids(instance, backfill)]
    # Each run's check step judged its range: one evaluation on each brand it crawled, and
    # its own result over the range (on no partition: a range has no partition key); all
    # passed, every show drafted with its photos.
    assert sorted(key for evaluations in checks for key, _ in evaluations if key) == (
        sorted(brands))
    assert [[passed for key, passed in evaluations if key is None] for evaluations in checks
            ] == [[True]] * len(runs)
    assert all(passed for evaluations in checks for _, passed in evaluations)

    catalog = topology.env["FASHION_DATABASE_URL"]
    drafted = query(catalog, "SELECT brand_slug, count(*) FROM brand_runway_drafts "
                    "GROUP BY brand_slug")
    assert sorted(drafted) == sorted((slug, SHOWS) for slug in brands)


def _run_ids(instance: Any, backfill: str) -> list[str]:
    from dagster import RunsFilter

    return [run.run_id for run in instance.get_runs(RunsFilter(tags={"dagster/backfill":
                                                                      backfill}))]


def _check_evaluations(instance: Any, run_id: str) -> list[tuple[str | None, bool]]:
    """The partition health evaluations of a run's check step: (partition, passed)."""
    from dagster import DagsterEventType

    records = instance.all_logs(run_id, of_type=DagsterEventType.ASSET_CHECK_EVALUATION)
    step = [r for r in records if r.step_key and "partition_health" in r.step_key]
    return [(r.dagster_event.event_specific_data.partition,
             r.dagster_event.event_specific_data.passed) for r in step]
