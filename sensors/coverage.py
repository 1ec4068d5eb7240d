"""Re-fetches and repairs incomplete shows, backing off per show and giving up in the end."""

from collections.abc import Mapping, Sequence

from dagster import (
    DefaultSensorStatus,
    RunRequest,
    SensorDefinition,
    SensorEvaluationContext,
    SensorResult,
    SkipReason,
    sensor,
)
from dagster._core.definitions.unresolved_asset_job_definition import (
    UnresolvedAssetJobDefinition,
)

from fashion_assets.catalog.backpressure import evaluate
from fashion_assets.catalog.coverage import due_repairs, record_attempts, repair_counts
from fashion_assets.domain.coverage import plan_repairs, waiting_for_crawls
from fashion_assets.jobs.runway import RepairJob
from fashion_assets.partitions import partitions_in_progress
from fashion_assets.resources import CatalogResource, ClockResource, CrawlerResource
from fashion_assets.tags import BRAND_TAG, CRAWL_TAG


def build_coverage_sensor(repairs: Mapping[str, RepairJob],
                          jobs: Sequence[UnresolvedAssetJobDefinition]) -> SensorDefinition:
    """The coverage sensor over the runway sources' repair jobs (``repairs``: by source)."""
    # Running from the start: it re-fetches only shows a crawl already stored, from the
    # sites that crawl used, backing off and giving up; nothing new is crawled.
    @sensor(jobs=list(jobs), minimum_interval_seconds=300,
            default_status=DefaultSensorStatus.RUNNING,
            description="Finds incomplete shows (stored photos far below the expected count) "
                        "and requests a repair run per brand or season, limited to those "
                        "shows; each show backs off (FASHION_REPAIR_BACKOFF, doubling) and is "
                        "given up after FASHION_REPAIR_MAX_ATTEMPTS re-fetches.")
    def coverage_sensor(context: SensorEvaluationContext, catalog: CatalogResource,
                        crawler: CrawlerResource, clock: ClockResource
                        ) -> SensorResult | SkipReason:
        return coverage_tick(context, catalog, crawler, clock, repairs)

    return coverage_sensor


def coverage_tick(context: SensorEvaluationContext, catalog: CatalogResource,
                  crawler: CrawlerResource, clock: ClockResource,
                  repairs: Mapping[str, RepairJob]) -> SensorResult | SkipReason:
    """One bounded query finds the due shows; those whose partition a run in progress is
    crawling wait for it to end (``waiting_for_crawls``); the others' attempts are recorded
    before the runs are requested, so a show is never re-fetched before its back-off is
    over."""
    engine, now = catalog.engine(), clock.now()
    gate = evaluate(engine, crawler.backpressure_rules(), now=now)
    if gate.paused:  # before any attempt is recorded: a paused tick uses none up
        return SkipReason(gate.reason)
    if gate.alert:
        context.log.warning(gate.reason)
    due = due_repairs(engine, crawler.coverage_rules(), now, crawler.repair_shows_per_tick)
    if not due:
        counts = repair_counts(engine, now)
        return SkipReason(f"no incomplete show is due: {counts.backing_off} backing off, "
                          f"{counts.given_up} given up")
    due, waiting = waiting_for_crawls(due, partitions_in_progress(context.instance))
    if waiting:
        context.log.info(f"{len(waiting)} incomplete shows wait for the runs crawling their "
                         f"partitions: {', '.join(sorted({s.partition_key for s in waiting}))}")
    if not due:
        return SkipReason(f"{len(waiting)} incomplete shows due wait for the runs in progress"
                          " that crawl their partitions")
    runs, steps = plan_repairs(due, now, crawler.repair_rules())
    given_up = record_attempts(engine, steps, now)
    for show_id, reason in given_up.items():
        context.log.warning(f"show {show_id} given up: {reason}")
    requests = []
    for run in runs:
        repair = repairs[run.source]
        scope = {"config": {"show_ids": list(run.show_ids)}}
        requests.append(RunRequest(
            run_key=run.run_key, job_name=repair.name, partition_key=run.partition_key,
            run_config={"ops": {asset: scope for asset in repair.scoped_assets}},
            tags={CRAWL_TAG: "coverage", BRAND_TAG: run.partition_key,
                  "fashion-assets/shows": str(len(run.show_ids))}))
    context.log.info(f"{len(due)} incomplete shows due: {len(requests)} repair runs, "
                     f"{len(given_up)} given up")
    if not requests:
        return SkipReason(f"{len(given_up)} incomplete shows given up, nothing to re-fetch")
    return SensorResult(run_requests=requests)
