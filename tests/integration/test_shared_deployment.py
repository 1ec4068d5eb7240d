"""Commands of one ``DAGSTER_HOME`` share one ``dagster dev`` (one instance takes one
daemon): the first starts it and stops it only once the others are done; a command with
other settings is refused in one line; a command whose deployment is killed under it fails
its runs instead of waiting for ever (launch/registry.py)."""

from __future__ import annotations

import os
import queue
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from dagster import DagsterEventType, DagsterInstance, DagsterRunStatus

from bench.reliability import CrawlProcess, held_client, wait_until
from fashion_assets.launch.deployment import DEPLOYMENT_TAG, answers
from fashion_assets.partitions import brand_partitions
from fashion_assets.replica import ReplicaServer, build_site, start_replica
from tests.conftest import pipeline_env

DEADLINE_S = 300.0  # a `dagster dev` and a run started on a loaded 2-core machine
OWNER = """
import sys
from fashion_assets.launch.deployment import deployment
try:
    with deployment(note=lambda line: print(line, flush=True)) as deployed:
        print("deployment", deployed.url, deployed.id, flush=True)
        if sys.stdin.read() == "fail":
            raise RuntimeError("the owner's own crawl failed")
finally:
    print("stopped", flush=True)
"""


class Owner:
    """A command holding the private deployment of ``env``'s DAGSTER_HOME, as a crawl
    does, until its stdin closes (``end``); its lines on stdout, read as they come."""

    def __init__(self, env: dict[str, str]) -> None:
        self.process = subprocess.Popen([sys.executable, "-c", OWNER],
                                        env={**os.environ, **env}, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True)
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()
        self.url, self.id = self.wait_for("deployment").split()[1:]

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))

    def wait_for(self, start: str) -> str:
        """The first line starting with ``start`` (earlier ones kept in ``seen``)."""
        while True:
            line = self.lines.get(timeout=DEADLINE_S)
            self.seen.append(line)
            if line.startswith(start):
                return line

    def end(self, failing: bool = False) -> None:
        """The owner's work ends, successfully or (``failing``) with an error."""
        assert self.process.stdin is not None
        if not self.process.stdin.closed:
            if failing:
                self.process.stdin.write("fail")
            self.process.stdin.close()


@contextmanager
def held_site(tmp_path: Path) -> Iterator[tuple[ReplicaServer, dict[str, str]]]:
    """A replica of two brands whose photos are held at its gate, and the settings of the
    commands crawling it."""
    site = build_site(brands=2, shows_per_brand=1, photos_per_show=2, hostile=False, seed=5)
    with start_replica(site) as server:
        env = pipeline_env(tmp_path, f"sqlite:///{tmp_path / 'catalog.db'}",
                           f"file://{tmp_path / 'objects'}", server,
                           DAGSTER_HOME=str(tmp_path / "dagster"), **held_client(DEADLINE_S))
        server.hold_images(after=0)
        try:
            yield server, env
        finally:
            server.release_images()


@pytest.mark.parametrize("owner_fails", [False, True], ids=["owner-done", "owner-failed"])
def test_a_second_command_runs_on_the_first_one_s_dagster_dev_which_waits_for_it(
        tmp_path: Path, owner_fails: bool) -> None:
    """However the owner's own work ends, its `dagster dev` outlives it until the other
    command is done: that command's run succeeds."""
    with held_site(tmp_path) as (server, env):
        owner = Owner(env)
        crawl = CrawlProcess(env, [server.site.brands[0].slug], tmp_path / "logs")
        try:
            # A command with other settings would run its runs with the owner's: refused.
            other = subprocess.run(
                [sys.executable, "-m", "fashion_assets", "crawl", "--brand", "x"],
                env={**os.environ, **env, "FASHION_PAGE_DELAY": "1"}, capture_output=True,
                text=True, timeout=DEADLINE_S)
            assert other.returncode == 1, other
            [line] = other.stderr.splitlines()
            assert "another command runs `dagster dev` on DAGSTER_HOME=" in line, line
            assert "with other settings (FASHION_PAGE_DELAY)" in line, line
            # A catalog that refuses connections, on a deployment that is up: the command
            # plans while the catalog opens, and still submits nothing (one run in the end)
            # and leaves no partition for the brand it planned (checked at the end).
            with socket.socket() as taken:  # bound, never listening: connections refused
                taken.bind(("127.0.0.1", 0))
                refused = subprocess.run(
                    [sys.executable, "-m", "fashion_assets", "crawl", "--brand",
                     server.site.brands[1].slug],
                    env={**os.environ, **env, "FASHION_DAGSTER_URL": owner.url,
                         "FASHION_DATABASE_URL": "postgresql+psycopg2://u@127.0.0.1:"
                                                 f"{taken.getsockname()[1]}/catalog"},
                    capture_output=True, text=True, timeout=DEADLINE_S)
            assert refused.returncode == 1 and refused.stdout == "", refused
            [line] = refused.stderr.splitlines()
            assert line.startswith("Error: the catalog database postgresql+psycopg2://"), line

            wait_until(lambda: server.held_count() >= 1, "the crawl's run at the gate",
                       [crawl], DEADLINE_S)
            owner.end(owner_fails)  # while the crawl runs on its deployment: it waits
            assert owner.wait_for("waiting for the other commands").startswith("waiting")
            assert answers(owner.url)
            server.release_images()
            done = crawl.finish(DEADLINE_S)
            assert owner.wait_for("stopped") == "stopped"
        finally:
            owner.end()
            owner.process.wait(DEADLINE_S)
            if not crawl.exited():
                crawl.kill()

    assert owner.process.returncode == (1 if owner_fails else 0)
    assert done.returncode == 0 and done.summaries[0]["success"], done.log_tail
    assert "runs on the `dagster dev` another command started" in done.log_tail
    assert "started Dagster" not in done.log_tail
    assert not answers(owner.url)
    with DagsterInstance.from_config(env["DAGSTER_HOME"]) as instance:
        [run] = instance.get_runs()
        assert run.tags[DEPLOYMENT_TAG] == owner.id and run.status == DagsterRunStatus.SUCCESS
        assert instance.get_dynamic_partitions(brand_partitions.name) == [
            server.site.brands[0].slug]
        # Launched once: one daemon took it from the queue.
        assert len(instance.all_logs(run.run_id, of_type=DagsterEventType.RUN_STARTING)) == 1
    assert not list((Path(env["DAGSTER_HOME"]) / "deployments").glob("*.json"))


@pytest.mark.timeout(900)
def test_a_command_whose_shared_dagster_dev_is_killed_fails_its_run_and_ends(
        tmp_path: Path) -> None:
    with held_site(tmp_path) as (server, env):
        owner = Owner(env)
        crawl = CrawlProcess(env, [server.site.brands[0].slug], tmp_path / "logs")
        try:
            wait_until(lambda: server.held_count() >= 1, "the crawl's run at the gate",
                       [crawl], DEADLINE_S)
            owner.process.kill()  # the owner killed outright: its watchdog stops dagster dev
            owner.process.wait(DEADLINE_S)
            done = crawl.finish(DEADLINE_S)
        finally:
            if not crawl.exited():
                crawl.kill()

    assert done.returncode == 1 and not done.summaries[0]["success"], done.log_tail
    with DagsterInstance.from_config(env["DAGSTER_HOME"]) as instance:
        [run] = instance.get_runs()
        assert run.status == DagsterRunStatus.FAILURE
        [failure] = instance.all_logs(run.run_id, of_type=DagsterEventType.RUN_FAILURE)
        assert "the command that started the `dagster dev` of this run was killed" in (
            failure.message)
