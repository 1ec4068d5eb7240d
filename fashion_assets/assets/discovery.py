"""Designer discovery: the designers Vogue lists become brands (and brand partitions) by
themselves, so the weekly full crawl takes in a new house with nobody typing its name.

Thin shell: fetch the listing pages (``crawl/discovery.py``), apply the rule
(``domain/discovery.py``: new, held for an editor, out of scope), write the catalog
(``catalog/discovery.py``) and add the partitions, then say what was found.
"""

from dagster import AssetExecutionContext, MaterializeResult, asset
from sqlalchemy import Engine

from fashion_assets.assets.policies import (
    CRAWL_RETRY,
    interruptions_not_retried,
    listing_failures,
)
from fashion_assets.assets.steps import step_progress
from fashion_assets.catalog.discovery import brand_spellings, hold_designers, register_designers
from fashion_assets.crawl import loop
from fashion_assets.crawl.discovery import DesignerListings, most_pages, read_designer_listings
from fashion_assets.domain.discovery import Discovery, DiscoveryScope, discover
from fashion_assets.partitions import brand_partitions
from fashion_assets.report import table
from fashion_assets.resources import (
    CatalogResource,
    CrawlerResource,
    DiscoveryResource,
    SourceResource,
)
from fashion_assets.sources.registry import VOGUE
from fashion_assets.sources.vogue import PUBLIC_BASE_URL, designer_path

GROUP = "discovery"


@asset(
    retry_policy=CRAWL_RETRY,
    group_name=GROUP,
    owners=["team:fashion-assets"],
    kinds={"python", "sql"},
    description="The designers Vogue lists (its designers directory, the runway landing "
                "page and the season pages it names) that the catalog lacks, within "
                "FASHION_DISCOVERY_ALLOW/_DENY, registered as brands with a brand partition; "
                "a new designer whose name spells a registered brand waits for an editor.",
)
def vogue_designer_discovery(context: AssetExecutionContext, catalog: CatalogResource,
                             vogue: SourceResource, crawler: CrawlerResource,
                             discovery: DiscoveryResource) -> MaterializeResult:
    engine = catalog.engine()
    site = vogue.site(VOGUE)
    # At most this many pages, until the landing page names its seasons.
    tracker = step_progress(context, engine, crawler, "discovery",
                            most_pages(discovery.seasons), unit="pages", partition=site.source)

    async def read() -> DesignerListings:
        async with crawler.fetcher(vogue.host_policy(), engine) as fetcher, \
                tracker.beating():
            return await read_designer_listings(
                fetcher, site, seasons=discovery.seasons, max_page_bytes=crawler.max_page_bytes,
                on_page=lambda page, pages: tracker.show_done(
                    page.path, shows_total_delta=pages - tracker.shows_total))

    # DiscoveryError: retried only when the source did not answer. The row ends after the
    # last write, not after the last page.
    with interruptions_not_retried(), listing_failures(), tracker:
        listings = loop.run(read())
        found, registered, held = _load(context, engine, site.source, listings,
                                        discovery.scope())
    page_of = _designer_pages(found)
    waiting = [h for h in found.held if held[h.slug][1] == "pending"]
    context.log.info(
        f"discovery: {len(registered)} new designers registered, {len(waiting)} wait for an "
        f"editor, {len(found.out_of_scope)} out of scope, {found.known} already known")
    return MaterializeResult(metadata={
        "listed": len({slug for _, slug in listings.designers}),
        "new_designers": len(registered),
        "held_for_editor": len(waiting),
        "out_of_scope": len(found.out_of_scope),
        "known": found.known,
        "pages_failed": len(listings.failed),
        **table("new_table", [("designer", "string"), ("slug", "string"),
                              ("designer page", "url")],
                [(name, slug, page_of[slug]) for name, slug in found.new]),
        **table("held_table", [("designer", "string"), ("slug", "string"),
                               ("spells brand", "string"), ("pending name", "int"),
                               ("what to do", "string")],
                [(h.name, h.slug, ", ".join(h.candidates), held[h.slug][0],
                  f"fashion-assets names approve {held[h.slug][0]} --slug {h.slug} (its own "
                  f"house) or names merge {held[h.slug][0]} <brand>") for h in waiting]),
        **table("out_of_scope_table", [("designer", "string"), ("slug", "string")],
                found.out_of_scope, max_rows=100),
        **table("pages_table", [("page", "string"), ("designers named", "int"),
                                ("error", "string")],
                [(page.path, page.designers, page.error) for page in listings.pages]),
    })


def _designer_pages(found: Discovery) -> dict[str, str]:
    """The public designer page of every new or held designer, for the metadata."""
    return {slug: PUBLIC_BASE_URL + designer_path(slug)
            for _, slug in (*found.new, *((h.name, h.slug) for h in found.held))}


def _load(context: AssetExecutionContext, engine: Engine, source: str,
          listings: DesignerListings, scope: DiscoveryScope
          ) -> tuple[Discovery, list[str], dict[str, tuple[int, str]]]:
    """Judge the listed designers and write the outcome: brands and their partitions, the
    held names. Returns the discovery, the slugs registered now and each held one's pending
    name (id, status)."""
    for page in listings.failed:
        context.log.warning(f"discovery: {page.path} not read: {page.error}")
    found = discover(listings.designers, brand_spellings(engine), scope)
    registered = register_designers(engine, found.new)
    assert brand_partitions.name is not None
    known = set(context.instance.get_dynamic_partitions(brand_partitions.name))
    partitions = sorted({slug for _, slug in found.new} - known)
    if partitions:
        context.instance.add_dynamic_partitions(brand_partitions.name, partitions)
    held = hold_designers(engine, found.held, source=source, page_url_of=_designer_pages(found))
    return found, registered, held
