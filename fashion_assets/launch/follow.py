"""Following runs on the deployment until they end: their log lines as they come, and each
run's outcome as it ends, whoever executes them (a run process, a Celery worker).

The webserver is the one place the command asks: a run's status and its log are what the
UI shows, read through the same GraphQL (``launch/webserver.py``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from enum import StrEnum

import httpx

from fashion_assets.domain.retries import RETRY_EVENT, RetryWait
from fashion_assets.launch.graphql import GraphQL
from fashion_assets.launch.summaries import RunEvent, RunOutcome, outcome
from fashion_assets.launch.webserver import (
    ENDED,
    LogLine,
    log_line,
    new_events,
    poll_runs,
    run_event,
)

POLL_S = 0.25
"""Seconds between two reads of the runs' status: the webserver pushes nothing to a plain
HTTP client, so the command polls it, as the UI does. A run's end is seen this late at
most."""
LOG_POLL_S = 1.0
"""Seconds between two reads of the runs' new log lines (a run that ended has the rest of
its log read at once). A read of a run's log costs the webserver about 12 ms of CPU even
with nothing new, the statuses of all runs 9: reading the logs at every status poll kept
the webserver a seventh of a core busy during a crawl of two runs, on the machine the runs
need."""


class RunLog(StrEnum):
    """What the command prints of its runs' logs while they go (each run's log in the
    instance is complete either way)."""

    EVENTS = "events"  # every event and line, DEBUG up, as Dagster's console logger (--verbose)
    PROGRESS = "progress"  # the steps' own lines: progress per show, warnings (crawl)
    QUIET = "quiet"  # nothing: the caller prints a line per run (demo)

    def line(self, entry: LogLine) -> str | None:
        """How ``entry`` is printed, or None."""
        if self is RunLog.QUIET:
            return None
        if self is RunLog.PROGRESS:
            if entry.event_type == RETRY_EVENT:
                return retry_line(entry)
            # Errors stay out: a step that fails fails its run, which the command reports in
            # the run's line, and the errors Dagster logs as plain messages are about that
            # failure (the steps it then did not run). The steps warn, they never log errors.
            if entry.event_type is not None or not logging.INFO <= entry.level < logging.ERROR:
                return None
            return (f"{logging.getLevelName(entry.level).lower()}: {entry.message}"
                    if entry.level >= logging.WARNING else entry.message)
        when = datetime.fromtimestamp(entry.timestamp, UTC).strftime("%H:%M:%S")
        # The event's name as Dagster's console logger and the UI print it (RUN_START).
        what = entry.event_type or logging.getLevelName(entry.level)
        return (f"{when} - {entry.job_name} - {entry.run_id[:8]} - {entry.step_key or '-'}"
                f" - {what} - {entry.message}")


def retry_line(entry: LogLine) -> str:
    """A step that failed and waits for its retry policy's next attempt: the run goes on, but
    nothing else is printed until then (minutes, as the back-off grows), so the command says
    why and when (``domain/retries.py``: the wait as status and /crawler say it too)."""
    wait = RetryWait(entry.step_key or "", entry.error or entry.message, entry.timestamp,
                     entry.retry_in_s)
    return f"warning: {wait.line()}"


def follow_runs(graphql: GraphQL, run_ids: Sequence[str], *, run_log: RunLog,
                on_line: Callable[[str], None], on_end: Callable[[RunOutcome], None],
                keep_going: Callable[[], bool] = lambda: True) -> list[str]:
    """Poll ``run_ids`` until each has ended (``on_end`` with its outcome, in the order
    they end), printing their log lines through ``on_line`` as ``run_log`` says; stop early
    when ``keep_going`` says no. The runs not seen to end (stopped early), in order.

    The webserver going away in the middle of a poll is a stop too when ``keep_going``
    then says no (a private deployment killed with the command that started it: it can
    die between the check and the request); otherwise its error is raised."""
    cursors: dict[str, str | None] = dict.fromkeys(run_ids)
    read: dict[str, list[RunEvent]] = {run_id: [] for run_id in run_ids}
    waiting = set(run_ids)
    logs_due = 0.0
    while waiting and keep_going():
        logs = time.monotonic() >= logs_due
        if logs:
            logs_due = time.monotonic() + LOG_POLL_S
        try:
            _poll(graphql, run_ids, waiting, cursors, read, run_log, on_line, on_end, logs=logs)
        except httpx.TransportError:
            if keep_going():
                raise
            break
        if waiting:
            time.sleep(POLL_S)  # the webserver's state is polled, as the UI polls it
    return [run_id for run_id in run_ids if run_id in waiting]


def _poll(graphql: GraphQL, run_ids: Sequence[str], waiting: set[str],
          cursors: dict[str, str | None], read: dict[str, list[RunEvent]], run_log: RunLog,
          on_line: Callable[[str], None], on_end: Callable[[RunOutcome], None], *,
          logs: bool) -> None:
    """One poll: the runs still ``waiting``, with their new lines (``logs``; the log of a
    run that ended is read either way), and the end of those that ended (out of
    ``waiting``)."""
    statuses, new = poll_runs(graphql, sorted(waiting),
                              {run_id: cursors[run_id] for run_id in sorted(waiting)}
                              if logs else {})
    ended = [r for r in run_ids if r in waiting and statuses.get(r, ("",))[0] in ENDED]
    for run_id in sorted(waiting):
        if run_id in new:
            events, cursors[run_id] = new[run_id]
        elif run_id in ended:  # its status was read first: this is the rest of its log
            events, cursors[run_id] = new_events(graphql, run_id, cursors[run_id])
        else:
            continue
        job = statuses.get(run_id, ("", ""))[1]
        for event in events:
            if (found := run_event(event)) is not None:
                read[run_id].append(found)
            if "level" in event and (
                    line := run_log.line(log_line(event, run_id, job))) is not None:
                on_line(line)
    for run_id in ended:
        waiting.discard(run_id)
        on_end(outcome(run_id, statuses[run_id][0] == "SUCCESS", read.pop(run_id)))
