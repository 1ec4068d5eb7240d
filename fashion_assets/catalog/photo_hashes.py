"""Each stored photo's perceptual hashes, by object key (``photo_hashes``, sql/0016).

The crawl hashes a photo as it stores it (``crawl/base.py: store_photo``); the rows go in
with the rows that reference the photo (a manifest's fetched photos, a draft's photos), in
their transaction, so a photo referenced is a photo hashed. The same bytes hash the same,
so a key recorded already is left as it is. Promotion reads them for the look merge; media
cleanup forgets the rows of the objects it removes.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

from sqlalchemy import Connection, Engine, bindparam, text

from fashion_assets.catalog.photos import StoredImage
from fashion_assets.catalog.sql import insert_rows
from fashion_assets.domain.perceptual_hash import PerceptualHash

_BATCH = 500  # keys per query


def record_hashes(conn: Connection, photos: Iterable[StoredImage]) -> int:
    """Record the hashes the photos came with; returns how many keys were new."""
    rows = sorted({(p.object_key, p.perceptual_hash.phash, p.perceptual_hash.dhash)
                   for p in photos if p.perceptual_hash is not None})
    if not rows:
        return 0
    return insert_rows(conn, "photo_hashes", ("photo_key", "phash", "dhash"), rows,
                       on_conflict="(photo_key) DO NOTHING")


def hashes_of(conn: Connection, keys: Collection[str]) -> dict[str, PerceptualHash]:
    """The recorded hashes of ``keys``; a key never hashed is absent."""
    query = text("SELECT photo_key, phash, dhash FROM photo_hashes WHERE photo_key IN :keys"
                 ).bindparams(bindparam("keys", expanding=True))
    unique = list(dict.fromkeys(keys))
    found: dict[str, PerceptualHash] = {}
    for start in range(0, len(unique), _BATCH):
        for key, phash, dhash in conn.execute(query, {"keys": unique[start:start + _BATCH]}):
            found[key] = PerceptualHash(phash, dhash)
    return found


def forget_hashes(engine: Engine, removed: Sequence[str]) -> int:
    """Drop the hashes of objects media cleanup removed; returns how many went."""
    if not removed:
        return 0
    query = text("DELETE FROM photo_hashes WHERE photo_key IN :keys").bindparams(
        bindparam("keys", expanding=True))
    with engine.begin() as conn:
        return sum(conn.execute(query, {"keys": list(removed[start:start + _BATCH])}).rowcount
                   for start in range(0, len(removed), _BATCH))
