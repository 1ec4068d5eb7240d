"""Street-style drafts: each listed article's photos, stored once, as one draft per article.

The ingest path of runway drafts (``crawl/ingest.py``): the source key is checked before
anything is downloaded, a unique conflict (a concurrent run) is a skip, and each article is
committed with its log entry as soon as it is done. The catalog is not consulted: an album
(city, year, month) gathers every article of its fashion week, so an album already in the
catalog is no reason to skip the next article of it; promotion merges them. An article's
gallery is read from its page, fetched after the decision.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from sqlalchemy import Engine

from fashion_assets.catalog.entities import STREET
from fashion_assets.catalog.ingest_log import LogEntry
from fashion_assets.catalog.street import ArticleRow
from fashion_assets.crawl.base import CrawlLimits, Gallery, SourceSite, parse_error_reason
from fashion_assets.crawl.http import Fetcher
from fashion_assets.crawl.ingest import IngestKind, IngestResult, ingest
from fashion_assets.domain.ingest import decide_ingest
from fashion_assets.storage import ObjectStore


class ArticleResult(IngestResult[ArticleRow]):
    """What the ingest did with one article (``crawl/ingest.py``)."""

    @property
    def article(self) -> ArticleRow:
        return self.item


async def ingest_articles(fetcher: Fetcher, store: ObjectStore, engine: Engine,
                          site: SourceSite, articles: Sequence[ArticleRow], *, run_id: str,
                          limits: CrawlLimits,
                          on_result: Callable[[ArticleResult], None] = lambda r: None,
                          ) -> list[ArticleResult]:
    """Turn each article into a street-snap draft, committing article by article."""

    async def gallery(article: ArticleRow) -> Gallery | str:
        fetched = await fetcher.fetch(site.url(article.source_path),
                                      max_bytes=limits.max_page_bytes)
        if not fetched.ok:
            return f"page {fetched.error}: {fetched.detail}"
        try:
            page = site.read_gallery(fetched.body.decode("utf-8", "replace"), fetched.final_url)
        except ValueError as exc:
            return parse_error_reason(exc)
        if page.expected_images == 0:  # a street album is its photos: none means a misread
            return "no gallery photo found in the article"
        return replace(page, title=page.title or article.title)

    kind = IngestKind(
        tables=STREET, result=ArticleResult, gallery=gallery,
        log_entry=lambda article: LogEntry(run_id, "", article.source, article.source_url,
                                           "ingest", "", partition_key=article.week_slug),
        decide=lambda article: decide_ingest(source_key_drafted=article.drafted,
                                             entity_in_catalog=False))
    return await ingest(kind, fetcher, store, engine, articles, limits=limits,
                        on_result=on_result)
