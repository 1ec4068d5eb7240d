"""The repair jobs the coverage sensor launches: a crawl's manifests and drafts steps,
limited to the incomplete shows of one partition (``ShowScope``), without the listing."""

from dagster import AssetSelection, define_asset_job

from fashion_assets.sources import theimpression, vogue
from fashion_assets.tags import CRAWL_TAG

runway_coverage_repair_job = define_asset_job(
    "runway_coverage_repair",
    # The drafts step reports each partition's health check itself (assets/health.py).
    selection=AssetSelection.assets("runway_image_manifests", "runway_drafts").without_checks(),
    tags={CRAWL_TAG: "coverage"},
    description="Vogue: re-fetch and repair the incomplete shows of one brand (launched by "
                "coverage_sensor with the shows in its run config).",
)

impression_coverage_repair_job = define_asset_job(
    "impression_coverage_repair",
    selection=AssetSelection.assets("impression_runway_manifests",
                                    "impression_runway_drafts").without_checks(),
    tags={CRAWL_TAG: "coverage"},
    description="theImpression: re-fetch and repair the incomplete runway galleries of one "
                "season (launched by coverage_sensor).",
)

# The repair job and the assets to scope, per source of runway_shows.
REPAIR_JOBS = {
    vogue.SOURCE: (runway_coverage_repair_job.name,
              ("runway_image_manifests", "runway_drafts")),
    theimpression.SOURCE: (impression_coverage_repair_job.name,
                      ("impression_runway_manifests", "impression_runway_drafts")),
}
