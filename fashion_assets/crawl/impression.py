"""theImpression's street style: a fashion week's listing, its articles recorded under the
week's city and the crawl's month.

The listing is read page by page (``crawl/listings.py``) and the week's city name resolved;
an unknown city holds the articles as waiting for an editor, with nothing downloaded.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Engine

from fashion_assets.catalog import street as street_catalog
from fashion_assets.catalog.names import WaitingArticle, resolve_names
from fashion_assets.crawl.base import CrawlLimits, SourceSite
from fashion_assets.crawl.http import Fetcher
from fashion_assets.crawl.listings import HeldEntry, fetch_listing, hold_entries
from fashion_assets.domain.names import NameKind
from fashion_assets.domain.street import CrawlPeriod, StreetArticle, street_article
from fashion_assets.sources import theimpression
from fashion_assets.sources.registry import impression_listing_page


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


async def crawl_week_listing(fetcher: Fetcher, site: SourceSite, engine: Engine, week_slug: str,
                             *, now: datetime, run_id: str, limits: CrawlLimits) -> WeekListing:
    """Record a fashion week's street-style articles under its city and the crawl's month.

    ``now`` is read once, by the caller: every article of the run gets the same year and
    month. An unknown city holds the articles as waiting for an editor.
    """
    period = CrawlPeriod.of(now)
    listing = await fetch_listing(
        fetcher, site, engine, lambda n: theimpression.street_listing_path(week_slug, n),
        impression_listing_page, week_slug, run_id=run_id, limits=limits)
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
    held = await hold_entries(engine, site, outcome, city_name, waiting, run_id, week_slug)
    return WeekListing(week_slug, city_name, None, period, articles, 0, held, listing.pages,
                       listing.notes)
