"""The look merge in the catalog: the entries whose photos come from more than one source,
merged by look (``domain/looks.py: merge_looks``), and the editors' word on pairs.

Promotion rebuilds an entry's photos as the union of its drafts' photos, then merges its
looks here in the same transaction: the photos of a look the entry does not show move to its
alternates table with their provenance, and the photos it keeps are numbered again in the
merged order. Photos are compared by the hashes the crawl recorded (``photo_hashes``); an
editor's decision on a pair (``look_decisions``) comes first, so a pair split stays split at
every later promotion.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from sqlalchemy import Connection, bindparam, text

from fashion_assets.catalog.entities import EntityTables, same_entity
from fashion_assets.catalog.sql import insert_rows
from fashion_assets.domain.looks import (
    DEFAULT_LOOK_RULES,
    LookMerge,
    LookPhoto,
    LookRules,
    PairDecision,
    merge_looks,
    pair_key,
)
from fashion_assets.domain.perceptual_hash import PerceptualHash

_BATCH = 500  # entries or keys per query
_PHOTO_COLUMNS = ("position", "object_key", "content_type", "width", "height", "byte_size",
                  "source", "source_image_url")


@dataclass(frozen=True)
class EntryPhotoRow:
    """A photo of a catalog entry as its images table holds it, with its hashes."""

    position: int
    object_key: str
    content_type: str
    width: int | None
    height: int | None
    byte_size: int
    source: str
    source_image_url: str
    hashes: PerceptualHash | None

    def look_photo(self) -> LookPhoto:
        return LookPhoto(self.object_key, self.source, self.width, self.height, self.hashes)


@dataclass(frozen=True)
class LookCounts:
    """What the merge did to a batch of entries."""

    alternates: int = 0  # photos recorded as another photo's alternate
    uncertain_pairs: int = 0  # pairs left for an editor

    def __add__(self, other: LookCounts) -> LookCounts:
        return LookCounts(self.alternates + other.alternates,
                          self.uncertain_pairs + other.uncertain_pairs)


def merge_entry_looks(conn: Connection, t: EntityTables, keys_table: str,
                      rules: LookRules = DEFAULT_LOOK_RULES) -> LookCounts:
    """Merge the looks of the entries whose keys are in ``keys_table`` (a temp table of the
    caller's transaction), their photos just rebuilt from their drafts: their alternates are
    recorded anew, and only the entries with photos of two or more sources are read."""
    fk = t.catalog_image_fk
    entries_sql = (f"SELECT c.id FROM {t.catalog} c JOIN {keys_table} k"
                   f" ON {same_entity(t, 'c', 'k')}")
    conn.execute(text(f"DELETE FROM {t.catalog_alternates} WHERE {fk} IN ({entries_sql})"))
    mixed = [row[0] for row in conn.execute(text(
        f"SELECT i.{fk} FROM {t.catalog_images} i WHERE i.{fk} IN ({entries_sql})"
        f" GROUP BY i.{fk} HAVING count(DISTINCT i.source) > 1 ORDER BY i.{fk}"))]
    counts = LookCounts()
    for start in range(0, len(mixed), _BATCH):
        photos = _entry_photos(conn, t, mixed[start:start + _BATCH])
        decisions = decisions_among(conn, [p.object_key for rows in photos.values()
                                           for p in rows])
        for entry_id, rows in photos.items():
            merge = merge_looks([row.look_photo() for row in rows], rules, decisions)
            counts += _write_merge(conn, t, entry_id, rows, merge)
    return counts


def _entry_photos(conn: Connection, t: EntityTables, entry_ids: Sequence[int]
                  ) -> dict[int, list[EntryPhotoRow]]:
    fk = t.catalog_image_fk
    query = text(
        f"SELECT i.{fk}, {', '.join(f'i.{c}' for c in _PHOTO_COLUMNS)}, h.phash, h.dhash"
        f" FROM {t.catalog_images} i LEFT JOIN photo_hashes h ON h.photo_key = i.object_key"
        f" WHERE i.{fk} IN :ids ORDER BY i.{fk}, i.position"
    ).bindparams(bindparam("ids", expanding=True))
    photos: dict[int, list[EntryPhotoRow]] = {}
    for entry_id, *values, phash, dhash in conn.execute(query, {"ids": list(entry_ids)}):
        hashes = PerceptualHash(phash, dhash) if phash is not None else None
        photos.setdefault(entry_id, []).append(EntryPhotoRow(*values, hashes))
    return photos


def _write_merge(conn: Connection, t: EntityTables, entry_id: int,
                 rows: Sequence[EntryPhotoRow], merge: LookMerge) -> LookCounts:
    """The entry shows the photos ``merge`` keeps, numbered in order; the others become
    alternates, each beside the photo it keeps."""
    uncertain = len(merge.uncertain)
    if not merge.alternates:
        return LookCounts(uncertain_pairs=uncertain)
    fk = t.catalog_image_fk
    by_key = {row.object_key: row for row in rows}
    conn.execute(text(f"DELETE FROM {t.catalog_images} WHERE {fk} = :id"), {"id": entry_id})
    insert_rows(conn, t.catalog_images, (fk, *_PHOTO_COLUMNS),
                [(entry_id, position, key, *_provenance(by_key[key]))
                 for position, key in enumerate(merge.kept, start=1)])
    insert_rows(conn, t.catalog_alternates,
                (fk, "object_key", "kept_key", "content_type", "width", "height", "byte_size",
                 "source", "source_image_url", "distance"),
                [(entry_id, a.object_key, a.kept_key, *_provenance(by_key[a.object_key]),
                  a.distance) for a in merge.alternates])
    return LookCounts(len(merge.alternates), uncertain)


def _provenance(row: EntryPhotoRow) -> tuple[object, ...]:
    return (row.content_type, row.width, row.height, row.byte_size, row.source,
            row.source_image_url)


def decisions_among(conn: Connection, keys: Collection[str]
                    ) -> dict[tuple[str, str], PairDecision]:
    """The editors' decisions on pairs of ``keys`` (both photos among them)."""
    unique = sorted(set(keys))
    query = text("SELECT first_key, second_key, decision FROM look_decisions"
                 " WHERE first_key IN :keys").bindparams(bindparam("keys", expanding=True))
    wanted = set(unique)
    found: dict[tuple[str, str], PairDecision] = {}
    for start in range(0, len(unique), _BATCH):
        for first, second, decision in conn.execute(
                query, {"keys": unique[start:start + _BATCH]}):
            if second in wanted:
                found[(first, second)] = PairDecision(decision)
    return found


def record_look_decision(conn: Connection, a: str, b: str, decision: PairDecision,
                         editor: str) -> None:
    """An editor's word on the pair (a, b), replacing an earlier one on it."""
    first, second = pair_key(a, b)
    if first == second:
        raise ValueError("a look decision needs two different photos")
    conn.execute(text(
        "INSERT INTO look_decisions (first_key, second_key, decision, editor)"
        " VALUES (:a, :b, :d, :e) ON CONFLICT (first_key, second_key) DO UPDATE"
        " SET decision = excluded.decision, editor = excluded.editor,"
        " decided_at = CURRENT_TIMESTAMP"),
        {"a": first, "b": second, "d": decision.value, "e": editor})
