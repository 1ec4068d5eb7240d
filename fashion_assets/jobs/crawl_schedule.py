"""The recurring full crawl: every brand, on a cron, as runs of batches of brands.

Each run is one range of the ``brands`` partitions (``FASHION_CRAWL_BATCH_BRANDS`` of them,
the same size as the assets' backfill policy), so a weekly crawl of 600 brands is a few
dozen runs, not 600 processes. It stops launching while backpressure holds the crawls back
(too many drafts wait for review, or too many ingests fail), with the reason as the tick's
skip reason.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from dagster import (
    DagsterInstance,
    RunRequest,
    ScheduleDefinition,
    ScheduleEvaluationContext,
    SkipReason,
    schedule,
)

from fashion_assets import settings
from fashion_assets.catalog.backpressure import evaluate
from fashion_assets.domain.batches import Batch, batches
from fashion_assets.jobs.ticks import note_missed_ticks
from fashion_assets.partitions import brand_partitions
from fashion_assets.resources import CatalogResource, CrawlerResource
from fashion_assets.sources.registry import VOGUE
from fashion_assets.tags import batch_tags

assert VOGUE.runway_names is not None  # Vogue lists runway shows
JOB_NAME = VOGUE.runway_names.crawl_job
"""The job of the full crawl: Vogue's runway crawl, by brand batches (its name is declared
with the source's assets, ``sources/registry.py``)."""


def brand_batches(instance: DagsterInstance, env: Mapping[str, str] | None = None
                  ) -> list[Batch]:
    """Every brand partition, in the partitions' order, in batches of the configured size."""
    assert brand_partitions.name is not None
    return batches(instance.get_dynamic_partitions(brand_partitions.name),
                   settings.crawl_batch_brands(env))


def build_crawl_schedule(env: Mapping[str, str] | None = None) -> ScheduleDefinition:
    """Every brand at ``FASHION_CRAWL_CRON`` (UTC, weekly by default), in batches."""
    env = os.environ if env is None else env
    cron = settings.setting(env, "FASHION_CRAWL_CRON")
    size = settings.crawl_batch_brands(env)
    partitions = brand_partitions.name
    assert partitions is not None

    @schedule(name="full_crawl_schedule", cron_schedule=cron, job_name=JOB_NAME,
              execution_timezone="UTC",
              description="Crawls every brand (listing, manifests, drafts) on "
                          "FASHION_CRAWL_CRON, FASHION_CRAWL_BATCH_BRANDS brands per run; "
                          "paused by backpressure.")
    def full_crawl_schedule(context: ScheduleEvaluationContext, catalog: CatalogResource,
                            crawler: CrawlerResource) -> list[RunRequest] | SkipReason:
        missed = note_missed_ticks(context, catalog, "full_crawl_schedule", cron)
        gate = evaluate(catalog.engine(), crawler.backpressure_rules())
        if gate.paused:
            return SkipReason(gate.reason)
        if gate.alert:
            context.log.warning(gate.reason)
        planned = batches(context.instance.get_dynamic_partitions(partitions), size)
        if not planned:
            return SkipReason("no brand to crawl: add brands (fashion-assets brands add)")
        when = context.scheduled_execution_time
        stamp = when.isoformat() if when else "now"
        context.log.info(f"{sum(b.size for b in planned)} brands in {len(planned)} runs")
        return [RunRequest(run_key=f"full-crawl:{stamp}:{batch.label}", job_name=JOB_NAME,
                           tags={**batch_tags(batch), **missed})
                for batch in planned]

    return full_crawl_schedule
