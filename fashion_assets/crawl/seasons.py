"""The runway listing of a source that lists its galleries per season (theImpression, or
any source declared with ``SeasonListings``): each gallery keyed to the entity key every
source shares (brand, season code) by resolving its designer's name.

An entry whose designer resolves is recorded for the manifests and drafts steps (the same
as Vogue's); one whose name is unknown is held as waiting, with nothing downloaded, until an
editor resolves the name.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from sqlalchemy import Engine

from fashion_assets.catalog import runway as runway_catalog
from fashion_assets.catalog.names import WaitingArticle, resolve_names
from fashion_assets.crawl.base import CrawlLimits, SourceSite
from fashion_assets.crawl.http import Fetcher
from fashion_assets.crawl.listings import HeldEntry, fetch_listing, hold_entries
from fashion_assets.crawl.runway import show_cities
from fashion_assets.domain.names import NameKind
from fashion_assets.domain.runway import RunwayShow, canonical_source_url, runway_show
from fashion_assets.domain.titles import TitleParseError
from fashion_assets.sources.pages import ListedArticle
from fashion_assets.sources.registry import SeasonListings


@dataclass(frozen=True)
class SeasonListing:
    season_code: str
    shows: tuple[RunwayShow, ...]
    new_shows: int
    held: tuple[HeldEntry, ...]
    pages: int
    skipped: tuple[str, ...]


async def crawl_season_listing(fetcher: Fetcher, site: SourceSite, engine: Engine,
                               listings: SeasonListings, season_code: str, *, run_id: str,
                               limits: CrawlLimits) -> SeasonListing:
    """Record a season's runway galleries under Vogue's entity key (brand, season code).

    The brand is the designer's name resolved to a canonical brand, the season code is read
    from the gallery's title; a gallery titled for another season is skipped. A designer no
    brand matches holds the gallery as waiting for an editor.
    """
    listing = await fetch_listing(
        fetcher, site, engine, lambda n: listings.listing_path(season_code, n),
        listings.parse_listing_page, season_code, run_id=run_id, limits=limits)
    notes = list(listing.notes)
    entries: list[tuple[str, str, ListedArticle, int]] = []
    for position, entry in enumerate(listing.entries, start=1):
        try:
            designer, show_title, code = listings.read_entry(entry.title, entry.designer)
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
        held += await hold_entries(engine, site, outcome, designer, [waiting], run_id, season_code)
    new = 0
    if shows:
        cities = await asyncio.to_thread(show_cities, engine, shows)
        new = await asyncio.to_thread(runway_catalog.record_listing, engine, shows, cities)
    return SeasonListing(season_code, tuple(shows), new, tuple(held), listing.pages,
                         tuple(notes))
