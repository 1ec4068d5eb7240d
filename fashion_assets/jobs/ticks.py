"""Schedules that say which ticks they missed (``domain/ticks.py``): each evaluation reads the
tick its schedule evaluated before from the catalog, records its own, warns in the tick's
log and tags its runs with the count (``MISSED_TICKS_TAG``), so an outage of the daemon is
seen in the UI instead of only in the daemon's log."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dagster import (
    RunRequest,
    ScheduleDefinition,
    ScheduleEvaluationContext,
    schedule,
)
from dagster_shared.check import CheckError

from fashion_assets.catalog.ticks import last_tick, record_tick
from fashion_assets.domain.ticks import MissedTicks, missed_ticks
from fashion_assets.resources import CatalogResource

MISSED_TICKS_TAG = "fashion-assets/missed-ticks"

def note_missed_ticks(context: ScheduleEvaluationContext, catalog: CatalogResource,
                      name: str, cron: str) -> dict[str, str]:
    """Record this tick of schedule ``name``; warn about the ticks missed since the last one.
    Returns the tags for this tick's runs (none when nothing was missed). An evaluation with
    no scheduled time (a context built by hand) is no tick: nothing is recorded."""
    try:
        current = context.scheduled_execution_time
    except CheckError:
        return {}
    engine = catalog.engine()
    missed: MissedTicks = missed_ticks(cron, last_tick(engine, name), current)
    record_tick(engine, name, current, missed.count)
    if not missed.count:
        return {}
    context.log.warning(missed.describe(name))
    return {MISSED_TICKS_TAG: str(missed.count)}

def reporting_schedule(*, name: str, cron: str, description: str,
                       job_name: str, run_config: Mapping[str, Any] | None = None
                       ) -> ScheduleDefinition:
    """A schedule of one run per tick (``run_config``), which reports its missed ticks."""
    @schedule(name=name, cron_schedule=cron, job_name=job_name,
              execution_timezone="UTC", description=description)
    def _schedule(context: ScheduleEvaluationContext, catalog: CatalogResource) -> RunRequest:
        return RunRequest(run_config=dict(run_config or {}),
                          tags=note_missed_ticks(context, catalog, name, cron))

    return _schedule
