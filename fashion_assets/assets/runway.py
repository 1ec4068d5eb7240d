"""Runway assets: Vogue's, partitioned by brand, and theImpression's, partitioned by season.

Both sources go listing -> image manifests -> drafts, into the same tables and under the same
entity key (brand, season code), so promotion can merge one show's drafts from both. Thin
shell: each asset fetches through the crawl functions, which call the pure rules and write
the catalog, and reports what happened as materialization metadata.
"""

from collections import Counter
from collections.abc import Iterator, Sequence

from dagster import (
    AssetExecutionContext,
    Config,
    MaterializeResult,
    asset,
)
from pydantic import Field
from sqlalchemy import Engine

from fashion_assets.assets.health import report_partition_health
from fashion_assets.assets.policies import BRAND_BATCHES, CRAWL_RETRY, listing_failures
from fashion_assets.assets.steps import step_progress
from fashion_assets.catalog import names
from fashion_assets.catalog import runway as runway_catalog
from fashion_assets.catalog.coverage import given_up_shows
from fashion_assets.catalog.entities import RUNWAY
from fashion_assets.catalog.runway import ShowRow
from fashion_assets.crawl import loop
from fashion_assets.crawl.base import SourceSite
from fashion_assets.crawl.http import Fetcher
from fashion_assets.crawl.impression import crawl_season_listing
from fashion_assets.crawl.runway import (
    ListingError,
    ListingResult,
    ManifestResult,
    ShowResult,
    crawl_listing,
    fetch_manifests,
    ingest_shows,
)
from fashion_assets.domain.hosts import HostPolicy
from fashion_assets.domain.ingest import Outcome
from fashion_assets.partitions import brand_partitions, runway_season_partitions
from fashion_assets.progress import CrawlProgress, ProgressLog
from fashion_assets.report import ingest_counts, table
from fashion_assets.resources import (
    CatalogResource,
    CrawlerResource,
    ObjectStoreResource,
    ReviewPageResource,
    TheImpressionSourceResource,
    VogueSourceResource,
)


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


GROUP = "runway"

IMPRESSION_GROUP = "impression_runway"
OWNERS = ["team:fashion-assets"]


@asset(
    retry_policy=CRAWL_RETRY,
    partitions_def=brand_partitions,
    backfill_policy=BRAND_BATCHES,
    group_name=GROUP,
    owners=OWNERS,
    kinds={"python", "sql"},
    description="Every show the source lists for the brand (a full crawl, no show limit), "
                "stored in the catalog's runway_shows table with its source and entity keys.",
)
def runway_show_listings(context: AssetExecutionContext, catalog: CatalogResource,
                         vogue: VogueSourceResource, crawler: CrawlerResource
                         ) -> MaterializeResult:
    engine = catalog.engine()
    site = vogue.site()
    brands = context.partition_keys
    listings, failed = [], []
    tracker = step_progress(context, engine, crawler, "listing", len(brands), unit="brands",
                            later=("runway_image_manifests", "runway_drafts"))
    with tracker:
        for brand in brands:  # each brand is registered in the catalog once its listing is read
            try:
                listings.append(_list_brand(context, engine, site, vogue, crawler, brand,
                                            tracker))
            except ListingError as exc:
                if len(brands) == 1:  # one brand: the run fails, retried only if that can help
                    with listing_failures():
                        raise
                # A batch goes on with its other brands: the failure is in the ingest log.
                context.log.warning(f"{exc}; the batch goes on with its other brands")
                failed.append((brand, str(exc)))
            tracker.show_done(brand)
    return MaterializeResult(metadata={
        "brands": len(brands),
        "failed_brands": len(failed),
        # Every entry the listing pages hold, readable or not: "nothing listed" means none.
        "listed": sum(len(listing.shows) + len(listing.skipped) for listing in listings),
        "shows": sum(len(listing.shows) for listing in listings),
        "new_shows": sum(listing.new_shows for listing in listings),
        "skipped_entries": sum(len(listing.skipped) for listing in listings),
        "pending_cities": ", ".join(sorted({c for listing in listings
                                            for c in listing.pending_cities})),
        **table("shows_table", [("brand", "string"), ("#", "int"), ("title", "string"),
                                ("season code", "string"), ("source URL", "url")],
                [(listing.brand_slug, s.listing_position, s.title, s.entity_key.season_code,
                  s.source_key.source_url) for listing in listings for s in listing.shows]),
        **(table("failed_table", [("brand", "string"), ("error", "string")], failed)
           if failed else {}),
    })


def _list_brand(context: AssetExecutionContext, engine: Engine, site: SourceSite,
                vogue: VogueSourceResource, crawler: CrawlerResource, brand: str,
                tracker: CrawlProgress) -> ListingResult:
    """One brand's listing: fetched, recorded, its own name and its notes logged."""
    async def run() -> ListingResult:
        async with Fetcher(crawler.http_policy(), vogue.host_policy()) as fetcher, \
                tracker.beating():
            return await crawl_listing(fetcher, site, engine, brand, run_id=context.run.run_id,
                                       max_page_bytes=crawler.max_page_bytes)

    listing = loop.run(run())
    name_note = names.record_own_name(engine, brand, listing.display_name)
    context.log.info(f"{brand}: {len(listing.shows)} shows listed, {listing.new_shows} new")
    for note in listing.skipped:
        context.log.warning(f"{brand}: skipped listing entry: {note}")
    if name_note:
        context.log.warning(f"{brand}: {name_note}")
    return listing


@asset(
    retry_policy=CRAWL_RETRY,
    partitions_def=brand_partitions,
    backfill_policy=BRAND_BATCHES,
    group_name=GROUP,
    owners=OWNERS,
    kinds={"python", "sql"},
    deps=[runway_show_listings],
    description="For each listed show, the ordered photo URLs of its Collection gallery and "
                "the expected count. A stored manifest is kept; only new shows are fetched.",
)
def runway_image_manifests(context: AssetExecutionContext, catalog: CatalogResource,
                           vogue: VogueSourceResource, crawler: CrawlerResource
                           ,
                           config: ShowScope) -> MaterializeResult:
    site = vogue.site()
    shows = config.of(brands_shows(catalog.engine(), context.partition_keys, site.source))
    return manifests_result(context, catalog, crawler, site, vogue.host_policy(), shows,
                            next_step="runway_drafts")


@asset(
    retry_policy=CRAWL_RETRY,
    partitions_def=brand_partitions,
    backfill_policy=BRAND_BATCHES,
    group_name=GROUP,
    owners=OWNERS,
    kinds={"python", "sql", "s3"},
    deps=[runway_image_manifests],
    description="One draft per source article, waiting for review, with every photo stored "
                "once under the sha1 of its bytes. An article already drafted (any status) "
                "or a show already in the catalog is skipped before any download.",
)
def runway_drafts(context: AssetExecutionContext, catalog: CatalogResource,
                  store: ObjectStoreResource, vogue: VogueSourceResource,
                  crawler: CrawlerResource, review_page: ReviewPageResource,
                  config: ShowScope) -> Iterator[MaterializeResult]:
    site = vogue.site()
    shows = config.of(brands_shows(catalog.engine(), context.partition_keys, site.source))
    yield drafts_result(context, catalog, store, crawler, review_page, site,
                        vogue.host_policy(), shows)
    # After the materialization: an evaluation older than it would not count as current.
    report_partition_health(context, catalog.engine())


@asset(
    retry_policy=CRAWL_RETRY,
    partitions_def=runway_season_partitions,
    group_name=IMPRESSION_GROUP,
    owners=OWNERS,
    kinds={"python", "sql"},
    description="theImpression's runway galleries of one season, each keyed like Vogue's "
                "show (brand, season code) by resolving its designer's name; a designer no "
                "brand matches waits for an editor (fashion-assets names list).",
)
def impression_runway_listings(context: AssetExecutionContext, catalog: CatalogResource,
                               theimpression: TheImpressionSourceResource,
                               crawler: CrawlerResource) -> MaterializeResult:
    season = context.partition_key
    engine = catalog.engine()
    site = theimpression.site()

    tracker = step_progress(context, engine, crawler, "listing", 1, unit="seasons",
                            later=("impression_runway_manifests", "impression_runway_drafts"))

    async def run():
        async with Fetcher(crawler.http_policy(), theimpression.host_policy()) as fetcher, \
                tracker.beating():
            return await crawl_season_listing(fetcher, site, engine, season,
                                              run_id=context.run.run_id, limits=crawler.limits())

    with listing_failures(), tracker:
        listing = loop.run(run())
        tracker.show_done(season)
    waiting = [h for h in listing.held if h.outcome == "waiting_for_name"]
    context.log.info(f"{season}: {len(listing.shows)} galleries listed, {listing.new_shows} new,"
                     f" {len(waiting)} waiting for a brand name")
    for note in listing.skipped:
        context.log.warning(f"{season}: skipped listing entry: {note}")
    return MaterializeResult(metadata={
        "pages": listing.pages,
        "listed": len(listing.shows) + len(listing.held) + len(listing.skipped),
        "shows": len(listing.shows),
        "new_shows": listing.new_shows,
        "waiting_for_name": len(waiting),
        "skipped_entries": len(listing.skipped) + len(listing.held) - len(waiting),
        **table("shows_table", [("#", "int"), ("brand", "string"), ("title", "string"),
                                ("source URL", "url")],
                [(s.listing_position, s.entity_key.brand_slug, s.title,
                  s.source_key.source_url) for s in listing.shows]),
        **table("held_table", [("designer", "string"), ("outcome", "string"),
                               ("title", "string"), ("source URL", "url")],
                [(h.name, h.outcome, h.title, h.source_url) for h in listing.held]),
    })


@asset(
    retry_policy=CRAWL_RETRY,
    partitions_def=runway_season_partitions,
    group_name=IMPRESSION_GROUP,
    owners=OWNERS,
    kinds={"python", "sql"},
    deps=[impression_runway_listings],
    description="For each theImpression runway gallery of the season, its ordered photos "
                "and expected count. A stored manifest is kept.",
)
def impression_runway_manifests(context: AssetExecutionContext, catalog: CatalogResource,
                                theimpression: TheImpressionSourceResource,
                                crawler: CrawlerResource,
                                config: ShowScope) -> MaterializeResult:
    site = theimpression.site()
    shows = config.of(runway_catalog.season_shows(catalog.engine(), context.partition_key,
                                                 site.source))
    return manifests_result(context, catalog, crawler, site, theimpression.host_policy(), shows,
                            next_step="impression_runway_drafts")


@asset(
    retry_policy=CRAWL_RETRY,
    partitions_def=runway_season_partitions,
    group_name=IMPRESSION_GROUP,
    owners=OWNERS,
    kinds={"python", "sql", "s3"},
    deps=[impression_runway_manifests],
    description="One runway draft per theImpression gallery, in the same table and under the "
                "same entity key as Vogue's drafts of the show, for promotion to merge.",
)
def impression_runway_drafts(context: AssetExecutionContext, catalog: CatalogResource,
                             store: ObjectStoreResource,
                             theimpression: TheImpressionSourceResource,
                             crawler: CrawlerResource, review_page: ReviewPageResource,
                             config: ShowScope) -> Iterator[MaterializeResult]:
    site = theimpression.site()
    shows = config.of(runway_catalog.season_shows(catalog.engine(), context.partition_key,
                                                 site.source))
    yield drafts_result(context, catalog, store, crawler, review_page, site,
                        theimpression.host_policy(), shows)
    report_partition_health(context, catalog.engine())


def _given_up(engine: Engine, shows: Sequence[ShowRow]) -> dict[str, object]:
    """The run's shows the coverage sensor gave up on, with why (a full crawl still tried
    them, above)."""
    given_up = given_up_shows(engine, [s.id for s in shows])
    return {"given_up_shows": len(given_up), **(table(
        "given_up_table", [("show", "url"), ("attempts", "int"), ("gave up", "string"),
                           ("reason", "string")],
        [(g.source_url, g.attempts, g.gave_up_at, g.reason) for g in given_up])
        if given_up else {})}


def brands_shows(engine: Engine, brands: Sequence[str], source: str) -> list[ShowRow]:
    """The shows of every brand of a run (one brand, or a batch of them)."""
    return [show for brand in brands for show in runway_catalog.brand_shows(engine, brand, source)]


def manifests_result(context: AssetExecutionContext, catalog: CatalogResource,
                     crawler: CrawlerResource, site: SourceSite, hosts: HostPolicy,
                     shows: Sequence[ShowRow], *, next_step: str) -> MaterializeResult:
    """Fetch the missing manifests of ``shows`` and report them (both sources' step;
    ``next_step``: the drafts asset that follows it when the run has it)."""
    engine = catalog.engine()
    progress = ProgressLog(context.log.info, len(shows))
    tracker = step_progress(context, engine, crawler, "manifests", len(shows),
                            later=(next_step,))

    def on_result(result: ManifestResult) -> None:
        tracker.show_done(f"{result.show.brand_slug} {result.show.season_code}")
        if result.outcome != "kept":
            progress.add(f"{result.show.brand_slug} {result.show.season_code}: manifest "
                         f"{result.outcome}, {result.expected_images} photos "
                         f"{result.reason}".rstrip())

    async def run():
        async with Fetcher(crawler.http_policy(), hosts) as fetcher, tracker.beating():
            return await fetch_manifests(fetcher, site, engine, shows, run_id=context.run.run_id,
                                         limits=crawler.limits(), on_result=on_result)

    with tracker:
        results = loop.run(run())
    progress.flush()
    counts = Counter(r.outcome for r in results)
    return MaterializeResult(metadata={
        "shows": len(results),
        "fetched": counts["fetched"],
        "kept": counts["kept"],
        "failed": counts["failed"],
        "expected_images": sum(r.expected_images for r in results),
        **table("manifests_table", [("brand", "string"), ("season code", "string"),
                                    ("manifest", "string"), ("expected photos", "int"),
                                    ("reason", "string")],
                [(r.show.brand_slug, r.show.season_code, r.outcome, r.expected_images,
                  r.reason) for r in results]),
    })


def drafts_result(context: AssetExecutionContext, catalog: CatalogResource,
                  store: ObjectStoreResource, crawler: CrawlerResource,
                  review_page: ReviewPageResource, site: SourceSite, hosts: HostPolicy,
                  shows: Sequence[ShowRow]) -> MaterializeResult:
    """Draft ``shows`` and report the outcomes (both sources' step), each draft with a link
    to its review page.

    Progress goes to the run's log (batched lines) and, show by show, to the catalog's
    ``crawl_progress`` row of the run, for the status command, the /crawler page and the
    stuck-run rule.
    """
    engine = catalog.engine()
    object_store = store.open()
    progress = ProgressLog(context.log.info, len(shows))
    # The photos each show is planned with: its manifest's, if it is to be downloaded. Each
    # show's update corrects its share, so the total ends as the photos really handled.
    planned = {s.id: s.expected_images if s.has_manifest and not (s.drafted or s.in_catalog)
               else 0 for s in shows}
    tracker = step_progress(context, engine, crawler, "drafts", len(shows),
                            photos_total=sum(planned.values()))

    def on_result(result: ShowResult) -> None:
        # A repair may fetch photos the draft holds already (under new URLs): it says how
        # many of those it fetched were new to the draft.
        stored = (f"{result.photos_added} photos added of {result.images_stored} fetched"
                  if result.outcome in (Outcome.REPAIRED, Outcome.UNREPAIRED)
                  else f"{result.images_stored} stored")
        progress.add(f"{result.show.brand_slug} {result.show.season_code}: "
                     f"{result.outcome.value} ({stored}, {result.images_missing} missing)"
                     f"{' - ' + result.reason if result.reason else ''}")
        handled = result.images_stored + result.images_missing
        tracker.show_done(f"{result.show.brand_slug} {result.show.season_code}",
                          photos_done_delta=handled,
                          photos_total_delta=handled - planned.get(result.show.id, 0))

    async def run():
        async with Fetcher(crawler.http_policy(), hosts) as fetcher, tracker.beating():
            results = await ingest_shows(fetcher, object_store, engine, shows,
                                         run_id=context.run.run_id, limits=crawler.limits(),
                                         on_result=on_result)
            return results, fetcher.counters

    with tracker:
        results, counters = loop.run(run())
    progress.flush()
    return MaterializeResult(metadata={
        **ingest_counts("shows_", results, counters, object_store.url),
        "shows_done": tracker.shows_done,
        "shows_total": tracker.shows_total,
        **_given_up(engine, shows),
        **table("shows_table", [("brand", "string"), ("season code", "string"),
                                ("outcome", "string"), ("draft", "int"), ("review page", "url"),
                                ("stored", "int"), ("missing", "int"), ("reason", "string")],
                [(r.show.brand_slug, r.show.season_code, r.outcome.value, r.draft_id,
                  review_page.draft_url(RUNWAY.kind, r.draft_id), r.images_stored,
                  r.images_missing, r.reason) for r in results]),
    })


runway_assets = [runway_show_listings, runway_image_manifests, runway_drafts]
impression_runway_assets = [impression_runway_listings, impression_runway_manifests,
                            impression_runway_drafts]
