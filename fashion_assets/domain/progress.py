"""Progress rules: how old a heartbeat is, when a run counts as stuck, the status line.

Pure functions of timestamps and counts, so the rule that will get a run terminated is tested
without a database, a clock or Dagster. Times must be timezone-aware: a naive time compared
with an aware "now" would be off by the machine's UTC offset, enough to terminate every run.
"""

from __future__ import annotations

from datetime import datetime

STUCK_THRESHOLD_S = 300.0
"""A run whose heartbeat has not moved for this long (5 minutes) is treated as stuck."""

HEARTBEAT_INTERVAL_S = 30.0
"""How often a crawl beats while it runs, so a long show never looks stuck."""


def _aware(value: datetime, name: str) -> datetime:
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(f"{name} must be timezone-aware (UTC), got {value!r}")
    return value


def elapsed_s(since: datetime, now: datetime) -> float:
    """Seconds from ``since`` to ``now``; never negative, so clock skew reads as "just now"."""
    delta = _aware(now, "now") - _aware(since, "since")
    return max(0.0, delta.total_seconds())


def heartbeat_age(heartbeat_at: datetime, now: datetime) -> float:
    """Seconds since the run's last heartbeat (0 for a heartbeat in the future)."""
    return elapsed_s(heartbeat_at, now)


def is_stuck(heartbeat_at: datetime, now: datetime,
             threshold_s: float = STUCK_THRESHOLD_S) -> bool:
    """Whether a running crawl's heartbeat is older than ``threshold_s`` seconds.

    Strictly older: a heartbeat exactly at the threshold is still alive (when in doubt, do
    not terminate). A zero or negative threshold is refused, as it would make every run stuck.
    """
    if threshold_s <= 0:
        raise ValueError(f"the stuck threshold must be positive, got {threshold_s}")
    return heartbeat_age(heartbeat_at, now) > threshold_s


def keeps_beating(last_progress_s: float, now_s: float,
                  threshold_s: float = STUCK_THRESHOLD_S) -> bool:
    """Whether a crawl step still beats: it finished something (a show, a page, a brand)
    within the last ``threshold_s`` seconds, both times read from one monotonic clock.

    A beat says the step gets somewhere, not only that its event loop turns: a step held
    by a request that never completes (one that drips a byte now and then, under every
    timeout) stops beating after ``threshold_s``, its heartbeat then ages past the stuck
    rule and stuck_runs_sensor ends it. A step that finishes anything, however slowly,
    beats on. Exactly at the threshold it still beats (when in doubt, do not terminate).
    """
    if threshold_s <= 0:
        raise ValueError(f"the stuck threshold must be positive, got {threshold_s}")
    return now_s - last_progress_s <= threshold_s


def status_line(running: int, queued: int, pending_review: int, *, retrying: int = 0) -> str:
    """The one line that says what the crawler is doing, for the CLI and the /crawler page.

    ``retrying``: of the ``running`` runs, those whose step waits for its retry (Dagster
    holds them STARTED: they are running, said apart so a quiet run is not a mystery)."""
    for name, value in (("running", running), ("queued", queued),
                        ("pending_review", pending_review), ("retrying", retrying)):
        if value < 0:
            raise ValueError(f"{name} must not be negative, got {value}")
    if retrying > running:
        raise ValueError(f"{retrying} runs waiting to retry of {running} running")
    waiting = f" ({retrying} waiting to retry)" if retrying else ""
    return (f"crawler: running {running}{waiting}, queued {queued}, "
            f"pending review {pending_review}")


def percent(done: int, total: int) -> int:
    """How full a progress bar is, 0 to 100; an empty total is 0 % (nothing known yet)."""
    if total <= 0:
        return 0
    return max(0, min(100, done * 100 // total))


def format_age(seconds: float) -> str:
    """A duration as read at a glance: ``12 s``, ``4 min 05 s``, ``2 h 07 min``."""
    whole = max(0, int(seconds))
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60:02d} s"
    return f"{whole // 3600} h {whole % 3600 // 60:02d} min"
