"""The catalog's photo references: which object keys it references (the question media
cleanup asks before deleting), each draft's first photo and the content type recorded for a
key (the review page's thumbnails and photos).

Every table that holds an ``object_key`` is listed here, so a new one added without updating
``IMAGE_TABLES`` is the one way cleanup could delete a photo still in use (the integration
test checks each table).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from sqlalchemy import Engine, bindparam, text

from fashion_assets.catalog.entities import ENTITIES

IMAGE_TABLES = (
    "brand_runway_draft_images",
    "brand_runway_images",
    "brand_runway_image_alternates",
    "street_snap_draft_images",
    "street_snap_images",
    "street_snap_image_alternates",
)
"""Drafts and catalog entries of both domains, and the alternates of their looks: any row in
any of them keeps its photo."""

BATCH_SIZE = 500
"""Keys per query: bounds the SQL size and stays far below SQLite's bound-parameter limit."""

_QUERIES = {
    table: text(f"SELECT DISTINCT object_key FROM {table} WHERE object_key IN :keys")
    .bindparams(bindparam("keys", expanding=True))
    for table in IMAGE_TABLES
}
# The files of the current catalog export (catalog/export.py).
_QUERIES["catalog_export_files"] = text(
    "SELECT DISTINCT object_key FROM catalog_export_files WHERE object_key IN :keys"
).bindparams(bindparam("keys", expanding=True))
# A derivative (a thumbnail, catalog/derivatives.py) is referenced while its photo is.
_QUERIES["photo_derivatives"] = text(
    "SELECT DISTINCT d.derivative_key FROM photo_derivatives d WHERE d.derivative_key IN :keys"
    " AND (" + " OR ".join(f"EXISTS (SELECT 1 FROM {table} i WHERE i.object_key = d.photo_key)"
                           for table in IMAGE_TABLES) + ")"
).bindparams(bindparam("keys", expanding=True))


def referenced_keys(engine: Engine, keys: Sequence[str], *,
                    batch_size: int = BATCH_SIZE) -> set[str]:
    """The subset of ``keys`` that some draft or catalog photo references, the derivatives
    of such photos included.

    Keys go in batches of ``batch_size``, one bound-parameter query per table, and a key
    found in one table is not asked of the next: SQL size and memory stay bounded by the
    batch, not by the store or the catalog. Same SQL on SQLite and PostgreSQL.
    """
    if batch_size < 1:
        raise ValueError("batch_size must be at least 1")
    unique = list(dict.fromkeys(keys))
    found: set[str] = set()
    with engine.connect() as conn:
        for start in range(0, len(unique), batch_size):
            remaining = unique[start:start + batch_size]
            for query in _QUERIES.values():
                if not remaining:
                    break
                hits = set(conn.execute(query, {"keys": remaining}).scalars())
                found |= hits
                remaining = [key for key in remaining if key not in hits]
    return found


def first_photo_keys(engine: Engine, draft_ids: Mapping[str, Collection[int]]
                     ) -> dict[str, dict[int, str]]:
    """The object key of each draft's first photo (lowest position), by entity kind and
    draft id, for drafts given by kind (``entities.py: ENTITIES``); a draft without photos
    is absent. One query per kind, so a page of drafts costs at most two."""
    found: dict[str, dict[int, str]] = {}
    with engine.connect() as conn:
        for kind, ids in draft_ids.items():
            images = ENTITIES[kind].draft_images
            sql = text(f"SELECT i.draft_id, i.object_key FROM {images} i WHERE i.draft_id IN"
                       f" :ids AND i.position = (SELECT min(j.position) FROM {images} j"
                       " WHERE j.draft_id = i.draft_id)").bindparams(
                bindparam("ids", expanding=True))
            found[kind] = {int(draft_id): str(key)
                           for draft_id, key in conn.execute(sql, {"ids": list(ids)})}
    return found


def draft_content_types(engine: Engine, key: str) -> list[str]:
    """The content type a draft photo row records for ``key``, one per entity kind that has
    the key, in ``ENTITIES`` order: the review page trusts the first it recognises, so a
    kind's unusable type must not hide the next kind's."""
    types: list[str] = []
    with engine.connect() as conn:
        for tables in ENTITIES.values():
            row = conn.execute(text(f"SELECT content_type FROM {tables.draft_images}"
                                    " WHERE object_key = :k LIMIT 1"), {"k": key}).first()
            if row is not None:
                types.append(str(row[0]))
    return types
