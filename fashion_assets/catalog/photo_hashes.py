"""Each photo's perceptual hashes, by object key (``photo_hashes``, sql/0016), made once.

Not by the crawl: a hash decodes the photo, which cost the crawl more CPU per photo than
everything else it does with one (docs/performance.md, "Where photos are hashed"), and only
the photos that reach an editor or promotion are ever compared. So the hashes are made from
the stored bytes by whoever needs them first, and kept: the promotion job's ``photo_hashes``
step, for every photo of an entity with an approved draft; the review page, for the photos
of the show or album a draft's page shows. The same bytes hash the same, so a key recorded
already is left as it is. Media cleanup forgets the rows of the objects it removes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from sqlalchemy import Engine, bindparam, text

from fashion_assets.catalog.entities import EntityTables, contributes, same_entity
from fashion_assets.catalog.sql import insert_rows
from fashion_assets.domain.perceptual_hash import PerceptualHash, UnhashablePhoto, perceptual_hash
from fashion_assets.storage import ObjectStore

_BATCH = 500  # keys per query, and photos hashed between two writes
THREADS = 4  # Pillow decodes without the GIL: threads keep the cores busy


@dataclass(frozen=True)
class HashCounts:
    """What hashing a set of photos did."""

    hashed: int = 0
    unhashable: int = 0  # bytes Pillow cannot decode: never merged by distance
    missing: int = 0  # not in the store (the store heal's business)

    @property
    def done(self) -> int:
        return self.hashed + self.unhashable + self.missing

    def __add__(self, other: HashCounts) -> HashCounts:
        return HashCounts(self.hashed + other.hashed, self.unhashable + other.unhashable,
                          self.missing + other.missing)


def unhashed_for_promotion(engine: Engine, t: EntityTables) -> list[str]:
    """The photos promotion will compare and that have no hashes yet: every photo of the
    contributing drafts of each entity key with an approved draft."""
    with engine.connect() as conn:
        return list(conn.execute(text(
            f"SELECT DISTINCT i.object_key FROM {t.drafts} a"
            f" JOIN {t.drafts} d ON {same_entity(t, 'd', 'a')}"
            f" JOIN {t.draft_images} i ON i.draft_id = d.id"
            " LEFT JOIN photo_hashes h ON h.photo_key = i.object_key"
            f" WHERE a.status = 'approved' AND NOT a.is_deleted AND {contributes('d')}"
            " AND h.photo_key IS NULL ORDER BY i.object_key")).scalars())


def hash_photos(engine: Engine, store: ObjectStore, keys: Sequence[str], *,
                on_batch: Callable[[HashCounts], None] = lambda counts: None,
                batch_size: int = _BATCH) -> HashCounts:
    """Hash the photos ``keys`` names from their stored bytes, and record them.

    ``on_batch`` hears the counts so far after each batch is recorded: the first promotion
    of a whole archive hashes a million photos, minutes of work that should say how far it
    is (docs/archive-benchmarks.md)."""
    counts = HashCounts()
    with ThreadPoolExecutor(THREADS, thread_name_prefix="photo-hash") as pool:
        for start in range(0, len(keys), batch_size):
            batch = keys[start:start + batch_size]
            made = list(pool.map(lambda key: _hash_stored(store, key), batch))
            rows = sorted((key, h.phash, h.dhash) for key, h in zip(batch, made, strict=True)
                          if isinstance(h, PerceptualHash))
            if rows:
                with engine.begin() as conn:
                    insert_rows(conn, "photo_hashes", ("photo_key", "phash", "dhash"), rows,
                                on_conflict="(photo_key) DO NOTHING")
            counts += HashCounts(len(rows), made.count("unhashable"), made.count("missing"))
            on_batch(counts)
    return counts


def _hash_stored(store: ObjectStore, key: str) -> PerceptualHash | str:
    try:
        return perceptual_hash(store.get(key))
    except KeyError:
        return "missing"
    except UnhashablePhoto:
        return "unhashable"


def forget_hashes(engine: Engine, removed: Sequence[str]) -> int:
    """Drop the hashes of objects media cleanup removed; returns how many went."""
    if not removed:
        return 0
    query = text("DELETE FROM photo_hashes WHERE photo_key IN :keys").bindparams(
        bindparam("keys", expanding=True))
    with engine.begin() as conn:
        return sum(conn.execute(query, {"keys": list(removed[start:start + _BATCH])}).rowcount
                   for start in range(0, len(removed), _BATCH))
