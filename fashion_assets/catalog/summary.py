"""What the archive holds, counted: the catalog side of ``fashion-assets status`` and the
status line's review backlog.

The counts are read here so that ``status.py`` only shapes them for the command and the
review app's /crawler page; every statement is a bounded count or one row per brand.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection, Engine, text

from fashion_assets.catalog.backpressure import pending_review_sql
from fashion_assets.catalog.entities import ENTITIES, RUNWAY, EntityTables


@dataclass(frozen=True)
class DraftCounts:
    """One kind's drafts: the live ones by status, and those an editor deleted."""

    by_status: dict[str, int]
    deleted: int


@dataclass(frozen=True)
class EntryCounts:
    """One kind's catalog entries and the photos they hold."""

    entries: int
    photos: int


@dataclass(frozen=True)
class BrandCounts:
    """One brand's shows, runway drafts, draft photos and photos missing from its shows."""

    brand: str
    shows: int
    drafts: int
    photos: int
    missing_photos: int


@dataclass(frozen=True)
class CatalogCounts:
    """Everything ``catalog_counts`` reads; ``drafts`` and ``entries`` are by entity kind
    (``entities.py: ENTITIES``), ``pending_names`` by name kind."""

    brands: int
    shows: int
    draft_images: int
    street_articles: int
    drafts: dict[str, DraftCounts]
    entries: dict[str, EntryCounts]
    pending_names: dict[str, int]
    waiting_for_name: int
    per_brand: list[BrandCounts]


def pending_review(engine: Engine) -> dict[str, int]:
    """Drafts waiting for an editor, by entity kind, in one statement: the backlog as
    backpressure counts it (``pending_review_sql``), so the status line and the gate agree."""
    counts = ", ".join(pending_review_sql(tables.drafts) for tables in ENTITIES.values())
    with engine.connect() as conn:
        row = conn.execute(text(f"SELECT {counts}")).one()
    return {kind: int(count) for kind, count in zip(ENTITIES, row, strict=True)}


def catalog_counts(engine: Engine) -> CatalogCounts:
    """Brands, shows, drafts by status, catalog entries, street articles, names waiting for
    an editor and per-brand counts, read on one connection."""
    with engine.connect() as conn:
        brands = _count(conn, "SELECT count(*) FROM brands")
        shows = _count(conn, "SELECT count(*) FROM runway_shows")
        # The drafts' photo counts, kept by triggers (sql/0005_coverage*): a sum over the
        # drafts, not a count over a million photo rows.
        draft_images = _count(conn, f"SELECT coalesce(sum(stored_images), 0) FROM "
                                    f"{RUNWAY.drafts}")
        street_articles = _count(conn, "SELECT count(*) FROM street_style_articles")
        drafts = {kind: _draft_counts(conn, tables) for kind, tables in ENTITIES.items()}
        entries = {kind: _entry_counts(conn, tables) for kind, tables in ENTITIES.items()}
        pending_names = dict(conn.execute(text(
            "SELECT kind, count(*) FROM pending_names WHERE status = 'pending'"
            " GROUP BY kind")).all())
        waiting = _count(conn, "SELECT count(*) FROM waiting_articles w JOIN pending_names p"
                               " ON p.id = w.pending_name_id WHERE p.status = 'pending'")
        # One grouped pass over each table, joined to the brands: a subquery per brand and
        # column took a second with the archive's 1,900 brands and million photos.
        per_brand = conn.execute(text(
            "SELECT b.slug, coalesce(s.shows, 0), coalesce(d.drafts, 0),"
            " coalesce(d.photos, 0), coalesce(m.missing, 0) FROM brands b"
            " LEFT JOIN (SELECT brand_slug, count(*) AS shows FROM runway_shows"
            "   GROUP BY brand_slug) s ON s.brand_slug = b.slug"
            " LEFT JOIN (SELECT brand_slug, count(*) AS drafts, sum(stored_images) AS photos"
            f"   FROM {RUNWAY.drafts} GROUP BY brand_slug) d ON d.brand_slug = b.slug"
            " LEFT JOIN (SELECT s.brand_slug, count(*) AS missing FROM runway_missing_images m"
            "   JOIN runway_shows s ON s.id = m.show_id GROUP BY s.brand_slug) m"
            "   ON m.brand_slug = b.slug"
            " ORDER BY b.slug")).all()
    return CatalogCounts(
        brands=brands, shows=shows, draft_images=draft_images, street_articles=street_articles,
        drafts=drafts, entries=entries,
        pending_names={str(kind): int(count) for kind, count in pending_names.items()},
        waiting_for_name=waiting,
        per_brand=[BrandCounts(slug, int(s), int(d), int(p), int(m))
                   for slug, s, d, p, m in per_brand])


def _count(conn: Connection, sql: str) -> int:
    return int(conn.execute(text(sql)).scalar_one())


def _draft_counts(conn: Connection, tables: EntityTables) -> DraftCounts:
    by_status = conn.execute(text(f"SELECT status, count(*) FROM {tables.drafts}"
                                  " WHERE NOT is_deleted GROUP BY status")).all()
    deleted = _count(conn, f"SELECT count(*) FROM {tables.drafts} WHERE is_deleted")
    return DraftCounts({str(status): int(count) for status, count in by_status}, deleted)


def _entry_counts(conn: Connection, tables: EntityTables) -> EntryCounts:
    entries, photos = conn.execute(text(
        f"SELECT (SELECT count(*) FROM {tables.catalog}),"
        f" (SELECT count(*) FROM {tables.catalog_images})")).one()
    return EntryCounts(int(entries), int(photos))
