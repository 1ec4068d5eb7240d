"""The missed-tick rule: the cron's times strictly between two evaluations."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from fashion_assets.domain.ticks import MissedTicks, missed_ticks

START = datetime(2026, 12, 7, 2, 0, tzinfo=UTC)  # a Monday


def test_no_previous_tick_or_a_clock_gone_back_misses_nothing() -> None:
    assert missed_ticks("0 * * * *", None, START) == MissedTicks(0)
    assert missed_ticks("0 * * * *", START, START) == MissedTicks(0)
    assert missed_ticks("0 * * * *", START, START - timedelta(hours=5)) == MissedTicks(0)


def test_weekly_ticks_between_two_mondays_three_weeks_apart() -> None:
    missed = missed_ticks("0 2 * * 1", START, START + timedelta(weeks=3))
    assert missed == MissedTicks(2, START + timedelta(weeks=1), START + timedelta(weeks=2))
    assert missed.describe("full_crawl_schedule") == (
        "full_crawl_schedule: 2 ticks missed, 2026-12-14 02:00 to 2026-12-21 02:00 UTC (the "
        "daemon was down or the schedule stopped); this tick's runs cover them")


def test_a_naive_previous_tick_is_read_as_utc_as_the_catalog_keeps_it() -> None:
    previous = START.replace(tzinfo=None)
    assert missed_ticks("0 * * * *", previous, START + timedelta(hours=3)).count == 2


def test_the_count_stops_at_its_limit_and_says_at_least() -> None:
    missed = missed_ticks("* * * * *", START, START + timedelta(days=30), limit=100)
    assert missed.capped and missed.count == 100
    assert "at least 100 ticks missed" in missed.describe("every_minute")


@given(hours=st.integers(min_value=0, max_value=2000), minute=st.integers(0, 59))
def test_an_hourly_cron_misses_one_tick_per_hour_in_between(hours: int, minute: int) -> None:
    previous = START.replace(minute=minute)
    current = previous + timedelta(hours=hours)
    assert missed_ticks(f"{minute} * * * *", previous, current).count == max(hours - 1, 0)
