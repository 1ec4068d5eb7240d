"""Crawl progress in the catalog (``crawl_progress``) and the latest ingest outcomes.

A crawl commits its progress as it goes, one cheap UPDATE per finished show, so anyone can
see what runs, how far it got and whether it still beats: the CLI's status, the review app's
/crawler page and the stuck-run rule (``domain/progress.py: is_stuck``) read these rows, from
any process, without asking the run. Counters move by deltas in SQL (``shows_done + 1``), so
updates from concurrent show tasks never lose one another.

Only a running row changes: once a run is finished, failed or terminated (by the stuck-run
sensor, say), late updates from a run that did not know it was terminated change nothing.
Times are the caller's wall clock in UTC (never ``FASHION_CLOCK``, which a replay fixes, and
never the database's, which may be on another machine), stored without a zone and read back
as aware UTC datetimes on both databases.
"""

from __future__ import annotations

import os
import socket
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import DateTime, Engine, bindparam, text

from fashion_assets.catalog.entities import same_source

STATUSES = ("running", "finished", "failed", "terminated")
FINAL_STATUSES = STATUSES[1:]
RECENT_OUTCOMES = 50
MAX_NOTE = 2000

_COLUMNS = ("run_id, kind, partition_key, shows_total, shows_done, current_show, photos_total,"
            " photos_done, started_at, heartbeat_at, finished_at, status, note, host, pid,"
            " step, unit")


@dataclass(frozen=True)
class ProgressRow:
    """One crawl run's progress as committed."""

    run_id: str
    kind: str
    partition_key: str
    shows_total: int
    shows_done: int
    current_show: str
    photos_total: int
    photos_done: int
    started_at: datetime
    heartbeat_at: datetime
    finished_at: datetime | None
    status: str
    note: str
    host: str = ""  # the machine and process the run's crawl step runs in
    pid: int = 0
    step: str = "drafts"  # the step the run is in: listing, manifests, drafts, discovery
    unit: str = "shows"  # what shows_done and shows_total count in that step

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON-able data (times as ISO 8601 strings)."""
        return {k: v.isoformat() if isinstance(v, datetime) else v
                for k, v in asdict(self).items()}


@dataclass(frozen=True)
class OutcomeRow:
    """One ingest log entry, with the show's or article's title when the catalog has it."""

    id: int
    recorded_at: datetime
    run_id: str
    brand: str  # the brand, or for street style (no brand) the run's partition: the week
    partition_key: str
    source: str
    source_url: str
    title: str
    stage: str
    outcome: str
    images_stored: int
    images_missing: int
    reason: str

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON-able data (the time as an ISO 8601 string)."""
        return {**asdict(self), "recorded_at": self.recorded_at.isoformat()}


def utc_now() -> datetime:
    """The wall clock in UTC: what progress times are written with."""
    return datetime.now(UTC)


def _stored(value: datetime | None) -> datetime:
    """``value`` (default now) as naive UTC, the form a TIMESTAMP column holds on both."""
    value = value or utc_now()
    if value.tzinfo is None:
        raise ValueError(f"progress times must be timezone-aware (UTC), got {value!r}")
    return value.astimezone(UTC).replace(tzinfo=None)


def _read(value: Any) -> datetime | None:
    """A TIMESTAMP as read back (datetime on PostgreSQL, text on SQLite) as aware UTC."""
    if value is None:
        return None
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _timed(sql: str) -> Any:
    """``sql`` with its ``:now`` parameter typed, so SQLite stores one sortable text form."""
    return text(sql).bindparams(bindparam("now", type_=DateTime()))


def start(engine: Engine, run_id: str, kind: str, partition_key: str, shows_total: int, *,
          step: str = "drafts", unit: str = "shows", photos_total: int = 0,
          now: datetime | None = None) -> None:
    """Record that ``run_id`` starts ``step`` (the asset ``kind``) over ``shows_total``
    ``unit`` (shows, brands, pages; of ``photos_total`` photos).

    Each step of a run starts its row over: the counters describe the step that runs now,
    the start time stays the run's. Starting the same step again (Dagster retried it in the
    same run) starts it over too, after a failure; a run the stuck-run sensor terminated
    stays terminated.
    """
    with engine.begin() as conn:
        conn.execute(_timed(
            "INSERT INTO crawl_progress (run_id, kind, partition_key, shows_total, shows_done,"
            " current_show, photos_total, photos_done, started_at, heartbeat_at, finished_at,"
            " status, note, host, pid, step, unit) VALUES (:run, :kind, :part, :shows, 0, '',"
            " :photos, 0, :now, :now, NULL, 'running', '', :host, :pid, :step, :unit)"
            " ON CONFLICT (run_id) DO UPDATE SET kind = excluded.kind,"
            " partition_key = excluded.partition_key, shows_total = excluded.shows_total,"
            " shows_done = 0, current_show = '', photos_total = excluded.photos_total,"
            " photos_done = 0, heartbeat_at = excluded.heartbeat_at, finished_at = NULL,"
            " status = 'running', note = '', host = excluded.host, pid = excluded.pid,"
            " step = excluded.step, unit = excluded.unit"
            " WHERE crawl_progress.status <> 'terminated'"),
            {"run": run_id, "kind": kind, "part": partition_key, "shows": max(0, shows_total),
             "photos": max(0, photos_total), "now": _stored(now), "host": socket.gethostname(),
             "pid": os.getpid(), "step": step, "unit": unit})


def show_done(engine: Engine, run_id: str, current_show: str, *, photos_done_delta: int = 0,
              photos_total_delta: int = 0, shows_total_delta: int = 0,
              shows_done_delta: int = 1, now: datetime | None = None) -> bool:
    """Count one more finished show (``shows_done_delta`` more: a writer that fell behind
    sends what queued up in one go), with the photos it handled; beats too.

    ``photos_total_delta`` corrects the planned total once the show's real count is known (a
    skipped show downloads none of the photos it was planned with); ``shows_total_delta``
    likewise the planned shows (discovery learns from its landing page how many pages it
    reads). One UPDATE, one commit: cheap enough for every show. False when the run is not
    running (nothing changed).
    """
    with engine.begin() as conn:
        changed = conn.execute(_timed(
            "UPDATE crawl_progress SET shows_done = shows_done + :n, current_show = :show,"
            " shows_total = shows_total + :shows, photos_done = photos_done + :done,"
            " photos_total = photos_total + :total, heartbeat_at = :now"
            " WHERE run_id = :run AND status = 'running'"),
            {"run": run_id, "n": shows_done_delta, "show": current_show[:500],
             "shows": shows_total_delta,
             "done": photos_done_delta, "total": photos_total_delta,
             "now": _stored(now)}).rowcount
    return bool(changed)


def beat(engine: Engine, run_id: str, *, now: datetime | None = None) -> bool:
    """Move the run's heartbeat to ``now``: it is alive even if no show finished lately.

    False when the run is not running (a terminated run beating on is not revived).
    """
    return _touch(engine, run_id, "", now)


def step_done(engine: Engine, run_id: str, *, now: datetime | None = None) -> bool:
    """A step that is not the run's last ended well: the row stays running (the next step
    starts it over), with a beat and a note, so the run never reads as idle between steps.
    False when the run is not running."""
    return _touch(engine, run_id, ", note = step || ' done'", now)


def _touch(engine: Engine, run_id: str, also_set: str, now: datetime | None) -> bool:
    """Beat a running row (and set ``also_set``, a fixed SQL fragment); False otherwise."""
    with engine.begin() as conn:
        changed = conn.execute(_timed(
            f"UPDATE crawl_progress SET heartbeat_at = :now{also_set}"
            " WHERE run_id = :run AND status = 'running'"),
            {"run": run_id, "now": _stored(now)}).rowcount
    return bool(changed)


def finish(engine: Engine, run_id: str, status: str = "finished", note: str = "", *,
           now: datetime | None = None) -> bool:
    """End the run's row as ``finished``, ``failed`` or ``terminated``, with a note (why).

    Only a running row ends, once: a run the stuck-run sensor terminated stays terminated
    when the run itself later reports failure. False when nothing changed.
    """
    if status not in FINAL_STATUSES:
        raise ValueError(f"a crawl ends as one of {FINAL_STATUSES}, not {status!r}")
    with engine.begin() as conn:
        changed = conn.execute(_timed(
            "UPDATE crawl_progress SET status = :status, note = :note, finished_at = :now,"
            " heartbeat_at = :now WHERE run_id = :run AND status = 'running'"),
            {"run": run_id, "status": status, "note": note[:MAX_NOTE],
             "now": _stored(now)}).rowcount
    return bool(changed)


def _row(values: Any) -> ProgressRow:
    (run_id, kind, partition_key, shows_total, shows_done, current_show, photos_total,
     photos_done, started_at, heartbeat_at, finished_at, status, note, host, pid, step,
     unit) = values
    started, beaten = _read(started_at), _read(heartbeat_at)
    assert started is not None and beaten is not None  # NOT NULL columns
    return ProgressRow(str(run_id), kind, partition_key, int(shows_total), int(shows_done),
                       current_show, int(photos_total), int(photos_done), started, beaten,
                       _read(finished_at), status, note, str(host), int(pid), step, unit)


def get(engine: Engine, run_id: str) -> ProgressRow | None:
    """One run's progress row, in any status; None if the run never started a crawl step."""
    with engine.connect() as conn:
        found = conn.execute(text(f"SELECT {_COLUMNS} FROM crawl_progress WHERE run_id = :run"),
                             {"run": run_id}).first()
    return _row(found) if found is not None else None


def running(engine: Engine) -> list[ProgressRow]:
    """Every crawl whose row says running, oldest heartbeat first (the stuck ones lead).

    A run killed without a word (SIGKILL, a lost machine) stays here until the stuck-run
    rule ends it: that is what its ageing heartbeat shows.
    """
    with engine.connect() as conn:
        rows = conn.execute(text(
            f"SELECT {_COLUMNS} FROM crawl_progress WHERE status = 'running'"
            " ORDER BY heartbeat_at, run_id")).all()
    return [_row(r) for r in rows]


def recent_outcomes(engine: Engine, limit: int = RECENT_OUTCOMES) -> list[OutcomeRow]:
    """The latest ``limit`` ingest log entries, newest first, with their show's title.

    The title comes from the runway show or street-style article of the same source key
    (both unique on it), so the page can name a show without parsing its URL; entries of a
    listing have none.
    """
    with engine.connect() as conn:
        rows = conn.execute(text(
            "SELECT l.id, l.recorded_at, l.run_id, l.brand_slug, l.partition_key, l.source,"
            " l.source_url, COALESCE(s.title, a.title, ''), l.stage, l.outcome,"
            " l.images_stored, l.images_missing, l.reason"
            " FROM (SELECT * FROM ingest_log ORDER BY id DESC LIMIT :limit) l"
            f" LEFT JOIN runway_shows s ON {same_source('s', 'l')}"
            f" LEFT JOIN street_style_articles a ON {same_source('a', 'l')}"
            " ORDER BY l.id DESC"), {"limit": max(0, int(limit))}).all()
    return [OutcomeRow(int(r[0]), _read(r[1]) or utc_now(), r[2], r[3] or r[4], r[4], r[5],
                       r[6], r[7], r[8], r[9], int(r[10]), int(r[11]), r[12]) for r in rows]
