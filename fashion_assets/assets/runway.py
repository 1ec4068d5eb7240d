"""Runway assets, built for each runway source of the registry: listing -> image manifests
-> drafts, partitioned as the source declares (Vogue by brand, theImpression by season).

Every source writes the same tables under the same entity key (brand, season code), so
promotion merges one show's drafts from all of them. Only the listing step differs by the
way a source lists its shows (``assets/runway_listings.py``); the manifests and drafts steps
are one code path (``assets/runway_steps.py``).
"""

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from dagster import (
    AssetChecksDefinition,
    AssetExecutionContext,
    AssetsDefinition,
    Config,
    MaterializeResult,
    asset,
)
from pydantic import Field
from sqlalchemy import Engine

from fashion_assets.assets.health import DraftsAsset, health_check, report_partition_health
from fashion_assets.assets.policies import CRAWL_BATCHES, CRAWL_RETRY
from fashion_assets.assets.runway_listings import list_brands, list_seasons
from fashion_assets.assets.runway_steps import drafts_result, manifests_result
from fashion_assets.catalog import runway as runway_catalog
from fashion_assets.catalog.runway import ShowRow
from fashion_assets.partitions import RUNWAY_PARTITIONS
from fashion_assets.resources import SourceResource
from fashion_assets.sources.registry import Source

OWNERS = ["team:fashion-assets"]
_RESOURCES = {"catalog", "crawler"}


class ShowScope(Config):
    """The shows a run handles: every show of its partition, or only ``show_ids`` (the
    coverage sensor's repair runs re-fetch the incomplete shows and nothing else)."""

    show_ids: list[int] = Field(default_factory=list, description=(
        "Only these runway_shows ids of the partition; empty: every show."))

    def of(self, shows: Sequence[ShowRow]) -> list[ShowRow]:
        if not self.show_ids:
            return list(shows)
        wanted = set(self.show_ids)
        return [show for show in shows if show.id in wanted]


@dataclass(frozen=True)
class RunwayAssets:
    """One runway source's assets, in step order, and the health check of its drafts."""

    source: Source
    assets: tuple[AssetsDefinition, ...]
    health: AssetChecksDefinition


def runway_assets(source: Source) -> RunwayAssets:
    """The listing, manifests and drafts assets of ``source`` (a runway source)."""
    names, by = source.runway_names, source.runway_partitioning
    assert names is not None and by is not None, f"{source.name} lists no runway shows"
    partitions = RUNWAY_PARTITIONS[by]
    list_step = list_brands if by == "brand" else list_seasons
    drafts = DraftsAsset(names.drafts, source.name, partitions, by, "shows")

    def resource(context: AssetExecutionContext) -> SourceResource:
        return getattr(context.resources, source.name)

    @asset(name=names.listings, retry_policy=CRAWL_RETRY, partitions_def=partitions,
           group_name=names.group, owners=OWNERS, kinds={"python", "sql"},
           required_resource_keys={*_RESOURCES, source.name}, backfill_policy=CRAWL_BATCHES,
           description=_LISTING_DESCRIPTIONS[by].format(label=source.label))
    def listings(context: AssetExecutionContext) -> MaterializeResult:
        site = resource(context)
        return list_step(context, context.resources.catalog, context.resources.crawler, source,
                         site.site(source), site.host_policy())

    @asset(name=names.manifests, retry_policy=CRAWL_RETRY, partitions_def=partitions,
           group_name=names.group, owners=OWNERS, kinds={"python", "sql", "s3"},
           required_resource_keys={*_RESOURCES, source.name, "store"}, deps=[listings],
           backfill_policy=CRAWL_BATCHES,
           description=f"For each {source.label} show of the partition, the ordered photo "
                       "URLs of its gallery and the expected count. A stored manifest is "
                       "kept; only new and incomplete shows are fetched. The photos of a "
                       "show the drafts step will draft are fetched and stored as soon as its "
                       "page is read, while the next page waits its turn, for the drafts "
                       "step of the same run.")
    def manifests(context: AssetExecutionContext, config: ShowScope) -> MaterializeResult:
        site, catalog = resource(context), context.resources.catalog
        shows = config.of(_run_shows(context, catalog.engine(), source))
        return manifests_result(context, catalog, context.resources.store,
                                context.resources.crawler, site.site(source),
                                site.host_policy(), shows, next_step=names.drafts,
                                partition_of=_partition_of(source))

    @asset(name=names.drafts, retry_policy=CRAWL_RETRY, partitions_def=partitions,
           group_name=names.group, owners=OWNERS, kinds={"python", "sql", "s3"},
           required_resource_keys={*_RESOURCES, source.name, "store", "review_page"},
           deps=[manifests], backfill_policy=CRAWL_BATCHES,
           description=f"One draft per {source.label} show, waiting for review, in the "
                       "runway tables under the show's entity key (brand, season code) for "
                       "promotion to merge with the other sources' drafts; every photo stored "
                       "once under the sha1 of its bytes. A show already drafted (any status) "
                       "or in the catalog is skipped before any download.")
    def drafts_asset(context: AssetExecutionContext,
                     config: ShowScope) -> Iterator[MaterializeResult]:
        site, catalog = resource(context), context.resources.catalog
        shows = config.of(_run_shows(context, catalog.engine(), source))
        yield drafts_result(context, catalog, context.resources.store,
                            context.resources.crawler, context.resources.review_page,
                            site.site(source), site.host_policy(), shows,
                            partition_of=_partition_of(source))
        # After the materialization: an evaluation older than it would not count as current.
        report_partition_health(context, catalog.engine(), drafts)

    return RunwayAssets(source, (listings, manifests, drafts_asset), health_check(drafts))


_LISTING_DESCRIPTIONS = {
    "brand": "Every show {label} lists for the brand (a full crawl, no show limit), stored in "
             "the catalog's runway_shows table with its source and entity keys.",
    "season": "{label}'s runway galleries of one season, each keyed like every source's show "
              "(brand, season code) by resolving its designer's name; a designer no brand "
              "matches waits for an editor (fashion-assets names list).",
}


def _partition_of(source: Source) -> Callable[[ShowRow], str]:
    """A show's partition of ``source``'s runway assets: its brand, or its season code."""
    if source.runway_partitioning == "brand":
        return lambda show: show.brand_slug
    return lambda show: show.season_code


def _run_shows(context: AssetExecutionContext, engine: Engine, source: Source
               ) -> list[ShowRow]:
    """The source's shows of every partition of the run (one, or a batch of brands)."""
    shows_of = (runway_catalog.brand_shows if source.runway_partitioning == "brand"
                else runway_catalog.season_shows)
    return [show for key in context.partition_keys for show in shows_of(engine, key, source.name)]
