"""Photos for the review page: each listed draft's first photo, a photo's thumbnail, and
the content type of a key.

The page serves photos from the object store by key alone; these lookups only add what the
catalog knows about them. A thumbnail (``domain/thumbnails.py``) is made the first time it
is asked for, stored under the sha1 of its bytes and recorded with its photo
(``catalog/derivatives.py``), so each is made once; one the store lost is made again.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import Engine

from fashion_assets.catalog.derivatives import derivative_of, record_derivative
from fashion_assets.catalog.media import draft_content_types, first_photo_keys
from fashion_assets.catalog.review import DraftSummary
from fashion_assets.domain.media import AVIF, GIF, JPEG, PNG, WEBP, sniff_image_type
from fashion_assets.domain.thumbnails import THUMBNAIL, Transform, make_derivative
from fashion_assets.storage import ObjectStore, object_key

_SAFE_TYPES = {JPEG, PNG, GIF, WEBP, AVIF}


def first_photos(engine: Engine, drafts: Iterable[DraftSummary]) -> dict[str, str]:
    """Each draft's first photo key by draft ref, in one query per kind."""
    by_kind: dict[str, dict[int, str]] = {}
    for draft in drafts:
        by_kind.setdefault(draft.kind, {})[draft.id] = draft.ref
    keys = first_photo_keys(engine, by_kind)
    return {by_kind[kind][draft_id]: key
            for kind, found in keys.items() for draft_id, key in found.items()}


def content_type(engine: Engine, key: str, data: bytes) -> str:
    """The photo's type, sniffed from its bytes, else the catalog's; only image types pass.

    Anything else is served as ``application/octet-stream`` (with ``nosniff``), so a stored
    body can never be rendered as a page of this origin.
    """
    sniffed = sniff_image_type(data)  # the crawl's own sniffer: the formats it stores
    if sniffed is not None:
        return sniffed
    recorded = (t for t in draft_content_types(engine, key) if t in _SAFE_TYPES)
    return next(recorded, "application/octet-stream")


def thumbnail(engine: Engine, store: ObjectStore, photo_key: str,
              transform: Transform = THUMBNAIL) -> bytes:
    """The bytes of ``photo_key``'s thumbnail: the stored one, else one made now and kept.

    Raises ``KeyError`` when the photo is not in the store, ``NotAnImage`` when its bytes
    make no thumbnail, and the store's ``StoreError`` when the store cannot be reached.
    """
    stored = derivative_of(engine, photo_key, transform.name)
    if stored is not None:
        try:
            return store.get(stored)
        except KeyError:
            pass  # the store lost it: made again below
    data = make_derivative(store.get(photo_key), transform)
    key = object_key(data)
    store.put(key, data, transform.content_type)
    record_derivative(engine, photo_key, transform.name, key, len(data))
    return data
