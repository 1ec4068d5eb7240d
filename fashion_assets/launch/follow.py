"""Following runs in the instance until they end: their log lines as they come, each run's
end as it comes, whoever executes them (the daemon's run processes here or elsewhere).

The instance is the one place that knows: a run's status is in its run storage and what it
logs in its event log, which the command reads with Dagster's public instance methods, as
the UI does through the webserver.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

POLL_S = 0.25
"""Seconds between two reads of the runs' status and new log lines: the instance has no
push notification, so the command polls it, as the UI polls the webserver."""


class RunLog(StrEnum):
    """What the command prints of its runs' logs while they go (each run's log in the
    instance is complete either way)."""

    EVENTS = "events"  # every event and line, DEBUG up, as Dagster's console logger (--verbose)
    PROGRESS = "progress"  # the steps' own lines: progress per show, warnings (crawl)
    QUIET = "quiet"  # nothing: the caller prints a line per run (demo)

    def line(self, entry: Any) -> str | None:
        """How ``entry`` (an event log entry) is printed, or None."""
        if self is RunLog.QUIET:
            return None
        if self is RunLog.PROGRESS:
            # Errors stay out: a step that fails fails its run, which the command reports in
            # the run's line, and the errors Dagster logs as plain messages are about that
            # failure (the steps it then did not run). The steps warn, they never log errors.
            if entry.is_dagster_event or not logging.INFO <= entry.level < logging.ERROR:
                return None
            text = entry.user_message
            return (f"{logging.getLevelName(entry.level).lower()}: {text}"
                    if entry.level >= logging.WARNING else text)
        when = datetime.fromtimestamp(entry.timestamp, UTC).strftime("%H:%M:%S")
        # The event's name as Dagster's console logger and the UI print it (RUN_START), not
        # its stored value (PIPELINE_START, kept from Dagster's pipelines).
        what = (entry.dagster_event.event_type.name if entry.is_dagster_event
                else logging.getLevelName(entry.level))
        return (f"{when} - {entry.job_name} - {entry.run_id[:8]} - {entry.step_key or '-'}"
                f" - {what} - {entry.message}")


def follow_runs(instance: Any, run_ids: Sequence[str], *, run_log: RunLog,
                on_line: Callable[[str], None], on_end: Callable[[str], None],
                keep_going: Callable[[], bool] = lambda: True) -> None:
    """Poll ``run_ids`` until each has ended (``on_end(run_id)`` in the order they end),
    printing their log lines through ``on_line`` as ``run_log`` says; stop early when
    ``keep_going`` says no."""
    from dagster import DagsterRunStatus, RunsFilter

    ended = {DagsterRunStatus.SUCCESS, DagsterRunStatus.FAILURE, DagsterRunStatus.CANCELED}
    cursors: dict[str, str | None] = dict.fromkeys(run_ids)
    waiting = set(run_ids)
    while waiting and keep_going():
        done = {record.dagster_run.run_id for record in
                instance.get_run_records(RunsFilter(run_ids=sorted(waiting)))
                if record.dagster_run.status in ended}
        for run_id in sorted(waiting):
            if run_log is not RunLog.QUIET:
                cursors[run_id] = _print_new_lines(instance, run_id, cursors[run_id],
                                                   run_log, on_line)
        for run_id in [r for r in run_ids if r in done and r in waiting]:
            waiting.discard(run_id)
            on_end(run_id)
        if waiting:
            time.sleep(POLL_S)  # the instance's state is polled, as the UI polls it


def _print_new_lines(instance: Any, run_id: str, cursor: str | None, run_log: RunLog,
                     on_line: Callable[[str], None]) -> str | None:
    """Print the run's log lines after ``cursor``; the cursor after them."""
    while True:
        page = instance.get_records_for_run(run_id, cursor=cursor, limit=1000)
        for record in page.records:
            line = run_log.line(record.event_log_entry)
            if line is not None:
                on_line(line)
        cursor = page.cursor
        if not page.has_more:
            return cursor
