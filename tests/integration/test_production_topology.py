"""The production topology end to end, driven by the daemon alone.

Real processes, started from ``deploy/`` as docs/operations.md says (``bench/topology.py``):
a gRPC code server, ``dagster-webserver`` and ``dagster-daemon`` on ``deploy/workspace.yaml``
and ``deploy/dagster.yaml`` (Dagster's storage on PostgreSQL), two Celery workers on
``deploy/celery.yaml`` with the machine's RabbitMQ as the broker (a virtual host of the
test's own), the catalog on PostgreSQL, the store on the S3 API server, the sources on the
replica. Nothing is executed in the test's process: it turns schedules and sensors on with
``dagster schedule start`` / ``dagster sensor start``, approves with ``fashion-assets review
approve``, and reads what happened in Dagster's database, the catalog, the store and the
replica's counters.

In the order of the issue:

1. the crawl schedule's tick (cron every minute) launches one crawl run per brand (batches
   of one), five runs for a limit of four crawls at once: never more than four are in
   progress, and four are;
2. the steps run on both workers (each step's engine event names its worker);
3. one worker is killed with SIGKILL while its crawl step is held at the replica's photo
   gate: the broker hands the step to a worker that lives, the run succeeds, and every show
   of every brand is drafted once with all its photos stored;
4. the site's pages arrive the page delay apart and the CDN never serves more than the
   photo cap at once, whichever worker sent them;
5. approving a brand's drafts through the CLI makes ``approved_drafts_sensor`` launch the
   promotion, and the catalog holds their shows;
6. a photo removed from the store and the catalog makes ``coverage_sensor`` launch a repair
   run that fetches it again.
"""

from __future__ import annotations

import itertools
import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, text

from bench.topology import DEPLOY, Topology, dagster_pg_env, rabbitmq_vhost, wait_for
from fashion_assets.replica import ReplicaServer, build_site, start_replica
from fashion_assets.settings import home_dir
from fashion_assets.sources.registry import VOGUE
from fashion_assets.storage import open_store
from fashion_assets.tags import CRAWL_TAG
from tests.catalog_db import fresh_postgres_database, query
from tests.conftest import PG_ENV, new_s3_bucket, normal_brands, pipeline_env
from tests.s3server import S3Server

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]

BRANDS, SHOWS, PHOTOS = 5, 3, 8  # photos per show: about 8 (the replica varies it)
CRAWL_LIMIT = 4  # deploy/dagster.yaml: tag_concurrency_limits, fashion-assets/crawl
PAGE_DELAY_S, PHOTO_CAP = 0.2, 2
# Two pages of different workers may arrive closer than the delay by the lateness of one
# busy sender (tests/integration/test_host_budget.py: LATE_SENDER_S).
LATE_SENDER_S = 0.1
# A 2-core machine running every process of the topology and other tests beside it.
DEADLINE_S = 600
assert VOGUE.runway_names is not None
CRAWL_JOB, REPAIR_JOB = VOGUE.runway_names.crawl_job, VOGUE.runway_names.repair_job
MANIFESTS = VOGUE.runway_names.manifests


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
            fresh_postgres_database(admin, prefix="fa_dagster") as dagster_db, \
            rabbitmq_vhost() as broker:
        env = pipeline_env(
            tmp_path / "fashion", catalog, new_s3_bucket(s3_server), site,
            **dagster_pg_env(dagster_db),
            AWS_ENDPOINT_URL_S3=s3_server.endpoint_url, CELERY_BROKER_URL=broker,
            FASHION_CRAWL_CRON="* * * * *", FASHION_CRAWL_BATCH_BRANDS="1",
            FASHION_PAGE_DELAY=str(PAGE_DELAY_S),
            FASHION_HOST_IMAGE_CONCURRENCY=str(PHOTO_CAP),
            # One missing photo makes a show incomplete.
            FASHION_COVERAGE_TOLERANCE="0",
            # Photos wait at the gate until both workers hold a step (minutes on a loaded
            # machine): no timeout meanwhile, and no robots.txt (the CDN's would wait too).
            FASHION_HTTP_TIMEOUT=str(DEADLINE_S), FASHION_HTTP_DEADLINE=str(2 * DEADLINE_S),
            FASHION_OBEY_ROBOTS="false")
        with Topology(tmp_path / "deployment", env) as started:
            yield started


@dataclass(frozen=True)
class CeleryStep:
    """A step as a Celery worker began it (its engine event), and whether it ended."""

    run_id: str
    step_key: str
    worker: str
    ended: bool


def celery_steps(instance: Any, run_ids: list[str]) -> list[CeleryStep]:
    """Every step the workers began, in order, from each run's events in Dagster's database.

    A step handed to a second worker has two engine events; only the last can have ended."""
    from dagster import DagsterEventType

    steps = []
    for run_id in run_ids:
        records = instance.all_logs(run_id, of_type={
            DagsterEventType.ENGINE_EVENT, DagsterEventType.STEP_SUCCESS,
            DagsterEventType.STEP_FAILURE})
        ended = {r.dagster_event.step_key for r in records
                 if r.dagster_event.event_type != DagsterEventType.ENGINE_EVENT}
        began = [r.dagster_event for r in records
                 if r.dagster_event.event_type == DagsterEventType.ENGINE_EVENT
                 and "Celery worker" in r.dagster_event.engine_event_data.metadata]
        for i, event in enumerate(began):
            last = all(e.step_key != event.step_key for e in began[i + 1:])
            steps.append(CeleryStep(
                run_id, event.step_key,
                event.engine_event_data.metadata["Celery worker"].value.split("@")[0],
                last and event.step_key in ended))
    return steps


def runs_of(instance: Any, job: str) -> list[Any]:
    from dagster import RunsFilter

    return list(reversed(instance.get_run_records(RunsFilter(job_name=job))))


def finished(records: list[Any], count: int) -> bool:
    return len(records) >= count and all(r.dagster_run.is_finished for r in records)


def most_in_progress(records: list[Any]) -> int:
    """The most runs that were in progress at the same moment, from their start and end."""
    edges = sorted(itertools.chain.from_iterable(
        ((r.start_time, 1), (r.end_time, -1)) for r in records))
    return max(itertools.accumulate(change for _, change in edges))


def test_the_daemon_crawls_on_two_celery_workers_survives_a_killed_one_promotes_and_repairs(
        topology: Topology, site: ReplicaServer) -> None:
    env = topology.env
    catalog = env["FASHION_DATABASE_URL"]
    for brand in site.site.brands:
        topology.fashion_assets("brands", "add", brand.slug)

    # 1-3: the schedule's tick, both workers busy, one of them killed in the middle of a step.
    site.reset_stats()
    site.hold_images(0)
    try:
        topology.turn_on("schedule", "full_crawl_schedule")
        with topology.instance() as instance:
            wait_for(lambda: len(runs_of(instance, CRAWL_JOB)) >= BRANDS,
                     "the schedule's tick to launch a crawl run per brand", DEADLINE_S,
                     topology.check_running)
            # One tick is enough: the next minute's would crawl everything again.
            topology.turn_off("schedule", "full_crawl_schedule")
            crawl_ids = [r.dagster_run.run_id for r in runs_of(instance, CRAWL_JOB)]

            def held_on_both() -> bool:
                busy = {s.worker for s in celery_steps(instance, crawl_ids)
                        if s.step_key == MANIFESTS and not s.ended}
                return busy == {"worker-1", "worker-2"} and site.held_count() >= 1

            wait_for(held_on_both, "a crawl step held at the photo gate on each worker",
                     DEADLINE_S, topology.check_running)
            [killed] = [s for s in celery_steps(instance, crawl_ids)
                        if s.worker == "worker-1" and not s.ended]
            topology.services["worker-1"].kill()
    finally:
        site.release_images()
    with topology.instance() as instance:
        wait_for(lambda: finished(runs_of(instance, CRAWL_JOB), BRANDS),
                 "every crawl run to end", DEADLINE_S,
                 lambda: [topology.services[n].check_running() for n in
                          ("code-server", "webserver", "daemon", "worker-2")])
        crawls = runs_of(instance, CRAWL_JOB)
        steps = celery_steps(instance, [r.dagster_run.run_id for r in crawls])

    assert len(crawls) == BRANDS, "one tick, one run per brand"
    assert all(r.dagster_run.tags.get("dagster/schedule_name") == "full_crawl_schedule"
               and r.dagster_run.tags.get(CRAWL_TAG) for r in crawls)
    assert [r.dagster_run.status.value for r in crawls] == ["SUCCESS"] * BRANDS
    assert most_in_progress(crawls) == CRAWL_LIMIT
    assert {s.worker for s in steps} == {"worker-1", "worker-2"}
    # The killed step began again on the worker that lived, and ended there.
    again = [s for s in steps if (s.run_id, s.step_key) == (killed.run_id, killed.step_key)]
    assert [(s.worker, s.ended) for s in again] == [("worker-1", False), ("worker-2", True)]
    # Every show of every brand drafted once, with all its photos, and none failed.
    drafts = query(catalog, "SELECT source_url, count(*), max(stored_images) FROM "
                   "brand_runway_drafts GROUP BY source_url")
    shows = [show for brand in site.site.brands for show in brand.shows]
    assert sorted(drafts) == sorted((f"https://www.vogue.com{show.path}", 1, len(show.photos))
                                    for show in shows)
    assert query(catalog, "SELECT count(*) FROM ingest_log WHERE outcome = 'failed'") == [(0,)]
    store = open_store(env["FASHION_STORE_URL"], home=home_dir(env))
    keys = [k for (k,) in query(catalog, "SELECT object_key FROM brand_runway_draft_images")]
    assert len(keys) == sum(len(show.photos) for show in shows) and not store.missing(keys)

    # No step handed data to the next through the IO manager: the workers share nothing but
    # PostgreSQL, S3 and the broker (docs/operations.md, "What runs where").
    assert [p for p in (topology.home / "storage").rglob("*") if p.is_file()
            and not {"compute_logs", "__repository__"} & set(p.parts)] == []

    # 4: politeness across workers, measured at the replica.
    stats, pages = site.stats(), site.arrivals("site", "page")
    assert 0 < stats.peak_in_flight["cdn"] <= PHOTO_CAP
    assert len(pages) >= BRANDS * (1 + SHOWS)
    assert all(later - earlier >= (j - i) * PAGE_DELAY_S - LATE_SENDER_S
               for (i, earlier), (j, later) in itertools.combinations(enumerate(pages), 2))

    # The killed worker's machine comes back, and answers Celery's ping with the other
    # (docs/operations.md's command).
    topology.start_worker("worker-1")
    topology.wait_ready("worker-1")
    pong = topology.celery("inspect", "ping")
    assert all(f"worker-{n}@{socket.gethostname()}" in pong for n in (1, 2)), pong

    # The UI sees the runs the daemon launched.
    assert graphql_run_statuses(topology) == {r.dagster_run.run_id: "SUCCESS" for r in crawls}

    # 5: an editor approves a brand's drafts; the sensor promotes them.
    brand = site.site.brands[0]
    ids = [f"runway:{i}" for (i,) in query(
        catalog, "SELECT id FROM brand_runway_drafts WHERE brand_slug = :b ORDER BY id",
        b=brand.slug)]
    topology.fashion_assets("review", "approve", *ids)
    topology.turn_on("sensor", "approved_drafts_sensor")
    with topology.instance() as instance:
        wait_for(lambda: finished(runs_of(instance, "promote_approved_drafts"), 1),
                 "the promotion run", DEADLINE_S, topology.check_running)
        [promotion] = runs_of(instance, "promote_approved_drafts")
    assert promotion.dagster_run.status.value == "SUCCESS"
    entries = query(catalog, "SELECT stored_images FROM brand_runways WHERE brand_slug = :b",
                    b=brand.slug)
    assert sorted(entries) == sorted((len(show.photos),) for show in brand.shows)

    # 6: a photo lost from the store and the catalog; the coverage sensor repairs it.
    [(draft_id, gone)] = query(
        catalog, "SELECT d.id, i.object_key FROM brand_runway_drafts d JOIN "
        "brand_runway_draft_images i ON i.draft_id = d.id WHERE d.brand_slug = :b "
        "ORDER BY d.id, i.position LIMIT 1", b=brand.slug)
    before = draft_photos(catalog, draft_id)
    assert store.delete(gone)
    engine = create_engine(catalog)
    with engine.begin() as conn:
        for table in ("brand_runway_draft_images", "brand_runway_images"):
            conn.execute(text(f"DELETE FROM {table} WHERE object_key = :k"), {"k": gone})
    engine.dispose()
    site.reset_stats()
    topology.turn_on("sensor", "coverage_sensor")
    with topology.instance() as instance:
        wait_for(lambda: finished(runs_of(instance, REPAIR_JOB), 1), "the repair run",
                 DEADLINE_S, topology.check_running)
        [repair] = runs_of(instance, REPAIR_JOB)
    assert repair.dagster_run.status.value == "SUCCESS"
    assert draft_photos(catalog, draft_id) == before
    assert not store.missing([gone])
    assert sum(n for path, n in site.stats().by_path.items()
               if path.startswith("/photos/")) == 1


def draft_photos(catalog: str, draft_id: int) -> list[str]:
    return [k for (k,) in query(catalog, "SELECT object_key FROM brand_runway_draft_images "
                                "WHERE draft_id = :d ORDER BY position", d=draft_id)]


RUNS_QUERY = """
query { runsOrError { ... on Runs { results { runId status } } } }
"""


def graphql_run_statuses(topology: Topology) -> dict[str, str]:
    answer = httpx.post(f"{topology.web_url}/graphql", json={"query": RUNS_QUERY}, timeout=30)
    answer.raise_for_status()
    return {run["runId"]: run["status"]
            for run in answer.json()["data"]["runsOrError"]["results"]}


def test_the_cli_runs_its_crawl_as_the_deployment_executes_runs_celery_included(
        tmp_path: Path, replica: ReplicaServer) -> None:
    """One engine: a production host's environment names the Celery executor and a broker,
    and the command's runs go through the same executor as the daemon's, never beside it. With
    no broker to reach (nothing listens on its port), the run fails, and the command says so
    in its line and its exit status instead of crawling on its own."""
    brand = normal_brands(replica)[0]
    env = pipeline_env(tmp_path, f"sqlite:///{tmp_path / 'catalog.db'}",
                       f"file://{tmp_path / 'objects'}", replica,
                       DAGSTER_HOME=str(tmp_path / "dagster"),
                       FASHION_CELERY_CONFIG=str(DEPLOY / "celery.yaml"),
                       CELERY_BROKER_URL="pyamqp://guest:guest@127.0.0.1:9//")
    done = subprocess.run([sys.executable, "-m", "fashion_assets", "crawl", "--json",
                           "--brand", brand.slug], env={**os.environ, **env},
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stderr[-3000:]
    [summary] = json.loads(done.stdout)["crawls"]
    assert not summary["success"] and "shows" not in summary, summary
