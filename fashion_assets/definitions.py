"""The code location: one ``Definitions`` with each domain's assets, jobs and sensors."""

from collections.abc import Mapping

from dagster import AssetSelection, Definitions, define_asset_job

from fashion_assets.assets.runway import runway_assets
from fashion_assets.resources import resources_from_env
from fashion_assets.sensors.brand_partitions import brand_partitions_sensor

runway_crawl_job = define_asset_job(
    "runway_crawl",
    selection=AssetSelection.groups("runway"),
    description="Listing, image manifests and drafts of one brand.",
)



def build_definitions(env: Mapping[str, str] | None = None) -> Definitions:
    """The definitions with resources configured from ``env`` (default: os.environ)."""
    return Definitions(
        assets=runway_assets,
        jobs=[runway_crawl_job],
        sensors=[brand_partitions_sensor],
        resources=resources_from_env(env),
    )


defs = build_definitions()
