"""The one definition of each key in SQL, and the tables each kind of entity uses.

"The same show" and "the same album" are decided here and nowhere else: the ingest's catalog
lookup, promotion's catalog lookup and the sibling-draft query all build their conditions
from ``same_entity``, so a February Copenhagen album can never receive August photos through
one lookup that forgot the month. "The same article" (the source key) likewise comes from
``same_source`` and ``has_draft`` wherever a query matches a listing, a log entry or a draft
by it.
"""

from __future__ import annotations

from dataclasses import dataclass

from fashion_assets.domain.promotion import CONTRIBUTING_STATUSES


@dataclass(frozen=True)
class EntityTables:
    """Where one kind of entity lives: its drafts, its catalog entries, and its key; what a
    new draft copies from its listed row; where that row's missing photos are kept."""

    kind: str
    drafts: str
    draft_images: str
    catalog: str
    catalog_images: str
    catalog_image_fk: str
    # The photos of an entry's looks it does not show, beside the one it keeps (catalog/looks.py).
    catalog_alternates: str
    key: tuple[str, ...]
    # Entry columns taken from the lead draft (domain/promotion.py: lead_draft).
    copied: tuple[str, ...]
    # Draft columns a new draft copies from its listed row (a show, an article), read off
    # the row by name like the key's (catalog/drafts.py: write_draft).
    listed: tuple[str, ...]
    # The listed rows (a source's shows or articles), one per source key.
    listings: str
    # The photos a listed row's draft could not get, by the row's id (``missing_fk``).
    missing_images: str
    missing_fk: str


RUNWAY = EntityTables(
    kind="runway", drafts="brand_runway_drafts", draft_images="brand_runway_draft_images",
    catalog="brand_runways", catalog_images="brand_runway_images", catalog_image_fk="runway_id",
    catalog_alternates="brand_runway_image_alternates",
    key=("brand_slug", "season_code"),
    copied=("title", "season", "year", "collection_type", "city", "expected_images"),
    listed=("season", "year", "collection_type", "city", "city_name"),
    listings="runway_shows", missing_images="runway_missing_images", missing_fk="show_id",
)
STREET = EntityTables(
    kind="street", drafts="street_snap_drafts", draft_images="street_snap_draft_images",
    catalog="street_snaps", catalog_images="street_snap_images", catalog_image_fk="snap_id",
    catalog_alternates="street_snap_image_alternates",
    key=("city", "year", "month"),
    copied=("title",),
    listed=(), listings="street_style_articles", missing_images="street_missing_images",
    missing_fk="article_id",
)
ENTITIES = {RUNWAY.kind: RUNWAY, STREET.kind: STREET}


def same_entity(tables: EntityTables, left: str, right: str) -> str:
    """SQL that holds when rows ``left`` and ``right`` (table aliases) share the entity key."""
    return " AND ".join(f"{left}.{column} = {right}.{column}" for column in tables.key)


def same_source(left: str, right: str) -> str:
    """SQL that holds when rows ``left`` and ``right`` (table aliases) share the source key
    (source, source_url): the same article of the same site."""
    return f"{left}.source = {right}.source AND {left}.source_url = {right}.source_url"


def has_draft(drafts: str, alias: str) -> str:
    """SQL that holds when the article ``alias`` has a draft in the table ``drafts``.

    ``d.source_url <> ''`` restates the unique source index's own condition, so both
    databases may use it (uq_brand_runway_drafts_source, uq_street_snap_drafts_source).
    """
    return (f"EXISTS (SELECT 1 FROM {drafts} d WHERE {same_source('d', alias)}"
            " AND d.source_url <> '')")


def in_catalog(tables: EntityTables, alias: str) -> str:
    """SQL that holds when the row ``alias`` has an entry in the catalog."""
    return f"EXISTS (SELECT 1 FROM {tables.catalog} c WHERE {same_entity(tables, 'c', alias)})"


def contributes(alias: str) -> str:
    """SQL that holds when the draft ``alias`` makes up its entry (domain/promotion.py)."""
    statuses = ", ".join(f"'{status}'" for status in CONTRIBUTING_STATUSES)
    return f"{alias}.status IN ({statuses}) AND NOT {alias}.is_deleted"
