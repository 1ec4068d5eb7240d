"""Per-show progress of a crawl step: lines for the run's log, rows for the catalog.

Every log line of a Dagster run is an event written to the instance's storage: one event per
show cost a sixth of a crawl's time. Lines are grouped into one event every few seconds, so
the log still shows every show's outcome, in order, as the run goes.

``CrawlProgress`` commits the same progress to the catalog (``catalog/progress.py``), where
the status command, the /crawler page and the stuck-run rule read it from other processes.

A step beats only while it makes progress (``domain/progress.py: keeps_beating``), so one
held for ever by a request that never completes looks stuck and is ended. A run terminated
through Dagster (the command stopped by a signal, the stuck-run sensor) is interrupted in
its run process, which cancels the step where it awaits.

The ``fashion-assets`` command prints those lines from the run's event log without the rest
of it (``launch/follow.py: RunLog``), so a user reads shows and warnings instead of Dagster's
event stream (step starts, outputs, a stack trace for a failed step).
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from sqlalchemy import Engine

from fashion_assets import settings
from fashion_assets.catalog import progress as progress_catalog
from fashion_assets.domain.progress import HEARTBEAT_INTERVAL_S, format_age, keeps_beating


class ProgressLog:
    def __init__(self, emit: Callable[[str], None], total: int, *, interval_s: float = 2.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._emit = emit
        self._total = total
        self._interval_s = interval_s
        self._clock = clock
        self._lines: list[str] = []
        self._done = 0
        self._last = clock()

    def add(self, line: str) -> None:
        """Record one finished show; send the batch when the interval has passed."""
        self._done += 1
        self._lines.append(f"[{self._done}/{self._total}] {line}")
        if self._clock() - self._last >= self._interval_s:
            self.flush()

    def flush(self) -> None:
        """Send what is waiting (call once more at the end of the step)."""
        if self._lines:
            self._emit("\n".join(self._lines))
            self._lines = []
        self._last = self._clock()


@dataclass(frozen=True)
class ShowsDone:
    """Finished shows not written yet: how many, the latest, and their counters' deltas."""

    shows: int
    current_show: str
    photos_done: int
    photos_total: int
    shows_total: int

    def then(self, later: ShowsDone) -> ShowsDone:
        """These and ``later`` as one update: deltas add up, the latest show is current."""
        return ShowsDone(self.shows + later.shows, later.current_show,
                         self.photos_done + later.photos_done,
                         self.photos_total + later.photos_total,
                         self.shows_total + later.shows_total)


class CrawlProgress:
    """One crawl step's progress in its run's row: started on entry, one update per show
    (or brand, or page: ``unit``), ended on exit.

    The crawl calls ``show_done`` from its event loop, so writes go to one background thread
    in order instead of blocking the loop on the database (on SQLite, behind another writer's
    lock); exit waits for them before the final write. ``beating()`` beats from the event
    loop every ``heartbeat_s`` seconds, so a show that takes long still beats, while a
    blocked loop or a killed process stops beating and is seen as stuck; so does a step
    that finished nothing for ``stuck_after_s`` (``keeps_beating``: a request held for
    ever).

    Exit ends the row ``finished`` when the step is the run's last (``last_step``), else
    leaves it running with a beat for the next step to start over (the run is never idle
    between steps); ``failed`` on an exception (its text as the note), or ``terminated``
    when Dagster interrupts the step (a ``BaseException``, not an error). A
    progress write that fails is reported once through ``warn`` at exit and never fails the
    crawl: the catalog rows of the shows are what matter.

    ``stuck_after_s`` defaults to ``FASHION_STUCK_AFTER_SECONDS`` of this process's
    environment, the threshold stuck_runs_sensor reads.
    """

    def __init__(self, engine: Engine, run_id: str, kind: str, partition_key: str,
                 shows_total: int, *, step: str = "drafts", unit: str = "shows",
                 last_step: bool = True, photos_total: int = 0,
                 warn: Callable[[str], None] = lambda message: None,
                 heartbeat_s: float = HEARTBEAT_INTERVAL_S,
                 stuck_after_s: float | None = None) -> None:
        self.engine, self.run_id = engine, run_id
        self._start = (kind, partition_key, shows_total, photos_total, step, unit)
        self._last_step = last_step
        self._warn = warn
        self._heartbeat_s = heartbeat_s
        self._stuck_after_s = stuck_after_s if stuck_after_s is not None else float(
            settings.setting(os.environ, "FASHION_STUCK_AFTER_SECONDS"))
        self._progressed = time.monotonic()  # when the step last finished something
        self._writer: ThreadPoolExecutor | None = None
        self._pending: ShowsDone | None = None  # finished shows not handed to the writer yet
        self._pending_lock = threading.Lock()
        self._error: str | None = None
        self.shows_done = 0
        self.shows_total = shows_total

    def __enter__(self) -> CrawlProgress:
        kind, partition_key, shows_total, photos_total, step, unit = self._start
        progress_catalog.start(self.engine, self.run_id, kind, partition_key, shows_total,
                               step=step, unit=unit, photos_total=photos_total)
        self._progressed = time.monotonic()
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="crawl-progress")
        return self

    def show_done(self, current_show: str, *, photos_done_delta: int = 0,
                  photos_total_delta: int = 0, shows_total_delta: int = 0) -> None:
        """Queue one finished show's update (returns at once); the total deltas correct the
        planned totals (``catalog/progress.py: show_done``).

        Updates that queue up while the writer is busy go as one (``ShowsDone.then``): the
        shows a step finishes in a burst (its drafts, written in a second once the photos
        are in) would otherwise wait on a commit each, behind the drafts' own commits."""
        self.shows_done += 1
        self.shows_total += shows_total_delta
        self._progressed = time.monotonic()
        done = ShowsDone(1, current_show, photos_done_delta, photos_total_delta,
                         shows_total_delta)
        with self._pending_lock:
            queued = self._pending is not None
            self._pending = self._pending.then(done) if self._pending else done
        if not queued:
            self._submit(self._write_pending)

    def _write_pending(self, engine: Engine, run_id: str) -> None:
        with self._pending_lock:
            pending, self._pending = self._pending, None
        if pending is not None:
            progress_catalog.show_done(
                engine, run_id, pending.current_show, shows_done_delta=pending.shows,
                photos_done_delta=pending.photos_done, photos_total_delta=pending.photos_total,
                shows_total_delta=pending.shows_total)

    def progressed(self) -> None:
        """Note that the step got somewhere without finishing a show (a lost photo fetched
        again once the shows are done), so it keeps beating."""
        self._progressed = time.monotonic()

    def beat(self) -> None:
        """Queue a heartbeat (returns at once)."""
        self._submit(progress_catalog.beat)

    @asynccontextmanager
    async def beating(self) -> AsyncIterator[None]:
        """Beat every ``heartbeat_s`` seconds while the block runs on the event loop and
        makes progress (``keeps_beating``)."""
        async def beat_while_progressing() -> None:
            silent = False
            while True:
                await asyncio.sleep(self._heartbeat_s)
                if keeps_beating(self._progressed, time.monotonic(), self._stuck_after_s):
                    self.beat()
                    silent = False
                elif not silent:
                    silent = True
                    self._warn(f"nothing finished for {format_age(self._stuck_after_s)}: the "
                               "heartbeat stops, and stuck_runs_sensor ends the run unless "
                               "something finishes first")

        beats = asyncio.create_task(beat_while_progressing())
        try:
            yield
        finally:
            beats.cancel()
            with suppress(asyncio.CancelledError):
                await beats

    def _submit(self, write: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        if self._writer is not None:
            self._writer.submit(self._guarded, write, *args, **kwargs)

    def _guarded(self, write: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        try:
            write(self.engine, self.run_id, *args, **kwargs)
        except Exception as exc:  # reported once at exit; the crawl goes on
            self._error = self._error or f"{type(exc).__name__}: {exc}"

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._writer is not None:
            self._writer.shutdown(wait=True)
            self._writer = None
        if exc is None:
            status, note = "finished", ""
        elif isinstance(exc, Exception):
            status, note = "failed", f"{type(exc).__name__}: {exc}"
        else:
            status, note = "terminated", f"interrupted: {type(exc).__name__}" + (
                f": {exc}" if str(exc) else "")
        try:
            if status == "finished" and not self._last_step:
                progress_catalog.step_done(self.engine, self.run_id)
            else:
                progress_catalog.finish(self.engine, self.run_id, status, note)
        except Exception as error:  # the row stays running; the stuck-run rule ends it
            self._error = self._error or f"{type(error).__name__}: {error}"
        if self._error:
            self._warn(f"crawl progress of run {self.run_id} not fully recorded: {self._error}")


def runs_later(context: Any, *later_steps: str) -> bool:
    """Whether the run of ``context`` (an asset's) also runs one of ``later_steps`` (asset
    names): if not, the step is the run's last and ends its progress row.

    The steps of a run are its step keys when it runs a subset (an asset chosen in the UI,
    a re-execution), else its job's nodes; an asset's step key is its name.
    """
    keys = context.run.step_keys_to_execute
    names = set(keys) if keys is not None else set(context.job_def.graph.node_dict)
    return any(step in names for step in later_steps)
