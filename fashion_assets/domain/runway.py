"""The runway entity key and the source key: what makes two records "the same show".

Every lookup that asks whether a show is already known (the ingest's catalog lookup, and
later promotion and the sibling-draft query) uses these definitions, so they cannot drift.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

from fashion_assets.domain.titles import (
    TitleParseError,
    parse_season_slug,
    parse_show_title,
    stored_title,
)


@dataclass(frozen=True)
class SourceKey:
    """One source article: unique among drafts, so an article is never ingested twice."""

    source: str
    source_url: str


@dataclass(frozen=True)
class RunwayEntityKey:
    """One show of one brand, whichever source reported it: (brand, season code).

    The season code is the season slug of the show's URL (``spring-2020-ready-to-wear``),
    which stays stable when titles are edited or spelled differently by another source.
    """

    brand_slug: str
    season_code: str


@dataclass(frozen=True)
class RunwayShow:
    """A show as a listing reports it, with everything the catalog needs to key it."""

    source_key: SourceKey
    entity_key: RunwayEntityKey
    source_path: str
    title: str
    season: str
    year: int
    collection_type: str
    city: str | None
    listing_position: int


def canonical_source_url(public_base_url: str, path: str) -> str:
    """The article's public address: the source's public base plus the path.

    A crawl through a mirror, a proxy or the replica records the same address as a crawl of
    the real site, so the source key agrees across them. Query and fragment are dropped.
    """
    base = urlsplit(public_base_url)
    clean_path = urlsplit(path).path or "/"
    if not clean_path.startswith("/"):
        clean_path = "/" + clean_path
    return urlunsplit((base.scheme, base.netloc, clean_path, "", ""))


def runway_show(
    *, source: str, public_base_url: str, brand_slug: str, path: str, season_slug: str,
    title: str, listing_position: int,
) -> RunwayShow:
    """Build the show record of a listing entry; raise ``TitleParseError`` on a bad season slug.

    Season, year and collection type come from the title when it parses, else from the slug
    (the slug is the stable code; titles are free text that a source may garble).
    """
    code = parse_season_slug(season_slug)
    clean_title = stored_title(title)
    season, year, collection_type, city = code.season, code.year, code.collection_type, None
    try:
        parsed = parse_show_title(clean_title)
    except TitleParseError:
        parsed = None
    if parsed is not None and parsed.year == code.year:
        season, collection_type, city = parsed.season, parsed.collection_type, parsed.city
    return RunwayShow(
        source_key=SourceKey(source, canonical_source_url(public_base_url, path)),
        entity_key=RunwayEntityKey(brand_slug, code.code),
        source_path=urlsplit(path).path,
        title=clean_title,
        season=season,
        year=year,
        collection_type=collection_type,
        city=city,
        listing_position=listing_position,
    )
