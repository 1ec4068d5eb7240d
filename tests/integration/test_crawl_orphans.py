"""A crawl ends with all its processes: killed outright (SIGKILL), its workers die with it and
its runs, dead though Dagster says STARTED, are told apart and failed; stopped with SIGTERM,
it starts nothing more, ends its runs and exits 143, in worker processes and in one process
alike.

Real ``fashion-assets crawl`` processes, each leading a session (and so a process group) of
its own that its fork server, workers and Dagster's helpers share, held mid-show by the
replica's image gate; the Dagster instance on PostgreSQL (``dagster_instance``), shared with
the sensor as a daemon shares it with the runs. The signals go to the command alone, never
to its group: whatever else ends must end because the command did.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from dagster import DagsterInstance, DagsterRunStatus, build_sensor_context
from sqlalchemy import Engine

from bench.reliability import ONE_AT_A_TIME, CrawlProcess, wait_until
from fashion_assets.catalog import progress
from fashion_assets.processes import ProcessMark, is_gone
from fashion_assets.replica import ReplicaServer, build_site, start_replica
from fashion_assets.resources import catalog_engine, resources_from_env
from fashion_assets.runs import PROCESS_TAG  # TODO
from fashion_assets.sensors.stuck_runs import stuck_runs_sensor
from fashion_assets.status import crawler_status
from fashion_assets.storage import open_store
from tests.conftest import pipeline_env
from tests.integration.test_review_app import review_app, serve, sign_in
from tests.processes import describe, group_processes

pytestmark = pytest.mark.slow

GONE_S = 30.0  # how long the processes of a crawl that ended may take to be gone


@dataclass(frozen=True)
class HeldCrawl:
    """A crawl of every brand of the replica, each run in progress held at its first photo."""

    process: CrawlProcess
    env: dict[str, str]
    engine: Engine
    run_ids: list[str]

    @property
    def pid(self) -> int:
        return self.process.process.pid

    def all_gone(self) -> None:
        """Wait until no process of the crawl's group is alive; fail naming those left."""
        try:
            wait_until(lambda: not group_processes(self.pid), "every process of the crawl to end",
                       [], GONE_S)
        except AssertionError as late:
            left = [describe(p) for p in group_processes(self.pid)]
            raise AssertionError(f"{late}: left {left}") from None


@pytest.fixture
def replica_site() -> Iterator[ReplicaServer]:
    site = build_site(brands=2, shows_per_brand=2, photos_per_show=4, hostile=False, seed=3)
    with start_replica(site) as server:
        yield server


@pytest.fixture
def held_crawl(request: pytest.FixtureRequest, tmp_path: Path,
               dagster_instance: DagsterInstance, replica_site: ReplicaServer
               ) -> Iterator[HeldCrawl]:
    """``fashion-assets crawl`` with the test's parameter: ``--workers`` and how many brands
    (one brand: a crawl of one, in the command's own process; more: a fresh worker process
    per run), once every run it has in progress waits at the gate; afterwards the gate opens
    and whatever is left of the crawl is killed. A stuck threshold of 10 minutes: nothing
    here may end a run for want of a heartbeat."""
    workers, brands = request.param
    database_url = f"sqlite:///{tmp_path / 'catalog.db'}"
    env = pipeline_env(tmp_path, database_url, f"file://{tmp_path / 'objects'}", replica_site,
                       DAGSTER_HOME=str(tmp_path / "dagster-home"),
                       FASHION_STUCK_AFTER_SECONDS="600", **ONE_AT_A_TIME)
    # The CDN's robots.txt passes (one client reads it for all); then each run's first photo
    # is held, in its manifests step, which fetches the photos of each show it reads.
    replica_site.hold_images(after=1)
    crawl = CrawlProcess(env, [b.slug for b in replica_site.site.brands][:brands], workers,
                         tmp_path / "logs")
    try:
        engine = catalog_engine(database_url)
        wait_until(lambda: replica_site.held_count() >= workers and [
            r.step for r in progress.running(engine)] == ["manifests"] * workers,
            f"{workers} runs held at a photo", [crawl], 120)
        yield HeldCrawl(crawl, env, engine, [r.run_id for r in progress.running(engine)])
    finally:
        replica_site.release_images()
        crawl.kill()


def evaluate_sensor(instance: DagsterInstance, env: dict[str, str]) -> str:
    with build_sensor_context(instance=instance, resources=resources_from_env(env)) as context:
        return stuck_runs_sensor(context).skip_message


@pytest.mark.parametrize("held_crawl", [(2, 2)], indirect=True)
def test_a_crawl_killed_outright_takes_its_workers_along_and_its_dead_runs_are_failed(
        held_crawl: HeldCrawl, dagster_instance: DagsterInstance) -> None:
    crawl = held_crawl
    started = group_processes(crawl.pid)
    assert len(started) >= 4, f"not the command, its fork server and two workers: {started}"

    os.kill(crawl.pid, signal.SIGKILL)

    assert crawl.process.process.wait(timeout=GONE_S) == -signal.SIGKILL
    crawl.all_gone()
    # Dagster still says both runs run, and so does the catalog; only their processes tell.
    assert {dagster_instance.get_run_by_id(r).status for r in crawl.run_ids} == {
        DagsterRunStatus.STARTED}
    status = crawler_status(crawl.engine, dagster_instance)
    assert status["line"].startswith("crawler: running 0,")
    assert [c["process_gone"] for c in status["running"]] == [True, True]
    # The /crawler page marks both rows, as its script does on each refresh.
    store = open_store(crawl.env["FASHION_STORE_URL"], home=Path(crawl.env["FASHION_HOME"]))
    with serve(review_app(crawl.engine, store, instance=dagster_instance)) as url:
        page = sign_in(url).get("/crawler").text
    assert page.count('<small class="gone">process gone</small>') == 2, page
    for run_id in crawl.run_ids:
        assert f'<tr class="crawl gone" id="crawl-{run_id}">' in page, page

    said = evaluate_sensor(dagster_instance, crawl.env)

    assert said.startswith("failed 2 crawl runs whose process is gone"), said
    for run_id in crawl.run_ids:
        assert dagster_instance.get_run_by_id(run_id).status == DagsterRunStatus.FAILURE
        row = progress.get(crawl.engine, run_id)
        assert row is not None and row.status == "failed" and "is gone" in row.note
    assert evaluate_sensor(dagster_instance, crawl.env) == "no stuck crawl run"


@pytest.mark.parametrize("held_crawl", [(2, 2), (1, 2), (1, 1)], indirect=True,
                         ids=["workers", "one-worker", "one-process"])
def test_sigterm_stops_the_crawl_ends_its_runs_and_exits_143(
        held_crawl: HeldCrawl, dagster_instance: DagsterInstance, request: pytest.FixtureRequest
        ) -> None:
    """With workers, they are killed and their runs canceled; in one process, the held step
    is cancelled and its run fails. The second brand of the one-worker crawl, not started
    yet, is never started."""
    crawl = held_crawl

    os.kill(crawl.pid, signal.SIGTERM)

    assert crawl.process.process.wait(timeout=60) == 128 + signal.SIGTERM
    crawl.all_gone()
    assert "crawl stopped by SIGTERM: no further partition started" in crawl.process.log_tail()
    runs = dagster_instance.get_runs()
    assert sorted(run.run_id for run in runs) == sorted(crawl.run_ids)
    in_workers = request.node.callspec.id != "one-process"
    ended = {DagsterRunStatus.CANCELED if in_workers else DagsterRunStatus.FAILURE}
    assert {run.status for run in runs} == ended
    for run_id in crawl.run_ids:
        row = progress.get(crawl.engine, run_id)
        assert row is not None and row.status == "terminated"
        assert "crawl stopped by SIGTERM" in row.note


@pytest.mark.parametrize("held_crawl", [(2, 2)], indirect=True)
def test_a_worker_killed_mid_run_fails_that_run_and_the_crawl_goes_on(
        held_crawl: HeldCrawl, dagster_instance: DagsterInstance,
        replica_site: ReplicaServer) -> None:
    """Each run has a process of its own: one killed (out of memory, an operator) fails
    its run, named in the crawl's summary, while the other run ends as if nothing happened."""
    crawl = held_crawl
    killed, spared = crawl.run_ids
    mark = ProcessMark.parse(dagster_instance.get_run_by_id(killed).tags[PROCESS_TAG])
    assert mark is not None and mark.pid != crawl.pid

    os.kill(mark.pid, signal.SIGKILL)
    wait_until(lambda: is_gone(mark), "the killed worker to be gone", [crawl.process], GONE_S)
    replica_site.release_images()

    done = crawl.process.finish(deadline_s=120)
    assert done.returncode == 1, done.log_tail
    partition = dagster_instance.get_run_by_id(killed).tags["dagster/partition"]
    [failed] = [s for s in done.summaries if not s["success"]]
    assert failed["partition"] == partition
    assert failed["error"] == "its worker process ended mid-run (killed by SIGKILL)"
    assert [s["success"] for s in done.summaries].count(True) == 1
    assert dagster_instance.get_run_by_id(killed).status == DagsterRunStatus.FAILURE
    assert dagster_instance.get_run_by_id(spared).status == DagsterRunStatus.SUCCESS
    row = progress.get(crawl.engine, killed)
    assert row is not None and row.status == "failed" and "is gone" in row.note
    crawl.all_gone()
