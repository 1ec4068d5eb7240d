"""Photos for the review page: thumbnails of listed drafts, and the content type of a key.

The page serves photos from the object store by key alone; these lookups only add what the
catalog knows about them.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import Engine, bindparam, text

from fashion_assets.catalog.entities import ENTITIES
from fashion_assets.catalog.review import DraftSummary
from fashion_assets.domain.media import AVIF, GIF, JPEG, PNG, WEBP, sniff_image_type

_SAFE_TYPES = {JPEG, PNG, GIF, WEBP, AVIF}


def first_photos(engine: Engine, drafts: Iterable[DraftSummary]) -> dict[str, str]:
    """Each draft's first photo key by draft ref, in one query per kind."""
    by_kind: dict[str, dict[int, str]] = {}
    for draft in drafts:
        by_kind.setdefault(draft.kind, {})[draft.id] = draft.ref
    found: dict[str, str] = {}
    with engine.connect() as conn:
        for kind, refs in by_kind.items():
            images = ENTITIES[kind].draft_images
            sql = text(f"SELECT i.draft_id, i.object_key FROM {images} i WHERE i.draft_id IN"
                       f" :ids AND i.position = (SELECT min(j.position) FROM {images} j"
                       " WHERE j.draft_id = i.draft_id)").bindparams(
                bindparam("ids", expanding=True))
            for draft_id, key in conn.execute(sql, {"ids": list(refs)}):
                found[refs[draft_id]] = key
    return found


def content_type(engine: Engine, key: str, data: bytes) -> str:
    """The photo's type, sniffed from its bytes, else the catalog's; only image types pass.

    Anything else is served as ``application/octet-stream`` (with ``nosniff``), so a stored
    body can never be rendered as a page of this origin.
    """
    sniffed = sniff_image_type(data)  # the crawl's own sniffer: the formats it stores
    if sniffed is not None:
        return sniffed
    with engine.connect() as conn:
        for t in ENTITIES.values():
            row = conn.execute(text(f"SELECT content_type FROM {t.draft_images}"
                                    " WHERE object_key = :k LIMIT 1"), {"k": key}).first()
            if row and row[0] in _SAFE_TYPES:
                return str(row[0])
    return "application/octet-stream"
