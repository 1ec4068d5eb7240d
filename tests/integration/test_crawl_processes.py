"""Crawls as separate processes: two at once, and one killed with SIGKILL mid-show, whose run
the next crawl finds dead and fails.

Both are synchronised through the replica's image gate (requests past a count block until
released), never by sleeping: the test waits for the gate to hold the expected requests.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from dagster import DagsterInstance, DagsterRunStatus

from fashion_assets.catalog import progress
from fashion_assets.replica import ReplicaServer
from fashion_assets.resources import catalog_engine
from tests.conftest import normal_brands, pipeline_env

pytestmark = pytest.mark.slow

DEADLINE_S = 120


def brand_of(replica: ReplicaServer) -> tuple[str, int, int]:
    """A normal brand, its show count and the photo count of its first show."""
    brand = normal_brands(replica)[0]
    return brand.slug, len(brand.shows), len(brand.shows[0].photos)


def crawl_process(env: dict[str, str], brand: str) -> subprocess.Popen[str]:
    """``fashion-assets crawl`` in its own process, one photo and one show at a time."""
    full_env = {**os.environ, **env, "FASHION_IMAGE_CONCURRENCY": "1",
                "FASHION_SHOW_CONCURRENCY": "1"}
    return subprocess.Popen(
        [sys.executable, "-m", "fashion_assets", "crawl", "--brand", brand, "--json"],
        env=full_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_until(condition: Callable[[], bool], what: str,
               processes: list[subprocess.Popen[str]]) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while not condition():
        for process in processes:
            if process.poll() is not None:
                raise AssertionError(f"crawl exited before {what}: {process.stderr.read()}")
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)  # polling interval of a real condition, not a synchronisation


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
    env = pipeline_env(tmp_path, database_url, f"file://{tmp_path / 'objects'}", replica,
                       DAGSTER_HOME=str(tmp_path / "dagster"))
    brand, shows, _ = brand_of(replica)
    replica.hold_images(after=0)
    processes = []
    try:
        processes = [crawl_process(env, brand) for _ in range(2)]
        # Each process has one photo request in flight: both are inside the same show.
        wait_until(lambda: replica.held_count() == 2, "both runs to reach a photo", processes)
    finally:
        replica.release_images()
    outputs = [p.communicate(timeout=DEADLINE_S) for p in processes]

    for process, (_, err) in zip(processes, outputs, strict=True):
        assert process.returncode == 0, err[-3000:]
    summaries = [json.loads(out)["crawls"][0] for out, _ in outputs]
    assert all(s["success"] for s in summaries)
    assert drafts(database_url) == expected_drafts(replica, brand)
    assert sum(s["shows"]["created"] for s in summaries) == shows
    for s in summaries:
        assert s["shows"]["failed"] == 0


def test_a_run_killed_mid_show_then_run_again_loses_nothing_and_duplicates_nothing(
        tmp_path: Path, database_url: str, replica: ReplicaServer) -> None:
    """The killed run stays STARTED (nothing of its process is left to say otherwise) until
    the next crawl, which fails it before it starts its own."""
    # Every photo fetched in the drafts step, so that a show is drafted as its photos are in.
    env = pipeline_env(tmp_path, database_url, f"file://{tmp_path / 'objects'}", replica,
                       DAGSTER_HOME=str(tmp_path / "dagster"),
                       FASHION_PHOTOS_WITH_MANIFESTS="false")
    brand, _, first_show_photos = brand_of(replica)
    # Let the first show complete and the second get three photos in, then freeze.
    replica.hold_images(after=first_show_photos + 3)
    process = crawl_process(env, brand)
    try:
        wait_until(lambda: replica.held_count() == 1, "the run to be mid-show", [process])
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=DEADLINE_S)
    finally:
        replica.release_images()
    killed = drafts(database_url)
    assert len(killed) == 1, "the show completed before the kill is committed"

    rerun = crawl_process(env, brand)
    out, err = rerun.communicate(timeout=DEADLINE_S)

    assert rerun.returncode == 0, err[-3000:]
    assert drafts(database_url) == expected_drafts(replica, brand)
    [summary] = json.loads(out)["crawls"]
    assert summary["shows"]["skipped_already_ingested"] == 1
    assert summary["shows"]["created"] == len(expected_drafts(replica, brand)) - 1
    with DagsterInstance.from_config(env["DAGSTER_HOME"]) as instance:
        [killed_run] = [r for r in instance.get_runs() if r.run_id != summary["run_id"]]
    assert killed_run.status == DagsterRunStatus.FAILURE
    row = progress.get(catalog_engine(database_url), killed_run.run_id)
    assert row is not None and row.status == "failed"
    assert f"its process {process.pid} on {socket.gethostname()} is gone" in row.note
