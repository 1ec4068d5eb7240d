"""Promotion in set-based SQL: approved drafts into catalog entries, a batch of keys at once.

Implements ``domain/promotion.py`` (the rule and its tests are there): for each entity key
with an approved draft, the entry is upserted with the lead draft's text, and its photos are
rebuilt as the union of its contributing drafts' photos, each object key once, ordered by
source priority, draft and position; then one look published by two sources is shown once
(``catalog/looks.py``). A handful of statements per batch, whatever the number
of photos; promotions serialize on a lock, and a draft approved while one runs is simply
promoted by the next.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlalchemy import Connection, Engine, text

from fashion_assets.catalog.db import is_postgres
from fashion_assets.catalog.entities import ENTITIES, EntityTables, contributes, same_entity
from fashion_assets.catalog.looks import merge_entry_looks
from fashion_assets.domain.coverage import kept_expected_sql
from fashion_assets.domain.promotion import SOURCE_PRIORITY

DEFAULT_BATCH_KEYS = 2_000
PREVIEW_ENTRIES = 20
_PG_LOCK_ID = 0x70726F6D6F7465  # "promote"
_KEYS, _DRAFTS = "promotion_keys", "promotion_drafts"


@dataclass(frozen=True)
class PromotedEntry:
    key: tuple[object, ...]
    title: str
    photos: int
    first_object_key: str | None
    # The draft whose text the entry holds (``lead_draft``); its review page lists the
    # entry's other drafts, and there is no page of catalog entries.
    lead_draft_id: int


@dataclass
class PromotionResult:
    kind: str
    entries_created: int = 0
    entries_updated: int = 0
    photos_added: int = 0
    drafts_promoted: int = 0
    alternates: int = 0  # photos of a look another source's photo shows (catalog/looks.py)
    uncertain_pairs: int = 0  # pairs that may be one look, left for an editor
    batches: int = 0
    preview: list[PromotedEntry] = field(default_factory=list)


def _rank(alias: str) -> str:
    """SQL for ``domain/promotion.py: source_rank`` of the draft ``alias``."""
    whens = " ".join(f"WHEN '{source}' THEN {rank}" for rank, source in enumerate(SOURCE_PRIORITY))
    return f"(CASE {alias}.source {whens} ELSE {len(SOURCE_PRIORITY)} END)"




def promote(engine: Engine, tables: EntityTables, *,
            batch_keys: int = DEFAULT_BATCH_KEYS) -> PromotionResult:
    """Promote every approved draft of ``tables``' kind, ``batch_keys`` entity keys a batch."""
    result = PromotionResult(tables.kind)
    while _promote_batch(engine, tables, batch_keys, result):
        result.batches += 1
    return result


def remerge(conn: Connection, tables: EntityTables, key: Sequence[object]) -> int:
    """Rebuild the photos of the entry ``key`` from its contributing drafts, in the caller's
    transaction (a repair added photos to one of them); return the photos the entry gained.

    The same merge as promotion (``_rebuild_photos``), under the same lock, so a repair and
    a promotion of one entry never interleave.
    """
    t = tables
    if is_postgres(conn.engine):
        conn.execute(text("SELECT pg_advisory_xact_lock(:id)"), {"id": _PG_LOCK_ID})
    conn.execute(text(f"DROP TABLE IF EXISTS {_KEYS}"))
    marks = " AND ".join(f"{column} = :k{n}" for n, column in enumerate(t.key))
    conn.execute(text(f"CREATE TEMP TABLE {_KEYS} AS SELECT {', '.join(t.key)} FROM {t.catalog}"
                      f" WHERE {marks}"), {f"k{n}": value for n, value in enumerate(key)})
    before = _count(conn, _entry_photos_sql(t))
    _rebuild_photos(conn, t)
    merge_entry_looks(conn, t, _KEYS)
    gained = _count(conn, _entry_photos_sql(t)) - before
    conn.execute(text(f"UPDATE {t.catalog} SET revision = :rev, updated_at = CURRENT_TIMESTAMP"
                      f" WHERE {marks}"),
                 {"rev": next_revision(conn, t), **{f"k{n}": v for n, v in enumerate(key)}})
    conn.execute(text(f"DROP TABLE {_KEYS}"))
    return gained


@dataclass(frozen=True)
class Backlog:
    """The approved drafts of one kind waiting for promotion, as the sensor sees them.

    ``fingerprint`` changes whenever the set waiting does (the ids are summed, the latest
    update taken) or a promotion has run since (the promoted count), so a run key built
    from it launches each batch once and a later approval again, even within one second.
    """

    kind: str
    approved: int
    fingerprint: str


def approved_backlog(engine: Engine, kinds: Sequence[EntityTables]) -> list[Backlog]:
    """Per kind, the approved drafts waiting: one query over the status index."""
    sql = " UNION ALL ".join(
        f"SELECT '{t.kind}',"
        " sum(CASE WHEN status = 'approved' THEN 1 ELSE 0 END),"
        " sum(CASE WHEN status = 'approved' THEN id ELSE 0 END),"
        " max(CASE WHEN status = 'approved' THEN updated_at END),"
        " sum(CASE WHEN status = 'promoted' THEN 1 ELSE 0 END)"
        f" FROM {t.drafts} d WHERE {contributes('d')}"
        for t in kinds)
    with engine.connect() as conn:
        rows = conn.execute(text(sql)).all()
    return [Backlog(str(kind), int(count or 0),
                    f"{int(count or 0)}:{int(ids or 0)}@{latest or ''}+{int(promoted or 0)}")
            for kind, count, ids, latest, promoted in rows]


def waiting_for_promotion(engine: Engine) -> dict[str, int]:
    """Per kind, the approved drafts no promotion has taken yet, counted as the sensor
    does (``approved_backlog``): what ``status``, ``review approve`` and the review page
    say waits."""
    return {b.kind: b.approved for b in approved_backlog(engine, list(ENTITIES.values()))}


def _promote_batch(engine: Engine, tables: EntityTables, batch_keys: int,
                   result: PromotionResult) -> bool:
    t, key = tables, ", ".join(tables.key)
    with engine.begin() as conn:
        if is_postgres(engine):
            conn.execute(text("SELECT pg_advisory_xact_lock(:id)"), {"id": _PG_LOCK_ID})
        for temp in (_KEYS, _DRAFTS):
            conn.execute(text(f"DROP TABLE IF EXISTS {temp}"))
        conn.execute(text(
            f"CREATE TEMP TABLE {_KEYS} AS SELECT DISTINCT {key} FROM {t.drafts}"
            f" WHERE status = 'approved' AND NOT is_deleted ORDER BY {key} LIMIT :n"),
            {"n": batch_keys})
        keys = int(conn.execute(text(f"SELECT count(*) FROM {_KEYS}")).scalar_one())
        if keys == 0:
            conn.execute(text(f"DROP TABLE {_KEYS}"))
            return False
        conn.execute(text(
            f"CREATE TEMP TABLE {_DRAFTS} AS SELECT d.id FROM {t.drafts} d JOIN {_KEYS} k"
            f" ON {same_entity(t, 'd', 'k')} WHERE d.status = 'approved' AND NOT d.is_deleted"))
        existing = _count(conn, f"SELECT count(*) FROM {t.catalog} c JOIN {_KEYS} k"
                                f" ON {same_entity(t, 'c', 'k')}")
        photos_before = _count(conn, _entry_photos_sql(t))
        _upsert_entries(conn, t, next_revision(conn, t))
        _rebuild_photos(conn, t)
        looks = merge_entry_looks(conn, t, _KEYS)
        result.alternates += looks.alternates
        result.uncertain_pairs += looks.uncertain_pairs
        promoted = conn.execute(text(
            f"UPDATE {t.drafts} SET status = 'promoted', updated_at = CURRENT_TIMESTAMP"
            f" WHERE status = 'approved' AND id IN (SELECT id FROM {_DRAFTS})")).rowcount
        result.entries_created += keys - existing
        result.entries_updated += existing
        result.photos_added += _count(conn, _entry_photos_sql(t)) - photos_before
        result.drafts_promoted += int(promoted or 0)
        if len(result.preview) < PREVIEW_ENTRIES:
            result.preview += _preview(conn, t, PREVIEW_ENTRIES - len(result.preview))
        for temp in (_KEYS, _DRAFTS):
            conn.execute(text(f"DROP TABLE {temp}"))
    return True


def next_revision(conn: Connection, t: EntityTables) -> int:
    """Raise the kind's catalog revision, in the caller's transaction, for the entries it
    writes to carry (the export takes the entries above the revision it exported last)."""
    return int(conn.execute(text(
        "UPDATE catalog_revisions SET revision = revision + 1 WHERE kind = :k"
        " RETURNING revision"), {"k": t.kind}).scalar_one())


def _upsert_entries(conn: Connection, t: EntityTables, revision: int) -> None:
    """Insert or refresh each key's entry with the text of its lead draft, at ``revision``."""
    key, columns = ", ".join(t.key), ", ".join(t.copied)
    updates = ", ".join(_update(t, c) for c in t.copied)
    partition = ", ".join(f"d.{c}" for c in t.key)
    conn.execute(text(
        f"INSERT INTO {t.catalog} ({key}, {columns}, revision)"
        f" SELECT {key}, {columns}, :rev FROM ("
        f"  SELECT {', '.join(f'd.{c}' for c in (*t.key, *t.copied))}, ROW_NUMBER() OVER ("
        f"   PARTITION BY {partition} ORDER BY {_rank('d')}, d.id) AS lead"
        f"  FROM {t.drafts} d JOIN {_KEYS} k ON {same_entity(t, 'd', 'k')}"
        f"  WHERE {contributes('d')}) drafts WHERE lead = 1"
        f" ON CONFLICT ({key}) DO UPDATE SET {updates}, revision = excluded.revision,"
        " updated_at = CURRENT_TIMESTAMP"), {"rev": revision})


def _update(t: EntityTables, column: str) -> str:
    """The upsert's SET clause for ``column``: the lead draft's value, except that an
    expected count never goes down (``domain/coverage.py: merge_expected``)."""
    if column == "expected_images":
        return f"{column} = {kept_expected_sql(f'excluded.{column}', f'{t.catalog}.{column}')}"
    return f"{column} = excluded.{column}"


def _rebuild_photos(conn: Connection, t: EntityTables) -> None:
    """Replace the photos of the batch's entries with the merge of their drafts' photos."""
    fk = t.catalog_image_fk
    conn.execute(text(
        f"DELETE FROM {t.catalog_images} WHERE {fk} IN (SELECT c.id FROM {t.catalog} c"
        f" JOIN {_KEYS} k ON {same_entity(t, 'c', 'k')})"))
    order = "rank, draft_id, draft_position"
    conn.execute(text(
        f"INSERT INTO {t.catalog_images} ({fk}, position, object_key, content_type, width,"
        " height, byte_size, source, source_image_url)"
        f" SELECT entry_id, ROW_NUMBER() OVER (PARTITION BY entry_id ORDER BY {order}),"
        " object_key, content_type, width, height, byte_size, source, source_image_url FROM ("
        f"  SELECT c.id AS entry_id, {_rank('d')} AS rank, d.id AS draft_id,"
        "   i.position AS draft_position, i.object_key, i.content_type, i.width, i.height,"
        "   i.byte_size, d.source, i.source_image_url,"
        "   ROW_NUMBER() OVER (PARTITION BY c.id, i.object_key"
        f"    ORDER BY {_rank('d')}, d.id, i.position) AS copy"
        f"  FROM {t.catalog} c JOIN {_KEYS} k ON {same_entity(t, 'c', 'k')}"
        f"  JOIN {t.drafts} d ON {same_entity(t, 'd', 'c')}"
        f"  JOIN {t.draft_images} i ON i.draft_id = d.id"
        f"  WHERE {contributes('d')}) photos WHERE copy = 1"))


def _entry_photos_sql(t: EntityTables) -> str:
    return (f"SELECT count(*) FROM {t.catalog_images} i JOIN {t.catalog} c"
            f" ON c.id = i.{t.catalog_image_fk} JOIN {_KEYS} k ON {same_entity(t, 'c', 'k')}")


def _preview(conn: Connection, t: EntityTables, limit: int) -> list[PromotedEntry]:
    key = ", ".join(f"c.{c}" for c in t.key)
    fk = t.catalog_image_fk
    rows = conn.execute(text(
        f"SELECT {key}, c.title,"
        f" (SELECT count(*) FROM {t.catalog_images} i WHERE i.{fk} = c.id),"
        f" (SELECT i.object_key FROM {t.catalog_images} i WHERE i.{fk} = c.id AND i.position = 1),"
        f" (SELECT d.id FROM {t.drafts} d WHERE {same_entity(t, 'd', 'c')} AND {contributes('d')}"
        f"  ORDER BY {_rank('d')}, d.id LIMIT 1)"
        f" FROM {t.catalog} c JOIN {_KEYS} k ON {same_entity(t, 'c', 'k')}"
        f" ORDER BY {key} LIMIT :n"), {"n": limit}).all()
    width = len(t.key)
    return [PromotedEntry(tuple(r[:width]), str(r[width]), int(r[width + 1]), r[width + 2],
                          int(r[width + 3]))
            for r in rows]


def _count(conn: Connection, sql: str) -> int:
    return int(conn.execute(text(sql)).scalar_one())
