"""Catalog reads and writes of runway shows: brands, listings, manifests, coverage.

Set-based where it matters: one query gives a brand's whole ingest plan, and a manifest is
stored with its log entry in one transaction. Drafts are written by ``catalog/drafts.py``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Engine, bindparam, text

from fashion_assets.catalog.db import utc_naive
from fashion_assets.catalog.entities import RUNWAY, same_entity, same_source
from fashion_assets.catalog.ingest_log import LogEntry, write_log_in
from fashion_assets.catalog.photos import FetchedPhoto, ManifestImage, MissingImage, StoredImage
from fashion_assets.catalog.sql import insert_rows
from fashion_assets.domain.coverage import (
    ACTIVE_STATUSES,
    Counts,
    CoverageRules,
    Observation,
    is_complete,
    merge_expected,
    show_coverage,
)
from fashion_assets.domain.runway import RunwayEntityKey, RunwayShow, SourceKey


@dataclass(frozen=True)
class Brand:
    slug: str
    display_name: str


@dataclass(frozen=True)
class ShowRow:
    """A show of the listing as stored, with what the crawl knows of it."""

    id: int
    source: str
    source_url: str
    source_path: str
    brand_slug: str
    season_code: str
    title: str
    season: str
    year: int
    collection_type: str
    city: str | None  # the canonical city slug, when the title named a known city
    city_name: str | None  # the city as the title wrote it
    has_manifest: bool
    expected_images: int
    drafted: bool
    in_catalog: bool
    # The show's own draft (same source key) and the catalog entry of its entity key, with
    # their photo counts, for the coverage rule; None when there is none.
    draft_id: int | None = None
    draft_status: str | None = None
    draft_deleted: bool = False
    draft_counts: Counts | None = None
    entry_counts: Counts | None = None

    def coverage(self) -> Counts | None:
        """The counts the show is judged by (``domain/coverage.py: show_coverage``)."""
        return show_coverage(manifest_expected=self.expected_images, draft=self.draft_counts,
                             draft_status=self.draft_status, draft_deleted=self.draft_deleted,
                             entry=self.entry_counts)

    def is_complete(self, rules: CoverageRules) -> bool:
        """True when the show needs nothing more: complete, or no subject for repair."""
        counts = self.coverage()
        return counts is None or is_complete(counts.expected, counts.stored, rules)

    @property
    def repairable(self) -> bool:
        """Its draft is one an editor has not turned down."""
        return (self.draft_id is not None and not self.draft_deleted
                and self.draft_status in ACTIVE_STATUSES)

    @property
    def source_key(self) -> SourceKey:
        return SourceKey(self.source, self.source_url)

    @property
    def entity_key(self) -> RunwayEntityKey:
        return RunwayEntityKey(self.brand_slug, self.season_code)


@dataclass(frozen=True)
class ShowCity:
    """Where a show's title city resolved: a city slug, or the pending name it waits on."""

    slug: str | None = None
    pending_id: int | None = None


def add_brand(engine: Engine, slug: str, display_name: str = "") -> bool:
    """Register a brand; True if it is new. A display name fills in an empty one."""
    with engine.begin() as conn:
        created = conn.execute(
            text("INSERT INTO brands (slug, display_name) VALUES (:slug, :name)"
                 " ON CONFLICT (slug) DO NOTHING RETURNING id"),
            {"slug": slug, "name": display_name},
        ).first() is not None
        if not created and display_name:
            conn.execute(
                text("UPDATE brands SET display_name = :name"
                     " WHERE slug = :slug AND display_name = ''"),
                {"slug": slug, "name": display_name},
            )
    return created


def list_brands(engine: Engine) -> list[Brand]:
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT slug, display_name FROM brands ORDER BY slug"))
        return [Brand(slug, name) for slug, name in rows]


def listed_season_codes(engine: Engine, source: str) -> set[str]:
    """The season codes of the shows ``source``'s listings gave: each is a season another
    source is crawled by (theImpression's runway partitions). One bounded query, a few
    hundred codes."""
    with engine.connect() as conn:
        return set(conn.execute(
            text("SELECT DISTINCT season_code FROM runway_shows WHERE source = :s"),
            {"s": source}).scalars())


def record_listing(engine: Engine, shows: Sequence[RunwayShow],
                   cities: Mapping[str, ShowCity] | None = None) -> int:
    """Store the shows of a listing that are new; return how many were new.

    Shows already known are left untouched, so a re-crawl of an unchanged listing writes
    nothing. ``cities`` maps each title city (as written) to its resolution.
    """
    if not shows:
        return 0
    with engine.begin() as conn:
        return record_shows(conn, shows, cities)


def record_shows(conn: Connection, shows: Sequence[RunwayShow],
                 cities: Mapping[str, ShowCity] | None = None) -> int:
    """The one way a runway show enters ``runway_shows``, for a listing and for a show
    released by an editor's name decision alike: every field of the show, its title city
    resolved (``cities``) or waiting on its pending name. Known shows are left untouched."""
    cities = cities or {}
    rows = []
    for s in shows:
        city = cities.get(s.city or "", ShowCity())
        rows.append((s.entity_key.brand_slug, s.source_key.source, s.source_key.source_url,
                     s.source_path, s.title, s.entity_key.season_code, s.season, s.year,
                     s.collection_type, city.slug, s.city, city.pending_id, s.listing_position))
    return insert_rows(conn, "runway_shows",
                       ("brand_slug", "source", "source_url", "source_path", "title",
                        "season_code", "season", "year", "collection_type", "city",
                        "city_name", "city_pending_id", "listing_position"),
                       rows, on_conflict="(source, source_url) DO NOTHING")


def brand_shows(engine: Engine, brand_slug: str, source: str) -> list[ShowRow]:
    """Every show of a brand from a source, with its manifest, draft and catalog state."""
    return _shows(engine, "s.brand_slug = :key", brand_slug, source)


def season_shows(engine: Engine, season_code: str, source: str) -> list[ShowRow]:
    """Every show of one season from a source (theImpression's runway partitions)."""
    return _shows(engine, "s.season_code = :key", season_code, source)


# A show with its manifest, its own draft (by source key) and its entity's catalog entry.
SHOW_JOINS = (
    " FROM runway_shows s LEFT JOIN runway_show_manifests m ON m.show_id = s.id"
    f" LEFT JOIN brand_runway_drafts d ON {same_source('d', 's')} AND d.source_url <> ''"
    f" LEFT JOIN brand_runways e ON {same_entity(RUNWAY, 'e', 's')}"
)


# What the coverage rule reads of a show, over SHOW_JOINS (decoded by ``_coverage_fields``).
_COVERAGE_COLUMNS = ("COALESCE(m.expected_images, 0), d.id, d.status, d.is_deleted,"
                     " d.expected_images, d.stored_images, e.id, e.expected_images,"
                     " e.stored_images")


def _coverage_fields(values: Sequence[Any]) -> dict[str, Any]:
    """The ``ShowRow`` fields of the ``_COVERAGE_COLUMNS`` of one row."""
    (expected, draft_id, status, deleted, draft_expected, draft_stored, entry_id,
     entry_expected, entry_stored) = values
    return {"expected_images": int(expected), "drafted": draft_id is not None,
            "in_catalog": entry_id is not None, "draft_id": draft_id, "draft_status": status,
            "draft_deleted": bool(deleted),
            "draft_counts": None if draft_id is None
            else Counts(int(draft_expected), int(draft_stored)),
            "entry_counts": None if entry_id is None
            else Counts(int(entry_expected), int(entry_stored))}


def _shows(engine: Engine, where: str, key: str, source: str) -> list[ShowRow]:
    sql = text(
        "SELECT s.id, s.source, s.source_url, s.source_path, s.brand_slug, s.season_code,"
        " s.title, s.season, s.year, s.collection_type, s.city, s.city_name,"
        f" m.show_id IS NOT NULL, {_COVERAGE_COLUMNS}"
        f"{SHOW_JOINS} WHERE {where} AND s.source = :source"
        " ORDER BY s.listing_position, s.id"
    )
    with engine.connect() as conn:
        rows = conn.execute(sql, {"key": key, "source": source}).all()
    return [ShowRow(*row[:12], has_manifest=bool(row[12]), **_coverage_fields(row[13:]))
            for row in rows]


def store_manifest(engine: Engine, show_id: int, expected_images: int, page_title: str,
                   images: Sequence[ManifestImage], log: LogEntry, *,
                   observed_at: datetime) -> str:
    """Store a show's manifest as fetched at ``observed_at``, with its log entry.

    Returns "fetched" for a first manifest, "refetched" when it replaced the stored one
    (an incomplete show fetched again: the photo list is the page's, the expected count
    ``merge_expected``'s), or "kept" when the stored one was observed later than this one.
    """
    observed_at = utc_naive(observed_at)
    with engine.begin() as conn:
        created = conn.execute(
            text("INSERT INTO runway_show_manifests (show_id, expected_images, page_title,"
                 " fetched_at) VALUES (:id, :expected, :title, :at)"
                 " ON CONFLICT (show_id) DO NOTHING RETURNING show_id"),
            {"id": show_id, "expected": expected_images, "title": page_title,
             "at": observed_at},
        ).first() is not None
        outcome = "fetched"
        if not created:
            lock = " FOR UPDATE" if conn.dialect.name == "postgresql" else ""
            count, at = conn.execute(text(
                "SELECT expected_images, fetched_at FROM runway_show_manifests"
                f" WHERE show_id = :id{lock}"), {"id": show_id}).one()
            stored = Observation(int(count), utc_naive(at))
            merged = merge_expected(stored, Observation(expected_images, observed_at))
            outcome = "kept" if merged == stored else "refetched"
        if outcome == "refetched":
            conn.execute(text(
                "UPDATE runway_show_manifests SET expected_images = :expected,"
                " page_title = :title, fetched_at = :at WHERE show_id = :id"),
                {"id": show_id, "expected": merged.count, "title": page_title,
                 "at": merged.observed_at})
            conn.execute(text("DELETE FROM runway_manifest_images WHERE show_id = :id"),
                         {"id": show_id})
        if outcome != "kept":
            insert_rows(conn, "runway_manifest_images", ("show_id", "position", "url", "caption"),
                        [(show_id, i.position, i.url, i.caption) for i in images])
        write_log_in(conn, [replace(log, outcome=outcome)])
    return outcome


def manifest_failures(engine: Engine, shows: Sequence[ShowRow]) -> dict[int, str]:
    """Why the manifest of each of ``shows`` could not be stored, by show id: the reason of
    its latest manifest entry in the ingest log, when that entry failed. One statement per
    500 shows (called for the few shows without a manifest)."""
    by_key = {(show.source, show.source_url): show.id for show in shows}
    latest: dict[int, tuple[str, str]] = {}
    urls = sorted({url for _, url in by_key})
    with engine.connect() as conn:
        for start in range(0, len(urls), 500):
            rows = conn.execute(
                text("SELECT source, source_url, outcome, reason FROM ingest_log"
                     " WHERE stage = 'manifest' AND source_url IN :urls ORDER BY id"
                     ).bindparams(bindparam("urls", expanding=True)),
                {"urls": urls[start:start + 500]})
            for source, url, outcome, reason in rows:  # in log order: the last one wins
                if (source, url) in by_key:
                    latest[by_key[(source, url)]] = (str(outcome), str(reason))
    return {show_id: reason for show_id, (outcome, reason) in latest.items()
            if outcome == "failed"}


def manifest_images(engine: Engine, show_ids: Iterable[int]) -> dict[int, list[ManifestImage]]:
    ids = list(show_ids)
    result: dict[int, list[ManifestImage]] = {i: [] for i in ids}
    if not ids:
        return result
    with engine.connect() as conn:
        for start in range(0, len(ids), 500):
            rows = conn.execute(
                text("SELECT show_id, position, url, caption FROM runway_manifest_images"
                     " WHERE show_id IN :ids ORDER BY show_id, position"
                     ).bindparams(bindparam("ids", expanding=True)),
                {"ids": ids[start:start + 500]},
            )
            for show_id, position, url, caption in rows:
                result[show_id].append(ManifestImage(position, url, caption))
    return result


_PHOTO_COLUMNS = ("show_id", "position", "url", "run_id", "object_key", "content_type",
                  "width", "height", "byte_size", "reason", "detail")


def store_manifest_photos(engine: Engine, show_id: int, run_id: str,
                          stored: Sequence[StoredImage], missing: Sequence[MissingImage]) -> int:
    """Record the photos of the show's manifest that run ``run_id`` fetched, replacing what
    an earlier run recorded; returns how many rows went in.

    Only photos the stored manifest still lists at their position are recorded: a run that
    fetched the page again in the meantime may have replaced it.
    """
    rows = [(show_id, p.position, p.source_image_url, run_id, p.object_key, p.content_type,
             p.width, p.height, p.byte_size, None, None) for p in stored]
    rows += [(show_id, m.position, m.url, run_id, None, None, None, None, None, m.reason,
              m.detail) for m in missing]
    with engine.begin() as conn:
        lock = " FOR KEY SHARE" if conn.dialect.name == "postgresql" else ""
        listed = set(conn.execute(text(
            f"SELECT position, url FROM runway_manifest_images WHERE show_id = :id{lock}"),
            {"id": show_id}).all())
        conn.execute(text("DELETE FROM runway_manifest_photos WHERE show_id = :id"),
                     {"id": show_id})
        return insert_rows(conn, "runway_manifest_photos", _PHOTO_COLUMNS,
                           sorted(r for r in rows if (r[1], r[2]) in listed))


def manifest_photos(engine: Engine, show_ids: Iterable[int]) -> dict[int, list[FetchedPhoto]]:
    """The photos the manifests step fetched for each of ``show_ids`` (``store_manifest_photos``),
    by show id; one statement per 500 shows."""
    ids = list(show_ids)
    result: dict[int, list[FetchedPhoto]] = {i: [] for i in ids}
    with engine.connect() as conn:
        for start in range(0, len(ids), 500):
            rows = conn.execute(
                text(f"SELECT {', '.join(_PHOTO_COLUMNS)} FROM runway_manifest_photos"
                     " WHERE show_id IN :ids ORDER BY show_id, position"
                     ).bindparams(bindparam("ids", expanding=True)),
                {"ids": ids[start:start + 500]})
            for (show_id, position, url, run_id, key, content_type, width, height, size,
                 reason, detail) in rows:
                photo = (StoredImage(position, key, url, content_type, width, height, size)
                         if key is not None else MissingImage(position, url, reason, detail))
                result[show_id].append(FetchedPhoto(run_id, photo))
    return result


def is_complete_in(conn: Connection, show: ShowRow, rules: CoverageRules) -> bool:
    """The show's coverage as the transaction ``conn`` sees it (a repair's write)."""
    row = conn.execute(text(f"SELECT {_COVERAGE_COLUMNS}{SHOW_JOINS} WHERE s.id = :id"),
                       {"id": show.id}).one()
    return replace(show, **_coverage_fields(row)).is_complete(rules)
