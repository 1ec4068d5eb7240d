"""The production instance config (``deploy/dagster.yaml``) loads, and its queue does what it says.

The file is copied into a fresh ``DAGSTER_HOME`` and pointed, through the ``DAGSTER_PG_*``
variables it reads, at a database of its own on the test PostgreSQL server (created for the
module and dropped afterwards, so Dagster's tables never meet the catalog tests' databases).
Then:

- ``dagster instance info`` must load it: PostgreSQL run, event log and schedule storage with
  their schema created, run monitoring, retention and telemetry as configured;
- ``dagster instance info`` prints neither the run coordinator nor the compute log manager
  (the instance loads them lazily, so a broken ``run_coordinator`` block passes it), so a
  second process loads the instance from ``DAGSTER_HOME`` as the daemon does and reports the
  ``QueuedRunCoordinator``'s limits, the compute logs' folder and the run launcher;
- the daemon's own dequeue step (``QueuedRunCoordinatorDaemon._get_runs_to_dequeue``, private
  but the code that decides; Dagster is pinned in pyproject) picks from real queued runs on
  that storage exactly the runs the limits allow: one per brand, four crawls, one promotion,
  eight runs in all;
- the tag keys of the YAML are the constants the code tags its runs with.

Like the catalog tests, this needs ``FASHION_TEST_DATABASE_URL``: without it the PostgreSQL
tests are skipped on a developer machine, and CI refuses to start (``tests/conftest.py``); a
server that is configured but down fails them.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml
from sqlalchemy.engine import make_url

from fashion_assets.tags import BRAND_TAG, CRAWL_TAG, PARTITION_TAG, PROMOTION_TAG
from tests.catalog_db import fresh_postgres_database
from tests.conftest import PG_ENV

REPO = Path(__file__).resolve().parents[2]
DEPLOY_CONFIG = REPO / "deploy" / "dagster.yaml"
PG_VARIABLES = {"hostname": "DAGSTER_PG_HOST", "port": "DAGSTER_PG_PORT",
                "username": "DAGSTER_PG_USER", "password": "DAGSTER_PG_PASSWORD",
                "db_name": "DAGSTER_PG_DB"}
SUBPROCESS_TIMEOUT_S = 120


def _config() -> dict[str, Any]:
    return yaml.safe_load(DEPLOY_CONFIG.read_text("utf-8"))


def _tag_limits() -> dict[str, dict[str, Any]]:
    limits = _config()["run_coordinator"]["config"]["tag_concurrency_limits"]
    by_key = {limit["key"]: limit for limit in limits}
    assert len(by_key) == len(limits), f"a tag key is limited twice: {limits}"
    return by_key


def test_tag_limits_use_the_keys_the_code_tags_runs_with() -> None:
    limits = _tag_limits()
    assert set(limits) == {CRAWL_TAG, BRAND_TAG, PARTITION_TAG, PROMOTION_TAG}
    assert limits[PARTITION_TAG] == {"key": PARTITION_TAG,
                                     "value": {"applyLimitPerUniqueValue": True}, "limit": 1}
    # Every crawl run, whatever the tag's value: no `value`, so the limit is per key.
    assert limits[CRAWL_TAG] == {"key": CRAWL_TAG, "limit": 4}
    # One run per brand (or batch) at a time: the limit applies to each value on its own.
    assert limits[BRAND_TAG] == {"key": BRAND_TAG, "value": {"applyLimitPerUniqueValue": True},
                                 "limit": 1}
    assert limits[PROMOTION_TAG] == {"key": PROMOTION_TAG, "limit": 1}
    assert _config()["run_coordinator"]["config"]["max_concurrent_runs"] == 8


def test_the_database_settings_come_from_the_environment_only() -> None:
    """No host, user or password is written in the file: each field is an ``env:`` source."""
    postgres_db = _config()["storage"]["custom"]["config"]["postgres_db"]
    assert {field: postgres_db[field] for field in PG_VARIABLES} == {
        field: {"env": variable} for field, variable in PG_VARIABLES.items()}
    assert set(postgres_db) == {*PG_VARIABLES, "scheme"}, postgres_db
    assert postgres_db["scheme"] == "postgresql+psycopg2"


@pytest.fixture(scope="module")
def dagster_pg_env() -> Iterator[dict[str, str]]:
    """``DAGSTER_PG_*`` naming a fresh, empty database on the test server, dropped afterwards."""
    with fresh_postgres_database(os.environ[PG_ENV], prefix="fa_dagster") as url:
        parsed = make_url(url)
        yield {
            "DAGSTER_PG_HOST": parsed.host or "127.0.0.1",
            "DAGSTER_PG_PORT": str(parsed.port or 5432),
            "DAGSTER_PG_USER": parsed.username or "postgres",
            "DAGSTER_PG_PASSWORD": parsed.password or "",
            "DAGSTER_PG_DB": parsed.database or "",
        }


@pytest.fixture
def dagster_home(tmp_path: Path) -> Path:
    home = tmp_path / "dagster_home"
    home.mkdir()
    shutil.copyfile(DEPLOY_CONFIG, home / "dagster.yaml")
    return home.resolve()


# The run launcher's file and the two URLs it reads (no broker is contacted to load it).
CELERY_ENV = {"FASHION_CELERY_CONFIG": str(REPO / "deploy" / "celery.yaml"),
              "CELERY_BROKER_URL": "pyamqp://fashion:s3cret@mq.internal:5672/prod",
              "CELERY_RESULT_BACKEND": "db+postgresql+psycopg2://celery:s3cret@db.internal/celery"}


def _instance_env(home: Path, pg_env: Mapping[str, str]) -> dict[str, str]:
    """This environment with only the deployment's Dagster and Celery variables: none of the
    developer's."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DAGSTER_", "CELERY_"))}
    env.update({**pg_env, **CELERY_ENV}, DAGSTER_HOME=str(home))
    return env


def _run(args: list[str], home: Path, pg_env: Mapping[str, str]
         ) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(args, cwd=home.parent, env=_instance_env(home, pg_env),
                            capture_output=True, text=True, timeout=SUBPROCESS_TIMEOUT_S,
                            check=False)
    assert result.returncode == 0, (f"{args[2:]} exited {result.returncode}\n--- stdout\n"
                                    f"{result.stdout}\n--- stderr\n{result.stderr}")
    return result


def _section(output: str, title: str, next_title: str | None) -> dict[str, Any]:
    """One YAML section of ``dagster instance info``'s output, parsed."""
    start = output.index(f"{title}:\n")
    body = output[start:].split("\n", 2)[2]  # skip the title and its underline
    if next_title is not None:
        body = body[:body.index(f"{next_title}:\n")]
    return yaml.safe_load(body)


@pytest.mark.slow
def test_dagster_instance_info_loads_the_config_on_postgres(
        dagster_home: Path, dagster_pg_env: dict[str, str]) -> None:
    result = _run([sys.executable, "-m", "dagster", "instance", "info"], dagster_home,
                  dagster_pg_env)
    output = result.stdout
    assert f"$DAGSTER_HOME: {dagster_home}\n" in output, output
    config = _section(output, "Instance configuration", "Storage schema state")
    assert config["run_storage"] == "PostgresRunStorage", output
    assert config["event_log_storage"] == "PostgresEventLogStorage", output
    assert config["schedule_storage"] == "PostgresScheduleStorage", output
    assert config["local_artifact_storage"]["config"] == {"base_dir": str(dagster_home)}
    assert config["run_launcher"]["class"] == "CeleryCrawlRunLauncher", output
    assert config["run_launcher"]["config"] == {
        "config_file": {"env": "FASHION_CELERY_CONFIG"}}, output
    assert config["run_monitoring"] == {"enabled": True, "start_timeout_seconds": 180,
                                        "cancel_timeout_seconds": 180,
                                        "max_resume_run_attempts": 0,
                                        "poll_interval_seconds": 30}, output
    # The secrets of the environment are not printed.
    assert "s3cret" not in output
    assert config["telemetry"] == {"enabled": False}, output
    assert config["retention"]["sensor"]["purge_after_days"]["skipped"] == 7, output
    assert config["retention"]["schedule"]["purge_after_days"] == 365, output
    # Dagster created its tables in the empty database, at the latest revision.
    schema = _section(output, "Storage schema state", None)["schema"]
    for storage in ("event_log_storage", "run_storage", "schedule_storage"):
        assert schema[storage]["current"] == schema[storage]["latest"], output


def _guide_probe() -> str:
    """The ``python -c '...'`` check of docs/operations.md's "Set up", as printed there."""
    guide = (REPO / "docs" / "operations.md").read_text("utf-8")
    found = re.search(r"^( *)python -c '(.*?)'$", guide, re.MULTILINE | re.DOTALL)
    assert found, "docs/operations.md no longer prints the queue check"
    # The block is indented as a list item's; its lines are the command's without that.
    indent, code = found.groups()
    return "\n".join(line.removeprefix(indent) for line in code.splitlines())


@pytest.mark.slow
def test_the_operations_guides_checks_and_migration_run_as_printed(
        dagster_home: Path, dagster_pg_env: dict[str, str]) -> None:
    """Its queue check prints what the guide says it prints; `dagster instance migrate`, which
    it prescribes after an upgrade, runs on the instance."""
    printed = _run([sys.executable, "-c", _guide_probe()], dagster_home, dagster_pg_env).stdout
    assert printed.startswith("QueuedRunCoordinator RunQueueConfig(max_concurrent_runs=8, "
                              "tag_concurrency_limits=["), printed
    migrated = _run([sys.executable, "-m", "dagster", "instance", "migrate"], dagster_home,
                    dagster_pg_env)
    assert "Updating run storage" in migrated.stdout + migrated.stderr, migrated.stdout


PROBE = """
import json
from dagster import DagsterInstance
from sqlalchemy.engine import make_url

with DagsterInstance.get() as instance:
    queue = instance.get_concurrency_config().run_queue_config
    url = make_url(instance.run_storage.postgres_url)  # printed without its password
    print(json.dumps({
        "run_coordinator": type(instance.run_coordinator).__name__,
        "max_concurrent_runs": queue.max_concurrent_runs,
        "dequeue": [instance.run_coordinator.dequeue_interval_seconds,
                    instance.run_coordinator.dequeue_use_threads,
                    instance.run_coordinator.dequeue_num_workers],
        "tag_concurrency_limits": queue.tag_concurrency_limits,
        "run_launcher": type(instance.run_launcher).__name__,
        "celery": [instance.run_launcher.broker, instance.run_launcher.backend,
                   instance.run_launcher.config_source["task_acks_late"],
                   instance.run_launcher.supports_check_run_worker_health,
                   instance.run_launcher.supports_resume_run],
        "compute_logs": type(instance.compute_log_manager).__name__,
        "compute_logs_dir": instance.compute_log_manager.inst_data.config_dict["base_dir"],
        "run_storage": [url.drivername, url.host, url.port, url.username, url.database],
        "run_storage_password_set": bool(url.password),
        "run_monitoring": instance.run_monitoring_enabled,
        "telemetry": instance.telemetry_enabled,
    }))
"""


@pytest.mark.slow
def test_the_instance_the_daemon_loads_has_the_queue_limits(
        dagster_home: Path, dagster_pg_env: dict[str, str]) -> None:
    result = _run([sys.executable, "-c", PROBE], dagster_home, dagster_pg_env)
    loaded = json.loads(result.stdout.strip().splitlines()[-1])
    assert loaded["run_coordinator"] == "QueuedRunCoordinator", loaded
    assert loaded["max_concurrent_runs"] == 8, loaded
    assert loaded["dequeue"] == [2, True, 4], loaded
    assert loaded["tag_concurrency_limits"] == [
        {"key": CRAWL_TAG, "limit": 4},
        {"key": BRAND_TAG, "value": {"applyLimitPerUniqueValue": True}, "limit": 1},
        {"key": PARTITION_TAG, "value": {"applyLimitPerUniqueValue": True}, "limit": 1},
        {"key": PROMOTION_TAG, "limit": 1},
    ], loaded
    # Whole runs to the workers' broker, read from the workers' own file; a lost worker's run
    # is reported to the run monitor, never resumed.
    assert loaded["run_launcher"] == "CeleryCrawlRunLauncher", loaded
    assert loaded["celery"] == [CELERY_ENV["CELERY_BROKER_URL"],
                                CELERY_ENV["CELERY_RESULT_BACKEND"], True, True, False], loaded
    assert loaded["compute_logs"] == "LocalComputeLogManager", loaded
    assert loaded["compute_logs_dir"] == str(dagster_home / "storage"), loaded
    pg = dagster_pg_env
    assert loaded["run_storage"] == [
        "postgresql+psycopg2", pg["DAGSTER_PG_HOST"], int(pg["DAGSTER_PG_PORT"]),
        pg["DAGSTER_PG_USER"], pg["DAGSTER_PG_DB"]], loaded
    assert loaded["run_storage_password_set"] is bool(pg["DAGSTER_PG_PASSWORD"]), loaded
    assert loaded["run_monitoring"] is True and loaded["telemetry"] is False, loaded


@pytest.mark.slow
def test_the_queue_dequeues_one_run_per_brand_four_crawls_and_one_promotion(
        dagster_home: Path, dagster_pg_env: dict[str, str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from dagster import DagsterEvent, DagsterInstance, DagsterRun, DagsterRunStatus
    from dagster._core.events import DagsterEventType
    from dagster._core.remote_origin import RegisteredCodeLocationOrigin, RemoteRepositoryOrigin
    from dagster._daemon.run_coordinator.queued_run_coordinator_daemon import (
        QueuedRunCoordinatorDaemon,
    )

    for name, value in {**dagster_pg_env, **CELERY_ENV}.items():
        monkeypatch.setenv(name, value)
    with DagsterInstance.from_config(str(dagster_home)) as instance:
        names: dict[str, str] = {}  # run id -> a readable name
        # Queued runs name the job of a code location they are launched from: this one's.
        repository = RemoteRepositoryOrigin(
            code_location_origin=RegisteredCodeLocationOrigin(location_name="fashion_assets"),
            repository_name="__repository__")

        def queue(name: str, job: str, tags: dict[str, str]) -> None:
            run = DagsterRun(job_name=job, status=DagsterRunStatus.QUEUED, tags=tags,
                             remote_job_origin=repository.get_job_origin(job))
            instance.add_run(run)
            names[run.run_id] = name

        def crawl(name: str, brand: str) -> None:
            queue(name, "runway_crawl", {CRAWL_TAG: "brand", BRAND_TAG: brand})

        def report(name: str, event_type: DagsterEventType) -> None:
            [run_id] = [run_id for run_id, n in names.items() if n == name]
            run = instance.get_run_by_id(run_id)
            assert run is not None
            instance.report_dagster_event(
                DagsterEvent(event_type_value=event_type.value, job_name=run.job_name), run_id)

        daemon = QueuedRunCoordinatorDaemon(interval_seconds=5)

        def next_to_launch() -> list[str]:
            runs = daemon._get_runs_to_dequeue(instance, instance.get_concurrency_config(),
                                               fixed_iteration_time=None)
            return [names[run.run_id] for run in runs]

        # In queue order (first in, first out): the same brand three times, then six others,
        # two promotions and four runs no limit applies to (say, media cleanup).
        crawl("chloe-1", "chloe")
        crawl("chloe-2", "chloe")
        crawl("acne", "acne-studios")
        crawl("batch-7", "batch-7")  # a batch of brands is one value of the brand tag
        crawl("chloe-3", "chloe")
        crawl("celine", "celine")
        crawl("dior", "dior")
        crawl("gucci", "gucci")
        queue("promotion-1", "promote_approved_drafts", {PROMOTION_TAG: "sensor"})
        queue("promotion-2", "promote_approved_drafts", {PROMOTION_TAG: "sensor"})
        for n in range(1, 5):
            queue(f"cleanup-{n}", "media_cleanup", {})

        # chloe-2 and chloe-3 wait for chloe-1; dior and gucci for the fourth crawl slot;
        # promotion-2 for promotion-1; cleanup-4 for one of the eight run slots.
        first = next_to_launch()
        assert first == ["chloe-1", "acne", "batch-7", "celine", "promotion-1", "cleanup-1",
                         "cleanup-2", "cleanup-3"]
        for name in first:
            report(name, DagsterEventType.RUN_START)
        # Eight runs in progress: nothing more starts, not even the unlimited cleanup-4.
        assert next_to_launch() == []

        # A crawl and a cleanup end: two run slots and one crawl slot are free. chloe is free
        # again and first in line; promotion-2 still waits for promotion-1.
        report("chloe-1", DagsterEventType.RUN_SUCCESS)
        report("cleanup-1", DagsterEventType.RUN_SUCCESS)
        assert next_to_launch() == ["chloe-2", "cleanup-4"]
