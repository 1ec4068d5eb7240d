"""Runway: every runway source's listing, manifests and drafts (by brand or by season),
their crawl and coverage repair jobs, the partition sensors that keep brands and seasons
in step with the catalog, the weekly full crawl, and designer discovery."""

from collections.abc import Mapping, Sequence

from dagster import Definitions

from fashion_assets.assets.discovery import vogue_designer_discovery
from fashion_assets.assets.runway import runway_assets
from fashion_assets.jobs.crawl_schedule import build_crawl_schedule
from fashion_assets.jobs.discovery import build_discovery_schedule, designer_discovery_job
from fashion_assets.jobs.runway import repair_jobs, runway_jobs
from fashion_assets.sensors.brand_partitions import brand_partitions_sensor
from fashion_assets.sensors.coverage import build_coverage_sensor
from fashion_assets.sensors.runway_seasons import runway_season_partitions_sensor
from fashion_assets.sources.registry import Source, runway_sources


def runway_definitions(env: Mapping[str, str] | None, sources: Sequence[Source]
                       ) -> Definitions:
    """The runway domain for ``sources`` (the registry's, or more in tests)."""
    built = [runway_assets(source) for source in runway_sources(sources)]
    jobs = [runway_jobs(source) for source in runway_sources(sources)]
    repair = [repair_job for _, repair_job in jobs]
    return Definitions(
        assets=[*(a for b in built for a in b.assets), vogue_designer_discovery],
        asset_checks=[b.health for b in built],
        jobs=[*(job for pair in jobs for job in pair), designer_discovery_job],
        schedules=[build_crawl_schedule(env), build_discovery_schedule(env)],
        sensors=[brand_partitions_sensor, runway_season_partitions_sensor,
                 build_coverage_sensor(repair_jobs(sources), repair)],
    )
