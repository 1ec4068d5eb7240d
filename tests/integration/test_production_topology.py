"""The production topology end to end, driven by the daemon alone.

Real processes, started from ``deploy/`` as docs/operations.md says (``bench/topology.py``):
a gRPC code server, ``dagster-webserver`` and ``dagster-daemon`` on ``deploy/workspace.yaml``
and ``deploy/dagster.yaml`` (Dagster's storage on PostgreSQL), whose run launcher sends whole
runs to two Celery workers started on ``deploy/celery.yaml`` (two runs at a time each), with
the machine's RabbitMQ as the broker (a virtual host of the test's own) and a PostgreSQL
database as the result backend; the catalog on PostgreSQL, the store on the S3 API server,
the sources on the replica. Nothing is executed in the test's process: it turns schedules
and sensors on with ``dagster schedule start`` / ``dagster sensor start``, crawls and
approves with ``fashion-assets``, and reads what happened in Dagster's database, the
catalog, the store and the replica's counters.

In the order of the issue:

1. the crawl schedule's tick (cron every minute) launches one crawl run per brand (batches
   of one), five runs for a limit of four crawls at once: never more than four are in
   progress, and four are, two on each worker;
2. one worker is killed with SIGKILL while its runs are held at the replica's photo gate:
   the run monitor fails exactly its two runs, saying their worker is gone (the broker's
   redelivery does not run them twice), and the other three succeed;
3. the site's pages arrive the page delay apart and the CDN never serves more than the
   photo cap at once, whichever worker sent them;
4. a run terminated from the UI while its photos wait at the gate is revoked on its worker
   and ends CANCELED by its own step's interrupt (SIGTERM in the worker's pool process), its
   progress row ended, not left to the run monitor's cancel timeout;
5. the killed worker's machine comes back; ``fashion-assets crawl`` of the two failed
   brands, submitted to the webserver, runs on the workers like the daemon's runs, shows
   in the UI, and every show of every brand is drafted once with all its photos stored;
6. approving a brand's drafts through the CLI makes ``approved_drafts_sensor`` launch the
   promotion, and the catalog holds their shows;
7. a photo removed from the store and the catalog makes ``coverage_sensor`` launch a repair
   run that fetches it again.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest
from dagster import DagsterEventType
from dagster_celery.tags import DAGSTER_CELERY_TASK_ID_TAG
from sqlalchemy import create_engine, text

from bench.topology import Service, Topology, dagster_pg_env, rabbitmq_vhost, wait_for
from fashion_assets.launch.crawl import crawl_tags
from fashion_assets.launch.graphql import (
    GraphQL,
    RunRequest,
    job_selectors,
    launch_runs,
    terminate_runs,
)
from fashion_assets.replica import ReplicaServer, build_site, start_replica
from fashion_assets.settings import home_dir
from fashion_assets.sources.registry import VOGUE
from fashion_assets.storage import open_store
from fashion_assets.tags import CRAWL_TAG
from tests.catalog_db import fresh_postgres_database, query
from tests.conftest import PG_ENV, new_s3_bucket, pipeline_env
from tests.s3server import S3Server

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]

BRANDS, SHOWS, PHOTOS = 5, 3, 8  # photos per show: about 8 (the replica varies it)
CRAWL_LIMIT = 4  # deploy/dagster.yaml: tag_concurrency_limits, fashion-assets/crawl
RUNS_PER_WORKER = 2  # each worker's --concurrency: the two workers hold the four crawls
PAGE_DELAY_S, PHOTO_CAP = 0.2, 2
# Two pages of different workers may arrive closer than the delay by the lateness of one
# busy sender (tests/integration/test_host_budget.py: LATE_SENDER_S).
LATE_SENDER_S = 0.1
# A 2-core machine running every process of the topology and other tests beside it.
DEADLINE_S = 600
assert VOGUE.runway_names is not None
CRAWL_JOB, REPAIR_JOB = VOGUE.runway_names.crawl_job, VOGUE.runway_names.repair_job


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
            fresh_postgres_database(admin, prefix="fa_celery") as results, \
            rabbitmq_vhost() as broker:
        env = pipeline_env(
            tmp_path / "fashion", catalog, new_s3_bucket(s3_server), site,
            **dagster_pg_env(dagster_db),
            AWS_ENDPOINT_URL_S3=s3_server.endpoint_url, CELERY_BROKER_URL=broker,
            CELERY_RESULT_BACKEND=f"db+{results}",
            FASHION_CRAWL_CRON="* * * * *", FASHION_CRAWL_BATCH_BRANDS="1",
            FASHION_PAGE_DELAY=str(PAGE_DELAY_S),
            FASHION_HOST_IMAGE_CONCURRENCY=str(PHOTO_CAP),
            # One missing photo makes a show incomplete.
            FASHION_COVERAGE_TOLERANCE="0",
            # Photos wait at the gate until both workers hold two runs (minutes on a loaded
            # machine): no timeout meanwhile.
            FASHION_HTTP_TIMEOUT=str(DEADLINE_S), FASHION_HTTP_DEADLINE=str(2 * DEADLINE_S))
        with Topology(tmp_path / "deployment", env, worker_concurrency=RUNS_PER_WORKER) as up:
            yield up


STARTED_PROCESS = re.compile(r"Started process for run \(pid: (\d+)\)")


def run_pids(instance: Any, run_ids: list[str]) -> dict[str, int]:
    """The process each run executes in, from its engine event in Dagster's database."""
    from dagster import DagsterEventType

    pids = {}
    for run_id in run_ids:
        for record in instance.all_logs(run_id, of_type=DagsterEventType.ENGINE_EVENT):
            found = STARTED_PROCESS.search(record.dagster_event.message or "")
            if found:
                pids[run_id] = int(found.group(1))
    return pids


def pool(worker: Service) -> set[int]:
    """The processes of a worker's group (its pool's children among them)."""
    try:
        return {p.pid for p in psutil.Process(worker.process.pid).children(recursive=True)}
    except psutil.NoSuchProcess:
        return set()


def runs_of(instance: Any, job: str) -> list[Any]:
    from dagster import RunsFilter

    return list(reversed(instance.get_run_records(RunsFilter(job_name=job))))


def run_statuses(instance: Any, run_ids: list[str]) -> list[str]:
    """Each run's status now, as Dagster's database has it."""
    return [instance.get_run_by_id(run_id).status.value for run_id in run_ids]


def finished(records: list[Any], count: int) -> bool:
    return len(records) >= count and all(r.dagster_run.is_finished for r in records)


def most_in_progress(records: list[Any]) -> int:
    """The most runs that were in progress at the same moment, from their start and end."""
    edges = sorted(itertools.chain.from_iterable(
        ((r.start_time, 1), (r.end_time, -1)) for r in records))
    return max(itertools.accumulate(change for _, change in edges))


def failure_message(instance: Any, run_id: str) -> str:
    from dagster import DagsterEventType

    [record] = instance.all_logs(run_id, of_type=DagsterEventType.RUN_FAILURE)
    return record.dagster_event.message or ""


def test_the_daemon_crawls_on_two_celery_workers_fails_a_killed_ones_runs_promotes_repairs(
        topology: Topology, site: ReplicaServer) -> None:
    env = topology.env
    catalog = env["FASHION_DATABASE_URL"]
    for brand in site.site.brands:
        topology.fashion_assets("brands", "add", brand.slug)
    workers = {name: topology.services[name] for name in ("worker-1", "worker-2")}

    # 1-2: the schedule's tick, two runs on each worker, one worker killed in the middle.
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

            def on_worker(name: str) -> set[str]:
                processes = pool(workers[name])
                return {run for run, pid in run_pids(instance, crawl_ids).items()
                        if pid in processes}

            # Each run is STARTED (its RUN_START written, so its start time too), not only
            # in its worker's process: a run killed while STARTING was handed to the other
            # worker by the broker and ran there after a survivor ended (3 runs at most at
            # once instead of 4). The photos are held, so none of the four can end meanwhile.
            wait_for(lambda: [len(on_worker(n)) for n in workers] == [RUNS_PER_WORKER] * 2
                     and run_statuses(instance, crawl_ids).count("STARTED") == CRAWL_LIMIT
                     and site.held_count() >= 1,
                     "two crawl runs started on each worker, photos held at the gate",
                     DEADLINE_S, topology.check_running)
            # The limit reached and held, read from the runs' states at one moment: four
            # started, the fifth still queued behind them.
            assert sorted(run_statuses(instance, crawl_ids)) == (
                ["QUEUED"] * (BRANDS - CRAWL_LIMIT) + ["STARTED"] * CRAWL_LIMIT)
            killed = on_worker("worker-1")
            workers["worker-1"].kill()
    finally:
        site.release_images()

    def all_but_the_killed_running() -> None:
        for name in ("code-server", "webserver", "daemon", "worker-2"):
            topology.services[name].check_running()

    with topology.instance() as instance:
        wait_for(lambda: finished(runs_of(instance, CRAWL_JOB), BRANDS),
                 "every crawl run to end", DEADLINE_S, all_but_the_killed_running)
        crawls = runs_of(instance, CRAWL_JOB)
        failures = {r.dagster_run.run_id: failure_message(instance, r.dagster_run.run_id)
                    for r in crawls if r.dagster_run.status.value == "FAILURE"}

    assert len(crawls) == BRANDS, "one tick, one run per brand"
    assert all(r.dagster_run.tags.get("dagster/schedule_name") == "full_crawl_schedule"
               and r.dagster_run.tags.get(CRAWL_TAG) for r in crawls)
    assert most_in_progress(crawls) == CRAWL_LIMIT
    # Exactly the killed worker's runs failed, each saying why; the others succeeded.
    assert set(failures) == killed, failures
    assert all("Celery" in message and "worker" in message for message in failures.values()), \
        failures
    assert sorted(r.dagster_run.status.value for r in crawls) == (
        ["FAILURE"] * RUNS_PER_WORKER + ["SUCCESS"] * (BRANDS - RUNS_PER_WORKER))
    # Batches of one brand: each run's partition range is its brand.
    failed_brands = sorted(r.dagster_run.tags["dagster/asset_partition_range_start"]
                           for r in crawls if r.dagster_run.run_id in killed)

    # No run handed data to another through the IO manager: the workers share nothing but
    # PostgreSQL, S3 and the broker (docs/operations.md, "What runs where").
    assert [p for p in (topology.home / "storage").rglob("*") if p.is_file()
            and not {"compute_logs", "__repository__"} & set(p.parts)] == []

    # 3: politeness across workers, measured at the replica.
    stats, pages = site.stats(), site.arrivals("site", "page")
    assert 0 < stats.peak_in_flight["cdn"] <= PHOTO_CAP
    assert len(pages) >= BRANDS
    assert all(later - earlier >= (j - i) * PAGE_DELAY_S - LATE_SENDER_S
               for (i, earlier), (j, later) in itertools.combinations(enumerate(pages), 2))

    # 4: a run terminated from the UI (terminateRuns, as its Terminate button does) while its
    # photos are held; only worker-2 is up, so it runs there.
    graphql = GraphQL(topology.web_url)
    site.hold_images(0)
    try:
        [terminated] = launch_runs(graphql, job_selectors(graphql), [
            RunRequest(CRAWL_JOB, crawl_tags("brand", failed_brands[0]))])
        with topology.instance() as instance:
            wait_for(lambda: instance.get_run_by_id(terminated).status.value == "STARTED"
                     and site.held_count() >= 1, "the run to wait at the photo gate",
                     DEADLINE_S, all_but_the_killed_running)
            terminate_runs(graphql, [terminated])
            wait_for(lambda: instance.get_run_by_id(terminated).is_finished,
                     "the terminated run to end", DEADLINE_S, all_but_the_killed_running)
            status = instance.get_run_by_id(terminated).status.value
            ending = [f"{r.dagster_event.event_type_value}: {r.dagster_event.message}" if
                      r.dagster_event else r.user_message for r in instance.all_logs(terminated)]
            step_failures = [r.dagster_event.event_specific_data.error.message for r in
                             instance.all_logs(terminated, of_type=DagsterEventType.STEP_FAILURE)]
    finally:
        site.release_images()
    assert status == "CANCELED", "\n".join(ending[-12:] + step_failures)
    # Its step saw the interrupt and ended its progress row: the run did not sit CANCELING
    # until the run monitor's cancel timeout marked it.
    assert any("interrupted: the run was terminated" in m for m in step_failures), step_failures
    assert query(catalog, "SELECT status FROM crawl_progress WHERE run_id = :r",
                 r=terminated) == [("terminated",)]

    # 5: the killed worker's machine comes back, and answers Celery's ping with the other
    # (docs/operations.md's command); the command crawls the two failed brands through the
    # webserver, on the workers, and the UI sees its runs as the daemon's.
    topology.start_worker("worker-1")
    topology.wait_ready("worker-1")
    pong = topology.celery("inspect", "ping")
    assert all(f"worker-{n}@{socket.gethostname()}" in pong for n in (1, 2)), pong
    out = topology.fashion_assets("crawl", "--json", *itertools.chain.from_iterable(
        ("--brand", brand) for brand in failed_brands))
    assert all(summary["success"] for summary in json.loads(out)["crawls"]), out
    with topology.instance() as instance:
        again = [r for r in runs_of(instance, CRAWL_JOB)
                 if r.dagster_run.run_id not in {c.dagster_run.run_id for c in crawls}
                 | {terminated}]
    assert again and all(DAGSTER_CELERY_TASK_ID_TAG in r.dagster_run.tags for r in again)
    statuses = graphql_run_statuses(topology)
    assert {r.dagster_run.run_id: statuses[r.dagster_run.run_id] for r in again} == {
        r.dagster_run.run_id: "SUCCESS" for r in again}
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

    # 6: an editor approves a brand's drafts; the sensor promotes them.
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

    # 7: a photo lost from the store and the catalog; the coverage sensor repairs it.
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
