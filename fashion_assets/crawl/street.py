"""Street-style drafts: each listed article's photos, stored once, as one draft per article.

The same ingest rules as runway drafts: the source key is checked before anything is
downloaded, a unique conflict (a concurrent run) is a skip, and each article is committed on
its own with its log entry. The catalog is not consulted: an album (city, year, month)
gathers every article of its fashion week, so an album already in the catalog is no reason
to skip the next article of it; promotion merges them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from sqlalchemy import Engine

from fashion_assets.catalog import runway as runway_catalog
from fashion_assets.catalog import street as street_catalog
from fashion_assets.catalog.runway import LogEntry
from fashion_assets.catalog.street import ArticleRow
from fashion_assets.crawl.base import (
    CrawlLimits,
    SourceSite,
    missing_note,
    parse_error_reason,
    store_photos,
)
from fashion_assets.crawl.http import Fetcher
from fashion_assets.domain.ingest import Outcome, decide_ingest, show_failure
from fashion_assets.storage import ObjectStore


@dataclass(frozen=True)
class ArticleResult:
    article: ArticleRow
    outcome: Outcome
    draft_id: int | None = None
    images_stored: int = 0
    images_missing: int = 0
    reason: str = ""


async def ingest_articles(fetcher: Fetcher, store: ObjectStore, engine: Engine,
                          site: SourceSite, articles: Sequence[ArticleRow], *, run_id: str,
                          limits: CrawlLimits,
                          on_result: Callable[[ArticleResult], None] = lambda r: None,
                          ) -> list[ArticleResult]:
    """Turn each article into a street-snap draft, committing article by article."""
    photo_slots = asyncio.Semaphore(limits.image_concurrency)
    article_slots = asyncio.Semaphore(limits.show_concurrency)

    async def one(article: ArticleRow) -> ArticleResult:
        async with article_slots:
            result = await _ingest_article(fetcher, store, engine, site, article, run_id,
                                           limits, photo_slots)
        on_result(result)
        return result

    return list(await asyncio.gather(*(one(article) for article in articles)))


async def _ingest_article(fetcher: Fetcher, store: ObjectStore, engine: Engine,
                          site: SourceSite, article: ArticleRow, run_id: str,
                          limits: CrawlLimits, photo_slots: asyncio.Semaphore) -> ArticleResult:
    entry = LogEntry(run_id, "", article.source, article.source_url, "ingest", "",
                     partition_key=article.week_slug)
    decision = decide_ingest(source_key_drafted=article.drafted, entity_in_catalog=False)
    if not decision.download:
        assert decision.outcome is not None
        return await _record(engine, article, entry, decision.outcome, decision.reason)
    fetched = await fetcher.fetch(site.url(article.source_path), max_bytes=limits.max_page_bytes)
    if not fetched.ok:
        return await _record(engine, article, entry, Outcome.FAILED,
                             f"page {fetched.error}: {fetched.detail}")
    try:
        gallery = site.read_gallery(fetched.body.decode("utf-8", "replace"), fetched.final_url)
    except ValueError as exc:
        return await _record(engine, article, entry, Outcome.FAILED, parse_error_reason(exc))
    if gallery.expected_images == 0:  # a street album is its photos: none means a misread
        return await _record(engine, article, entry, Outcome.FAILED,
                             "no gallery photo found in the article")
    try:
        stored, missing = await store_photos(fetcher, store, gallery.images, limits, photo_slots)
    except OSError as exc:  # the store failed: nothing drafted, the next run retries
        return await _record(engine, article, entry, Outcome.FAILED, f"store error: {exc}")
    failure = show_failure(expected=gallery.expected_images, stored=len(stored),
                           missing_reasons=[m.reason for m in missing])
    if failure is not None:
        return await _record(engine, article, entry, Outcome.FAILED, failure)
    note = "; ".join(filter(None, [missing_note(missing), *gallery.skipped[:5]]))
    draft_id = await asyncio.to_thread(
        street_catalog.write_street_draft, engine, article, gallery.title,
        gallery.expected_images, stored, missing,
        replace(entry, outcome=Outcome.CREATED.value, reason=note))
    if draft_id is None:
        return ArticleResult(article, Outcome.SKIPPED_CONFLICT,
                             reason="drafted by a concurrent run")
    return ArticleResult(article, Outcome.CREATED, draft_id, len(stored), len(missing), note)


async def _record(engine: Engine, article: ArticleRow, entry: LogEntry, outcome: Outcome,
                  reason: str) -> ArticleResult:
    await asyncio.to_thread(runway_catalog.write_log, engine,
                            [replace(entry, outcome=outcome.value, reason=reason)])
    return ArticleResult(article, outcome, reason=reason)
