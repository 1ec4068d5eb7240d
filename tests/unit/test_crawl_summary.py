"""The line a crawl prints per partition, and the crawl's total: plain data in, text out."""

from __future__ import annotations

from typing import Any

from fashion_assets.runs import RunLog, crawl_totals, summary_line


def week(listed: int, waiting: int, **shows: int) -> dict[str, Any]:
    """A street-style week's summary, as ``runs._summary`` builds it from the metadata."""
    return {"kind": "week", "partition": "lagos-fashion-week", "success": True,
            "listed": listed, "waiting_for_name": waiting, "waits_for": "city",
            "shows": {"created": 0, "skipped_already_ingested": 0, **shows},
            "images_stored": 12 * shows.get("created", 0), "images_missing": 0}


def test_articles_waiting_for_a_city_are_listed_not_nothing() -> None:
    line = summary_line(week(3, 3), program=".venv/bin/fashion-assets")

    assert line == ("lagos-fashion-week: 3 listed, waiting for a city name"
                    " (.venv/bin/fashion-assets names list)")


def test_nothing_listed_only_when_the_listing_held_nothing() -> None:
    assert summary_line(week(0, 0)) == "lagos-fashion-week: nothing listed"


def test_drafted_and_waiting_articles_are_both_counted() -> None:
    line = summary_line(week(4, 1, created=3))

    assert line == ("lagos-fashion-week: 3 created, 1 waiting for a city name"
                    " (fashion-assets names list); 36 photos stored, 0 missing")


def test_listed_articles_that_all_were_skipped_say_so() -> None:
    assert summary_line(week(3, 0, skipped_already_ingested=3)) == (
        "lagos-fashion-week: 3 skipped_already_ingested; 0 photos stored, 0 missing")


def test_photos_the_store_lost_and_the_crawl_fetched_again_are_counted() -> None:
    healed = {**week(3, 0, skipped_already_ingested=3), "photos_lost": 4, "photos_healed": 3}

    assert summary_line(healed) == (
        "lagos-fashion-week: 3 skipped_already_ingested; 0 photos stored, 0 missing;"
        " 3 of 4 photos lost from the store fetched again")
    assert summary_line({**healed, "photos_lost": 0}) == (
        "lagos-fashion-week: 3 skipped_already_ingested; 0 photos stored, 0 missing")


def test_a_failed_run_is_one_line_with_its_reason() -> None:
    failed = {"kind": "brand", "partition": "chloe", "success": False,
              "error": "no such designer on Vogue: chloe (HTTP 404)"}

    assert summary_line(failed) == "chloe: FAILED - no such designer on Vogue: chloe (HTTP 404)"


def test_the_total_adds_up_the_partitions() -> None:
    failed = {"partition": "chloe", "success": False}

    assert crawl_totals([week(3, 3), week(4, 1, created=3), failed]) == (
        "3 crawls, 1 failed: 3 drafts created, 36 photos stored, 0 missing;"
        " 4 articles wait for a name")


def test_only_verbose_runs_log_dagster_events() -> None:
    assert RunLog.EVENTS.run_config() == {}  # Dagster's default console logger, DEBUG up
    for quieter, level in ((RunLog.PROGRESS, "INFO"), (RunLog.QUIET, "ERROR")):
        assert quieter.run_config() == {"loggers": {"progress": {"config": {
            "log_level": level}}}}
