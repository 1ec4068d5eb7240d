"""Runway assets, partitioned by brand: listing -> image manifests -> drafts.

Thin shell: each asset fetches through the crawl functions, which call the pure rules and
write the catalog, and reports what happened as materialization metadata.
"""

from collections import Counter

from dagster import AssetExecutionContext, MaterializeResult, MetadataValue, asset

from fashion_assets.catalog import runway as runway_catalog
from fashion_assets.crawl import loop
from fashion_assets.crawl.http import Fetcher
from fashion_assets.crawl.runway import (
    ManifestResult,
    ShowResult,
    crawl_listing,
    fetch_manifests,
    ingest_shows,
)
from fashion_assets.domain.ingest import count_outcomes
from fashion_assets.partitions import brand_partitions
from fashion_assets.progress import ProgressLog
from fashion_assets.report import markdown_table
from fashion_assets.resources import (
    CatalogResource,
    CrawlerResource,
    ObjectStoreResource,
    VogueSourceResource,
)

GROUP = "runway"
OWNERS = ["team:fashion-assets"]


@asset(
    partitions_def=brand_partitions,
    group_name=GROUP,
    owners=OWNERS,
    kinds={"python", "sql"},
    description="Every show the source lists for the brand (a full crawl, no show limit), "
                "stored in the catalog's runway_shows table with its source and entity keys.",
)
def runway_show_listings(context: AssetExecutionContext, catalog: CatalogResource,
                         vogue: VogueSourceResource, crawler: CrawlerResource
                         ) -> MaterializeResult:
    brand = context.partition_key
    engine = catalog.engine()
    runway_catalog.add_brand(engine, brand)
    site = vogue.site()

    async def run():
        async with Fetcher(crawler.http_policy(), vogue.host_policy()) as fetcher:
            return await crawl_listing(fetcher, site, engine, brand, run_id=context.run.run_id,
                                       max_page_bytes=crawler.max_page_bytes)

    listing = loop.run(run())
    if listing.display_name:
        runway_catalog.add_brand(engine, brand, listing.display_name)
    context.log.info(f"{brand}: {len(listing.shows)} shows listed, {listing.new_shows} new")
    for note in listing.skipped:
        context.log.warning(f"{brand}: skipped listing entry: {note}")
    return MaterializeResult(metadata={
        "shows": len(listing.shows),
        "new_shows": listing.new_shows,
        "skipped_entries": len(listing.skipped),
        "shows_table": MetadataValue.md(markdown_table(
            ["#", "title", "season code", "source URL"],
            [(s.listing_position, s.title, s.entity_key.season_code, s.source_key.source_url)
             for s in listing.shows])),
    })


@asset(
    partitions_def=brand_partitions,
    group_name=GROUP,
    owners=OWNERS,
    kinds={"python", "sql"},
    deps=[runway_show_listings],
    description="For each listed show, the ordered photo URLs of its Collection gallery and "
                "the expected count. A stored manifest is kept; only new shows are fetched.",
)
def runway_image_manifests(context: AssetExecutionContext, catalog: CatalogResource,
                           vogue: VogueSourceResource, crawler: CrawlerResource
                           ) -> MaterializeResult:
    brand = context.partition_key
    engine = catalog.engine()
    site = vogue.site()
    shows = runway_catalog.brand_shows(engine, brand, site.source)

    progress = ProgressLog(context.log.info, len(shows))

    def on_result(result: ManifestResult) -> None:
        if result.outcome != "kept":
            progress.add(f"{brand} {result.show.season_code}: manifest {result.outcome}, "
                         f"{result.expected_images} photos {result.reason}".rstrip())

    async def run():
        async with Fetcher(crawler.http_policy(), vogue.host_policy()) as fetcher:
            return await fetch_manifests(fetcher, site, engine, shows, run_id=context.run.run_id,
                                         limits=crawler.limits(), on_result=on_result)

    results = loop.run(run())
    progress.flush()
    counts = Counter(r.outcome for r in results)
    return MaterializeResult(metadata={
        "shows": len(results),
        "fetched": counts["fetched"],
        "kept": counts["kept"],
        "failed": counts["failed"],
        "expected_images": sum(r.expected_images for r in results),
        "manifests_table": MetadataValue.md(markdown_table(
            ["season code", "manifest", "expected photos", "note"],
            [(r.show.season_code, r.outcome, r.expected_images, r.reason) for r in results])),
    })


@asset(
    partitions_def=brand_partitions,
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
                  crawler: CrawlerResource) -> MaterializeResult:
    brand = context.partition_key
    engine = catalog.engine()
    site = vogue.site()
    object_store = store.open()
    shows = runway_catalog.brand_shows(engine, brand, site.source)
    progress = ProgressLog(context.log.info, len(shows))

    def on_result(result: ShowResult) -> None:
        progress.add(f"{brand} {result.show.season_code}: {result.outcome.value}"
                     f" ({result.images_stored} stored, {result.images_missing} missing)"
                     f"{' - ' + result.reason if result.reason else ''}")

    async def run():
        async with Fetcher(crawler.http_policy(), vogue.host_policy()) as fetcher:
            results = await ingest_shows(fetcher, object_store, engine, shows,
                                         run_id=context.run.run_id, limits=crawler.limits(),
                                         on_result=on_result)
            return results, fetcher.counters

    results, counters = loop.run(run())
    progress.flush()
    return MaterializeResult(metadata={
        **{f"shows_{name}": count
           for name, count in count_outcomes(r.outcome for r in results).items()},
        "images_stored": sum(r.images_stored for r in results),
        "images_missing": sum(r.images_missing for r in results),
        "requests": counters.requests,
        "bytes_received": counters.bytes_received,
        "store": object_store.url,
        "shows_table": MetadataValue.md(markdown_table(
            ["season code", "outcome", "draft", "stored", "missing", "note"],
            [(r.show.season_code, r.outcome.value, r.draft_id, r.images_stored,
              r.images_missing, r.reason) for r in results])),
    })


runway_assets = [runway_show_listings, runway_image_manifests, runway_drafts]
