"""The ``media_cleanup`` job and its daily schedule: delete photos nothing references, and
with them their derivatives (thumbnails).

Objects become orphans when drafts are rejected and purged, or when a show's photos were
stored but its draft never committed (a killed or failed ingest). The Dagster shell only
moves data: the listing comes from the store, references from ``catalog.media``, and the
decision from ``domain.cleanup``.
"""

import os
from collections.abc import Iterable, Iterator, Mapping
from datetime import timedelta
from itertools import islice
from typing import TypeVar

from dagster import (
    Field,
    JobDefinition,
    OpExecutionContext,
    ScheduleDefinition,
    job,
    op,
)

from fashion_assets import settings
from fashion_assets.catalog.derivatives import forget_derivatives
from fashion_assets.catalog.media import referenced_keys
from fashion_assets.catalog.photo_hashes import forget_hashes
from fashion_assets.domain.cleanup import CleanupSummary, orphans
from fashion_assets.jobs.ticks import reporting_schedule
from fashion_assets.report import table
from fashion_assets.resources import CatalogResource, ClockResource, ObjectStoreResource
from fashion_assets.storage.base import ObjectStore, StoredObject

JOB_NAME = "media_cleanup"
OP_NAME = "remove_orphan_media"
LIST_BATCH = 1000
"""Objects per batch: one S3 listing page; memory stays bounded by the batch."""

T = TypeVar("T")


def grace_hours_setting(env: Mapping[str, str] | None = None) -> float:
    """``FASHION_CLEANUP_GRACE_HOURS``, checked at load so a bad value fails with its name."""
    raw = settings.setting(os.environ if env is None else env, "FASHION_CLEANUP_GRACE_HOURS")
    try:
        hours = float(raw)
    except ValueError:
        raise ValueError(f"FASHION_CLEANUP_GRACE_HOURS={raw!r} is not a number") from None
    if not hours >= 0:  # also refuses NaN
        raise ValueError(f"FASHION_CLEANUP_GRACE_HOURS={raw!r} must not be negative")
    return hours


def batched(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """Consecutive lists of up to ``size`` items (``itertools.batched`` is Python 3.12+)."""
    iterator = iter(items)
    while batch := list(islice(iterator, size)):
        yield batch


def run_cleanup(context: OpExecutionContext, store: ObjectStore, catalog: CatalogResource,
                clock: ClockResource, *, dry_run: bool, grace: timedelta) -> CleanupSummary:
    """List the store batch by batch, delete each batch's orphans, then stale temp files.

    References are asked right before each batch is deleted, so a draft committed during
    the run protects its photos unless it was committed between that query and the delete
    (and then its photos were already older than the grace period: see docs).
    """
    now = clock.now()
    engine = catalog.engine()
    summary = CleanupSummary(dry_run=dry_run)
    for number, batch in enumerate(batched(store.iter_objects(), LIST_BATCH), start=1):
        found = orphans(batch, referenced_keys(engine, [item.key for item in batch]),
                        now=now, grace=grace)
        removed: list[StoredObject] = []
        if not dry_run:
            removed = [item for item in found if store.delete(item.key)]
            forget_derivatives(engine, [item.key for item in removed])
            forget_hashes(engine, [item.key for item in removed])
        summary.add_batch(len(batch), found, removed)
        context.log.info(
            f"batch {number}: {len(batch)} objects, {len(found)} orphans, "
            f"{len(removed)} removed ({summary.scanned} scanned so far)")
    if not dry_run:
        summary.temp_files_removed = store.remove_stale_temp_files(now - grace)
    context.log.info(
        f"{store.url}: {summary.scanned} objects scanned, {summary.orphans} orphans older than "
        f"{grace} ({summary.orphan_bytes} bytes), {summary.removed} removed "
        f"({summary.bytes_removed} bytes), {summary.temp_files_removed} temp files removed"
        + (" [dry run]" if dry_run else ""))
    return summary


def summary_metadata(summary: CleanupSummary, store_url: str,
                     grace: timedelta) -> dict[str, object]:
    """The run's metadata: counts, and a table of the (first 100) keys removed or, in a dry
    run, to remove; ``orphans_found`` says how many there were in all."""
    return {
        "dry_run": summary.dry_run,
        "store": store_url,
        "grace_hours": grace.total_seconds() / 3600,
        "objects_scanned": summary.scanned,
        "orphans_found": summary.orphans,
        "orphan_bytes": summary.orphan_bytes,
        "objects_removed": summary.removed,
        "bytes_removed": summary.bytes_removed,
        "temp_files_removed": summary.temp_files_removed,
        **table("keys", [("key", "string"), ("bytes", "int")], summary.listed_keys),
    }


def build_media_cleanup_job(env: Mapping[str, str] | None = None) -> JobDefinition:
    """The job, its ``grace_hours`` defaulting to ``FASHION_CLEANUP_GRACE_HOURS`` of ``env``.

    Built from a mapping (like the resources) so the definitions a test or the demo builds
    from its own settings get that default too, not the process's.
    """
    default_grace = grace_hours_setting(env)

    @op(name=OP_NAME, config_schema={
        "dry_run": Field(bool, default_value=False,
                         description="List what would be removed; delete nothing."),
        "grace_hours": Field(float, default_value=default_grace,
                             description="Only orphans older than this many hours go."),
    })
    def remove_orphan_media(context: OpExecutionContext, catalog: CatalogResource,
                            store: ObjectStoreResource, clock: ClockResource) -> CleanupSummary:
        """Delete the stored objects no draft or catalog photo references, past the grace."""
        hours = float(context.op_config["grace_hours"])
        if not hours >= 0:
            raise ValueError(f"grace_hours must not be negative, got {hours}")
        grace = timedelta(hours=hours)
        opened = store.open()
        summary = run_cleanup(context, opened, catalog, clock,
                              dry_run=context.op_config["dry_run"], grace=grace)
        context.add_output_metadata(summary_metadata(summary, opened.url, grace))
        return summary

    @job(name=JOB_NAME, description="Delete stored photos that no draft or catalog entry "
         "references and that are older than the grace period (dry_run: list them only).")
    def media_cleanup() -> None:
        remove_orphan_media()

    return media_cleanup


def build_media_cleanup_schedule(env: Mapping[str, str] | None = None) -> ScheduleDefinition:
    """Daily at ``FASHION_CLEANUP_CRON`` (UTC), deleting for real.

    Like every schedule here it starts stopped: deleting is switched on deliberately, in the
    UI or with ``dagster schedule start``.
    """
    cron = settings.setting(os.environ if env is None else env, "FASHION_CLEANUP_CRON")
    return reporting_schedule(
        name="media_cleanup_schedule", cron=cron, job_name=JOB_NAME,
        run_config={"ops": {OP_NAME: {"config": {"dry_run": False}}}},
        description="Removes unreferenced photos past the grace period, daily.",
    )


media_cleanup_job = build_media_cleanup_job()
media_cleanup_schedule = build_media_cleanup_schedule()
