"""Catalog reads and writes of the street-style crawl: listed articles, drafts, missing photos.

Same discipline as the runway crawl: one query gives a week's ingest plan, and each article's
draft, photos, missing photos and log entry are written in one transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from sqlalchemy import Engine, text

from fashion_assets.catalog.entities import STREET, has_draft
from fashion_assets.catalog.runway import (
    LogEntry,
    MissingImage,
    StoredImage,
    insert_rows,
    write_log_in,
)
from fashion_assets.domain.ingest import Outcome
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


def write_street_draft(engine: Engine, article: ArticleRow, title: str, expected_images: int,
                       images: Sequence[StoredImage], missing: Sequence[MissingImage],
                       log: LogEntry) -> int | None:
    """Write an article's draft, photos, missing photos and log entry, all or nothing.

    Returns the draft id, or None when a concurrent run drafted the same source key first
    (then only a ``skipped_conflict`` entry is written).
    """
    key = article.entity_key
    with engine.begin() as conn:
        row = conn.execute(
            text("INSERT INTO street_snap_drafts (source, source_url, city, year, month, title,"
                 " expected_images) VALUES (:source, :url, :city, :year, :month, :title,"
                 " :expected) ON CONFLICT (source, source_url) WHERE source_url <> ''"
                 " DO NOTHING RETURNING id"),
            {"source": article.source, "url": article.source_url, "city": key.city,
             "year": key.year, "month": key.month, "title": title or article.title,
             "expected": expected_images},
        ).first()
        if row is None:
            write_log_in(conn, [replace(log, outcome=Outcome.SKIPPED_CONFLICT.value,
                                        reason="a concurrent run drafted this article first")])
            return None
        draft_id = int(row[0])
        insert_rows(conn, "street_snap_draft_images",
                    ("draft_id", "position", "object_key", "source_image_url", "content_type",
                     "width", "height", "byte_size"),
                    [(draft_id, i.position, i.object_key, i.source_image_url, i.content_type,
                      i.width, i.height, i.byte_size) for i in images])
        if missing:
            conn.execute(text("DELETE FROM street_missing_images WHERE article_id = :id"),
                         {"id": article.id})
            insert_rows(conn, "street_missing_images",
                        ("article_id", "position", "url", "reason", "detail"),
                        [(article.id, m.position, m.url, m.reason, m.detail) for m in missing])
        write_log_in(conn, [replace(log, draft_id=draft_id, images_stored=len(images),
                                    images_missing=len(missing))])
    return draft_id
