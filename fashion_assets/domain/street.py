"""The street-style entity key: one album per city and month of the crawl.

A fashion week's street style is published as many articles, mostly with no year in their
titles. The album they belong to is (city, year, month), and both year and month come from
one reading of the crawl's clock: a year-0 key would swallow every later album of the city,
and (city, year) alone would merge the February and the August weeks of one year.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from fashion_assets.domain.runway import SourceKey, canonical_source_url
from fashion_assets.domain.titles import stored_title


@dataclass(frozen=True)
class StreetEntityKey:
    """One street-style album: a canonical city slug, a year and a month (1-12)."""

    city: str
    year: int
    month: int

    def __post_init__(self) -> None:
        if not self.city or self.year <= 0 or not 1 <= self.month <= 12:
            raise ValueError(f"not a street-style entity key: {self}")


@dataclass(frozen=True)
class CrawlPeriod:
    """The year and month of one clock reading, the period every album of a run is keyed by."""

    year: int
    month: int

    @classmethod
    def of(cls, now: datetime) -> CrawlPeriod:
        if now.year <= 0:
            raise ValueError(f"the crawl clock reads {now.isoformat()}: no year to key by")
        return cls(now.year, now.month)

    def key(self, city: str) -> StreetEntityKey:
        return StreetEntityKey(city, self.year, self.month)


@dataclass(frozen=True)
class StreetArticle:
    """A street-style article as a fashion week's listing shows it."""

    source_key: SourceKey
    week_slug: str
    source_path: str
    title: str
    listing_position: int


def street_article(*, source: str, public_base_url: str, week_slug: str, path: str,
                   title: str, listing_position: int) -> StreetArticle:
    """Build the record of a listing entry; the title is display text only, never a key."""
    return StreetArticle(SourceKey(source, canonical_source_url(public_base_url, path)),
                         week_slug, path, stored_title(title),
                         listing_position)
