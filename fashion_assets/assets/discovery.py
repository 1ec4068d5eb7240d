"""Designer discovery: the designers Vogue lists become brands (and brand partitions) by
themselves, so the weekly full crawl takes in a new house with nobody typing its name.

Thin shell: fetch the listing pages (``crawl/discovery.py``), apply the rule
(``domain/discovery.py``: new, held for an editor, out of scope), write the catalog
(``catalog/discovery.py``) and add the partitions, then say what was found.
"""

from dagster import AssetExecutionContext, MaterializeResult, MetadataValue, asset

from fashion_assets.assets.policies import CRAWL_RETRY, listing_failures
from fashion_assets.catalog.discovery import brand_spellings, hold_designers, register_designers
from fashion_assets.crawl import loop
from fashion_assets.crawl.discovery import DesignerListings, read_designer_listings
from fashion_assets.crawl.http import Fetcher
from fashion_assets.domain.discovery import discover
from fashion_assets.partitions import brand_partitions
from fashion_assets.report import markdown_table
from fashion_assets.resources import (
    CatalogResource,
    CrawlerResource,
    DiscoveryResource,
    VogueSourceResource,
)
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
                             vogue: VogueSourceResource, crawler: CrawlerResource,
                             discovery: DiscoveryResource) -> MaterializeResult:
    engine = catalog.engine()
    site = vogue.site()

    async def read() -> DesignerListings:
        async with Fetcher(crawler.http_policy(), vogue.host_policy()) as fetcher:
            return await read_designer_listings(fetcher, site, seasons=discovery.seasons,
                                                max_page_bytes=crawler.max_page_bytes)

    with listing_failures():  # DiscoveryError: retried only when the source did not answer
        listings = loop.run(read())
    for page in listings.failed:
        context.log.warning(f"discovery: {page.path} not read: {page.error}")
    found = discover(listings.designers, brand_spellings(engine), discovery.scope())
    registered = register_designers(engine, found.new)
    assert brand_partitions.name is not None
    known = set(context.instance.get_dynamic_partitions(brand_partitions.name))
    partitions = sorted({slug for _, slug in found.new} - known)
    if partitions:
        context.instance.add_dynamic_partitions(brand_partitions.name, partitions)
    page_of = {slug: PUBLIC_BASE_URL + designer_path(slug)
               for _, slug in (*found.new, *((h.name, h.slug) for h in found.held))}
    held = hold_designers(engine, found.held, source=site.source, page_url_of=page_of)
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
        "new_table": MetadataValue.md(markdown_table(
            ["designer", "slug", "designer page"],
            [(name, slug, page_of[slug]) for name, slug in found.new])),
        "held_table": MetadataValue.md(markdown_table(
            ["designer", "slug", "spells brand", "pending name", "what to do"],
            [(h.name, h.slug, ", ".join(h.candidates), held[h.slug][0],
              f"fashion-assets names approve {held[h.slug][0]} --slug {h.slug} (its own "
              f"house) or names merge {held[h.slug][0]} <brand>") for h in waiting])),
        "out_of_scope_table": MetadataValue.md(markdown_table(
            ["designer", "slug"], found.out_of_scope, max_rows=100)),
        "pages_table": MetadataValue.md(markdown_table(
            ["page", "designers named", "error"],
            [(page.path, page.designers, page.error) for page in listings.pages])),
    })
