"""Progress rules: heartbeat age, the stuck rule, the status line, bars and ages."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from fashion_assets.domain.progress import (
    STUCK_THRESHOLD_S,
    elapsed_s,
    format_age,
    heartbeat_age,
    is_stuck,
    keeps_beating,
    percent,
    status_line,
)

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(("case", "age", "threshold_s", "stuck"), [
    ("just beaten", timedelta(0), STUCK_THRESHOLD_S, False),
    ("beaten 30 s ago, a long show still running", timedelta(seconds=30), 300, False),
    ("4 min 59 s: alive", timedelta(seconds=299), 300, False),
    # Strictly older: exactly at the threshold is not yet stuck (when in doubt, keep).
    ("exactly 5 min: alive", timedelta(seconds=300), 300, False),
    ("a microsecond past 5 min: stuck", timedelta(seconds=300, microseconds=1), 300, True),
    ("an hour: stuck", timedelta(hours=1), 300, True),
    ("a custom threshold of 60 s, 61 s old: stuck", timedelta(seconds=61), 60, True),
    ("a custom threshold of 600 s, 400 s old: alive", timedelta(seconds=400), 600, False),
    ("heartbeat in the future (clock skew): alive", -timedelta(minutes=10), 300, False),
    ("the default threshold is 5 minutes", timedelta(seconds=301), STUCK_THRESHOLD_S, True),
])
def test_stuck_rule(case: str, age: timedelta, threshold_s: float, stuck: bool) -> None:
    assert is_stuck(NOW - age, NOW, threshold_s) is stuck, case


@pytest.mark.parametrize(("case", "heartbeat", "age_s"), [
    ("now", NOW, 0.0),
    ("90 s ago", NOW - timedelta(seconds=90), 90.0),
    ("in another zone, same instant + 2 s", (NOW - timedelta(seconds=2)).astimezone(
        timezone(timedelta(hours=5))), 2.0),
    ("in the future: 0, never negative", NOW + timedelta(seconds=5), 0.0),
])
def test_heartbeat_age(case: str, heartbeat: datetime, age_s: float) -> None:
    assert heartbeat_age(heartbeat, NOW) == age_s, case


@pytest.mark.parametrize("naive", ["heartbeat", "now"])
def test_naive_times_are_refused(naive: str) -> None:
    plain = NOW.replace(tzinfo=None)
    heartbeat, now = (plain, NOW) if naive == "heartbeat" else (NOW, plain)
    with pytest.raises(ValueError, match="timezone-aware"):
        is_stuck(heartbeat, now)
    with pytest.raises(ValueError, match="timezone-aware"):
        elapsed_s(heartbeat, now)


@pytest.mark.parametrize("threshold_s", [0, -1])
def test_a_threshold_that_makes_every_run_stuck_is_refused(threshold_s: float) -> None:
    with pytest.raises(ValueError, match="positive"):
        is_stuck(NOW, NOW, threshold_s)


@pytest.mark.parametrize(("case", "since_progress_s", "threshold_s", "beats"), [
    ("a show just finished", 0.0, 300, True),
    ("a long show, 4 min 59 s without one finishing", 299.0, 300, True),
    # Exactly at the threshold it still beats (when in doubt, keep the run).
    ("exactly 5 min", 300.0, 300, True),
    ("a request dripping for 5 min and a millisecond", 300.001, 300, False),
    ("an hour held by one request", 3600.0, 300, False),
    ("a custom threshold of 2 s, 2.5 s without progress", 2.5, 2, False),
    ("the default threshold is 5 minutes", 301.0, STUCK_THRESHOLD_S, False),
])
def test_a_step_beats_only_while_it_makes_progress(case: str, since_progress_s: float,
                                                   threshold_s: float, beats: bool) -> None:
    # Monotonic clock readings: any origin, only the difference counts.
    assert keeps_beating(1000.0, 1000.0 + since_progress_s, threshold_s) is beats, case


@pytest.mark.parametrize("threshold_s", [0, -1])
def test_a_threshold_that_would_silence_every_step_is_refused(threshold_s: float) -> None:
    with pytest.raises(ValueError, match="positive"):
        keeps_beating(0.0, 0.0, threshold_s)


@pytest.mark.parametrize(("running", "queued", "pending", "line"), [
    (1, 3, 42, "crawler: running 1, queued 3, pending review 42"),
    (0, 0, 0, "crawler: running 0, queued 0, pending review 0"),
    (12, 0, 100000, "crawler: running 12, queued 0, pending review 100000"),
])
def test_status_line(running: int, queued: int, pending: int, line: str) -> None:
    assert status_line(running, queued, pending) == line


def test_runs_waiting_to_retry_are_running_and_said_apart() -> None:
    assert status_line(1, 0, 0, retrying=1) == (
        "crawler: running 1 (1 waiting to retry), queued 0, pending review 0")
    with pytest.raises(ValueError, match="waiting to retry"):
        status_line(0, 0, 0, retrying=1)


def test_a_negative_count_in_the_status_line_is_refused() -> None:
    with pytest.raises(ValueError, match="queued"):
        status_line(1, -1, 0)


@pytest.mark.parametrize(("done", "total", "full"), [
    (0, 10, 0), (3, 10, 30), (10, 10, 100), (1, 3, 33),
    (0, 0, 0),  # nothing known yet: an empty bar, not a division by zero
    (12, 10, 100),  # more done than planned (a total corrected late): never past full
    (-1, 10, 0),
])
def test_percent(done: int, total: int, full: int) -> None:
    assert percent(done, total) == full


@pytest.mark.parametrize(("seconds", "text"), [
    (0, "0 s"), (12.7, "12 s"), (59.9, "59 s"), (60, "1 min 00 s"), (245, "4 min 05 s"),
    (3599, "59 min 59 s"), (3600, "1 h 00 min"), (7620, "2 h 07 min"), (-3, "0 s"),
])
def test_format_age(seconds: float, text: str) -> None:
    assert format_age(seconds) == text
