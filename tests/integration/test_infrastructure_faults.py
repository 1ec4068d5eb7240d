"""Our own outages are not the source's: the S3 server stopped mid-crawl, an S3 server that
stays down, a file store whose disk fails (issue 16).

A short outage is ridden out by the step's retries and the run succeeds; a lasting one fails
the run with the store's reason and records no show as failed, so the next run tries them
all again. Real servers throughout: moto's S3 server is stopped and started again on its
port, the crawl is held at the replica's image gate until the server is down.
"""

from __future__ import annotations

import hashlib
import logging
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from dagster import DagsterInstance

from bench.reliability import wait_until
from fashion_assets.catalog.coverage import record_attempts
from fashion_assets.definitions import build_definitions
from fashion_assets.domain.coverage import RepairStep
from fashion_assets.replica import ReplicaServer, build_site, photo_bytes, start_replica
from fashion_assets.resources import catalog_engine
from fashion_assets.settings import home_dir
from fashion_assets.storage import S3Store, open_store
from tests.catalog_db import query
from tests.conftest import new_s3_bucket, normal_brands, pipeline_env
from tests.pipeline import crawl_brands, crawl_partitions
from tests.s3server import S3Server, _answers_http, start_moto_server

DEADLINE_S = 120.0
OUTAGE_S = 15.0  # the outage of issue 16, which failed 41 of 48 shows
PUBLIC = "https://www.vogue.com"


@pytest.fixture
def s3_of_its_own(monkeypatch: pytest.MonkeyPatch) -> Iterator[S3Server]:
    """An S3 server this test may stop: the session's is shared."""
    with start_moto_server() as server:
        monkeypatch.setenv("AWS_ENDPOINT_URL_S3", server.endpoint_url)
        yield server


def start_moto_again(endpoint_url: str) -> S3Server:
    """``moto_server`` on the port it was stopped on (the crawl's endpoint), once it answers.

    moto keeps buckets in memory: the caller creates the bucket again.
    """
    port = urlsplit(endpoint_url).port
    assert port is not None
    log = tempfile.TemporaryFile()  # noqa: SIM115 - closed by S3Server.stop
    process = subprocess.Popen(
        [str(Path(sys.executable).parent / "moto_server"), "-H", "127.0.0.1", "-p", str(port)],
        stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
    server = S3Server(process, port, log)
    try:
        wait_until(lambda: _answers_http(port), "moto_server to answer again", [], DEADLINE_S)
    except BaseException:
        server.stop()
        raise
    return server


def store_retries(caplog: pytest.LogCaptureFixture) -> list[str]:
    """The step's retries of a failed store call, as it logs them."""
    return [r.getMessage() for r in list(caplog.records)
            if r.name == "fashion_assets.crawl.infra" and "object store" in r.getMessage()]


def failed_or_ingested(database_url: str) -> list[tuple[str, str]]:
    """The log's failures of any stage, and every ingest entry."""
    return query(database_url, "SELECT stage, outcome FROM ingest_log"
                               " WHERE outcome = 'failed' OR stage = 'ingest'")


def test_an_s3_outage_shorter_than_the_retry_budget_is_ridden_out(
        tmp_path: Path, s3_of_its_own: S3Server, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="fashion_assets.crawl.infra")
    site = build_site(brands=1, shows_per_brand=3, photos_per_show=4, hostile=False, seed=16)
    [brand] = site.brands
    database_url = f"sqlite:///{tmp_path / 'catalog.db'}"
    store_url = new_s3_bucket(s3_of_its_own)
    bucket = urlsplit(store_url).netloc
    endpoint = s3_of_its_own.endpoint_url
    restarted: list[S3Server] = []

    def outage(replica: ReplicaServer) -> float:
        """Stop S3 once the crawl's photos are on their way, start it again once it has been
        down for ``OUTAGE_S`` and the step has retried a put; how long it was down."""
        try:
            assert replica.wait_held(1, timeout=DEADLINE_S), "no photo requested"
            s3_of_its_own.stop()
            down = time.monotonic()
        finally:
            replica.release_images()
        wait_until(lambda: bool(store_retries(caplog)) and time.monotonic() - down >= OUTAGE_S,
                   "a put to be retried through the outage", [], DEADLINE_S)
        restarted.append(start_moto_again(endpoint))
        S3Store(bucket, endpoint_url=endpoint).ensure_bucket()
        return time.monotonic() - down

    try:
        with start_replica(site) as replica, ThreadPoolExecutor(1) as pool:
            # The default retry budget (FASHION_INFRA_RETRY_SECONDS, 60 s) rides it out.
            env = pipeline_env(tmp_path, database_url, store_url, replica)
            replica.hold_images(after=0)
            down_s = pool.submit(outage, replica)
            [summary] = crawl_brands([brand.slug], DagsterInstance.ephemeral(), env)
            assert down_s.result() >= OUTAGE_S

        assert summary["success"], summary
        assert summary["shows"]["created"] == len(brand.shows)
        assert summary["shows"]["failed"] == 0
        assert failed_or_ingested(database_url) == [("ingest", "created")] * len(brand.shows)
        store = open_store(store_url, home=home_dir(env))
        for show in brand.shows:
            keys = [hashlib.sha1(photo_bytes(site, p.photo_id)).hexdigest() for p in show.photos]
            assert [k for (k,) in query(
                database_url, "SELECT i.object_key FROM brand_runway_draft_images i"
                              " JOIN brand_runway_drafts d ON d.id = i.draft_id"
                              " WHERE d.source_url = :u ORDER BY i.position",
                u=PUBLIC + show.path)] == keys, show.path
            assert not store.missing(keys)
    finally:
        for server in restarted:
            server.stop()


def test_an_s3_server_that_stays_down_fails_the_run_and_blames_no_show(
        tmp_path: Path, s3_of_its_own: S3Server, replica: ReplicaServer) -> None:
    database_url = f"sqlite:///{tmp_path / 'catalog.db'}"
    store_url = new_s3_bucket(s3_of_its_own)
    s3_of_its_own.stop()
    brand = normal_brands(replica)[0]
    env = pipeline_env(tmp_path, database_url, store_url, replica,
                       FASHION_INFRA_RETRY_SECONDS="1")

    [summary] = crawl_brands([brand.slug], DagsterInstance.ephemeral(), env)

    assert not summary["success"]
    assert "object store" in summary["error"], summary
    assert "not the source's" in summary["error"]
    assert "S3 bucket check on s3://" in summary["error"]  # the crawl's first request to it
    assert "ClientConnectorError" in summary["error"]
    assert failed_or_ingested(database_url) == []
    # The shows were listed and their manifests fetched: only the drafts wait for the store.
    assert query(database_url, "SELECT count(*) FROM runway_show_manifests") == [
        (len(brand.shows),)]
    assert query(database_url, "SELECT count(*) FROM brand_runway_drafts") == [(0,)]


@pytest.mark.parametrize("kind", ["brand", "week"])
def test_a_file_store_whose_disk_fails_fails_the_run_and_blames_no_item(
        tmp_path: Path, replica: ReplicaServer, kind: str) -> None:
    database_url = f"sqlite:///{tmp_path / 'catalog.db'}"
    # Its folder is a regular file: every put fails, even for root, as on a full disk.
    (tmp_path / "objects").write_text("not a folder")
    key = normal_brands(replica)[0].slug if kind == "brand" else "copenhagen-fashion-week"
    env = pipeline_env(tmp_path, database_url, f"file://{tmp_path / 'objects'}", replica,
                       FASHION_INFRA_RETRY_SECONDS="1")

    [summary] = crawl_partitions([(kind, key)], DagsterInstance.ephemeral(), env)

    assert not summary["success"]
    assert "the object store's put" in summary["error"], summary
    assert "NotADirectoryError" in summary["error"]
    assert failed_or_ingested(database_url) == []


def test_a_repair_run_our_outage_fails_gives_its_shows_their_attempt_back(
        tmp_path: Path, replica: ReplicaServer) -> None:
    database_url = f"sqlite:///{tmp_path / 'catalog.db'}"
    (tmp_path / "objects").write_text("not a folder")  # every put fails
    brand = normal_brands(replica)[0].slug
    env = pipeline_env(tmp_path, database_url, f"file://{tmp_path / 'objects'}", replica,
                       FASHION_INFRA_RETRY_SECONDS="1")
    instance = DagsterInstance.ephemeral()
    [first] = crawl_partitions([("brand", brand)], instance, env)
    assert not first["success"]  # listed and manifests stored, no draft
    show_ids = [i for (i,) in query(database_url, "SELECT id FROM runway_shows")]
    now = datetime.now(UTC)
    # The coverage sensor's second attempt at each show, recorded as it launches the run.
    record_attempts(catalog_engine(database_url),
                    {i: RepairStep(False, 2, now + timedelta(hours=2)) for i in show_ids}, now)
    scope = {"config": {"show_ids": show_ids}}

    repair = build_definitions(env).resolve_job_def("runway_coverage_repair").execute_in_process(
        instance=instance, partition_key=brand, raise_on_error=False,
        run_config={"ops": {"runway_image_manifests": scope, "runway_drafts": scope}})

    assert not repair.success
    # Given back once, however often the step was retried: the outage was ours.
    assert query(database_url, "SELECT DISTINCT attempts FROM coverage_repairs") == [(1,)]
    assert failed_or_ingested(database_url) == []
