"""Drafts written by the crawl: a listed show's or article's draft, and a show's repair.

One writer for every kind of entity, driven by its ``EntityTables``: a draft, its photos, its
missing photos and its log entry go in one transaction with the drafts that finished beside
it, so a killed run loses at most the drafts in flight (their photos are stored: a later
run drafts them again) and leaves nothing half-written.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from sqlalchemy import Connection, Engine, bindparam, text

from fashion_assets.catalog.entities import RUNWAY, EntityTables
from fashion_assets.catalog.ingest_log import LogEntry, write_log_in
from fashion_assets.catalog.photos import MissingImage, StoredImage
from fashion_assets.catalog.promotion import remerge
from fashion_assets.catalog.runway import ShowRow, is_complete_in
from fashion_assets.catalog.sql import insert_rows
from fashion_assets.domain.coverage import CoverageRules, kept_expected_sql
from fashion_assets.domain.ingest import Outcome, photos_added, repair_outcome
from fashion_assets.domain.promotion import contributes
from fashion_assets.domain.titles import stored_title


class Listed(Protocol):
    """A listed show or article as its draft is written: its id and source key, and the
    columns its ``EntityTables`` name (``key``, ``listed``) as attributes of the same name."""

    @property
    def id(self) -> int: ...

    @property
    def source(self) -> str: ...

    @property
    def source_url(self) -> str: ...


@dataclass(frozen=True)
class DraftWrite:
    """One listed item's draft as the crawl writes it: its title and expected count, the
    photos stored and missing, and its log entry (the outcome filled in on write)."""

    listed: Listed
    title: str
    expected_images: int
    images: Sequence[StoredImage]
    missing: Sequence[MissingImage]
    log: LogEntry


def write_drafts(engine: Engine, tables: EntityTables, writes: Sequence[DraftWrite]
                 ) -> list[int | None]:
    """Write each draft of ``writes``, its photos, its missing photos and its log entry, all
    in one transaction: the crawl hands over the drafts that finished while the previous
    write committed (``crawl/ingest.py: DraftCommits``), so a burst of shows costs one
    commit instead of one each.

    Returns the draft ids in order, None where a draft with the same source key appeared
    since the plan was made (a concurrent run, or an earlier write of the same batch, got
    there first): then only a ``skipped_conflict`` entry is written for it. The photos it
    stored stay in the store; they are the same bytes under the same keys as the other
    run's, so there is nothing to clean up.
    """
    copied = (*tables.key, *tables.listed)
    columns = ("source", "source_url", *copied, "title", "expected_images")
    insert = text(f"INSERT INTO {tables.drafts} ({', '.join(columns)})"
                  f" VALUES ({', '.join(f':c{n}' for n in range(len(columns)))})"
                  " ON CONFLICT (source, source_url) WHERE source_url <> '' DO NOTHING"
                  " RETURNING id")
    ids: list[int | None] = []
    photos: list[tuple[int, StoredImage]] = []
    entries: list[LogEntry] = []
    with engine.begin() as conn:
        for write in writes:
            listed = write.listed
            # The title as every source's is stored (domain/titles.py: stored_title), whichever
            # page it was read from.
            values = (listed.source, listed.source_url, *(getattr(listed, c) for c in copied),
                      stored_title(write.title), write.expected_images)
            row = conn.execute(insert, {f"c{n}": v for n, v in enumerate(values)}).first()
            if row is None:
                ids.append(None)
                entries.append(replace(
                    write.log, outcome=Outcome.SKIPPED_CONFLICT.value, images_stored=0,
                    images_missing=0, reason="a concurrent run drafted this article first"))
                continue
            draft_id = int(row[0])
            ids.append(draft_id)
            photos.extend((draft_id, image) for image in write.images)
            record_missing(conn, tables, listed.id, write.missing)
            entries.append(replace(write.log, draft_id=draft_id, images_stored=len(write.images),
                                   images_missing=len(write.missing)))
        _insert_photos(conn, tables, photos)
        write_log_in(conn, entries)
    return ids


def _insert_photos(conn: Connection, tables: EntityTables,
                   photos: Sequence[tuple[int, StoredImage]]) -> None:
    """Insert (draft id, photo) rows: the photos of one draft or of several."""
    insert_rows(conn, tables.draft_images,
                ("draft_id", "position", "object_key", "source_image_url", "content_type",
                 "width", "height", "byte_size"),
                [(draft_id, i.position, i.object_key, i.source_image_url, i.content_type,
                  i.width, i.height, i.byte_size) for draft_id, i in photos])


def record_missing(conn: Connection, tables: EntityTables, listed_id: int,
                   missing: Sequence[MissingImage]) -> None:
    """Replace the listed row's missing photos with ``missing``, if there are any."""
    if not missing:
        return
    conn.execute(text(f"DELETE FROM {tables.missing_images} WHERE {tables.missing_fk} = :id"),
                 {"id": listed_id})
    insert_rows(conn, tables.missing_images,
                (tables.missing_fk, "position", "url", "reason", "detail"),
                [(listed_id, m.position, m.url, m.reason, m.detail) for m in missing])


@dataclass(frozen=True)
class DraftPhoto:
    position: int
    object_key: str
    source_image_url: str


def draft_photos(engine: Engine, show: ShowRow) -> list[DraftPhoto]:
    """The photos the show's draft holds, for a repair to compare with the show's manifest."""
    assert show.draft_id is not None, "only a drafted show is repaired"
    with engine.connect() as conn:
        rows = conn.execute(text(
            f"SELECT position, object_key, source_image_url FROM {RUNWAY.draft_images}"
            " WHERE draft_id = :id ORDER BY position"), {"id": show.draft_id}).all()
    return [DraftPhoto(int(p), str(k), str(u)) for p, k, u in rows]


@dataclass(frozen=True)
class RepairWrite:
    draft_id: int
    outcome: Outcome
    draft_photos_added: int  # photos the draft has more than before (``photos_added``)
    entry_photos_added: int  # photos its catalog entry gained by the merge (0: no entry)
    complete: bool  # the show's coverage after the repair


def repair_draft(engine: Engine, show: ShowRow, images: Sequence[StoredImage],
                 missing: Sequence[MissingImage], log: LogEntry, held: Mapping[int, str], *,
                 rules: CoverageRules) -> RepairWrite:
    """Add the photos a repair downloaded to the show's draft, all or nothing.

    ``held`` is what the draft had before: its photos whose objects are in the store
    (position -> source URL); the outcome is ``repaired`` only when the draft has more of
    them afterwards (``photos_added``) or its catalog entry gained some.

    Each photo takes its manifest position (a row at that position, or with the same
    source URL, is replaced: its object was gone from the store). The draft's expected
    count follows the manifest's by ``max``, the show's missing photos are replaced by
    this attempt's, and when the draft contributes to a catalog entry the entry is merged
    again so it gets the photos too. A show complete afterwards leaves the coverage
    sensor's attempts behind (a later gap starts a fresh back-off). Runway shows only: a
    street album has no manifest to repair from.
    """
    assert show.draft_id is not None, "only a drafted show is repaired"
    draft_id = show.draft_id
    with engine.begin() as conn:
        if images:
            conn.execute(text(
                f"DELETE FROM {RUNWAY.draft_images} WHERE draft_id = :id AND"
                " (position IN :positions OR source_image_url IN :urls)").bindparams(
                    bindparam("positions", expanding=True), bindparam("urls", expanding=True)),
                {"id": draft_id, "positions": [i.position for i in images],
                 "urls": [i.source_image_url for i in images]})
            _insert_photos(conn, RUNWAY, [(draft_id, image) for image in images])
        # The draft changes (and says so in updated_at) only when it gained photos or count.
        conn.execute(text(
            f"UPDATE {RUNWAY.drafts} SET expected_images ="
            f" {kept_expected_sql(':expected', 'expected_images')},"
            " updated_at = CURRENT_TIMESTAMP"
            " WHERE id = :id AND (:added > 0 OR expected_images < :expected)"),
            {"id": draft_id, "expected": show.expected_images, "added": len(images)})
        conn.execute(text(f"DELETE FROM {RUNWAY.missing_images} WHERE show_id = :id"),
                     {"id": show.id})
        record_missing(conn, RUNWAY, show.id, missing)
        entry_added = 0
        status, is_deleted = conn.execute(text(f"SELECT status, is_deleted FROM {RUNWAY.drafts}"
                                               " WHERE id = :id"), {"id": draft_id}).one()
        if contributes(status, bool(is_deleted)) and show.in_catalog:
            entry_added = remerge(conn, RUNWAY, (show.brand_slug, show.season_code))
        complete = is_complete_in(conn, show, rules)
        if complete:
            conn.execute(text("DELETE FROM coverage_repairs WHERE show_id = :id"),
                         {"id": show.id})
        added = photos_added(held, [(i.position, i.source_image_url) for i in images])
        outcome = repair_outcome(draft_photos_added=added, entry_photos_added=entry_added)
        note = f"the catalog entry gained {entry_added} photos" if entry_added else ""
        write_log_in(conn, [replace(log, outcome=outcome.value, draft_id=draft_id,
                                    images_stored=len(images), images_missing=len(missing),
                                    reason="; ".join(n for n in (log.reason, note) if n))])
    return RepairWrite(draft_id, outcome, added, entry_added, complete)
