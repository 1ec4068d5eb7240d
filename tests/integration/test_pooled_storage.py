"""``deploy/dagster.yaml``'s storage holds its connections in every process that loads it.

dagster-postgres connects for every storage call outside the webserver; the deployment's
storage (``fashion_assets/pooled_storage.py``) holds one connection per storage instead. A
process loads the instance from a copy of the file, on a database of its own, makes sixty
storage calls (run reads, event writes, the dynamic partition reads that
``add_asset_metadata(partition_key=)`` makes), and PostgreSQL's own count of the sessions
opened on that database (``pg_stat_database.sessions``) tells how many connections it took.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from tests.catalog_db import fresh_postgres_database, query
from tests.conftest import PG_ENV

REPO = Path(__file__).resolve().parents[2]
CALLS = 20  # of each of three kinds
SETTLE_S = 30  # the most the sessions' backends may take to end after the process exits

PROBE = """
import sys
from dagster import DagsterInstance
with DagsterInstance.get() as instance:
    instance.add_dynamic_partitions("brands", ["chloe"])
    for _ in range(int(sys.argv[1])):
        instance.get_runs(limit=1)
        instance.has_dynamic_partition("brands", "chloe")
        instance.get_dynamic_partitions("brands")
    print(type(instance.run_storage).__name__)
"""


@pytest.fixture
def database() -> Iterator[str]:
    with fresh_postgres_database(os.environ[PG_ENV], prefix="fa_dagster") as url:
        yield url


def _sessions(admin_url: str, database: str) -> int:
    """Sessions opened so far on ``database``, once none of them is left: a backend adds its
    session to the count as it ends."""
    deadline = time.monotonic() + SETTLE_S
    while query(admin_url, "SELECT count(*) FROM pg_stat_activity WHERE datname = :d",
                d=database)[0][0] and time.monotonic() < deadline:
        time.sleep(0.05)
    return query(admin_url, "SELECT sessions FROM pg_stat_database WHERE datname = :d",
                 d=database)[0][0]


def test_a_process_on_the_deployment_storage_reuses_its_connections(
        tmp_path: Path, database: str) -> None:
    home = tmp_path / "dagster_home"
    home.mkdir()
    shutil.copyfile(REPO / "deploy" / "dagster.yaml", home / "dagster.yaml")
    url = make_url(database)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DAGSTER_", "CELERY_"))}
    env.update(DAGSTER_HOME=str(home), DAGSTER_PG_HOST=url.host or "127.0.0.1",
               DAGSTER_PG_PORT=str(url.port or 5432), DAGSTER_PG_USER=url.username or "",
               DAGSTER_PG_PASSWORD=url.password or "", DAGSTER_PG_DB=url.database or "")
    admin = os.environ[PG_ENV]

    def sessions_of_a_process(calls: int) -> int:
        before = _sessions(admin, url.database or "")
        probe = subprocess.run([sys.executable, "-c", PROBE, str(calls)], env=env,
                               cwd=tmp_path, capture_output=True, text=True, timeout=120,
                               check=False)
        assert probe.returncode == 0, probe.stderr
        assert probe.stdout.strip() == "PostgresRunStorage"  # dagster-postgres' own storage
        return _sessions(admin, url.database or "") - before

    sessions_of_a_process(0)  # the first creates Dagster's tables
    loading = sessions_of_a_process(0)
    calling = sessions_of_a_process(CALLS)
    # Loading the instance connects a few times (each storage checks its tables before it
    # holds a connection); the calls take one more: they opened 3 * CALLS sessions on
    # dagster-postgres' default storage.
    assert 0 <= calling - loading <= 3, (loading, calling)
