"""The looks an editor sees on a draft's page, and what the editor decides about them.

For the draft's entity key: the pairs its catalog entry merged (the photo it shows and the
alternate beside it), and the pairs that may be one look but are too far apart to merge
without an editor (``domain/looks.py``: uncertain). Those are worked out the way promotion
would merge the entity with this draft approved, so an editor reviewing a new draft sees
them before it is promoted.

A decision ("same look" or "different looks") is kept by the pair's object keys and merges
the entry again at once (``catalog/promotion.py: remerge``); every later promotion follows
it, so a split pair stays split.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection, Engine, text

from fashion_assets.catalog.entities import EntityTables, contributes, same_entity
from fashion_assets.catalog.looks import decisions_among, record_look_decision
from fashion_assets.catalog.photo_hashes import hash_photos
from fashion_assets.catalog.promotion import remerge
from fashion_assets.domain.looks import DEFAULT_LOOK_RULES, LookPhoto, PairDecision, merge_looks
from fashion_assets.domain.perceptual_hash import PerceptualHash
from fashion_assets.domain.promotion import DraftForPromotion, DraftPhoto, merge_photos
from fashion_assets.storage import ObjectStore


class LookDecisionError(ValueError):
    """A decision the page cannot take: a photo that is not of the draft's entity."""


@dataclass(frozen=True)
class LookPair:
    """Two photos of one entity from different sources, and their distance in bits
    (pHash and dHash together; None when either was never hashed)."""

    first_key: str
    first_source: str
    second_key: str
    second_source: str
    distance: int | None


@dataclass(frozen=True)
class DraftLooks:
    """``merged``: the entry's looks shown by one photo (first) with an alternate (second);
    ``uncertain``: pairs left for an editor."""

    merged: tuple[LookPair, ...]
    uncertain: tuple[LookPair, ...]


def draft_looks(engine: Engine, store: ObjectStore, t: EntityTables, draft_id: int
                ) -> DraftLooks:
    """The looks of the draft's entity as its page shows them. Photos never hashed yet (a
    new draft's) are hashed from the store first, once, as thumbnails are made."""
    with engine.connect() as conn:
        photos = _entity_photos(conn, t, draft_id)
    unhashed = [p.object_key for p in photos if p.hashes is None]
    if unhashed and hash_photos(engine, store, unhashed).hashed:
        with engine.connect() as conn:
            photos = _entity_photos(conn, t, draft_id)
    with engine.connect() as conn:
        merged = _alternates(conn, t, draft_id)
        decisions = decisions_among(conn, [p.object_key for p in photos])
    merge = merge_looks(photos, DEFAULT_LOOK_RULES, decisions)
    source = {p.object_key: p.source for p in photos}
    uncertain = tuple(LookPair(u.first_key, source[u.first_key], u.second_key,
                               source[u.second_key], u.distance) for u in merge.uncertain)
    return DraftLooks(merged, uncertain)


def decide_look_pair(engine: Engine, t: EntityTables, draft_id: int, first_key: str,
                     second_key: str, decision: PairDecision, editor: str) -> str:
    """Record ``editor``'s decision on two photos of the draft's entity and merge its entry
    again; returns what changed, for the page to say."""
    with engine.begin() as conn:
        known = {p.object_key for p in _entity_photos(conn, t, draft_id)}
        known |= {key for pair in _alternates(conn, t, draft_id)
                  for key in (pair.first_key, pair.second_key)}
        if first_key == second_key or not {first_key, second_key} <= known:
            raise LookDecisionError("both photos must be photos of this draft's show or album")
        record_look_decision(conn, first_key, second_key, decision, editor)
        key = _entry_key(conn, t, draft_id)
        if key is not None:
            remerge(conn, t, key)
    said = "one look" if decision is PairDecision.SAME else "different looks"
    return (f"marked as {said}" + ("; the catalog entry follows it now" if key is not None
                                   else "; promotion will follow it"))


def _entity_photos(conn: Connection, t: EntityTables, draft_id: int) -> list[LookPhoto]:
    """The photos of the entity's contributing drafts and of this draft, in the order
    promotion merges them (``domain/promotion.py: merge_photos``), each key once."""
    rows = conn.execute(text(
        f"SELECT d.id, d.source, i.position, i.object_key, i.width, i.height, h.phash, h.dhash"
        f" FROM {t.drafts} me JOIN {t.drafts} d ON {same_entity(t, 'd', 'me')}"
        f" JOIN {t.draft_images} i ON i.draft_id = d.id"
        " LEFT JOIN photo_hashes h ON h.photo_key = i.object_key"
        f" WHERE me.id = :id AND (d.id = me.id OR {contributes('d')})"
        " ORDER BY d.id, i.position"), {"id": draft_id}).all()
    drafts: dict[int, tuple[str, list[DraftPhoto]]] = {}
    looks: dict[str, LookPhoto] = {}
    for draft, source, position, key, width, height, phash, dhash in rows:
        drafts.setdefault(draft, (source, []))[1].append(DraftPhoto(position, key))
        hashes = PerceptualHash(phash, dhash) if phash is not None else None
        looks.setdefault(key, LookPhoto(key, source, width, height, hashes))
    merged = merge_photos(DraftForPromotion(draft, source, "approved", False, tuple(photos))
                          for draft, (source, photos) in drafts.items())
    return [looks[photo.object_key] for photo in merged]


def _alternates(conn: Connection, t: EntityTables, draft_id: int) -> tuple[LookPair, ...]:
    fk = t.catalog_image_fk
    rows = conn.execute(text(
        f"SELECT a.kept_key, i.source, a.object_key, a.source, a.distance"
        f" FROM {t.drafts} d JOIN {t.catalog} c ON {same_entity(t, 'c', 'd')}"
        f" JOIN {t.catalog_alternates} a ON a.{fk} = c.id"
        f" JOIN {t.catalog_images} i ON i.{fk} = c.id AND i.object_key = a.kept_key"
        " WHERE d.id = :id ORDER BY i.position, a.source"), {"id": draft_id}).all()
    return tuple(LookPair(*row) for row in rows)


def _entry_key(conn: Connection, t: EntityTables, draft_id: int) -> tuple[object, ...] | None:
    row = conn.execute(text(
        f"SELECT {', '.join(f'c.{column}' for column in t.key)} FROM {t.drafts} d"
        f" JOIN {t.catalog} c ON {same_entity(t, 'c', 'd')} WHERE d.id = :id"),
        {"id": draft_id}).first()
    return tuple(row) if row is not None else None
