"""theImpression's listings: a fashion week's street style, and a season's runway galleries.

Each listing is fetched page by page, its entries read by the adapter, and the name each
entry needs resolved: the city of a street-style week, the designer of a runway gallery. An
entry whose name resolves is recorded for the next steps (street drafts; runway manifests
and drafts, the same steps as Vogue's); an entry whose name is unknown is held as waiting,
with nothing downloaded, until an editor resolves the name.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Engine

from fashion_assets.catalog import runway as runway_catalog
from fashion_assets.catalog import street as street_catalog
from fashion_assets.catalog.names import (
    NameOutcome,
    WaitingArticle,
    hold_articles,
    resolve_names,
)
from fashion_assets.catalog.runway import LogEntry
from fashion_assets.crawl.base import CrawlLimits, SourceSite, parse_error_reason
from fashion_assets.crawl.http import Fetcher
from fashion_assets.crawl.runway import ListingError, show_cities
from fashion_assets.domain.ingest import Outcome, is_transient, listing_outcome
from fashion_assets.domain.names import NameKind
from fashion_assets.domain.runway import RunwayShow, canonical_source_url, runway_show
from fashion_assets.domain.street import CrawlPeriod, StreetArticle, street_article
from fashion_assets.domain.titles import TitleParseError
from fashion_assets.sources import theimpression


@dataclass(frozen=True)
class HeldEntry:
    """An entry the listing did not record: waiting for a name, or skipped for its name."""

    name: str
    source_url: str
    title: str
    outcome: str


@dataclass(frozen=True)
class WeekListing:
    week_slug: str
    city_name: str
    city: str | None
    period: CrawlPeriod
    articles: tuple[StreetArticle, ...]
    new_articles: int
    held: tuple[HeldEntry, ...]
    pages: int
    skipped: tuple[str, ...]


@dataclass(frozen=True)
class SeasonListing:
    season_code: str
    shows: tuple[RunwayShow, ...]
    new_shows: int
    held: tuple[HeldEntry, ...]
    pages: int
    skipped: tuple[str, ...]


@dataclass(frozen=True)
class _Pages:
    heading: str
    entries: tuple[theimpression.ListedArticle, ...]
    pages: int
    notes: tuple[str, ...]


async def fetch_listing(fetcher: Fetcher, site: SourceSite, engine: Engine,
                        path_of: Callable[[int], str], partition: str, *, run_id: str,
                        limits: CrawlLimits, absent_ok: bool = False) -> _Pages:
    """Fetch a listing from its first page, following "next" while it stays on the listing.

    The first page failing fails the listing (``ListingError``: nothing to crawl), except a
    first page the site does not have (404) when ``absent_ok``: an empty listing. A later
    page failing keeps what was read and says so, and the next run reads the rest.
    """
    entries: dict[str, theimpression.ListedArticle] = {}
    notes: list[str] = []
    heading, pages, path = "", 0, path_of(1)
    allowed = {path_of(n) for n in range(2, limits.max_listing_pages + 1)}
    while path:
        fetched = await fetcher.fetch(site.url(path), max_bytes=limits.max_page_bytes)
        if pages == 0 and absent_ok and fetched.error == "not_found":
            await asyncio.to_thread(runway_catalog.write_log, engine, [LogEntry(
                run_id, "", site.source, site.public_base_url + path, "listing", "not_listed",
                reason="the source has no such listing (404)", partition_key=partition)])
            return _Pages("", (), 0, ("the source has no such listing (404): nothing to crawl",))
        try:
            if not fetched.ok:
                raise ValueError(f"{fetched.error}: {fetched.detail}")
            page = theimpression.parse_listing_page(fetched.body.decode("utf-8", "replace"),
                                                    page_url=fetched.final_url)
        except ValueError as exc:
            reason = parse_error_reason(exc) if hasattr(exc, "reason") else str(exc)
            await asyncio.to_thread(runway_catalog.write_log, engine, [LogEntry(
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
    return _Pages(heading, tuple(entries.values()), pages, tuple(notes))


async def crawl_week_listing(fetcher: Fetcher, site: SourceSite, engine: Engine, week_slug: str,
                             *, now: datetime, run_id: str, limits: CrawlLimits) -> WeekListing:
    """Record a fashion week's street-style articles under its city and the crawl's month.

    ``now`` is read once, by the caller: every article of the run gets the same year and
    month. An unknown city holds the articles as waiting for an editor.
    """
    period = CrawlPeriod.of(now)
    listing = await fetch_listing(
        fetcher, site, engine, lambda n: theimpression.street_listing_path(week_slug, n),
        week_slug, run_id=run_id, limits=limits)
    articles = tuple(
        street_article(source=site.source, public_base_url=site.public_base_url,
                       week_slug=week_slug, path=entry.path, title=entry.title,
                       listing_position=position)
        for position, entry in enumerate(listing.entries, start=1))
    city_name = theimpression.week_city_name(listing.heading, week_slug)
    listing_url = site.public_base_url + theimpression.street_listing_path(week_slug)
    [outcome] = (await asyncio.to_thread(
        resolve_names, engine, NameKind.CITY, [(city_name, site.source, listing_url)])).values()
    if outcome.status == "resolved":
        assert outcome.entity is not None
        new = await asyncio.to_thread(street_catalog.record_articles, engine, articles,
                                      outcome.entity, period)
        return WeekListing(week_slug, city_name, outcome.entity, period, articles, new, (),
                           listing.pages, listing.notes)
    waiting = [WaitingArticle("street", a.source_key.source, a.source_key.source_url,
                              a.source_path, week_slug, a.title, year=period.year,
                              month=period.month, listing_position=a.listing_position)
               for a in articles]
    held = await _hold(engine, site, outcome, city_name, waiting, run_id, week_slug)
    return WeekListing(week_slug, city_name, None, period, articles, 0, held, listing.pages,
                       listing.notes)


async def crawl_season_listing(fetcher: Fetcher, site: SourceSite, engine: Engine,
                               season_code: str, *, run_id: str, limits: CrawlLimits
                               ) -> SeasonListing:
    """Record a season's runway galleries under Vogue's entity key (brand, season code).

    The brand is the designer's name resolved to a canonical brand, the season code is read
    from the gallery's title; a gallery titled for another season is skipped. A designer no
    brand matches holds the gallery as waiting for an editor.
    """
    # The season partitions follow Vogue's seasons; theImpression covers only some of them.
    listing = await fetch_listing(
        fetcher, site, engine, lambda n: theimpression.runway_listing_path(season_code, n),
        season_code, run_id=run_id, limits=limits, absent_ok=True)
    notes = list(listing.notes)
    entries: list[tuple[str, str, theimpression.ListedArticle, int]] = []
    for position, entry in enumerate(listing.entries, start=1):
        try:
            designer, show_title = theimpression.split_runway_title(entry.title, entry.designer)
            code = theimpression.runway_season_code(show_title)
        except ValueError as exc:  # PageParseError or TitleParseError
            notes.append(f"{entry.path}: {exc}")
            continue
        if code != season_code:
            notes.append(f"{entry.path}: titled for {code}, listed under {season_code}")
            continue
        entries.append((designer, show_title, entry, position))
    outcomes = await asyncio.to_thread(resolve_names, engine, NameKind.BRAND, [
        (designer, site.source, canonical_source_url(site.public_base_url, entry.path))
        for designer, _, entry, _ in entries])
    shows: list[RunwayShow] = []
    held: list[HeldEntry] = []
    for designer, show_title, entry, position in entries:
        outcome = outcomes[designer]
        if outcome.status == "resolved":
            assert outcome.entity is not None
            try:
                shows.append(runway_show(
                    source=site.source, public_base_url=site.public_base_url,
                    brand_slug=outcome.entity, path=entry.path, season_slug=season_code,
                    title=show_title, listing_position=position))
            except TitleParseError as exc:
                notes.append(f"{entry.path}: {exc}")
            continue
        waiting = WaitingArticle(
            "runway", site.source, canonical_source_url(site.public_base_url, entry.path),
            entry.path, season_code, show_title, season_code=season_code,
            listing_position=position)
        held += await _hold(engine, site, outcome, designer, [waiting], run_id, season_code)
    new = 0
    if shows:
        cities = await asyncio.to_thread(show_cities, engine, shows)
        new = await asyncio.to_thread(runway_catalog.record_listing, engine, shows, cities)
    return SeasonListing(season_code, tuple(shows), new, tuple(held), listing.pages,
                         tuple(notes))


async def _hold(engine: Engine, site: SourceSite, outcome: NameOutcome, name: str,
                articles: Sequence[WaitingArticle], run_id: str, partition: str
                ) -> tuple[HeldEntry, ...]:
    """Hold articles for a pending name, or skip them for a dismissed one; log each."""
    result = listing_outcome(outcome.status)
    if outcome.status == "pending":
        assert outcome.pending_id is not None
        await asyncio.to_thread(hold_articles, engine, outcome.pending_id, articles)
    reason = f"{'brand' if articles and articles[0].kind == 'runway' else 'city'} {name!r}"
    await asyncio.to_thread(runway_catalog.write_log, engine, [
        LogEntry(run_id, "", site.source, a.source_url, "listing",
                 result.value, reason=reason, partition_key=partition) for a in articles])
    return tuple(HeldEntry(name, a.source_url, a.title, result.value) for a in articles)
