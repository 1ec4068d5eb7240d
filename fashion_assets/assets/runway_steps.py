"""The runway crawl's manifests and drafts steps, the same for every runway source.

The assets of each source (``assets/runway.py``) call these with the source's site and the
shows of their run: the steps fetch through the crawl functions, which call the pure rules
and write the catalog, and turn what happened into materialization metadata.
"""

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from dagster import AssetExecutionContext, MaterializeResult
from sqlalchemy import Engine

from fashion_assets.assets.drafts_step import run_drafts
from fashion_assets.assets.policies import interruptions_not_retried
from fashion_assets.assets.steps import step_progress
from fashion_assets.catalog.coverage import given_up_shows, refund_attempts
from fashion_assets.catalog.entities import RUNWAY
from fashion_assets.catalog.runway import ShowRow
from fashion_assets.crawl import loop
from fashion_assets.crawl.base import SourceSite
from fashion_assets.crawl.infra import InfrastructureError
from fashion_assets.crawl.runway import ManifestResult, ShowResult, fetch_manifests, ingest_shows
from fashion_assets.domain.hosts import HostPolicy
from fashion_assets.domain.wording import counted
from fashion_assets.progress import ProgressLog
from fashion_assets.report import heal_metadata, ingest_counts, partition_table, table
from fashion_assets.resources import (
    CatalogResource,
    CrawlerResource,
    ObjectStoreResource,
    ReviewPageResource,
)
from fashion_assets.tags import CRAWL_TAG


def manifests_result(context: AssetExecutionContext, catalog: CatalogResource,
                     store: ObjectStoreResource, crawler: CrawlerResource, site: SourceSite,
                     hosts: HostPolicy, shows: Sequence[ShowRow], *, next_step: str,
                     partition_of: Callable[[ShowRow], str]) -> MaterializeResult:
    """Fetch the missing manifests of ``shows``, and the photos of the shows to be drafted,
    and report them (both sources' step; ``next_step``: the drafts asset that follows it
    when the run has it; ``partition_of``: a show's partition, whose materialization lists
    it)."""
    engine = catalog.engine()
    object_store = store.open()
    progress = ProgressLog(context.log.info, len(shows))
    tracker = step_progress(context, engine, crawler, "manifests", len(shows),
                            later=(next_step,))

    def on_result(result: ManifestResult) -> None:
        tracker.show_done(f"{result.show.brand_slug} {result.show.season_code}")
        if result.outcome != "kept":
            fetched = (f" ({result.photos_stored} stored, {result.photos_missing} missing)"
                       if result.photos_stored or result.photos_missing else "")
            progress.add(f"{result.show.brand_slug} {result.show.season_code}: manifest "
                         f"{result.outcome}, {counted(result.expected_images, 'photo')}{fetched} "
                         f"{result.reason}".rstrip())

    async def run():
        async with crawler.fetcher(hosts, engine) as fetcher, tracker.beating():
            return await fetch_manifests(fetcher, site, engine, object_store, shows,
                                         run_id=context.run.run_id, limits=crawler.limits(),
                                         on_result=on_result)

    with interruptions_not_retried(), tracker, _refunded_on_outage(context, engine, shows):
        results = loop.run(run())
    progress.flush()
    counts = Counter(r.outcome for r in results)
    return MaterializeResult(metadata={
        "shows": len(results),
        "fetched": counts["fetched"],
        "kept": counts["kept"],
        "failed": counts["failed"],
        "expected_images": sum(r.expected_images for r in results),
        "photos_stored": sum(r.photos_stored for r in results),
        "photos_missing": sum(r.photos_missing for r in results),
        **partition_table(
            context, "manifests_table", [
                ("brand", "string"), ("season code", "string"), ("manifest", "string"),
                ("expected photos", "int"), ("photos stored", "int"),
                ("photos missing", "int"), ("reason", "string")],
            [(partition_of(r.show), (r.show.brand_slug, r.show.season_code, r.outcome,
                                     r.expected_images, r.photos_stored, r.photos_missing,
                                     r.reason)) for r in results]),
    })


def drafts_result(context: AssetExecutionContext, catalog: CatalogResource,
                  store: ObjectStoreResource, crawler: CrawlerResource,
                  review_page: ReviewPageResource, site: SourceSite, hosts: HostPolicy,
                  shows: Sequence[ShowRow], *, partition_of: Callable[[ShowRow], str]
                  ) -> MaterializeResult:
    """Draft ``shows`` and report the outcomes (every runway source's step), each draft with
    a link to its review page, in its partition's materialization (``partition_of``)."""
    engine = catalog.engine()
    object_store = store.open()
    # The photos each show is planned with: its manifest's, if it is to be downloaded.
    planned = {s.id: s.expected_images if s.has_manifest and not (s.drafted or s.in_catalog)
               else 0 for s in shows}

    def label(result: ShowResult) -> tuple[str, str]:
        name = f"{result.show.brand_slug} {result.show.season_code}"
        return name, name

    with _refunded_on_outage(context, engine, shows):
        drafted = run_drafts(
            context, engine, crawler, hosts, len(shows), store=object_store, tables=RUNWAY,
            unit="shows", photos_planned=sum(planned.values()), label=label,
            planned=lambda r: planned.get(r.show.id, 0),
            ingest=lambda fetcher, on_result: ingest_shows(
                fetcher, object_store, engine, shows, run_id=context.run.run_id,
                limits=crawler.limits(), on_result=on_result))
    results = drafted.results
    return MaterializeResult(metadata={
        **ingest_counts("shows_", results, drafted.counters, object_store.url),
        "shows_done": drafted.done,
        "shows_total": drafted.total,
        **heal_metadata(drafted.healed),
        **_given_up(engine, shows),
        **partition_table(
            context, "shows_table", [
                ("brand", "string"), ("season code", "string"), ("outcome", "string"),
                ("draft", "int"), ("review page", "url"), ("stored", "int"),
                ("missing", "int"), ("reason", "string")],
            [(partition_of(r.show), (r.show.brand_slug, r.show.season_code, r.outcome.value,
                                     r.draft_id, review_page.draft_url(RUNWAY.kind, r.draft_id),
                                     r.images_stored, r.images_missing, r.reason))
             for r in results]),
    })


@contextmanager
def _refunded_on_outage(context: AssetExecutionContext, engine: Engine,
                        shows: Sequence[ShowRow]) -> Iterator[None]:
    """On our own outage (``InfrastructureError``) in a repair run the coverage sensor
    charged an attempt for, the attempt is given back, once per step (its first try), so
    our outage never counts towards giving up on the shows."""
    try:
        yield
    except InfrastructureError:
        if context.run.tags.get(CRAWL_TAG) == "coverage" and context.retry_number == 0:
            refund_attempts(engine, [s.id for s in shows])
        raise


def _given_up(engine: Engine, shows: Sequence[ShowRow]) -> dict[str, object]:
    """The run's shows the coverage sensor gave up on, with why (a full crawl still tried
    them, above)."""
    given_up = given_up_shows(engine, [s.id for s in shows])
    return {"given_up_shows": len(given_up), **(table(
        "given_up_table", [("show", "url"), ("attempts", "int"), ("gave up", "string"),
                           ("reason", "string")],
        [(g.source_url, g.attempts, g.gave_up_at, g.reason) for g in given_up])
        if given_up else {})}
