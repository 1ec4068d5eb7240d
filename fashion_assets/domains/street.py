"""Street style: theImpression's fashion-week listings and their street-snap drafts, by
week, and the job that crawls one week."""

from dagster import AssetSelection, Definitions, define_asset_job

from fashion_assets.assets.street import street_assets, street_health
from fashion_assets.tags import CRAWL_TAG

street_style_crawl_job = define_asset_job(
    "street_style_crawl",
    selection=AssetSelection.groups("street_style").without_checks(),
    tags={CRAWL_TAG: "week"},
    description="theImpression: the street-style listing and drafts of one fashion week.",
)


def street_definitions() -> Definitions:
    return Definitions(assets=street_assets, asset_checks=[street_health],
                       jobs=[street_style_crawl_job])
