"""Each runway source's jobs: its crawl (listing, manifests, drafts of a partition) and its
coverage repair (manifests and drafts of the incomplete shows the coverage sensor names,
without the listing), built from the source's declaration."""

from collections.abc import Sequence
from dataclasses import dataclass

from dagster import AssetSelection, define_asset_job
from dagster._core.definitions.unresolved_asset_job_definition import (
    UnresolvedAssetJobDefinition,
)

from fashion_assets.sources.registry import Source
from fashion_assets.tags import CRAWL_TAG


@dataclass(frozen=True)
class RepairJob:
    """The job that repairs a source's shows, and the assets whose run config scopes it."""

    name: str
    scoped_assets: tuple[str, ...]


def runway_jobs(source: Source) -> tuple[UnresolvedAssetJobDefinition, ...]:
    """The crawl job and the coverage repair job of a runway source."""
    names, by = source.runway_names, source.runway_partitioning
    assert names is not None and by is not None, f"{source.name} lists no runway shows"
    crawl = define_asset_job(
        names.crawl_job,
        # The drafts step reports each partition's health check itself (assets/health.py).
        selection=AssetSelection.groups(names.group).without_checks(),
        tags={CRAWL_TAG: by},
        description=f"{source.label}: listing, image manifests and drafts of one {by}"
                    + (", or of a batch of brands (a partition range: full_crawl_schedule, "
                       "backfills, crawl --all)." if by == "brand" else "."))
    repair = define_asset_job(
        names.repair_job,
        selection=AssetSelection.assets(names.manifests, names.drafts).without_checks(),
        tags={CRAWL_TAG: "coverage"},
        description=f"{source.label}: re-fetch and repair the incomplete shows of one {by} "
                    "(launched by coverage_sensor with the shows in its run config).")
    return crawl, repair


def repair_jobs(sources: Sequence[Source]) -> dict[str, RepairJob]:
    """The repair job of each runway source, by source name (the coverage sensor's map)."""
    return {s.name: RepairJob(s.runway_names.repair_job,
                              (s.runway_names.manifests, s.runway_names.drafts))
            for s in sources if s.runway_names is not None}
