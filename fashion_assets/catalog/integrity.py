"""What the asset checks look for: each query returns the offending rows, none when clean.

Each query reads a bounded number of rows (``limit``), so a broken catalog is reported by
example, never loaded whole. The entity keys come from ``catalog/entities.py``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from sqlalchemy import Engine, text

from fashion_assets.catalog.entities import ENTITIES, EntityTables, contributes, same_entity
from fashion_assets.storage import ObjectStore

EXAMPLES = 20
KEY_BATCH = 1_000

Row = dict[str, Any]


def _rows(engine: Engine, sql: str, **params: Any) -> list[Row]:
    with engine.connect() as conn:
        return [dict(row._mapping) for row in conn.execute(text(sql), params)]


def duplicate_source_keys(engine: Engine, limit: int = EXAMPLES) -> list[Row]:
    """Non-empty source keys held by more than one draft, of either kind."""
    return [row for t in ENTITIES.values() for row in _rows(
        engine, f"SELECT '{t.kind}' AS kind, source, source_url, count(*) AS drafts,"
                f" min(id) AS first_id, max(id) AS last_id FROM {t.drafts}"
                " WHERE source_url <> '' GROUP BY source, source_url HAVING count(*) > 1"
                " ORDER BY source, source_url LIMIT :n", n=limit)][:limit]


def duplicate_entity_keys(engine: Engine, limit: int = EXAMPLES) -> list[Row]:
    """Entity keys with more than one catalog entry."""
    found = []
    for t in ENTITIES.values():
        key = ", ".join(t.key)
        found += _rows(engine, f"SELECT '{t.kind}' AS kind, {key}, count(*) AS entries"
                               f" FROM {t.catalog} GROUP BY {key} HAVING count(*) > 1"
                               f" ORDER BY {key} LIMIT :n", n=limit)
    return found[:limit]


def mixed_photos(engine: Engine, limit: int = EXAMPLES) -> list[Row]:
    """Catalog photos that no approved draft of their entry's entity key holds."""
    found = []
    for t in ENTITIES.values():
        key = ", ".join(f"c.{c}" for c in t.key)
        found += _rows(engine, (
            f"SELECT '{t.kind}' AS kind, {key}, i.position, i.object_key"
            f" FROM {t.catalog_images} i JOIN {t.catalog} c ON c.id = i.{t.catalog_image_fk}"
            f" WHERE NOT EXISTS (SELECT 1 FROM {t.drafts} d"
            f"  JOIN {t.draft_images} di ON di.draft_id = d.id"
            f"  WHERE {same_entity(t, 'd', 'c')} AND {contributes('d')}"
            "   AND di.object_key = i.object_key)"
            f" ORDER BY {key}, i.position LIMIT :n"), n=limit)
    return found[:limit]


def referenced_keys(engine: Engine, tables: str, batch: int = KEY_BATCH) -> Iterator[list[str]]:
    """Every object key the named image tables reference, in sorted batches (keyset paging)."""
    last = ""
    while keys := referenced_page(engine, tables, after=last, limit=batch):
        yield keys
        last = keys[-1]


def referenced_page(engine: Engine, tables: str, *, after: str, limit: int) -> list[str]:
    """The first ``limit`` object keys after ``after`` that the named image tables reference,
    each once, in key order: one page of the walk, which a caller may resume from any key
    (the store heal keeps its place in the catalog between ticks)."""
    union = " UNION ".join(f"SELECT object_key FROM {table}" for table in _image_tables(tables))
    with engine.connect() as conn:
        return [k for (k,) in conn.execute(text(
            f"SELECT object_key FROM ({union}) k WHERE object_key > :last"
            " ORDER BY object_key LIMIT :n"), {"last": after, "n": limit})]


def _image_tables(which: str) -> list[str]:
    """``drafts``, ``catalog`` or ``all``: the photo tables whose keys are checked."""
    tables: list[EntityTables] = list(ENTITIES.values())
    return ([t.draft_images for t in tables] if which in ("drafts", "all") else []) + (
        [t.catalog_images for t in tables] if which in ("catalog", "all") else [])


def missing_objects(engine: Engine, store: ObjectStore, tables: str,
                    limit: int = EXAMPLES) -> tuple[int, int, list[str]]:
    """How many referenced keys were checked, how many are not in the store, and examples."""
    checked, missing, examples = 0, 0, []
    for keys in referenced_keys(engine, tables):
        checked += len(keys)
        absent = sorted(store.missing(keys))
        missing += len(absent)
        examples += absent[:max(0, limit - len(examples))]
    return checked, missing, examples
