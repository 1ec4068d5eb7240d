"""Street-style assets, partitioned by fashion week: listing -> drafts.

One partition per theImpression listing page (``copenhagen-fashion-week``), so one week can
be re-run or backfilled alone; a run may also take a range of weeks (a backfill's batch,
``CRAWL_BATCHES``). The albums are keyed by city and the crawl's month (read once
per run from the ``clock`` resource), whatever week partition they were listed under.
"""

from collections.abc import Iterator

from dagster import AssetExecutionContext, MaterializeResult, asset

from fashion_assets.assets.drafts_step import run_drafts
from fashion_assets.assets.health import DraftsAsset, health_check, report_partition_health
from fashion_assets.assets.policies import CRAWL_BATCHES, CRAWL_RETRY
from fashion_assets.assets.runway_listings import failed_table
from fashion_assets.assets.steps import log_listing, read_listings
from fashion_assets.catalog import street as street_catalog
from fashion_assets.catalog.entities import STREET
from fashion_assets.crawl.impression import crawl_week_listing
from fashion_assets.crawl.street import ArticleResult, ingest_articles
from fashion_assets.domain.wording import counted
from fashion_assets.partitions import fashion_week_partitions
from fashion_assets.report import heal_metadata, ingest_counts, partition_table
from fashion_assets.resources import (
    CatalogResource,
    ClockResource,
    CrawlerResource,
    ObjectStoreResource,
    ReviewPageResource,
    SourceResource,
)
from fashion_assets.sources.registry import THEIMPRESSION

GROUP = "street_style"
OWNERS = ["team:fashion-assets"]
STREET_DRAFTS = DraftsAsset("street_snap_drafts", THEIMPRESSION.name, fashion_week_partitions,
                            "week", "articles")


@asset(
    retry_policy=CRAWL_RETRY,
    partitions_def=fashion_week_partitions,
    backfill_policy=CRAWL_BATCHES,
    group_name=GROUP,
    owners=OWNERS,
    kinds={"python", "sql"},
    description="Every street-style article each fashion week of the run lists (all pages; "
                "one week, or a batch of them), keyed by its city and the crawl's year and "
                "month. A city no name matches holds the articles as waiting for an editor "
                "(fashion-assets names list).",
)
def street_style_listings(context: AssetExecutionContext, catalog: CatalogResource,
                          theimpression: SourceResource,
                          crawler: CrawlerResource, clock: ClockResource) -> MaterializeResult:
    engine = catalog.engine()
    site = theimpression.site(THEIMPRESSION)
    now = clock.now()
    listed, failed = read_listings(
        context, engine, crawler, theimpression.host_policy(), unit="weeks",
        later=("street_snap_drafts",),
        read=lambda fetcher, week: crawl_week_listing(fetcher, site, engine, week, now=now,
                                                      run_id=context.run.run_id,
                                                      limits=crawler.limits()))
    for week, listing in listed:
        city = listing.city or f"waiting: {listing.city_name!r} is not a known city"
        log_listing(context, week, f"{counted(len(listing.articles), 'article')} on "
                    f"{counted(listing.pages, 'page')}, {listing.new_articles} listed for the"
                    f" first time, city {city}",
                    listing.skipped)
    listings = [listing for _, listing in listed]
    return MaterializeResult(metadata={
        "weeks": len(context.partition_keys),
        "failed_weeks": len(failed),
        "city_name": ", ".join(li.city_name for li in listings),
        "city": ", ".join(li.city or "" for li in listings),
        "period": ", ".join(sorted({f"{li.period.year:04d}-{li.period.month:02d}"
                                    for li in listings})),
        "pages": sum(li.pages for li in listings),
        # waiting ones included
        "listed": sum(len(li.articles) + len(li.skipped) for li in listings),
        "articles": sum(len(li.articles) for li in listings),
        "articles_first_listed": sum(li.new_articles for li in listings),
        "waiting_for_name": sum(h.outcome == "waiting_for_name" for li in listings
                                for h in li.held),
        "skipped_entries": sum(len(li.skipped) for li in listings),
        **partition_table(context, "articles_table", [("week", "string"), ("#", "int"),
                                                      ("title", "string"), ("source URL", "url")],
                          [(week, (week, a.listing_position, a.title, a.source_key.source_url))
                           for week, li in listed for a in li.articles]),
        **failed_table("week", failed),
    })


@asset(
    retry_policy=CRAWL_RETRY,
    partitions_def=fashion_week_partitions,
    backfill_policy=CRAWL_BATCHES,
    group_name=GROUP,
    owners=OWNERS,
    kinds={"python", "sql", "s3"},
    deps=[street_style_listings],
    description="One street-snap draft per article, waiting for review, with every photo "
                "stored once under the sha1 of its bytes. An article already drafted (any "
                "status) is skipped before any download.",
)
def street_snap_drafts(context: AssetExecutionContext, catalog: CatalogResource,
                       store: ObjectStoreResource, theimpression: SourceResource,
                       crawler: CrawlerResource, review_page: ReviewPageResource
                       ) -> Iterator[MaterializeResult]:
    engine = catalog.engine()
    site = theimpression.site(THEIMPRESSION)
    object_store = store.open()
    articles = [article for week in context.partition_keys
                for article in street_catalog.week_articles(engine, week, site.source)]

    def label(r: ArticleResult) -> tuple[str, str]:
        key = r.article.entity_key
        album = f"{key.city} {key.year}-{key.month:02d} {r.article.source_path}"
        return f"{r.article.week_slug} {album}", album

    # An article's photo count is only known once its page is read: the total grows with it.
    drafted = run_drafts(
        context, engine, crawler, theimpression.host_policy(), len(articles),
        store=object_store, tables=STREET, unit="articles", photos_planned=0, label=label,
        planned=lambda r: 0,
        ingest=lambda fetcher, on_result: ingest_articles(
            fetcher, object_store, engine, site, articles, run_id=context.run.run_id,
            limits=crawler.limits(), on_result=on_result))
    results = drafted.results
    yield MaterializeResult(metadata={
        **ingest_counts("articles_", results, drafted.counters, object_store.url),
        "shows_done": drafted.done,
        "shows_total": drafted.total,
        **heal_metadata(drafted.healed),
        **partition_table(context, "articles_table", [
            ("album", "string"), ("article", "string"), ("outcome", "string"), ("draft", "int"),
            ("review page", "url"), ("stored", "int"), ("missing", "int"), ("reason", "string")],
            [(r.article.week_slug, (
                f"{r.article.city} {r.article.year}-{r.article.month:02d}",
                r.article.source_path, r.outcome.value, r.draft_id,
                review_page.draft_url(STREET.kind, r.draft_id), r.images_stored,
                r.images_missing, r.reason)) for r in results]),
    })
    # After the materialization: an evaluation older than it would not count as current.
    report_partition_health(context, engine, STREET_DRAFTS)


street_assets = [street_style_listings, street_snap_drafts]
street_health = health_check(STREET_DRAFTS)
