"""The ``fashion-assets`` command, invoked in-process through click's test runner.

The command's path does not depend on the catalog's database: its tests run on the
command's default, SQLite (``SQLITE``), and one (crawl, then status) on PostgreSQL too;
the catalog's own tests cover both."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import create_engine, text

from fashion_assets.cli import main
from fashion_assets.launch.instance import dagster_instance, local_instance_yaml
from fashion_assets.launch.summaries import (
    crawl_kinds,
    crawl_summary,
    run_outcome,
    summary_line,
)
from fashion_assets.replica import (
    HOSTILE_BRAND,
    ROBOTS_BLOCKED_BRAND,
    ReplicaServer,
)
from tests.catalog_db import query
from tests.conftest import normal_brands, pipeline_env

SQLITE = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


@pytest.fixture
def cli_env(tmp_path: Path, database_url: str, replica: ReplicaServer,
            monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    env = pipeline_env(tmp_path, database_url, "", replica,
                       DAGSTER_HOME=str(tmp_path / "dagster"))
    # No telemetry (these machines have no internet): nor its notice in the output read.
    (tmp_path / "dagster").mkdir()
    (tmp_path / "dagster" / "dagster.yaml").write_text("telemetry:\n  enabled: false\n")
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("FASHION_STORE_URL", raising=False)
    return env


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.output


def test_crawl_then_status_report_the_same_archive(cli_env: dict[str, str],
                                                   replica: ReplicaServer) -> None:
    brand = normal_brands(replica)[0]
    photos = sum(len(s.photos) for s in brand.shows)

    code, out = run("crawl", "--brand", brand.slug, "--json")
    assert code == 0, out
    [summary] = json.loads(out[out.index("{"):])["crawls"]
    assert summary["shows"]["created"] == len(brand.shows)
    assert (summary["images_stored"], summary["images_missing"]) == (photos, 0)

    code, out = run("status", "--json", "--store")
    assert code == 0, out
    status = json.loads(out)
    assert status["brands"] == 1 and status["shows"] == len(brand.shows)
    assert status["drafts"]["pending"] == len(brand.shows)
    assert status["draft_images"] == photos
    assert status["store"]["objects"] == photos
    assert status["store"]["url"].startswith("file://" + cli_env["FASHION_HOME"])
    assert status["per_brand"][0]["photos"] == photos

    code, out = run("status", "--store")
    assert code == 0 and brand.slug in out and f"{photos} objects" in out
    # Without --store the store is not listed (on an archive that takes minutes).
    code, out = run("status", "--json")
    assert code == 0 and json.loads(out)["store"] == {**status["store"], "objects": None,
                                                       "bytes": None}
    code, out = run("status")
    assert code == 0 and "not counted" in out.split("store:", 1)[1].split("\n", 1)[0]


@SQLITE
def test_crawl_exits_non_zero_only_when_a_run_failed(cli_env: dict[str, str]) -> None:
    code, out = run("crawl", "--brand", ROBOTS_BLOCKED_BRAND)

    assert code == 1
    assert "FAILED" in out and "robots_disallowed" in out


@SQLITE
def test_brands_are_registered_once_and_bad_slugs_refused(cli_env: dict[str, str]) -> None:
    assert run("brands", "add", "chloe", "--name", "Chloé") == (0, "added: chloe\n")
    assert run("brands", "add", "chloe") == (0, "already registered: chloe\n")
    assert run("brands", "list") == (0, "chloe\tChloé\n")

    assert CliRunner().invoke(main, ["crawl", "--brand", "../etc"]).exit_code == 2
    result = CliRunner().invoke(main, ["brands", "add", "Chloé"])
    assert result.exit_code == 2 and "not a brand slug" in result.output


@SQLITE
def test_brands_discover_registers_what_vogue_lists_and_says_so(
        cli_env: dict[str, str], replica: ReplicaServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FASHION_DISCOVERY_DENY", f"{HOSTILE_BRAND},{ROBOTS_BLOCKED_BRAND}")
    slugs = sorted(b.slug for b in normal_brands(replica))

    code, out = run("brands", "discover")

    assert code == 0, out
    assert (f"{len(replica.site.brands)} designers listed: {len(slugs)} new (registered), "
            "0 known, 2 out of scope, 0 waiting for an editor") in out
    code, out = run("brands", "list")
    assert sorted(line.split("\t")[0] for line in out.splitlines()) == slugs
    code, out = run("brands", "discover", "--json")
    assert code == 0 and json.loads(out[out.index("{"):])["known"] == len(slugs)


@SQLITE
def test_names_list_merge_and_refusals(cli_env: dict[str, str], replica: ReplicaServer) -> None:
    week = replica.site.impression.week("stockholm-fashion-week")
    code, out = run("crawl", "--week", week.slug, "--json")
    assert code == 0, out
    [summary] = json.loads(out[out.index("{"):])["crawls"]
    assert summary["partition"] == week.slug and summary["shows"]["created"] == 0

    code, out = run("names", "list", "--json")
    assert code == 0, out
    [name] = json.loads(out)["names"]
    assert (name["kind"], name["name"], name["waiting"]) == ("city", "Stokholm",
                                                             len(week.articles))
    code, out = run("status", "--json")
    assert json.loads(out)["waiting_for_name"] == len(week.articles)

    code, out = run("names", "merge", "nowhere", "stockholm")
    assert code == 1 and "no pending name 'nowhere'" in out
    code, out = run("names", "merge", "stokholm", "stockholm")  # as written, in any case
    assert code == 0, out
    assert f"{len(week.articles)} waiting articles released" in out
    assert f"fashion-assets crawl --week {week.slug}" in out
    code, out = run("names", "dismiss", str(name["id"]))
    assert code == 1 and "merged already" in out
    code, out = run("names", "merge", "999999", "stockholm")
    assert code == 1 and "no pending name with id 999999" in out
    code, out = run("names", "list")
    assert code == 0 and out.strip() == "no pending names"

    code, out = run("crawl", "--week", week.slug, "--json")
    [summary] = json.loads(out[out.index("{"):])["crawls"]
    assert summary["shows"]["created"] == len(week.articles)


@SQLITE
def test_crawl_needs_something_to_crawl(cli_env: dict[str, str]) -> None:
    result = CliRunner().invoke(main, ["crawl"])

    assert result.exit_code == 2 and "--brand, --season, --week or --all" in result.output


def _partitions(label: str, order: list[str]) -> list[str]:
    """The partitions a run's line names: a key, or ``first..last`` of ``order`` (the
    partitions definition's order, as Dagster's range tags mean it)."""
    first, _, last = label.partition("..")
    return order[order.index(first):order.index(last or first) + 1]


@SQLITE
def test_crawl_all_runs_the_brands_in_batches_and_coverage_is_listed_and_retried(
        cli_env: dict[str, str], replica: ReplicaServer, monkeypatch: pytest.MonkeyPatch
        ) -> None:
    brands = [b.slug for b in normal_brands(replica)] + [HOSTILE_BRAND]
    for slug in brands:
        assert run("brands", "add", slug)[0] == 0
    monkeypatch.setenv("FASHION_CRAWL_BATCH_BRANDS", "2")

    code, out = run("crawl", "--all", "--json")

    assert code == 0, out
    crawls = json.loads(out[out.index("{"):])["crawls"]
    assert [slug for c in crawls for slug in _partitions(c["partition"], brands)] == brands
    assert all(c["success"] for c in crawls)
    drafted = {b: n for b, n in query(cli_env["FASHION_DATABASE_URL"],
                                      "SELECT brand_slug, count(*) FROM brand_runway_drafts"
                                      " GROUP BY brand_slug")}
    assert drafted[brands[0]] == len(replica.site.brand(brands[0]).shows)
    assert drafted[brands[1]] == len(replica.site.brand(brands[1]).shows)

    code, out = run("status")
    assert code == 0, out
    assert "backpressure: ok:" in out
    incomplete = [line for line in out.splitlines() if line.startswith("coverage: ")]
    assert incomplete and "incomplete shows" in incomplete[0]
    engine = create_engine(cli_env["FASHION_DATABASE_URL"])
    with engine.begin() as conn:  # as the coverage sensor leaves a show it gave up on
        show_id = conn.execute(text("SELECT min(id) FROM runway_shows WHERE brand_slug = :b"),
                               {"b": HOSTILE_BRAND}).scalar_one()
        conn.execute(text("INSERT INTO coverage_repairs (show_id, attempts, gave_up_at, reason)"
                          " VALUES (:s, 5, CURRENT_TIMESTAMP, 'still incomplete after 5"
                          " re-fetches: 9 photos missing (not_found x 9)')"), {"s": show_id})
    engine.dispose()

    code, out = run("coverage", "list", "--json")
    assert code == 0, out
    listed = json.loads(out)
    shows = listed["shows"]
    assert listed["given_up"] == 1 and len(shows) == listed["incomplete"] + 1 > 1
    assert all(s["brand_slug"] == HOSTILE_BRAND and s["season_code"] for s in shows)
    *repairing, given_up = shows  # the shows still repaired first, then those given up
    assert (given_up["show_id"], given_up["attempts"]) == (show_id, 5)
    assert "not_found x 9" in given_up["reason"] and given_up["next_attempt_at"] is None
    assert not any(s["gave_up_at"] for s in repairing)
    code, out = run("coverage", "list")
    assert code == 0 and "1 given up" in out and "not_found x 9" in out, out
    header, *lines = out.splitlines()
    assert header.startswith(f"{listed['incomplete']} incomplete shows")
    assert [line.split("\t")[:5] for line in lines] == [
        [f"show {s['show_id']}", HOSTILE_BRAND, s["season_code"], "vogue",
         f"{s['stored']}/{s['expected'] or '?'} photos"] for s in shows]
    # Why a show is incomplete, from the ingest log (the list said nothing before a re-fetch).
    said = [(line, s["last_reason"]) for line, s in zip(lines[:-1], repairing, strict=True)
             if s["last_reason"]]
    assert said and all(line.endswith(f"\tdue now (never re-fetched): {reason}")
                        for line, reason in said), said
    assert all(line.endswith("\tdue now (never re-fetched)")
               for line, s in zip(lines[:-1], repairing, strict=True) if not s["last_reason"])
    assert lines[-1].split("\t")[5].startswith(f"gave up {given_up['gave_up_at']} after 5 "
                                                "re-fetches: still incomplete")
    code, out = run("coverage", "list", "--limit", "2")
    assert out.splitlines()[-1] == f"... and {len(shows) - 2} more (--limit)"
    assert "gave up" in run("status")[1]
    assert run("coverage", "retry")[0] == 2
    code, out = run("coverage", "retry", "--brand", HOSTILE_BRAND)
    assert code == 0 and out.startswith("1 given-up show will be re-fetched"), out
    assert "0 given up" in run("coverage", "list")[1]


@SQLITE
def test_a_designer_the_source_does_not_have_fails_in_one_line_and_is_not_registered(
        cli_env: dict[str, str]) -> None:
    """The README's ``crawl --brand chloe`` on a source without Chloé: no stack trace, no
    brand or partition left for every later crawl to fail on. Beside the failure's line,
    only the note of the ``dagster dev`` the command started for its run (on stderr)."""
    from dagster import DagsterInstance

    result = CliRunner().invoke(main, ["crawl", "--brand", "chloe"], catch_exceptions=False)

    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "chloe: FAILED - no such designer on Vogue: chloe (HTTP 404)"], result.output
    [note] = result.stderr.splitlines()
    assert note.startswith("started Dagster (`dagster dev`: webserver, daemon)"), note
    assert run("brands", "list") == (0, "")
    with DagsterInstance.from_config(cli_env["DAGSTER_HOME"]) as instance:
        assert "chloe" not in instance.get_dynamic_partitions("brands")
        # The line came from the run's log as the webserver gives it; the instance agrees.
        [failed] = instance.get_runs()
        assert result.stdout.splitlines() == [summary_line(crawl_summary(
            crawl_kinds()["brand"], "chloe", run_outcome(instance, failed.run_id)))]
    [(stage, outcome, reason)] = query(cli_env["FASHION_DATABASE_URL"],
                                       "SELECT stage, outcome, reason FROM ingest_log")
    assert (stage, outcome, reason) == ("listing", "failed", "not_found: HTTP 404")


@SQLITE
def test_crawl_prints_progress_per_show_and_dagster_events_only_when_verbose(
        cli_env: dict[str, str], replica: ReplicaServer) -> None:
    brand = normal_brands(replica)[0]
    photos = sum(len(s.photos) for s in brand.shows)

    code, out = run("crawl", "--brand", brand.slug)

    assert code == 0, out
    assert f"[{len(brand.shows)}/{len(brand.shows)}] {brand.slug} " in out
    assert "RUN_START" not in out and " - dagster - " not in out, out
    assert out.splitlines()[-1] == (f"{brand.slug}: {len(brand.shows)} created; {photos} photos"
                                    f" added to drafts, {photos} fetched, 0 missing")

    code, out = run("crawl", "--brand", brand.slug, "--verbose")
    assert code == 0, out
    assert "RUN_START" in out and "STEP_SUCCESS" in out


@SQLITE
def test_status_reads_the_instance_crawl_runs_on_without_dagster_home(
        cli_env: dict[str, str], replica: ReplicaServer, monkeypatch: pytest.MonkeyPatch
        ) -> None:
    home = Path(cli_env["FASHION_HOME"]) / "dagster"
    shutil.rmtree(home)  # the fixture's instance folder: nothing crawled here yet
    monkeypatch.delenv("DAGSTER_HOME")

    code, out = run("status", "--json")
    assert code == 0, out
    assert json.loads(out)["crawler"]["queue_note"] == (
        f"no Dagster instance in {home} yet: queued runs not counted")
    assert not home.exists()  # status only reads

    assert run("crawl", "--brand", normal_brands(replica)[0].slug)[0] == 0
    # FASHION_HOME/dagster: crawl's default, with the config crawl gives a new instance
    assert (home / "dagster.yaml").read_text() == local_instance_yaml()
    monkeypatch.delenv("DAGSTER_HOME")  # crawl exports it for its `dagster dev`

    code, out = run("status", "--json")
    assert code == 0, out
    assert json.loads(out)["crawler"]["queue_note"] == ""  # the same instance, found


def test_a_new_instance_gets_the_local_config_and_an_existing_config_is_kept(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No step output captured (no helper processes per step) and no usage statistics; a
    ``dagster.yaml`` already there, the user's, is never written over."""
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "new"))
    instance = dagster_instance()
    assert type(instance.compute_log_manager).__name__ == "NoOpComputeLogManager"
    assert instance.telemetry_enabled is False
    # The daemon launches the queued runs, a CPU's worth at once unless told otherwise.
    queue = instance.run_coordinator.get_run_queue_config()
    assert type(instance.run_coordinator).__name__ == "QueuedRunCoordinator"
    assert queue.max_concurrent_runs == (os.cpu_count() or 1)
    assert "\n    max_concurrent_runs: 3\n" in local_instance_yaml(3)

    kept = tmp_path / "kept"
    kept.mkdir()
    (kept / "dagster.yaml").write_text("telemetry:\n  enabled: true\n")
    monkeypatch.setenv("DAGSTER_HOME", str(kept))
    instance = dagster_instance()
    assert (kept / "dagster.yaml").read_text() == "telemetry:\n  enabled: true\n"
    assert type(instance.compute_log_manager).__name__ == "LocalComputeLogManager"


@SQLITE
def test_a_step_waiting_for_its_retry_is_said_with_its_reason(
        cli_env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A source that does not answer fails the listing step, which Dagster's retry policy
    runs again after a back-off that grows to minutes: the command says why and when each
    time (it printed nothing until the run ended), then the run's failure."""
    with socket.socket() as closed:  # bound, never listening: connections are refused
        closed.bind(("127.0.0.1", 0))
        monkeypatch.setenv("FASHION_VOGUE_BASE_URL",
                           f"http://127.0.0.1:{closed.getsockname()[1]}")
        result = CliRunner().invoke(main, ["crawl", "--brand", "chloe"],
                                    catch_exceptions=False)

    assert result.exit_code == 1
    retries = [line for line in result.stderr.splitlines() if line.startswith("warning: step")]
    assert len(retries) == 2, result.output  # FASHION_STEP_RETRIES, the default
    assert all(re.fullmatch(r"warning: step runway_show_listings failed \(.*robots_unavailable"
                            r".*\); Dagster runs it again in \d+ s \(at \d\d:\d\d:\d\d UTC\)",
                            line) for line in retries), retries
    assert result.stdout.splitlines()[-1].startswith("chloe: FAILED"), result.output

