"""The crawler's status with a real Dagster instance: a run queued the way the daemon's
sensors queue one (created from the code location, submitted to a QueuedRunCoordinator)
counts as queued, with its waiting time; ``fashion-assets status`` leads with the line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from dagster import DagsterInstance, DagsterRunStatus
from sqlalchemy import Engine

from fashion_assets.catalog import progress
from fashion_assets.cli import main
from fashion_assets.resources import catalog_engine
from fashion_assets.status import NO_INSTANCE_NOTE, crawler_status

QUEUED_INSTANCE_YAML = """\
run_coordinator:
  module: dagster._core.run_coordinator
  class: QueuedRunCoordinator
"""


def _create_run(instance: DagsterInstance, remote: Any, partition: str) -> str:
    """A run of the code location's real job, NOT_STARTED, as a sensor tick creates one."""
    run = instance.create_run(
        job_name=remote.name, run_id=None, run_config={}, resolved_op_selection=None,
        step_keys_to_execute=None, status=DagsterRunStatus.NOT_STARTED,
        tags={"dagster/partition": partition}, root_run_id=None, parent_run_id=None,
        job_snapshot=remote.job_snapshot, execution_plan_snapshot=None,
        parent_job_snapshot=None, remote_job_origin=remote.get_remote_origin(),
        job_code_origin=remote.get_python_origin(), asset_selection=None,
        asset_check_selection=None, op_selection=None, asset_graph=None)
    return run.run_id


@pytest.fixture(scope="module")
def dagster_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """A persistent instance holding one queued crawl run (and one cancelled run, which is
    not queued); yields its folder and the queued run's id."""
    from dagster._core.instance.ref import InstanceRef
    from dagster._core.workspace.context import WorkspaceProcessContext
    from dagster._core.workspace.load_target import ModuleTarget

    home = tmp_path_factory.mktemp("dagster_home")
    (home / "dagster.yaml").write_text(QUEUED_INSTANCE_YAML)
    with DagsterInstance.from_ref(InstanceRef.from_dir(str(home))) as instance:
        target = ModuleTarget(module_name="fashion_assets.definitions", attribute=None,
                              working_directory=None, location_name="fashion-assets")
        with WorkspaceProcessContext(instance, target) as process:
            workspace = process.create_request_context()
            location = workspace.get_code_location("fashion-assets")
            [repository] = location.get_repositories().values()
            remote = repository.get_full_job("runway_crawl")
            queued = _create_run(instance, remote, "chloe")
            instance.submit_run(queued, workspace)
            cancelled = _create_run(instance, remote, "dior")
            instance.report_run_canceled(instance.get_run_by_id(cancelled))
        assert instance.get_run_by_id(queued).status == DagsterRunStatus.QUEUED
    yield {"home": str(home), "queued": queued, "cancelled": cancelled}


@pytest.fixture
def engine(database_url: str) -> Engine:
    return catalog_engine(database_url)


def test_a_queued_run_is_counted_with_its_waiting_time(engine: Engine,
                                                       dagster_home: dict[str, str]) -> None:
    from dagster._core.instance.ref import InstanceRef

    progress.start(engine, "run-live", "runway_drafts", "chloe", 4)
    later = datetime.now(UTC) + timedelta(minutes=10)
    with DagsterInstance.from_ref(InstanceRef.from_dir(dagster_home["home"])) as instance:
        status = crawler_status(engine, instance, now=later)

    assert status["line"] == "crawler: running 1, queued 1, pending review 0"
    assert status["queue_note"] == ""
    [queued] = status["queued"]
    assert (queued["run_id"], queued["job_name"], queued["partition_key"],
            queued["status"]) == (dagster_home["queued"], "runway_crawl", "chloe", "QUEUED")
    assert queued["waiting_s"] >= 600 and queued["waiting"].startswith("1")  # 10 min, more

    alone = crawler_status(engine)  # no instance: the queue is not guessed
    assert alone["line"] == "crawler: running 1, queued 0, pending review 0"
    assert alone["queue_note"] == NO_INSTANCE_NOTE and alone["queued"] == []


def test_the_status_command_leads_with_the_status_line(
        tmp_path: Path, database_url: str, dagster_home: dict[str, str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FASHION_HOME", str(tmp_path))
    monkeypatch.setenv("FASHION_DATABASE_URL", database_url)
    monkeypatch.delenv("FASHION_STORE_URL", raising=False)
    engine = catalog_engine(database_url)
    progress.start(engine, "run-live", "runway_drafts", "chloe", 4, photos_total=40)
    progress.show_done(engine, "run-live", "chloe spring-2020-ready-to-wear",
                       photos_done_delta=10)

    monkeypatch.setenv("DAGSTER_HOME", dagster_home["home"])
    result = CliRunner().invoke(main, ["status"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "crawler: running 1, queued 1, pending review 0"
    assert lines[1].startswith("  running chloe (runway_drafts): drafts 1/4 shows, photos 10/40, "
                               "last chloe spring-2020-ready-to-wear, heartbeat ")
    assert lines[2].startswith("  queued chloe (runway_crawl): waiting ")
    assert dagster_home["queued"] in lines[2]
    assert any(line.startswith("brands 0, shows 0, drafts") for line in lines)  # as before

    monkeypatch.delenv("DAGSTER_HOME")
    result = CliRunner().invoke(main, ["status"], catch_exceptions=False)
    assert result.output.splitlines()[0] == (
        "crawler: running 1, queued 0, pending review 0 (no Dagster instance in "
        f"{tmp_path / 'dagster'} yet: queued runs not counted)")
    result = CliRunner().invoke(main, ["status", "--json"], catch_exceptions=False)
    assert '"line": "crawler: running 1, queued 0, pending review 0"' in result.output

    # Without DAGSTER_HOME, the instance crawl runs on (FASHION_HOME/dagster) is read.
    (tmp_path / "dagster").symlink_to(dagster_home["home"])
    result = CliRunner().invoke(main, ["status"], catch_exceptions=False)
    assert result.output.splitlines()[0] == "crawler: running 1, queued 1, pending review 0"


def test_a_row_of_a_run_dagster_ended_is_never_shown_running(
        tmp_path: Path, database_url: str, dagster_home: dict[str, str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A crawl's row left open when Dagster ended its run (its step killed while writing):
    the status counted it running and /crawler showed it amber, for a run Dagster records
    as ended. It is shown ended, with Dagster's word, apart from the running crawls."""
    from dagster._core.instance.ref import InstanceRef

    from fashion_assets.storage import open_store
    from tests.integration.test_review_app import review_app, serve, sign_in

    monkeypatch.setenv("FASHION_HOME", str(tmp_path))
    monkeypatch.setenv("FASHION_DATABASE_URL", database_url)
    monkeypatch.setenv("DAGSTER_HOME", dagster_home["home"])
    monkeypatch.delenv("FASHION_STORE_URL", raising=False)
    engine = catalog_engine(database_url)
    cancelled = dagster_home["cancelled"]
    progress.start(engine, cancelled, "runway_drafts", "dior", 4,
                   now=datetime.now(UTC) - timedelta(hours=1))  # stale too: not amber

    result = CliRunner().invoke(main, ["status", "--json"], catch_exceptions=False)
    crawler = json.loads(result.output)["crawler"]
    assert crawler["line"] == "crawler: running 0, queued 1, pending review 0"
    assert crawler["running"] == [] and crawler["stale"] == 0
    [ended] = crawler["ended"]
    assert (ended["run_id"], ended["dagster_status"]) == (cancelled, "CANCELED")

    lines = CliRunner().invoke(main, ["status"], catch_exceptions=False).output.splitlines()
    assert not any(line.startswith("  running") for line in lines), lines
    store = open_store(f"file://{tmp_path / 'objects'}", home=tmp_path)
    with DagsterInstance.from_ref(InstanceRef.from_dir(dagster_home["home"])) as instance, \
            serve(review_app(engine, store, instance=instance)) as url:
        page = sign_in(url).get("/crawler").text
    assert f'<tr class="crawl gone" id="ended-{cancelled}">' in page, page
    assert f'id="crawl-{cancelled}"' not in page and "stale amber" not in page, page
    assert f"  ended dior (runway_drafts): Dagster ended its run (CANCELED) while its step " \
        f"was at drafts 0/4 shows; stuck_runs_sensor closes the row [run {cancelled}]" in lines


def test_each_status_line_has_its_own_label_and_counts_agree_with_their_noun(
        tmp_path: Path, database_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two lines began ``catalog:`` (the database, and what was promoted); "1 brands"."""
    from fashion_assets.catalog.names import NameKind, resolve_names

    monkeypatch.setenv("FASHION_HOME", str(tmp_path))
    monkeypatch.setenv("FASHION_DATABASE_URL", database_url)
    monkeypatch.delenv("FASHION_STORE_URL", raising=False)
    monkeypatch.delenv("DAGSTER_HOME", raising=False)
    resolve_names(catalog_engine(database_url), NameKind.BRAND,
                  [("Nobody Knows", "theimpression", "https://example.test/a")])

    lines = CliRunner().invoke(main, ["status"], catch_exceptions=False).output.splitlines()
    labels = [line.split(":", 1)[0] for line in lines if ":" in line and line[0] != " "]
    assert len(labels) == len(set(labels)), labels
    assert any(line.startswith("database: ") for line in lines), lines
    assert "promoted into the catalog: 0 shows (0 photos), 0 street albums (0 photos)" in lines
    assert ("names waiting for an editor: 1 brand, 0 cities; 0 articles wait for them "
            "(fashion-assets names list)") in [line.replace(f"{_program()} ", "fashion-assets ")
                                               for line in lines], lines


def _program() -> str:
    from fashion_assets.cli.common import program

    return program()
