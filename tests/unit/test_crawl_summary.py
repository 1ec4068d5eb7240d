"""The line a crawl prints per partition, and the crawl's total: plain data in, text out."""

from __future__ import annotations

import logging
from typing import Any

from fashion_assets.domain.ingest import Outcome
from fashion_assets.launch.follow import RunLog
from fashion_assets.launch.summaries import (
    RunOutcome,
    crawl_kinds,
    crawl_summary,
    crawl_totals,
    summary_line,
)
from fashion_assets.launch.webserver import LogLine, log_line


def week(listed: int, waiting: int, **shows: int) -> dict[str, Any]:
    """A street-style week's summary, as ``launch.summaries.crawl_summary`` builds it from
    the metadata."""
    return {"kind": "week", "partition": "lagos-fashion-week", "success": True,
            "listed": listed, "waiting_for_name": waiting, "waits_for": "city",
            "shows": {"created": 0, "skipped_already_ingested": 0, **shows},
            "photos_added": 12 * shows.get("created", 0),
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
                    " (fashion-assets names list); 36 photos added to drafts, 36 fetched,"
                    " 0 missing")


def test_listed_articles_that_all_were_skipped_say_so() -> None:
    assert summary_line(week(3, 0, skipped_already_ingested=3)) == (
        "lagos-fashion-week: 3 skipped_already_ingested; 0 photos added to drafts, 0 fetched,"
        " 0 missing")


def test_photos_the_store_lost_and_the_crawl_fetched_again_are_counted() -> None:
    healed = {**week(3, 0, skipped_already_ingested=3), "photos_lost": 4, "photos_healed": 3}

    assert summary_line(healed) == (
        "lagos-fashion-week: 3 skipped_already_ingested; 0 photos added to drafts, 0 fetched,"
        " 0 missing; 3 of 4 photos lost from the store fetched again")
    assert summary_line({**healed, "photos_lost": 0}) == (
        "lagos-fashion-week: 3 skipped_already_ingested; 0 photos added to drafts, 0 fetched,"
        " 0 missing")


def test_a_re_crawl_that_fetched_photos_the_drafts_had_adds_none() -> None:
    """Repairs that fetched 33 photos again under new URLs: "0 drafts created, 33 photos
    stored" beside per-show lines "0 photos added" read as a contradiction."""
    again = {**week(3, 0, unrepaired=3), "photos_added": 0, "images_stored": 33}

    assert summary_line(again) == ("lagos-fashion-week: 3 unrepaired; 0 photos added to drafts,"
                                   " 33 fetched, 0 missing")
    assert crawl_totals([again]) == ("1 crawl, 0 failed: 0 drafts created, 0 photos added to"
                                     " drafts, 33 fetched, 0 missing; 0 articles wait for a name")


def test_a_failed_run_is_one_line_with_its_reason() -> None:
    failed = {"kind": "brand", "partition": "chloe", "success": False,
              "error": "no such designer on Vogue: chloe (HTTP 404)"}

    assert summary_line(failed) == "chloe: FAILED - no such designer on Vogue: chloe (HTTP 404)"


def test_the_total_adds_up_the_partitions() -> None:
    failed = {"partition": "chloe", "success": False}

    assert crawl_totals([week(3, 3), week(4, 1, created=3), failed]) == (
        "3 crawls, 1 failed: 3 drafts created, 36 photos added to drafts, 36 fetched,"
        " 0 missing; 4 articles wait for a name")


def _line(level: int, text: str) -> LogLine:
    """A step's own log line, as the webserver gives it (no Dagster event type)."""
    return LogLine("0123456789ab", "runway_crawl", 0.0, level, text, "runway_drafts")


def test_a_crawl_prints_its_steps_own_lines_and_only_verbose_prints_every_event() -> None:
    progress, warning = _line(logging.INFO, "[1/4] chloe fall-2024: created"), _line(
        logging.WARNING, "chloe: robots.txt refused a page")
    debug, error = _line(logging.DEBUG, "step input"), _line(
        logging.ERROR, "Dependencies for step runway_drafts failed")

    assert [RunLog.PROGRESS.line(e) for e in (progress, warning, debug, error)] == [
        "[1/4] chloe fall-2024: created", "warning: chloe: robots.txt refused a page", None,
        None]
    assert [RunLog.QUIET.line(e) for e in (progress, warning, error)] == [None, None, None]
    verbose = [RunLog.EVENTS.line(e) for e in (debug, error)]
    assert all(line is not None and "runway_crawl - 01234567 - runway_drafts" in line
               for line in verbose), verbose
    assert verbose[1] is not None and verbose[1].endswith(
        "Dependencies for step runway_drafts failed")


def test_a_range_run_names_each_partition_whose_listing_failed_and_counts_as_failed() -> None:
    kind = crawl_kinds()["brand"]
    drafts = {f"shows_{o.value}": 0 for o in Outcome}
    outcome = RunOutcome("r1", True, {
        kind.listing_asset: {"listed": 4, "failed_table": [
            {"brand": "nosuch", "error": "no such designer on Vogue: nosuch (HTTP 404)"}]},
        kind.drafts_asset: {**drafts, "shows_created": 4, "photos_added": 48,
                            "images_stored": 48, "images_missing": 0}})

    summary = crawl_summary(kind, "acne..nosuch", outcome)

    assert summary["success"] is False
    assert summary_line(summary) == (
        "acne..nosuch: 4 created; 48 photos added to drafts, 48 fetched, 0 missing; FAILED"
        " nosuch - no such designer on Vogue: nosuch (HTTP 404)")
    assert crawl_totals([summary]).startswith("1 crawl, 1 failed (1 of their partitions): 4")


def test_a_step_up_for_retry_says_why_and_when_even_without_verbose() -> None:
    """Dagster's back-off grows to minutes; the command printed nothing meanwhile."""
    retry = log_line({"__typename": "ExecutionStepUpForRetryEvent",
                      "message": "Execution of step \"runway_show_listings\" failed and has "
                                 "requested a retry in 19.241999755645196 seconds.",
                      "timestamp": "1765000000123", "level": "ERROR",
                      "stepKey": "runway_show_listings", "eventType": "STEP_UP_FOR_RETRY",
                      "secondsToWait": 19.241999755645196,
                      "error": {"className": "Failure", "message": "Failure: outer",
                                "causes": [{"className": "ListingError", "message":
                                            "ListingError: www.vogue.com did not answer\n"
                                            "  more lines"}]}},
                     "0123", "runway_crawl")

    assert RunLog.PROGRESS.line(retry) == (
        "warning: step runway_show_listings failed (ListingError: www.vogue.com did not "
        "answer); Dagster runs it again in 19 s (at 05:46:59 UTC)")
    assert RunLog.QUIET.line(retry) is None
    bare = LogLine("0123", "runway_crawl", 0.0, logging.ERROR, "failed; retry", "s",
                   "STEP_UP_FOR_RETRY")
    assert RunLog.PROGRESS.line(bare) == (
        "warning: step s failed (failed; retry); Dagster runs it again")
