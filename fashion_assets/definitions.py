"""The code location: one ``Definitions`` with each domain's assets, jobs and sensors."""

from collections.abc import Mapping

from dagster import AssetSelection, Definitions, colored_console_logger, define_asset_job

from fashion_assets.assets.catalog import approved_drafts, catalog_entries
from fashion_assets.assets.checks import catalog_checks
from fashion_assets.assets.discovery import vogue_designer_discovery
from fashion_assets.assets.health import health_checks
from fashion_assets.assets.runway import impression_runway_assets, runway_assets
from fashion_assets.assets.street import street_assets
from fashion_assets.jobs.cleanup import build_media_cleanup_job, build_media_cleanup_schedule
from fashion_assets.jobs.coverage import impression_coverage_repair_job, runway_coverage_repair_job
from fashion_assets.jobs.crawl_schedule import build_crawl_schedule
from fashion_assets.jobs.discovery import build_discovery_schedule, designer_discovery_job
from fashion_assets.progress import progress_logger
from fashion_assets.resources import resources_from_env
from fashion_assets.sensors.approved_drafts import approved_drafts_sensor
from fashion_assets.sensors.brand_partitions import brand_partitions_sensor
from fashion_assets.sensors.coverage import coverage_sensor
from fashion_assets.sensors.runway_seasons import runway_season_partitions_sensor
from fashion_assets.sensors.stuck_runs import stuck_runs_sensor
from fashion_assets.tags import CRAWL_TAG, PROMOTION_TAG

runway_crawl_job = define_asset_job(
    "runway_crawl",
    # The drafts step reports each partition's health check itself (assets/health.py).
    selection=AssetSelection.groups("runway").without_checks(),
    tags={CRAWL_TAG: "brand"},
    description="Vogue: listing, image manifests and drafts of one brand, or of a batch of "
                "brands (a partition range: full_crawl_schedule, backfills, crawl --all).",
)

impression_runway_crawl_job = define_asset_job(
    "impression_runway_crawl",
    selection=AssetSelection.groups("impression_runway").without_checks(),
    tags={CRAWL_TAG: "season"},
    description="theImpression: the runway galleries of one season, as drafts of the same "
                "shows as Vogue's.",
)

promote_approved_drafts_job = define_asset_job(
    "promote_approved_drafts",
    selection=AssetSelection.assets(approved_drafts, catalog_entries),
    tags={PROMOTION_TAG: "promotion"},
    description="Promote every approved draft into the catalog (launched by "
                "approved_drafts_sensor).",
)

street_style_crawl_job = define_asset_job(
    "street_style_crawl",
    selection=AssetSelection.groups("street_style").without_checks(),
    tags={CRAWL_TAG: "week"},
    description="theImpression: the street-style listing and drafts of one fashion week.",
)


def build_definitions(env: Mapping[str, str] | None = None) -> Definitions:
    """The definitions with resources configured from ``env`` (default: os.environ)."""
    return Definitions(
        assets=[*runway_assets, *impression_runway_assets, *street_assets,
                approved_drafts, catalog_entries, vogue_designer_discovery],
        asset_checks=[*catalog_checks, *health_checks],
        jobs=[runway_crawl_job, impression_runway_crawl_job, street_style_crawl_job,
              promote_approved_drafts_job, runway_coverage_repair_job,
              impression_coverage_repair_job, designer_discovery_job,
              build_media_cleanup_job(env)],
        schedules=[build_discovery_schedule(env), build_crawl_schedule(env),
                   build_media_cleanup_schedule(env)],
        sensors=[brand_partitions_sensor, runway_season_partitions_sensor,
                 approved_drafts_sensor, coverage_sensor, stuck_runs_sensor],
        resources=resources_from_env(env),
        # A run whose config names no logger logs as Dagster's default (the console at
        # DEBUG); the CLI names "progress" to print only the crawl's own lines.
        loggers={"console": colored_console_logger, "progress": progress_logger},
    )


defs = build_definitions()
