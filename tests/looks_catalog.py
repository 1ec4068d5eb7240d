"""A catalog of the replica's Vogue shows (and a street-style album) for the look search's
tests: drafts of their photos written as a crawl writes them, hashed and promoted by the
promotion's own code (``catalog/photo_hashes.py``, ``catalog/promotion.py``), on a real
catalog database, the photos in a real store. theImpression's copies of the looks
(``replica/impression.py: _of_vogue_look``: the look cropped, resized, recompressed, or one
that only resembles it) are what the tests search with.
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Sequence
from datetime import date
from typing import Any

from PIL import Image
from sqlalchemy import Connection, Engine, text

from fashion_assets.catalog.entities import RUNWAY, STREET
from fashion_assets.catalog.photo_hashes import hash_photos, unhashed_for_promotion
from fashion_assets.catalog.promotion import promote
from fashion_assets.catalog.runway import add_brand
from fashion_assets.catalog.sql import insert_rows
from fashion_assets.domain.media import sniff_image_type
from fashion_assets.replica import build_site
from fashion_assets.replica.images import photo_body
from fashion_assets.replica.site import ReplicaPhoto
from fashion_assets.storage import ObjectStore

SITE = build_site(brands=2, shows_per_brand=2, photos_per_show=24, hostile=False)
SHOWS = list(SITE.iter_shows())
GALLERIES = {(g.brand_slug, g.season_code): g for g in SITE.impression.iter_articles()
             if g.brand_slug}
ALBUM = next(a for a in SITE.impression.iter_articles() if not a.brand_slug)


def key_of(photo: ReplicaPhoto) -> str:
    return hashlib.sha1(photo_body(photo)).hexdigest()


def gallery_of(show: Any) -> Any:
    """theImpression's gallery of a Vogue show of the replica."""
    return GALLERIES[(show.brand_slug, show.season_slug)]


def add_draft(engine: Engine, store: ObjectStore, source: str, show: Any,
              photos: Sequence[ReplicaPhoto], status: str) -> int:
    """A draft of ``show`` by ``source`` holding ``photos`` (stored), as a crawl leaves it."""
    add_brand(engine, show.brand_slug)
    with engine.begin() as conn:
        draft = int(conn.execute(text(
            "INSERT INTO brand_runway_drafts (source, source_url, brand_slug, season_code,"
            " title, season, year, status) VALUES (:src, :url, :b, :s, :t, :season, :y, :st)"
            " RETURNING id"), {
                "src": source, "url": f"https://{source}.example{show.path}",
                "b": show.brand_slug, "s": show.season_slug, "t": show.title,
                "season": show.season_slug.split("-")[0], "y": show.event_date.year,
                "st": status}).scalar_one())
        _add_photos(conn, store, "brand_runway_draft_images", draft, photos)
    return draft


def add_album(engine: Engine, store: ObjectStore, album: Any, city: str, when: date) -> int:
    """An approved draft of theImpression's street-style ``album`` in ``city``, that month."""
    with engine.begin() as conn:
        insert_rows(conn, "cities", ("slug", "display_name"), [(city, city.title())],
                    on_conflict="(slug) DO NOTHING")
        draft = int(conn.execute(text(
            "INSERT INTO street_snap_drafts (source, source_url, city, year, month, title,"
            " status) VALUES ('theimpression', :url, :c, :y, :m, :t, 'approved')"
            " RETURNING id"), {"url": f"https://theimpression.example/{album.slug}",
                               "c": city, "y": when.year, "m": when.month,
                               "t": album.title}).scalar_one())
        _add_photos(conn, store, "street_snap_draft_images", draft, album.photos)
    return draft


def _add_photos(conn: Connection, store: ObjectStore, table: str, draft: int,
                photos: Sequence[ReplicaPhoto]) -> None:
    """The draft's photos, stored and listed in order."""
    rows = []
    for position, photo in enumerate(photos, start=1):
        body = photo_body(photo)
        kind = sniff_image_type(body) or "image/jpeg"
        store.put(key_of(photo), body, kind)
        rows.append((draft, position, key_of(photo), f"https://cdn.example/{photo.file_name}",
                     kind, None, None, len(body)))
    insert_rows(conn, table, ("draft_id", "position", "object_key", "source_image_url",
                              "content_type", "width", "height", "byte_size"), rows)


def promote_approved(engine: Engine, store: ObjectStore) -> None:
    """What the promotion job does: hash the photos it will compare, then promote."""
    for kind in (RUNWAY, STREET):
        hash_photos(engine, store, unhashed_for_promotion(engine, kind))
        promote(engine, kind)


def approve(engine: Engine, show: Any) -> None:
    with engine.begin() as conn:
        conn.execute(text("UPDATE brand_runway_drafts SET status = 'approved' WHERE"
                          " brand_slug = :b AND season_code = :s"),
                     {"b": show.brand_slug, "s": show.season_slug})


def position_of(engine: Engine, show: Any, object_key: str) -> int:
    """Where the catalog entry of ``show`` shows the photo ``object_key``."""
    with engine.connect() as conn:
        return int(conn.execute(text(
            "SELECT i.position FROM brand_runway_images i JOIN brand_runways r"
            " ON r.id = i.runway_id WHERE r.brand_slug = :b AND r.season_code = :s"
            " AND i.object_key = :k"),
            {"b": show.brand_slug, "s": show.season_slug, "k": object_key}).scalar_one())


def mirrored(data: bytes) -> bytes:
    """The photo flipped left to right, as a lossless PNG (the flip alone changes it)."""
    with Image.open(io.BytesIO(data)) as image:
        out = io.BytesIO()
        image.transpose(Image.Transpose.FLIP_LEFT_RIGHT).save(out, "PNG")
    return out.getvalue()
