"""A promoted catalog for the browsing pages' tests: real drafts, a real promotion.

The replica's Vogue shows become drafts with their photos' real bytes in the store, and one
theImpression gallery of a show becomes a second draft of it, so promotion (the same
``catalog/promotion.py`` the job runs, after the same hashing) merges its looks shown again
into alternates. Beside them: a show whose draft waits for review (never to be shown), a
show whose designer and title are markup (to be escaped), and a street-style album. No
crawl: the pages are tested here, the crawl and promotion have their own tests.
"""

from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass, field
from typing import Any

from PIL import Image, ImageOps
from sqlalchemy import Engine, text

from fashion_assets.catalog.entities import RUNWAY, STREET
from fashion_assets.catalog.photo_hashes import hash_photos
from fashion_assets.catalog.promotion import promote
from fashion_assets.catalog.runway import add_brand
from fashion_assets.catalog.sql import insert_rows
from fashion_assets.domain.titles import parse_season_slug
from fashion_assets.replica import build_site
from fashion_assets.replica.images import photo_body
from fashion_assets.replica.site import IMAGE_SIZE, RESEMBLANCE_SAME, ReplicaPhoto
from fashion_assets.storage import ObjectStore
from tests.integration.test_review_app import png

SITE = build_site(brands=2, shows_per_brand=2, photos_per_show=8, hostile=False)
# A theImpression gallery showing some of a Vogue show's looks again.
GALLERY = next(a for a in SITE.impression.iter_articles() if a.brand_slug and any(
    p.resemblance == RESEMBLANCE_SAME for p in a.photos))
HOSTILE_BRAND = ("hostile-house", '<script>alert("brand")</script> & Co')
HOSTILE_SHOW = "fall-2021-ready-to-wear"
HOSTILE_TITLE = '<img src=x onerror=alert(1)> "Fall" & <b>2021</b>'
ALBUM = ("copenhagen", 2024, 2)


@dataclass
class BrowseCatalog:
    """What the catalog holds: promoted shows by (brand, season code), the show only a
    pending draft holds, the street album, and the photos a search may look for."""

    shows: list[tuple[str, str]] = field(default_factory=list)
    pending: tuple[str, str] = ("", "")
    pending_title: str = ""
    merged: tuple[str, str] = (GALLERY.brand_slug or "", GALLERY.season_code or "")
    album: tuple[str, int, int] = ALBUM
    # A photo of a promoted look as no source published it (mirrored, recompressed), and
    # the key of the Vogue photo it was made from.
    copy_of_look: tuple[bytes, str] = (b"", "")
    brand_names: dict[str, str] = field(default_factory=dict)


def key_of(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()


def build_catalog(engine: Engine, store: ObjectStore) -> BrowseCatalog:
    """Drafts for every replica show, the gallery, the hostile show and the album; all
    approved and promoted but the first brand's last show."""
    made = BrowseCatalog()
    for brand in SITE.brands:
        add_brand(engine, brand.slug, brand.name)
        made.brand_names[brand.slug] = brand.name
    add_brand(engine, *HOSTILE_BRAND)
    made.brand_names[HOSTILE_BRAND[0]] = HOSTILE_BRAND[1]
    keys: list[str] = []
    first = SITE.brands[0]
    for show in SITE.iter_shows():
        pending = show is first.shows[-1] and (show.brand_slug, show.season_slug) != made.merged
        photos = [p for p in show.photos if p.fault is None]
        keys += _runway_draft(engine, store, "vogue", show.brand_slug, show.season_slug,
                              show.title, photos, "pending" if pending else "approved")
        if pending:
            made.pending, made.pending_title = (show.brand_slug, show.season_slug), show.title
        else:
            made.shows.append((show.brand_slug, show.season_slug))
    keys += _runway_draft(engine, store, "theimpression", *made.merged, GALLERY.title,
                          [p for p in GALLERY.photos if p.fault is None], "approved")
    _runway_draft(engine, store, "vogue", HOSTILE_BRAND[0], HOSTILE_SHOW, HOSTILE_TITLE,
                  [SITE.brands[1].shows[0].side_galleries[0].photos[0]], "approved")
    made.shows.append((HOSTILE_BRAND[0], HOSTILE_SHOW))
    _album_draft(engine, store)
    hash_photos(engine, store, keys)  # as the promotion job does before it promotes
    promote(engine, RUNWAY)
    promote(engine, STREET)
    same = next(p for p in GALLERY.photos if p.resemblance == RESEMBLANCE_SAME)
    vogue = next(p for s in SITE.iter_shows() for p in s.photos if p.photo_id == same.look_of)
    made.copy_of_look = (mirrored(photo_body(vogue)), key_of(photo_body(vogue)))
    made.shows.sort()
    return made


def mirrored(data: bytes) -> bytes:
    """A photo as a blog might copy it: mirrored and saved again as a JPEG."""
    with Image.open(io.BytesIO(data)) as image:
        flipped = ImageOps.mirror(image.convert("RGB"))
    out = io.BytesIO()
    flipped.save(out, format="JPEG", quality=80)
    return out.getvalue()


def _runway_draft(engine: Engine, store: ObjectStore, source: str, brand: str, code: str,
                  title: str, photos: list[ReplicaPhoto], status: str) -> list[str]:
    season = parse_season_slug(code)
    bodies = [photo_body(p) for p in photos]
    with engine.begin() as conn:
        draft = int(conn.execute(text(
            "INSERT INTO brand_runway_drafts (source, source_url, brand_slug, season_code,"
            " title, season, year, collection_type, status) VALUES (:src, :url, :b, :c, :t,"
            " :season, :year, :kind, :st) RETURNING id"),
            {"src": source, "url": f"https://{source}.example/{brand}/{code}", "b": brand,
             "c": code, "t": title, "season": season.season, "year": season.year,
             "kind": season.collection_type, "st": status}).scalar_one())
        rows: list[tuple[Any, ...]] = []
        for n, (photo, data) in enumerate(zip(photos, bodies, strict=True), start=1):
            store.put(key_of(data), data, "image/jpeg")
            width, height = photo.pixels or IMAGE_SIZE
            rows.append((draft, n, key_of(data), f"https://cdn.{source}.example/{photo.file_name}",
                         "image/jpeg", width, height, len(data)))
        insert_rows(conn, "brand_runway_draft_images",
                    ("draft_id", "position", "object_key", "source_image_url", "content_type",
                     "width", "height", "byte_size"), rows)
    return [key_of(data) for data in bodies]


def _album_draft(engine: Engine, store: ObjectStore) -> None:
    city, year, month = ALBUM
    with engine.begin() as conn:
        if conn.execute(text("SELECT 1 FROM cities WHERE slug = :c"), {"c": city}).first() \
                is None:
            insert_rows(conn, "cities", ("slug", "display_name"), [(city, city.title())])
        draft = int(conn.execute(text(
            "INSERT INTO street_snap_drafts (source, source_url, city, year, month, title,"
            " status) VALUES ('theimpression', 'https://theimpression.example/cph', :c, :y,"
            " :m, 'Copenhagen street style', 'approved') RETURNING id"),
            {"c": city, "y": year, "m": month}).scalar_one())
        rows = []
        for n in range(1, 4):
            data = png(9_000 + n)
            store.put(key_of(data), data, "image/png")
            rows.append((draft, n, key_of(data), f"https://cdn.example/street/{n}.png",
                         "image/png", 8, 12, len(data)))
        insert_rows(conn, "street_snap_draft_images",
                    ("draft_id", "position", "object_key", "source_image_url", "content_type",
                     "width", "height", "byte_size"), rows)
