"""The listing step of a runway source, one body per way of listing (its declared
partitioning): by brand, each designer's page (Vogue), or by season, a season's galleries
with each designer's name resolved to a brand (theImpression).

Each returns the step's materialization; ``assets/runway.py`` wraps it in the source's
asset. Thin shell: the crawl functions fetch, call the rules and write the catalog.
"""

from dagster import AssetExecutionContext, MaterializeResult
from sqlalchemy import Engine

from fashion_assets.assets.policies import listing_failures
from fashion_assets.assets.steps import log_listing, run_listing, step_progress
from fashion_assets.catalog import names
from fashion_assets.crawl import loop
from fashion_assets.crawl.base import SourceSite
from fashion_assets.crawl.runway import ListingError, ListingResult, crawl_listing
from fashion_assets.crawl.seasons import crawl_season_listing
from fashion_assets.domain.hosts import HostPolicy
from fashion_assets.progress import CrawlProgress
from fashion_assets.report import table
from fashion_assets.resources import CatalogResource, CrawlerResource
from fashion_assets.sources.registry import BrandListings, SeasonListings, Source


def list_brands(context: AssetExecutionContext, catalog: CatalogResource,
                crawler: CrawlerResource, source: Source, site: SourceSite,
                hosts: HostPolicy) -> MaterializeResult:
    """Every show each brand of the run lists (one brand, or a batch of them)."""
    engine, names, by = catalog.engine(), source.runway_names, source.runway_listing
    assert names is not None and isinstance(by, BrandListings)
    brands = context.partition_keys
    listings, failed = [], []
    tracker = step_progress(context, engine, crawler, "listing", len(brands), unit="brands",
                            later=(names.manifests, names.drafts))
    with tracker:
        for brand in brands:  # each brand is registered in the catalog once its listing is read
            try:
                listings.append(_list_brand(context, engine, site, by, hosts, crawler,
                                            brand, tracker))
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
                by: BrandListings, hosts: HostPolicy, crawler: CrawlerResource, brand: str,
                tracker: CrawlProgress) -> ListingResult:
    """One brand's listing: fetched, recorded, its own name and its notes logged."""
    async def run() -> ListingResult:
        async with crawler.fetcher(hosts, engine) as fetcher, tracker.beating():
            return await crawl_listing(fetcher, site, engine, by, brand,
                                       run_id=context.run.run_id,
                                       max_page_bytes=crawler.max_page_bytes)

    listing = loop.run(run())
    name_note = names.record_own_name(engine, brand, listing.display_name)
    log_listing(context, brand, f"{len(listing.shows)} shows listed, {listing.new_shows} new",
                listing.skipped)
    if name_note:
        context.log.warning(f"{brand}: {name_note}")
    return listing


def list_season(context: AssetExecutionContext, catalog: CatalogResource,
                crawler: CrawlerResource, source: Source, site: SourceSite,
                hosts: HostPolicy) -> MaterializeResult:
    """Every gallery a season's listing shows, keyed by brand once its designer resolves."""
    season = context.partition_key
    engine, names, by = catalog.engine(), source.runway_names, source.runway_listing
    assert names is not None and isinstance(by, SeasonListings)
    listing = run_listing(
        context, engine, crawler, hosts, unit="seasons", later=(names.manifests, names.drafts),
        read=lambda fetcher: crawl_season_listing(fetcher, site, engine, by, season,
                                                  run_id=context.run.run_id,
                                                  limits=crawler.limits()))
    waiting = [h for h in listing.held if h.outcome == "waiting_for_name"]
    log_listing(context, season, f"{len(listing.shows)} galleries listed, "
                f"{listing.new_shows} new, {len(waiting)} waiting for a brand name",
                listing.skipped)
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
