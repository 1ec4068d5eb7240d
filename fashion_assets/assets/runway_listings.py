"""The listing step of a runway source, one body per way of listing (its declared
partitioning): by brand, each designer's page (Vogue), or by season, a season's galleries
with each designer's name resolved to a brand (theImpression).

Each returns the step's materialization; ``assets/runway.py`` wraps it in the source's
asset. Thin shell: the crawl functions fetch, call the rules and write the catalog.
"""

from dagster import AssetExecutionContext, MaterializeResult

from fashion_assets.assets.steps import log_listing, read_listings
from fashion_assets.catalog import names as catalog_names
from fashion_assets.crawl.base import SourceSite
from fashion_assets.crawl.runway import crawl_listing
from fashion_assets.crawl.seasons import crawl_season_listing
from fashion_assets.domain.hosts import HostPolicy
from fashion_assets.domain.wording import counted
from fashion_assets.report import partition_table, table
from fashion_assets.resources import CatalogResource, CrawlerResource
from fashion_assets.sources.registry import BrandListings, SeasonListings, Source


def list_brands(context: AssetExecutionContext, catalog: CatalogResource,
                crawler: CrawlerResource, source: Source, site: SourceSite,
                hosts: HostPolicy) -> MaterializeResult:
    """Every show each brand of the run lists (one brand, or a batch of them)."""
    engine, names, by = catalog.engine(), source.runway_names, source.runway_listing
    assert names is not None and isinstance(by, BrandListings)
    # Each brand is registered in the catalog once its listing is read.
    listed, failed = read_listings(
        context, engine, crawler, hosts, unit="brands", later=(names.manifests, names.drafts),
        read=lambda fetcher, brand: crawl_listing(fetcher, site, engine, by, brand,
                                                  run_id=context.run.run_id,
                                                  max_page_bytes=crawler.max_page_bytes))
    listings = [listing for _, listing in listed]
    for listing in listings:
        name_note = catalog_names.record_own_name(engine, listing.brand_slug,
                                                  listing.display_name)
        log_listing(context, listing.brand_slug, f"{counted(len(listing.shows), 'show')} listed, "
                    f"{listing.new_shows} listed for the first time", listing.skipped)
        if name_note:
            context.log.warning(f"{listing.brand_slug}: {name_note}")
    return MaterializeResult(metadata={
        "brands": len(context.partition_keys),
        "failed_brands": len(failed),
        # Every entry the listing pages hold, readable or not: "nothing listed" means none.
        "listed": sum(len(listing.shows) + len(listing.skipped) for listing in listings),
        "shows": sum(len(listing.shows) for listing in listings),
        "shows_first_listed": sum(listing.new_shows for listing in listings),
        "skipped_entries": sum(len(listing.skipped) for listing in listings),
        "pending_cities": ", ".join(sorted({c for listing in listings
                                            for c in listing.pending_cities})),
        **partition_table(
            context, "shows_table", [("brand", "string"), ("#", "int"), ("title", "string"),
                                     ("season code", "string"), ("source URL", "url")],
            [(brand, (listing.brand_slug, s.listing_position, s.title,
                      s.entity_key.season_code, s.source_key.source_url))
             for brand, listing in listed for s in listing.shows]),
        **failed_table("brand", failed),
    })


def list_seasons(context: AssetExecutionContext, catalog: CatalogResource,
                 crawler: CrawlerResource, source: Source, site: SourceSite,
                 hosts: HostPolicy) -> MaterializeResult:
    """Every gallery each season of the run lists (one season, or a batch of them), keyed
    by brand once its designer resolves."""
    engine, names, by = catalog.engine(), source.runway_names, source.runway_listing
    assert names is not None and isinstance(by, SeasonListings)
    listed, failed = read_listings(
        context, engine, crawler, hosts, unit="seasons", later=(names.manifests, names.drafts),
        read=lambda fetcher, season: crawl_season_listing(fetcher, site, engine, by, season,
                                                          run_id=context.run.run_id,
                                                          limits=crawler.limits()))
    listings = [listing for _, listing in listed]
    waiting = {season: [h for h in listing.held if h.outcome == "waiting_for_name"]
               for season, listing in listed}
    for season, listing in listed:
        log_listing(context, season, f"{counted(len(listing.shows), 'gallery')} listed, "
                    f"{listing.new_shows} listed for the first time, {len(waiting[season])}"
                    " waiting for a brand name", listing.skipped)
    return MaterializeResult(metadata={
        "seasons": len(context.partition_keys),
        "failed_seasons": len(failed),
        "pages": sum(listing.pages for listing in listings),
        "listed": sum(len(li.shows) + len(li.held) + len(li.skipped) for li in listings),
        "shows": sum(len(listing.shows) for listing in listings),
        "shows_first_listed": sum(listing.new_shows for listing in listings),
        "waiting_for_name": sum(len(held) for held in waiting.values()),
        "skipped_entries": sum(len(li.skipped) + len(li.held) for li in listings)
        - sum(len(held) for held in waiting.values()),
        **partition_table(
            context, "shows_table", [("season", "string"), ("#", "int"), ("brand", "string"),
                                     ("title", "string"), ("source URL", "url")],
            [(season, (season, s.listing_position, s.entity_key.brand_slug, s.title,
                       s.source_key.source_url)) for season, li in listed for s in li.shows]),
        **partition_table(
            context, "held_table", [("season", "string"), ("designer", "string"),
                                    ("outcome", "string"), ("title", "string"),
                                    ("source URL", "url")],
            [(season, (season, h.name, h.outcome, h.title, h.source_url))
             for season, li in listed for h in li.held]),
        **failed_table("season", failed),
    })


def failed_table(unit: str, failed: list[tuple[str, str]]) -> dict[str, object]:
    """The partitions of a batch whose listing failed, with why (nothing when none did)."""
    return table("failed_table", [(unit, "string"), ("error", "string")], failed) if (
        failed) else {}
