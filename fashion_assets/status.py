"""What the archive holds and what the crawler does right now, as JSON-able reports for the
CLI, the review app's /crawler page and tests. The catalog's bounded queries are in
``catalog/`` (``summary.py``, ``progress.py``, ``backpressure.py``, ``coverage.py``); this
module only joins their answers with the Dagster queue and the store's size."""

from __future__ import annotations

from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Engine

from fashion_assets.catalog import progress as progress_catalog
from fashion_assets.catalog.backpressure import peek, read_state
from fashion_assets.catalog.coverage import coverage_report
from fashion_assets.catalog.entities import RUNWAY, STREET
from fashion_assets.catalog.promotion import waiting_for_promotion
from fashion_assets.catalog.summary import DraftCounts, catalog_counts, pending_review
from fashion_assets.domain.backpressure import BackpressureRules
from fashion_assets.domain.coverage import CoverageRules
from fashion_assets.domain.progress import (
    STUCK_THRESHOLD_S,
    elapsed_s,
    format_age,
    heartbeat_age,
    is_stuck,
    percent,
    status_line,
)
from fashion_assets.domain.retries import (
    RETRY_EVENT,
    STEP_AGAIN_EVENTS,
    StepEvent,
    first_line,
    pending_retries,
)
from fashion_assets.storage import open_store

DRAFT_STATUSES = ("pending", "approved", "rejected", "promoted")
MAX_QUEUED_LISTED = 100
"""Queued runs listed (longest waiting first); the count covers the rest."""
NO_INSTANCE_NOTE = "no Dagster instance: queued runs not counted"


def crawler_status(engine: Engine, instance: Any = None, *, now: datetime | None = None,
                   threshold_s: float = STUCK_THRESHOLD_S) -> dict[str, Any]:
    """What the crawler does: running crawls with progress and heartbeat age, runs waiting
    for a step's retry, the queue, the review backlog, and the status line; plain JSON-able
    data.

    Running crawls are the catalog's running progress rows (any process writes them, so no
    Dagster instance is needed to see them); a row is ``stale`` once its heartbeat is older
    than ``threshold_s`` (the stuck rule). With an instance (a ``DagsterInstance``),
    Dagster's word joins the rows': a row whose run Dagster has ended (failed or canceled
    while its step was writing, its process killed) is never shown running but under
    ``ended`` with Dagster's status, until stuck_runs_sensor ends the row; a run whose step
    waits for its retry (Dagster holds it STARTED, its row ended with the attempt) is
    running, under ``retrying`` with why and when (``domain/retries.py``); queued runs
    (QUEUED or NOT_STARTED) are counted. Without one the queue counts 0 and ``queue_note``
    says why, rather than guessing.
    """
    now = now or datetime.now(UTC)
    rows = progress_catalog.running(engine)
    gone = _ended_runs(instance, [row.run_id for row in rows]) if instance is not None else {}
    crawls = [{**row.as_dict(),
               "heartbeat_age_s": round(heartbeat_age(row.heartbeat_at, now), 1),
               "heartbeat_age": format_age(heartbeat_age(row.heartbeat_at, now)),
               "running_s": round(elapsed_s(row.started_at, now), 1),
               "shows_percent": percent(row.shows_done, row.shows_total),
               "photos_percent": percent(row.photos_done, row.photos_total),
               "stale": is_stuck(row.heartbeat_at, now, threshold_s)}
              for row in rows]
    running = [c for c in crawls if c["run_id"] not in gone]
    ended = [{**c, "stale": False, "dagster_status": gone[c["run_id"]]}
             for c in crawls if c["run_id"] in gone]
    queued, queued_count, note, retrying = [], 0, NO_INSTANCE_NOTE, []
    if instance is not None:
        queued, queued_count, note = _queued_runs(instance, now), _queued_count(instance), ""
        live = {c["run_id"] for c in running}
        retrying = [r for r in _retry_waits(instance, now) if r["run_id"] not in live]
    by_kind = pending_review(engine)
    pending = {**by_kind, "total": sum(by_kind.values())}
    return {
        "line": status_line(len(running) + len(retrying), queued_count, pending["total"],
                            retrying=len(retrying)),
        "now": now.isoformat(),
        "stuck_threshold_s": threshold_s,
        "running": running,
        "stale": sum(c["stale"] for c in running),
        "retrying": retrying,
        "ended": ended,
        "queued_count": queued_count,
        "queued": queued,
        "queue_note": note,
        "pending_review": pending,
    }


def _ended_runs(instance: Any, run_ids: list[str]) -> dict[str, str]:
    """Those of ``run_ids`` that Dagster says have ended, with how (SUCCESS, FAILURE,
    CANCELED)."""
    from dagster import DagsterRunStatus, RunsFilter

    if not run_ids:
        return {}
    ended = [DagsterRunStatus.SUCCESS, DagsterRunStatus.FAILURE, DagsterRunStatus.CANCELED]
    return {run.run_id: run.status.value
            for run in instance.get_runs(RunsFilter(run_ids=run_ids, statuses=ended))}


def _retry_waits(instance: Any, now: datetime) -> list[dict[str, Any]]:
    """The steps of STARTED runs that wait for their retry (at most ``MAX_QUEUED_LISTED``
    runs read: the run queue starts far fewer at once), from each run's step events."""
    from dagster import DagsterEventType, DagsterRunStatus, RunsFilter

    types = {DagsterEventType(name) for name in (RETRY_EVENT, *STEP_AGAIN_EVENTS)}
    waits = []
    for run in instance.get_runs(RunsFilter(statuses=[DagsterRunStatus.STARTED]),
                                 limit=MAX_QUEUED_LISTED):
        events = [_step_event(entry) for entry in instance.all_logs(run.run_id, of_type=types)]
        for wait in pending_retries(events):
            due = wait.due_at
            waits.append({"run_id": run.run_id, "job_name": run.job_name,
                          "partition_key": run.tags.get("dagster/partition", ""),
                          "step": wait.step_key, "reason": first_line(wait.reason),
                          "failed_at": datetime.fromtimestamp(wait.failed_at, UTC).isoformat(),
                          "retry_at": due.isoformat() if due else None,
                          "retry_in_s": wait.in_s(now), "line": wait.line(now)})
    return waits


def _step_event(entry: Any) -> StepEvent:
    """A step event of the instance's log as plain data; a retry's with the root cause of
    its failure (not Dagster's wrapper of it) and the back-off."""
    event = entry.dagster_event
    reason, wait_s = "", None
    if event.event_type_value == RETRY_EVENT:
        error, wait_s = event.event_specific_data.error, event.event_specific_data.seconds_to_wait
        while error is not None and error.cause is not None:
            error = error.cause
        reason = error.message if error is not None else entry.message or ""
    return StepEvent(event.event_type_value, event.step_key or "", entry.timestamp, reason,
                     wait_s)


def _queue_filter() -> Any:
    from dagster import DagsterRunStatus, RunsFilter

    return RunsFilter(statuses=[DagsterRunStatus.QUEUED, DagsterRunStatus.NOT_STARTED])


def _queued_count(instance: Any) -> int:
    return int(instance.get_runs_count(_queue_filter()))


def _queued_runs(instance: Any, now: datetime) -> list[dict[str, Any]]:
    """The queued runs, longest waiting first, with how long each has waited."""
    records = instance.get_run_records(_queue_filter(), limit=MAX_QUEUED_LISTED,
                                       ascending=True)
    queued = []
    for record in records:
        run = record.dagster_run
        created = record.create_timestamp
        created = created.replace(tzinfo=UTC) if created.tzinfo is None else created
        queued.append({"run_id": run.run_id, "job_name": run.job_name,
                       "partition_key": run.tags.get("dagster/partition", ""),
                       "status": run.status.value, "created_at": created.isoformat(),
                       "waiting_s": round(elapsed_s(created, now), 1),
                       "waiting": format_age(elapsed_s(created, now))})
    return queued


def catalog_status(engine: Engine, store_url: str, home: Path, *, count_store: bool = False
                   ) -> dict[str, Any]:
    """Brands, shows, drafts by status, street style, names waiting for an editor, approved
    drafts waiting for promotion (as its sensor counts them), photos, per-brand counts, and
    with ``count_store`` the store's objects and bytes.

    Counting the store lists all of it (a second per 50,000 files on disk, a thousand pages
    of S3 listing for the archive's million photos), so the report does it only when asked;
    the catalog's own counts come from a few queries whatever the archive's size."""
    counts = catalog_counts(engine)
    store = open_store(store_url, home=home)
    stats = store.stats() if count_store else None
    return {
        "database": engine.url.render_as_string(hide_password=True),
        "brands": counts.brands,
        "shows": counts.shows,
        "drafts": _drafts(counts.drafts[RUNWAY.kind]),
        "draft_images": counts.draft_images,
        "street_articles": counts.street_articles,
        "street_drafts": _drafts(counts.drafts[STREET.kind]),
        "pending_names": {kind: counts.pending_names.get(kind, 0) for kind in ("brand", "city")},
        "waiting_for_name": counts.waiting_for_name,
        "catalog": {"shows": counts.entries[RUNWAY.kind].entries,
                    "show_photos": counts.entries[RUNWAY.kind].photos,
                    "street_albums": counts.entries[STREET.kind].entries,
                    "street_photos": counts.entries[STREET.kind].photos},
        "promotion_waiting": waiting_for_promotion(engine),
        "store": {"url": store.url, "objects": stats.objects if stats else None,
                  "bytes": stats.bytes if stats else None},
        "per_brand": [asdict(brand) for brand in counts.per_brand],
    }


def _drafts(counts: DraftCounts) -> dict[str, int]:
    """Every draft status, a status no draft has as 0, so the report's shape never varies."""
    return {**{s: counts.by_status.get(s, 0) for s in DRAFT_STATUSES}, "deleted": counts.deleted}



def automation_status(engine: Engine, coverage_rules: CoverageRules,
                      backpressure_rules: BackpressureRules, now: datetime | None = None
                      ) -> dict[str, Any]:
    """What holds the automation back: backpressure's gate (as the last tick left it, and
    what the backlogs say now) and coverage (incomplete shows, backing off, given up)."""
    now = now or datetime.now(UTC)
    gate = peek(engine, backpressure_rules)
    state = read_state(engine)
    report = coverage_report(engine, coverage_rules, now)
    return {
        "backpressure": {"level": gate.level.value, "paused": gate.paused, "alert": gate.alert,
                         "reason": gate.reason, "pending_review": gate.backlog.pending_review,
                         "failed_ingests": gate.backlog.failed_ingests,
                         "changed_at": state.changed_at.isoformat()
                         if state and state.changed_at else None},
        "coverage": {"incomplete": report.incomplete, "backing_off": report.backing_off,
                     "given_up": report.given_up,
                     "given_up_shows": [asdict(g) for g in report.given_up_shows]},
    }
