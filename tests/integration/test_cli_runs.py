"""Each run of ``fashion-assets crawl`` goes through Dagster's run queue: queued, launched by
the daemon in a process of its own, tagged with the command's mark; ``--all`` in ranges; a
deployment that does not answer is one line."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from fashion_assets.demo import replica_env
from fashion_assets.launch import webserver
from fashion_assets.launch.instance import local_instance_yaml
from fashion_assets.launch.summaries import crawl_kinds, crawl_summary, run_outcome
from fashion_assets.replica import ReplicaServer, build_site, start_replica
from fashion_assets.tags import PARTITION_TAG
from tests.catalog_db import query
from tests.conftest import normal_brands
from tests.integration.test_cli import _partitions, cli_env, run

__all__ = ["cli_env"]  # the fixture, shared with test_cli.py


def _run_path(instance: Any, run_id: str) -> list[Any]:
    """The run's lifecycle events in its event log, in order. A run the webserver submits to
    the run queue is RUN_ENQUEUED (a run launched at once, never queued, has none); only the
    daemon takes it from the queue, with RUN_STARTING as it hands it to the run launcher;
    RUN_START comes from the run's process."""
    from dagster import DagsterEventType as T

    path = {T.RUN_ENQUEUED, T.RUN_STARTING, T.RUN_START, T.RUN_SUCCESS, T.RUN_FAILURE,
            T.RUN_CANCELING, T.RUN_CANCELED}
    return [entry.dagster_event.event_type for entry in instance.all_logs(run_id)
            if entry.is_dagster_event and entry.dagster_event.event_type in path]


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_crawl_all_crawls_every_brand_in_ranges_each_a_run_of_the_daemon(
        cli_env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """More brands than the runs at once (the run queue's slots: 2 here) times
    FASHION_CRAWL_BATCH_BRANDS: the command must put several brands in a run, as a partition
    range tagged as a backfill's, and every run is in the instance (what the UI shows),
    queued and launched by the daemon. Its log is read in pages of a few events, all of
    them in the summaries."""
    from dagster import DagsterEventType as T
    from dagster import DagsterInstance, DagsterRunStatus

    from fashion_assets.launch.crawl import COMMAND_TAG

    code, out = run("crawl", "--all")
    assert code == 0 and "nothing to crawl: the catalog has no brand yet" in out, out
    assert "Dagster" not in out, out  # nothing to run: no deployment started for it
    size, slots = 2, 2
    (Path(cli_env["DAGSTER_HOME"]) / "dagster.yaml").write_text(local_instance_yaml(slots))
    site = build_site(brands=size * slots + 1, shows_per_brand=1, photos_per_show=2,
                      hostile=False)
    slugs = [brand.slug for brand in site.brands]
    with start_replica(site) as server:
        for name, value in replica_env(server).items():
            monkeypatch.setenv(name, value)
        for slug in slugs:
            assert run("brands", "add", slug)[0] == 0
        monkeypatch.setenv("FASHION_CRAWL_BATCH_BRANDS", str(size))
        # Logs read a few events a page: a poll's first page and the further pages of each
        # run's log must add up to the whole log (the summaries below).
        monkeypatch.setattr(webserver, "PAGE", 5)

        code, out = run("crawl", "--all", "--json")

    assert code == 0, out
    crawls = json.loads(out[out.index("{"):])["crawls"]
    assert all(c["success"] for c in crawls), crawls
    with DagsterInstance.from_config(cli_env["DAGSTER_HOME"]) as instance:
        # The command read its summaries from the webserver; the instance tells the same.
        assert crawls == [crawl_summary(crawl_kinds()["brand"], c["partition"],
                                        run_outcome(instance, c["run_id"])) for c in crawls]
        order = instance.get_dynamic_partitions(crawl_kinds()["brand"].partitions)
        ranges = {c["partition"]: _partitions(c["partition"], order) for c in crawls}
        covered = [slug for brands in ranges.values() for slug in brands]
        assert sorted(covered) == sorted(slugs)  # every brand of the catalog, once
        assert all(len(brands) <= size for brands in ranges.values()), ranges
        assert len(ranges) < len(slugs), ranges  # brands put together in runs

        runs = instance.get_runs()
        assert len(runs) == len(crawls) and len({r.tags[COMMAND_TAG] for r in runs}) == 1
        for dagster_run in runs:
            tags = dagster_run.tags
            first = tags.get("dagster/asset_partition_range_start", tags.get(PARTITION_TAG))
            last = tags.get("dagster/asset_partition_range_end", first)
            label = first if first == last else f"{first}..{last}"
            assert label in ranges, (label, sorted(ranges))
            assert (dagster_run.job_name, dagster_run.status) == (
                crawl_kinds()["brand"].job, DagsterRunStatus.SUCCESS)
            assert _run_path(instance, dagster_run.run_id) == [
                T.RUN_ENQUEUED, T.RUN_STARTING, T.RUN_START, T.RUN_SUCCESS]
        assert any("dagster/asset_partition_range_start" in r.tags for r in runs)
    drafted = dict(query(cli_env["FASHION_DATABASE_URL"],
                         "SELECT brand_slug, count(*) FROM brand_runway_drafts"
                         " GROUP BY brand_slug"))
    assert drafted == dict.fromkeys(slugs, 1)


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_each_run_of_crawl_is_queued_then_launched_by_the_daemon_in_a_process_of_its_own(
        cli_env: dict[str, str], replica: ReplicaServer) -> None:
    """The command's crawl appears in the UI as the daemon's runs do: submitted to the run
    queue (RUN_ENQUEUED), dequeued and launched by the daemon, executed in a run process,
    each run tagged with the command that made it and the deployment it started."""
    from dagster import DagsterEventType as T
    from dagster import DagsterInstance, DagsterRunStatus

    from fashion_assets.launch.crawl import COMMAND_TAG
    from fashion_assets.launch.deployment import DEPLOYMENT_TAG

    brand, week = normal_brands(replica)[0].slug, replica.site.impression.weeks[0].slug

    code, out = run("crawl", "--brand", brand, "--week", week)

    assert code == 0, out
    assert "started Dagster (`dagster dev`: webserver, daemon) for this command in " in out
    with DagsterInstance.from_config(cli_env["DAGSTER_HOME"]) as instance:
        runs = instance.get_runs()
        assert sorted(r.tags[PARTITION_TAG] for r in runs) == sorted([brand, week])
        assert len({(r.tags[COMMAND_TAG], r.tags[DEPLOYMENT_TAG]) for r in runs}) == 1
        for dagster_run in runs:
            assert dagster_run.status is DagsterRunStatus.SUCCESS
            assert _run_path(instance, dagster_run.run_id) == [
                T.RUN_ENQUEUED, T.RUN_STARTING, T.RUN_START, T.RUN_SUCCESS]
            [started] = instance.all_logs(dagster_run.run_id, of_type=T.RUN_START)
            assert started.dagster_event.pid not in (None, os.getpid())


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_dagster_url_where_nothing_answers_fails_in_one_line(
        cli_env: dict[str, str]) -> None:
    """The user's FASHION_DAGSTER_URL, with no webserver there: one line saying what to do,
    no stack trace, a non-zero exit, and nothing submitted anywhere."""
    from dagster import DagsterInstance

    with socket.socket() as taken:  # bound, never listening: a connection there is refused
        taken.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{taken.getsockname()[1]}"
        done = subprocess.run([sys.executable, "-m", "fashion_assets", "crawl", "--brand",
                               "acne-studios"], env={**os.environ, "FASHION_DAGSTER_URL": url},
                              capture_output=True, text=True, timeout=300)

    assert done.returncode != 0 and done.stdout == "", done
    [line] = done.stderr.splitlines()
    assert f"no Dagster webserver answers at {url} (FASHION_DAGSTER_URL)" in line, line
    with DagsterInstance.from_config(cli_env["DAGSTER_HOME"]) as instance:
        assert instance.get_runs() == []
