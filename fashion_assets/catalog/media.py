"""Which object keys the catalog references: the question media cleanup asks before deleting.

Every table that holds an ``object_key`` is listed here, so a new one added without updating
``IMAGE_TABLES`` is the one way cleanup could delete a photo still in use (the integration
test checks each table).
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Engine, bindparam, text

IMAGE_TABLES = (
    "brand_runway_draft_images",
    "brand_runway_images",
    "street_snap_draft_images",
    "street_snap_images",
)
"""Drafts and catalog entries of both domains: any row in any of them keeps its photo."""

BATCH_SIZE = 500
"""Keys per query: bounds the SQL size and stays far below SQLite's bound-parameter limit."""

_QUERIES = {
    table: text(f"SELECT DISTINCT object_key FROM {table} WHERE object_key IN :keys")
    .bindparams(bindparam("keys", expanding=True))
    for table in IMAGE_TABLES
}


def referenced_keys(engine: Engine, keys: Sequence[str], *,
                    batch_size: int = BATCH_SIZE) -> set[str]:
    """The subset of ``keys`` that some draft or catalog photo references.

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
