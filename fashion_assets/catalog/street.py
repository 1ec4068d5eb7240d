"""Catalog reads and writes of the street-style crawl: listed articles and a week's plan.

Same discipline as the runway crawl: one query gives a week's ingest plan. Drafts are
written by ``catalog/drafts.py``, in one transaction per article.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import Engine, text

from fashion_assets.catalog.entities import STREET, has_draft
from fashion_assets.catalog.sql import insert_rows
from fashion_assets.domain.runway import SourceKey
from fashion_assets.domain.street import CrawlPeriod, StreetArticle, StreetEntityKey


@dataclass(frozen=True)
class ArticleRow:
    """A street-style article as stored, with its entity key and whether it is drafted."""

    id: int
    week_slug: str
    source: str
    source_url: str
    source_path: str
    title: str
    city: str
    year: int
    month: int
    drafted: bool

    @property
    def source_key(self) -> SourceKey:
        return SourceKey(self.source, self.source_url)

    @property
    def entity_key(self) -> StreetEntityKey:
        return StreetEntityKey(self.city, self.year, self.month)


def record_articles(engine: Engine, articles: Sequence[StreetArticle], city: str,
                    period: CrawlPeriod) -> int:
    """Store the listed articles that are new, keyed to ``city`` and the crawl's period.

    An article already stored keeps the year and month of the crawl that first saw it: a
    re-crawl next month neither moves it to another album nor writes anything.
    """
    key = period.key(city)
    rows = [(a.week_slug, a.source_key.source, a.source_key.source_url, a.source_path, a.title,
             key.city, key.year, key.month, a.listing_position) for a in articles]
    with engine.begin() as conn:
        return insert_rows(conn, "street_style_articles",
                           ("week_slug", "source", "source_url", "source_path", "title", "city",
                            "year", "month", "listing_position"),
                           rows, on_conflict="(source, source_url) DO NOTHING")


def week_articles(engine: Engine, week_slug: str, source: str) -> list[ArticleRow]:
    """Every article of a fashion week's listing, with whether its source key is drafted."""
    sql = text(
        "SELECT a.id, a.week_slug, a.source, a.source_url, a.source_path, a.title, a.city,"
        f" a.year, a.month, {has_draft(STREET.drafts, 'a')}"
        " FROM street_style_articles a WHERE a.week_slug = :week AND a.source = :source"
        " ORDER BY a.listing_position, a.id")
    with engine.connect() as conn:
        rows = conn.execute(sql, {"week": week_slug, "source": source}).all()
    return [ArticleRow(*row[:9], drafted=bool(row[9])) for row in rows]
