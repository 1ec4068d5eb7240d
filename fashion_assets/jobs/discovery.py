"""Designer discovery's job and its schedule, an hour before the weekly full crawl by
default, so the brands it registers are in the partitions that crawl reads."""

from __future__ import annotations

import os
from collections.abc import Mapping

from dagster import AssetSelection, ScheduleDefinition, define_asset_job

from fashion_assets import settings
from fashion_assets.jobs.ticks import reporting_schedule
from fashion_assets.tags import BRAND_TAG, CRAWL_TAG

designer_discovery_job = define_asset_job(
    "designer_discovery",
    selection=AssetSelection.assets("vogue_designer_discovery"),
    # A crawl run for the queue's limits; one discovery at a time (the brand tag's limit).
    tags={CRAWL_TAG: "discovery", BRAND_TAG: "discovery"},
    description="Vogue's designers directory, runway landing page and current season pages "
                "read; new designers registered as brands (launched by "
                "designer_discovery_schedule, or by fashion-assets brands discover).",
)


def build_discovery_schedule(env: Mapping[str, str] | None = None) -> ScheduleDefinition:
    """Discovery at ``FASHION_DISCOVERY_CRON`` (UTC)."""
    cron = settings.setting(os.environ if env is None else env, "FASHION_DISCOVERY_CRON")
    return reporting_schedule(
        name="designer_discovery_schedule", job_name=designer_discovery_job.name, cron=cron,
        description="Registers the designers Vogue newly lists as brands, on "
                    "FASHION_DISCOVERY_CRON (before full_crawl_schedule, which crawls them).")
