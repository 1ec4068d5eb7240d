"""Missed schedule ticks are reported: each schedule records the tick it evaluated in the
catalog, and the next evaluation counts the cron's times in between (the daemon down, the
schedule stopped) in the tick's log and a tag on its runs; Dagster alone would run only the
latest of them and say nothing in the UI."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from dagster import DagsterInstance, RunRequest, build_schedule_context

from fashion_assets.definitions import build_definitions
from fashion_assets.jobs.ticks import MISSED_TICKS_TAG
from fashion_assets.launch.partitions import register_brands
from fashion_assets.replica import ReplicaServer
from fashion_assets.resources import resources_from_env
from tests.catalog_db import query
from tests.conftest import pipeline_env

MONDAY = datetime(2026, 12, 7, 2, 0, tzinfo=UTC)


def tick(env: dict[str, str], instance: DagsterInstance, name: str, when: datetime) -> Any:
    schedule = build_definitions(env).resolve_schedule_def(name)
    with build_schedule_context(instance=instance, resources=resources_from_env(env),
                                scheduled_execution_time=when) as context:
        return schedule(context)


def missed_tags(result: Any) -> list[str | None]:
    requests = result if isinstance(result, list) else [result]
    assert all(isinstance(r, RunRequest) for r in requests), result
    return [r.tags.get(MISSED_TICKS_TAG) for r in requests]


def test_the_full_crawl_says_how_many_weekly_ticks_it_missed(
        tmp_path: Path, database_url: str, replica: ReplicaServer,
        dagster_instance: DagsterInstance) -> None:
    env = pipeline_env(tmp_path, database_url, f"file://{tmp_path / 'objects'}", replica,
                       FASHION_CRAWL_CRON="0 2 * * 1", FASHION_CRAWL_BATCH_BRANDS="2")
    register_brands([(f"brand-{n}", "") for n in range(3)], dagster_instance, env)

    assert missed_tags(tick(env, dagster_instance, "full_crawl_schedule", MONDAY)) == [None] * 2
    later = MONDAY + timedelta(weeks=1)
    assert missed_tags(tick(env, dagster_instance, "full_crawl_schedule", later)) == [None] * 2
    # The daemon down for two Mondays: the third crawls everything, and says so.
    after_outage = later + timedelta(weeks=3)
    assert missed_tags(tick(env, dagster_instance, "full_crawl_schedule", after_outage)
                       ) == ["2"] * 2
    assert query(database_url, "SELECT scheduled_at, missed_total FROM schedule_ticks") == [
        (after_outage.replace(tzinfo=None), 2)] or _is_text_row(database_url, after_outage)


def test_an_hourly_schedule_counts_the_hours_it_missed_and_ignores_a_tick_run_again(
        tmp_path: Path, database_url: str, replica: ReplicaServer,
        dagster_instance: DagsterInstance) -> None:
    env = pipeline_env(tmp_path, database_url, f"file://{tmp_path / 'objects'}", replica,
                       FASHION_HEAL_CRON="15 * * * *")
    start = MONDAY.replace(minute=15)
    hours = [0, 1, 6, 3, 7]  # the tick at 3 h is an old one, run again by hand
    tags = [missed_tags(tick(env, dagster_instance, "store_heal_schedule",
                             start + timedelta(hours=h))) for h in hours]
    assert tags == [[None], [None], ["4"], [None], [None]]
    [(missed,)] = query(database_url, "SELECT missed_total FROM schedule_ticks WHERE"
                        " schedule_name = 'store_heal_schedule'")
    assert missed == 4


def _is_text_row(database_url: str, when: datetime) -> bool:
    """SQLite hands timestamps back as text."""
    [(at, missed)] = query(database_url, "SELECT scheduled_at, missed_total FROM"
                           " schedule_ticks")
    return datetime.fromisoformat(str(at)) == when.replace(tzinfo=None) and missed == 2
