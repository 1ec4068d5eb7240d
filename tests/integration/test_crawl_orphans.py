"""A crawl ends with all its processes, and leaves no run marked as running.

``fashion-assets crawl`` submits its runs to a ``dagster dev`` it starts for them, in a
session of its own behind a watchdog (``fashion_assets.launch.deployment``); the crawl's
work happens in that deployment's run processes. So:

- killed outright (SIGKILL, the OOM killer), the command takes its deployment along (the
  watchdog sees its pipe close), run processes included; Dagster still says their runs run,
  so the next command fails them, and their brands can be crawled again;
- stopped with SIGTERM, it ends its runs (queued ones never start), stops its deployment and
  exits 143;
- one run process killed mid-run fails that run alone: the crawl reports it and goes on.

Real commands (``CrawlProcess``: their processes and their deployment's carry a mark in
their environment), held mid-show by the replica's image gate. The signals go to one
process only, never to a group: whatever else ends must end because of it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psutil
import pytest
from dagster import DagsterEventType, DagsterInstance, DagsterRunStatus
from sqlalchemy import Engine

from bench.reliability import ONE_AT_A_TIME, CrawlProcess, held_client, wait_until
from fashion_assets.catalog import progress
from fashion_assets.launch.crawl import STOP_GRACE_S
from fashion_assets.launch.instance import local_instance_yaml
from fashion_assets.launch.watchdog import GRACE_S
from fashion_assets.replica import ReplicaServer, build_site, start_replica
from fashion_assets.resources import catalog_engine
from fashion_assets.status import crawler_status
from fashion_assets.storage import open_store
from tests.conftest import pipeline_env
from tests.integration.test_review_app import review_app, serve, sign_in
from tests.processes import describe, run_process_pid, still_running, wait_gone

# Each crawl starts a `dagster dev` (a minute on a loaded 2-core machine), some tests two.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

GONE_S = GRACE_S + 40.0  # a deployment's stop: the watchdog's grace, then its group killed
DEADLINE_S = 300.0  # the longest a crawl of the small replica may take, deployment included


@dataclass(frozen=True)
class HeldCrawl:
    """A crawl of every brand of the replica, a run per brand, each run under way held at
    its first photo (none of them, with one run at a time, for all but the first)."""

    crawl: CrawlProcess
    env: dict[str, str]
    brands: list[str]
    engine: Engine
    instance: DagsterInstance
    held: list[str]  # the runs under way, held

    @property
    def pid(self) -> int:
        return self.crawl.process.pid

    def deployment(self) -> list[psutil.Process]:
        """The processes of the crawl's deployment still running (all but the command)."""
        return [p for p in self.crawl.processes() if p.pid != self.pid]

    def runs(self) -> dict[str, DagsterRunStatus]:
        return {run.run_id: run.status for run in self.instance.get_runs()}


@pytest.fixture
def replica_site() -> Iterator[ReplicaServer]:
    site = build_site(brands=2, shows_per_brand=2, photos_per_show=4, hostile=False, seed=3)
    with start_replica(site) as server:
        yield server


@pytest.fixture
def held_crawl(request: pytest.FixtureRequest, tmp_path: Path, replica_site: ReplicaServer
               ) -> Iterator[HeldCrawl]:
    """``fashion-assets crawl`` of both brands, a run each (``FASHION_CRAWL_BATCH_BRANDS``
    1), on an instance whose queue runs the test's parameter of runs at once (2 unless
    told), once each run under way waits at the gate in its manifests step. The client
    never times out a held photo (it would retry into the gate), and no heartbeat rule ends
    a held run. Afterwards the gate opens and whatever is left of the crawl is killed."""
    at_once = getattr(request, "param", 2)
    home = tmp_path / "dagster-home"
    home.mkdir()
    (home / "dagster.yaml").write_text(local_instance_yaml(at_once))
    database_url = f"sqlite:///{tmp_path / 'catalog.db'}"
    env = pipeline_env(tmp_path, database_url, f"file://{tmp_path / 'objects'}", replica_site,
                       DAGSTER_HOME=str(home), FASHION_STUCK_AFTER_SECONDS="600",
                       FASHION_CRAWL_BATCH_BRANDS="1", **ONE_AT_A_TIME,
                       **held_client(DEADLINE_S))
    brands = [b.slug for b in replica_site.site.brands]
    replica_site.hold_images(after=0)
    crawl = CrawlProcess(env, brands, tmp_path / "logs")
    try:
        engine = catalog_engine(database_url)
        wait_until(lambda: replica_site.held_count() >= at_once and [
            r.step for r in progress.running(engine)] == ["manifests"] * at_once,
            f"{at_once} runs held at a photo", [crawl], DEADLINE_S)
        with DagsterInstance.from_config(str(home)) as instance:
            yield HeldCrawl(crawl, env, brands, engine, instance,
                            [r.run_id for r in progress.running(engine)])
    finally:
        replica_site.release_images()
        crawl.kill()


def run_failure(instance: DagsterInstance, run_id: str) -> str:
    """The message of the run's failure event."""
    [entry] = instance.all_logs(run_id, of_type=DagsterEventType.RUN_FAILURE)
    return entry.message


def test_a_crawl_killed_outright_takes_its_deployment_along_and_the_next_fails_its_runs(
        held_crawl: HeldCrawl, replica_site: ReplicaServer, tmp_path: Path) -> None:
    """Only the command is killed; its deployment must go because it did. What it left
    marked as running in Dagster and in the catalog is the next command's to end."""
    crawl = held_crawl
    deployment = crawl.deployment()
    commands = {p.pid: " ".join(p.cmdline()) for p in deployment}
    assert any("fashion_assets.launch.watchdog" in c for c in commands.values()), commands
    run_pids = {run_process_pid(crawl.instance, run_id) for run_id in crawl.held}
    assert run_pids <= set(commands), (run_pids, commands)
    assert {r.pid for r in progress.running(crawl.engine)} == run_pids
    # In a session of its own: nothing of the deployment gets the command's group's signals.
    assert all(os.getsid(p.pid) != crawl.pid for p in deployment), commands

    os.kill(crawl.pid, signal.SIGKILL)

    assert crawl.crawl.process.wait(timeout=GONE_S) == -signal.SIGKILL
    wait_gone(lambda: still_running(deployment), "the killed command's deployment", GONE_S)
    wait_gone(crawl.crawl.processes, "processes marked with the killed crawl", GONE_S)
    # Its code server died with its runs: Dagster still says they run, and holds their
    # brands' queue slots for them.
    assert crawl.runs() == dict.fromkeys(crawl.held, DagsterRunStatus.STARTED)
    replica_site.release_images()

    again = CrawlProcess(crawl.env, crawl.brands, tmp_path / "logs").finish(DEADLINE_S)

    assert again.ok, again.log_tail
    assert [s["partition"] for s in again.summaries] == crawl.brands
    assert again.shows("created") == 4, again.summaries
    for run_id in crawl.held:
        assert f"run {run_id} failed: the command that started its `dagster dev` was killed" in (
            again.log_tail)
        assert crawl.instance.get_run_by_id(run_id).status == DagsterRunStatus.FAILURE
        assert "the command that started the `dagster dev` of this run was killed" in run_failure(
            crawl.instance, run_id)
        row = progress.get(crawl.engine, run_id)
        assert row is not None and row.status == "failed", row
        assert "the command that started the `dagster dev` of this run was killed" in row.note
    status = crawler_status(crawl.engine, crawl.instance)
    assert status["running"] == [] and status["line"].startswith("crawler: running 0,")


@pytest.mark.parametrize("held_crawl", [2, 1], indirect=True, ids=["both-running", "one-queued"])
def test_sigterm_stops_the_crawl_ends_its_runs_and_its_deployment_and_exits_143(
        held_crawl: HeldCrawl) -> None:
    """The command terminates its runs through the deployment, waits for them (up to
    STOP_GRACE_S), marks those still going canceled and stops its deployment. With one run
    at a time, the second brand's run, still queued, never starts."""
    crawl = held_crawl
    deployment = crawl.deployment()
    queued = [run_id for run_id, status in crawl.runs().items()
              if status == DagsterRunStatus.QUEUED]
    assert len(queued) == 2 - len(crawl.held)

    os.kill(crawl.pid, signal.SIGTERM)

    assert crawl.crawl.process.wait(timeout=STOP_GRACE_S + GONE_S) == 128 + signal.SIGTERM
    runs = crawl.runs()
    assert runs == dict.fromkeys(runs, DagsterRunStatus.CANCELED) and len(runs) == 2
    assert ("crawl stopped by SIGTERM: no further partition started; runs canceled: "
            + ", ".join(sorted(runs))) in crawl.crawl.log_tail()
    # Said at once, not after a silent wait for the runs (up to STOP_GRACE_S).
    assert ("stopping: 2 runs of this command terminated; waiting up to "
            f"{STOP_GRACE_S:.0f} s") in crawl.crawl.log_tail()
    for run_id in crawl.held:
        row = progress.get(crawl.engine, run_id)
        assert row is not None and row.status == "terminated", row
    for run_id in queued:
        assert not crawl.instance.all_logs(run_id, of_type=DagsterEventType.RUN_START)
        assert progress.get(crawl.engine, run_id) is None
    wait_gone(lambda: still_running(deployment), "the stopped command's deployment", GONE_S)
    wait_gone(crawl.crawl.processes, "processes marked with the stopped crawl", GONE_S)


def test_a_run_process_killed_mid_run_fails_that_run_and_the_crawl_goes_on(
        held_crawl: HeldCrawl, replica_site: ReplicaServer) -> None:
    """Each run has a process of its own: one killed (out of memory, an operator) fails
    its run, which the code server notices and the command reports, while the other run
    ends as if nothing happened. Until the catalog's row of the killed run is ended (by the
    stuck-run rule), the status and the /crawler page never show it running: the command
closes its row as it reports the run's end."""
    crawl = held_crawl
    killed, spared = crawl.held
    pid = run_process_pid(crawl.instance, killed)
    assert progress.get(crawl.engine, killed).pid == pid and pid != crawl.pid
    process = psutil.Process(pid)

    os.kill(pid, signal.SIGKILL)

    wait_until(lambda: crawl.runs()[killed] == DagsterRunStatus.FAILURE,
               "Dagster to fail the killed process's run", [crawl.crawl], GONE_S)
    assert not still_running([process]), describe(process)
    assert crawl.runs()[spared] == DagsterRunStatus.STARTED
    assert any("was terminated by signal 9 (SIGKILL)" in (entry.message or "") for entry in
               crawl.instance.all_logs(killed, of_type=DagsterEventType.ENGINE_EVENT))
    status = json.loads(subprocess.run(
        [sys.executable, "-m", "fashion_assets", "status", "--json"], capture_output=True,
        text=True, check=True, env={**os.environ, **crawl.env}).stdout)["crawler"]
    assert [c["run_id"] for c in status["running"]] == [spared]  # the killed one never
    assert status["line"].startswith("crawler: running 1,")
    store = open_store(crawl.env["FASHION_STORE_URL"], home=Path(crawl.env["FASHION_HOME"]))
    with serve(review_app(crawl.engine, store, instance=crawl.instance)) as url:
        page = sign_in(url).get("/crawler").text
    assert f'id="crawl-{killed}"' not in page and f'id="crawl-{spared}"' in page, page
    # The command closed the killed run's row as it reported the run ended.
    row = progress.get(crawl.engine, killed)
    assert row is not None and row.status == "failed" and "SIGKILL" in row.note, row

    replica_site.release_images()
    done = crawl.crawl.finish(DEADLINE_S)

    assert done.returncode == 1, done.log_tail
    killed_brand = crawl.instance.get_run_by_id(killed).tags["dagster/partition"]
    assert {s["partition"]: s["success"] for s in done.summaries} == {
        brand: brand != killed_brand for brand in crawl.brands}
    [failed] = [s for s in done.summaries if not s["success"]]
    # The summary says why: the code server's word on the process, not Dagster's generic
    # "marked as failed from outside the execution context".
    assert failed["error"].startswith(
        f"Run execution process for {killed} was terminated by signal 9 (SIGKILL)."), failed
    assert crawl.runs() == {killed: DagsterRunStatus.FAILURE,
                            spared: DagsterRunStatus.SUCCESS}
    wait_gone(crawl.crawl.processes, "processes marked with the finished crawl", GONE_S)
    after = crawler_status(crawl.engine, crawl.instance)
    assert after["running"] == after["ended"] == [], after
