"""A crawl step waiting for its retry: what failed, and when Dagster runs it again.

While a step waits for its retry policy's next attempt, Dagster holds its run STARTED and
the step has no progress row (its attempt ended it ``failed``), so the run looks idle. Its
``STEP_UP_FOR_RETRY`` event says why and how long the back-off is. The command reads that
event from the webserver as the run goes (``launch/follow.py``), the status command and the
/crawler page from the instance (``status.py``); both hand it here, so the wait is said the
same way everywhere.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

MAX_REASON_CHARS = 300

RETRY_EVENT = "STEP_UP_FOR_RETRY"
"""Dagster's event of a step that failed and will be run again."""
STEP_AGAIN_EVENTS = frozenset({"STEP_RESTARTED", "STEP_START", "STEP_SUCCESS", "STEP_FAILURE"})
"""Events that end a step's wait: it started again, or ended for good."""


@dataclass(frozen=True)
class RetryWait:
    """A step that failed and waits for its retry: ``failed_at`` (seconds since the epoch),
    ``wait_s`` (Dagster's back-off; None when the event does not say), ``reason`` (the
    root cause of the failure)."""

    step_key: str
    reason: str
    failed_at: float
    wait_s: float | None

    @property
    def due_at(self) -> datetime | None:
        """When Dagster runs the step again, if the event said."""
        if self.wait_s is None:
            return None
        return datetime.fromtimestamp(self.failed_at + self.wait_s, UTC)

    def in_s(self, now: datetime) -> float | None:
        """Seconds from ``now`` to the retry (0 once due: the retry is starting)."""
        due = self.due_at
        return None if due is None else max(0.0, (due - now).total_seconds())

    def line(self, now: datetime | None = None) -> str:
        """The wait in words: why the step failed, and when it runs again (from ``now``,
        else from the failure, as the command says it the moment the event arrives)."""
        wait = self.wait_s if now is None else self.in_s(now)
        due = self.due_at
        when = ("" if wait is None or due is None
                else f" in {wait:.0f} s (at {due.strftime('%H:%M:%S')} UTC)")
        return (f"step {self.step_key or '?'} failed ({first_line(self.reason)}); "
                f"Dagster runs it again{when}")


def first_line(reason: str) -> str:
    """A failure's reason on one line, cut to ``MAX_REASON_CHARS``."""
    lines = reason.strip().splitlines()
    return lines[0][:MAX_REASON_CHARS] if lines else "?"


@dataclass(frozen=True)
class StepEvent:
    """One step event of a run's log, as plain data: its type (Dagster's name), step, time
    (seconds since the epoch) and, for a retry, the failure and the back-off."""

    event_type: str
    step_key: str
    timestamp: float
    reason: str = ""
    wait_s: float | None = None


def pending_retries(events: Iterable[StepEvent]) -> list[RetryWait]:
    """The steps of a run still waiting for their retry: up for retry, and not started
    again nor ended since (events in their log's order), in the order they failed."""
    waiting: dict[str, RetryWait] = {}
    for event in events:
        if event.event_type == RETRY_EVENT:
            waiting[event.step_key] = RetryWait(event.step_key, event.reason, event.timestamp,
                                                event.wait_s)
        elif event.event_type in STEP_AGAIN_EVENTS:
            waiting.pop(event.step_key, None)
    return sorted(waiting.values(), key=lambda wait: wait.failed_at)
