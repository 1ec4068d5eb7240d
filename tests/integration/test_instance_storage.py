"""The local instance's storage (``fashion_assets/instance_storage.py``) makes the files
Dagster's own SQLite storage makes, and Dagster's own storage reads them.

A partitioned 3-asset job with an asset check runs on an instance opened with
``local_instance_yaml`` (as ``fashion-assets crawl`` opens it); then a second instance on the
same ``DAGSTER_HOME`` with Dagster's default storage (no storage in its dagster.yaml, as a
user's webserver may be configured) must find the runs, their events, the materializations
and the check, and a run database made by the copy must hold the schema and migration stamp
of one Dagster made itself.
"""

import sqlite3
import subprocess
import sys
from pathlib import Path

from dagster import (
    AssetCheckKey,
    AssetCheckResult,
    AssetKey,
    DagsterEventType,
    DagsterInstance,
    Definitions,
    StaticPartitionsDefinition,
    asset,
    asset_check,
    define_asset_job,
)

from fashion_assets.instance_storage import LocalEventLogStorage
from fashion_assets.runs import local_instance_yaml

BRANDS = StaticPartitionsDefinition(["a", "b", "c"])


@asset(partitions_def=BRANDS)
def listing() -> int:
    return 1


@asset(partitions_def=BRANDS)
def manifest(listing: int) -> int:
    return listing + 1


@asset_check(asset=manifest)
def manifest_check() -> AssetCheckResult:
    return AssetCheckResult(passed=True)


JOB = Definitions(assets=[listing, manifest], asset_checks=[manifest_check],
                  jobs=[define_asset_job("crawl", selection=[listing, manifest])]
                  ).resolve_job_def("crawl")


def _instance(home: Path, config: str) -> DagsterInstance:
    (home / "dagster.yaml").write_text(config)
    return DagsterInstance.from_config(str(home))


def _schema(path: Path) -> tuple[list[tuple[str, str]], list[tuple[str]]]:
    with sqlite3.connect(path) as conn:
        tables = conn.execute("SELECT name, sql FROM sqlite_master ORDER BY name").fetchall()
        stamp = conn.execute("SELECT version_num FROM alembic_version").fetchall()
    return tables, stamp


def test_runs_stored_here_are_read_by_dagsters_own_storage(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    ours = _instance(home, local_instance_yaml(home))
    assert isinstance(ours.event_log_storage, LocalEventLogStorage)
    results = [JOB.execute_in_process(instance=ours, partition_key=key) for key in "abc"]
    assert all(result.success for result in results)
    runs = home / "history" / "runs"
    # Before Dagster's own storage opens it (it would add what it found missing).
    made_here = _schema(runs / f"{results[0].run_id}.db")

    stock = _instance(home, "telemetry:\n  enabled: false\n")
    assert type(stock.event_log_storage).__name__ == "SqliteEventLogStorage"
    for result in results:
        run = stock.get_run_by_id(result.run_id)
        assert run is not None and run.is_success
        types = {e.dagster_event_type for e in stock.all_logs(result.run_id)}
        assert {DagsterEventType.RUN_SUCCESS, DagsterEventType.ASSET_MATERIALIZATION,
                DagsterEventType.ASSET_CHECK_EVALUATION} <= types
    materialized = stock.fetch_materializations(AssetKey("manifest"), limit=10).records
    assert sorted(r.partition_key for r in materialized) == ["a", "b", "c"]
    assert stock.get_materialized_partitions(AssetKey("listing")) == {"a", "b", "c"}
    checks = stock.event_log_storage.get_asset_check_execution_history(
        AssetCheckKey(AssetKey("manifest"), "manifest_check"), limit=10)
    assert sorted(c.run_id for c in checks) == sorted(r.run_id for r in results)

    # Each run's database, made by the copy, is what Dagster makes for a run.
    stock_run = JOB.execute_in_process(instance=stock, partition_key="a")
    assert made_here == _schema(runs / f"{stock_run.run_id}.db")
    assert [p.name for p in runs.iterdir() if "tmp" in p.name or "empty" in p.name] == []


def test_the_local_instance_config_loads_without_dagster_home(tmp_path: Path) -> None:
    """The YAML as written loads in a fresh process that opens the folder by its path, with
    no DAGSTER_HOME set (as ``fashion-assets status`` does)."""
    (tmp_path / "dagster.yaml").write_text(local_instance_yaml(tmp_path))
    script = ("import sys; from dagster import DagsterInstance;"
              " i = DagsterInstance.from_config(sys.argv[1]);"
              " print(type(i.event_log_storage).__name__, i.event_log_storage._base_dir)")
    printed = subprocess.run([sys.executable, "-c", script, str(tmp_path)],
                             capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"},
                             timeout=120, check=True).stdout.split()
    assert printed == ["LocalEventLogStorage", str(tmp_path.resolve() / "history" / "runs")]


def test_a_run_database_that_exists_is_left_to_dagster(tmp_path: Path) -> None:
    """Another instance (another process: the webserver) reading the runs of this one opens
    their databases as Dagster does, and finds every event."""
    first = _instance(tmp_path, local_instance_yaml(tmp_path))
    done = [JOB.execute_in_process(instance=first, partition_key=key) for key in "ab"]
    second = _instance(tmp_path, local_instance_yaml(tmp_path))
    for result in done:
        assert any(e.dagster_event_type == DagsterEventType.RUN_SUCCESS
                   for e in second.all_logs(result.run_id))
