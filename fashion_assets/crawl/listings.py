"""Paged listings, as every source that lists its articles on numbered pages has them
(theImpression's seasons and weeks, a season-listed runway source), and entries held for a
name an editor must resolve.

A listing is fetched from its first page, following "next" while it stays on the listing;
the source's adapter reads each page (``SeasonListings.parse_listing_page``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sqlalchemy import Engine

from fashion_assets.catalog.ingest_log import LogEntry, write_log
from fashion_assets.catalog.names import NameOutcome, WaitingArticle, hold_articles
from fashion_assets.crawl.base import CrawlLimits, SourceSite, parse_error_reason
from fashion_assets.crawl.http import Fetcher
from fashion_assets.crawl.runway import ListingError
from fashion_assets.domain.ingest import Outcome, is_transient, listing_outcome
from fashion_assets.sources.pages import ListedArticle, ListingPage


@dataclass(frozen=True)
class HeldEntry:
    """An entry the listing did not record: waiting for a name, or skipped for its name."""

    name: str
    source_url: str
    title: str
    outcome: str


@dataclass(frozen=True)
class ListingPages:
    """Every entry of a listing's pages, in page order, and what could not be read."""

    heading: str
    entries: tuple[ListedArticle, ...]
    pages: int
    notes: tuple[str, ...]


async def fetch_listing(fetcher: Fetcher, site: SourceSite, engine: Engine,
                        path_of: Callable[[int], str],
                        parse_page: Callable[[str, str], ListingPage], partition: str, *,
                        run_id: str, limits: CrawlLimits) -> ListingPages:
    """Fetch a listing from its first page, following "next" while it stays on the listing.

    The first page failing fails the listing (``ListingError``: nothing to crawl), a first
    page the site does not have (404) too: a season or a week the source does not know is
    a mistake to say, not an empty listing to report as a success. A later page failing
    keeps what was read and says so, and the next run reads the rest.
    """
    entries: dict[str, ListedArticle] = {}
    notes: list[str] = []
    heading, pages, path = "", 0, path_of(1)
    allowed = {path_of(n) for n in range(2, limits.max_listing_pages + 1)}
    while path:
        fetched = await fetcher.fetch(site.url(path), max_bytes=limits.max_page_bytes)
        try:
            if not fetched.ok:
                raise ValueError(f"{fetched.error}: {fetched.detail}")
            page = parse_page(fetched.body.decode("utf-8", "replace"), fetched.final_url)
        except ValueError as exc:
            reason = parse_error_reason(exc) if hasattr(exc, "reason") else str(exc)
            await asyncio.to_thread(write_log, engine, [LogEntry(
                run_id, "", site.source, site.public_base_url + path, "listing",
                Outcome.FAILED.value, reason=reason, partition_key=partition)])
            if pages == 0:
                raise ListingError(f"listing {path} not read: {reason}", transient=(
                    not fetched.ok and is_transient(str(fetched.error)))) from None
            notes.append(f"page {path} not read ({reason}): the next run reads the rest")
            break
        pages += 1
        heading = heading or page.heading
        notes.extend(page.skipped)
        for entry in page.articles:
            entries.setdefault(entry.path, entry)
        path = page.next_path if page.next_path in allowed else None
        allowed.discard(path or "")
        if page.next_path and path is None:
            notes.append(f"next page {page.next_path} is not a page of this listing: not followed")
    return ListingPages(heading, tuple(entries.values()), pages, tuple(notes))


async def hold_entries(engine: Engine, site: SourceSite, outcome: NameOutcome, name: str,
                articles: Sequence[WaitingArticle], run_id: str, partition: str
                ) -> tuple[HeldEntry, ...]:
    """Hold articles for a pending name, or skip them for a dismissed one; log each."""
    result = listing_outcome(outcome.status)
    if outcome.status == "pending":
        assert outcome.pending_id is not None
        await asyncio.to_thread(hold_articles, engine, outcome.pending_id, articles)
    reason = f"{'brand' if articles and articles[0].kind == 'runway' else 'city'} {name!r}"
    await asyncio.to_thread(write_log, engine, [
        LogEntry(run_id, "", site.source, a.source_url, "listing",
                 result.value, reason=reason, partition_key=partition) for a in articles])
    return tuple(HeldEntry(name, a.source_url, a.title, result.value) for a in articles)
