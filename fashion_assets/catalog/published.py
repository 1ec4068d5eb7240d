"""The catalog as the read API publishes it: promoted entries only, a page at a time.

Only the catalog's own tables are read (``brand_runways``, ``street_snaps``, their photos
and the alternates of their looks), which promotion alone writes: a draft, approved or not,
is never among them. Every listing pages by its key (``domain/paging.py``): brands by slug,
shows by brand and season, street albums by city, year and month.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, text

from fashion_assets.catalog.entities import RUNWAY, STREET, EntityTables
from fashion_assets.domain.display_names import designer_name
from fashion_assets.domain.paging import PageRequest, encode_cursor

BRAND_KEY = (str,)
SHOW_KEY = (str, str)
ALBUM_KEY = (str, int, int)

_PHOTO_COLUMNS = ("position", "object_key", "content_type", "width", "height", "byte_size",
                  "source", "source_image_url")
# An alternate: another source's photo of a look a photo shows (catalog/looks.py), with its
# distance to that photo in bits (null where an editor said "same" on a photo never hashed).
_ALTERNATE_COLUMNS = ("object_key", "content_type", "width", "height", "byte_size", "source",
                      "source_image_url", "distance")


@dataclass(frozen=True)
class Page:
    """Rows of a listing, and the cursor of the next page (None: this is the last)."""

    items: list[dict[str, Any]]
    next_cursor: str | None


def brands(engine: Engine, page: PageRequest) -> Page:
    """Brands with at least one show in the catalog, by slug, with their show count."""
    where, params = _after(("b.slug",), page)
    sql = (f"SELECT b.slug, b.display_name, count(*) FROM brands b JOIN brand_runways r"
           f" ON r.brand_slug = b.slug {where} GROUP BY b.slug, b.display_name"
           " ORDER BY b.slug LIMIT :limit")
    rows = _rows(engine, sql, {**params, "limit": page.limit + 1})
    return _page([{"slug": slug, "name": designer_name(slug, name), "shows": int(shows)}
                  for slug, name, shows in rows], page, ("slug",))


def shows(engine: Engine, page: PageRequest, filters: Mapping[str, str | int]) -> Page:
    """Runway shows of the catalog by brand and season, filtered by ``brand``, ``year``,
    ``season``, ``collection_type`` and ``city`` (each optional, exact)."""
    where, params = _after(("r.brand_slug", "r.season_code"), page, filters, "r")
    sql = (f"SELECT {_SHOW_COLUMNS} FROM brand_runways r JOIN brands b ON b.slug = r.brand_slug"
           f" {where} ORDER BY r.brand_slug, r.season_code LIMIT :limit")
    rows = _rows(engine, sql, {**params, "limit": page.limit + 1})
    return _page([_show(row) for row in rows], page, ("brand", "season_code"))


def show(engine: Engine, brand: str, season_code: str) -> dict[str, Any] | None:
    """One show with its photos in order; None when the catalog has no such show."""
    with engine.connect() as conn:
        row = conn.execute(text(
            f"SELECT {_SHOW_COLUMNS}, r.id FROM brand_runways r JOIN brands b"
            " ON b.slug = r.brand_slug WHERE r.brand_slug = :b AND r.season_code = :s"),
            {"b": brand, "s": season_code}).first()
        if row is None:
            return None
        photos = _photos(conn, RUNWAY, row[-1])
    return {**_show(row[:-1]), "photos": photos}


def albums(engine: Engine, page: PageRequest, filters: Mapping[str, str | int]) -> Page:
    """Street-style albums by city, year and month, filtered by ``city`` and ``year``."""
    where, params = _after(("s.city", "s.year", "s.month"), page, filters, "s")
    sql = (f"SELECT {_ALBUM_COLUMNS} FROM street_snaps s {where}"
           " ORDER BY s.city, s.year, s.month LIMIT :limit")
    rows = _rows(engine, sql, {**params, "limit": page.limit + 1})
    return _page([_album(row) for row in rows], page, ("city", "year", "month"))


def album(engine: Engine, city: str, year: int, month: int) -> dict[str, Any] | None:
    """One street-style album with its photos in order; None when there is none."""
    with engine.connect() as conn:
        row = conn.execute(text(
            f"SELECT {_ALBUM_COLUMNS}, s.id FROM street_snaps s"
            " WHERE s.city = :c AND s.year = :y AND s.month = :m"),
            {"c": city, "y": year, "m": month}).first()
        if row is None:
            return None
        photos = _photos(conn, STREET, row[-1])
    return {**_album(row[:-1]), "photos": photos}


def is_published_photo(engine: Engine, object_key: str) -> bool:
    """Whether ``object_key`` is a photo of a catalog entry, shown or an alternate of a look
    it shows: the only photos served."""
    with engine.connect() as conn:
        return conn.execute(text(" UNION ALL ".join(
            f"SELECT 1 FROM {table} WHERE object_key = :k" for t in (RUNWAY, STREET)
            for table in (t.catalog_images, t.catalog_alternates)) + " LIMIT 1"),
            {"k": object_key}).first() is not None


_SHOW_COLUMNS = ("r.brand_slug, b.display_name, r.season_code, r.title, r.season, r.year,"
                 " r.collection_type, r.city, r.updated_at, (SELECT count(*) FROM"
                 " brand_runway_images i WHERE i.runway_id = r.id), (SELECT i.object_key FROM"
                 " brand_runway_images i WHERE i.runway_id = r.id AND i.position = 1)")
_ALBUM_COLUMNS = ("s.city, s.year, s.month, s.title, s.updated_at, (SELECT count(*) FROM"
                  " street_snap_images i WHERE i.snap_id = s.id), (SELECT i.object_key FROM"
                  " street_snap_images i WHERE i.snap_id = s.id AND i.position = 1)")
# The filters each listing takes, to the column each one matches.
SHOW_FILTERS = {"brand": "brand_slug", "year": "year", "season": "season",
                "collection_type": "collection_type", "city": "city"}
ALBUM_FILTERS = {"city": "city", "year": "year"}


def _show(row: Sequence[Any]) -> dict[str, Any]:
    (brand, name, season_code, title, season, year, collection_type, city, updated, photos,
     cover) = row
    return {"brand": brand, "brand_name": designer_name(brand, name), "season_code": season_code,
            "title": title, "season": season, "year": int(year),
            "collection_type": collection_type, "city": city, "updated_at": str(updated),
            "photo_count": int(photos), "cover": cover}


def _album(row: Sequence[Any]) -> dict[str, Any]:
    city, year, month, title, updated, photos, cover = row
    return {"city": city, "year": int(year), "month": int(month), "title": title,
            "updated_at": str(updated), "photo_count": int(photos), "cover": cover}


def _photos(conn: Any, t: EntityTables, entry_id: int) -> list[dict[str, Any]]:
    """An entry's photos in order, each with the alternates of its look (an empty list for
    a look one source alone published)."""
    fk = t.catalog_image_fk
    alternates: dict[str, list[dict[str, Any]]] = {}
    for kept, *row in conn.execute(text(
            f"SELECT kept_key, {', '.join(_ALTERNATE_COLUMNS)} FROM {t.catalog_alternates}"
            f" WHERE {fk} = :id ORDER BY source, object_key"), {"id": entry_id}):
        alternates.setdefault(kept, []).append(dict(zip(_ALTERNATE_COLUMNS, row, strict=True)))
    rows = conn.execute(text(f"SELECT {', '.join(_PHOTO_COLUMNS)} FROM {t.catalog_images}"
                             f" WHERE {fk} = :id ORDER BY position"), {"id": entry_id})
    return [{**dict(zip(_PHOTO_COLUMNS, row, strict=True)),
             "alternates": alternates.get(row[1], [])} for row in rows]


def _after(key: Sequence[str], page: PageRequest, filters: Mapping[str, str | int] = {},
           alias: str = "") -> tuple[str, dict[str, Any]]:
    """The WHERE clause of a page: its filters (column names from the ``*_FILTERS`` maps,
    never from input), and the rows after the cursor's key."""
    known = {**SHOW_FILTERS, **ALBUM_FILTERS}
    clauses = [f"{alias}.{known[name]} = :f_{name}" for name in filters]
    params: dict[str, Any] = {f"f_{name}": value for name, value in filters.items()}
    if page.after is not None:
        marks = ", ".join(f":k{n}" for n in range(len(key)))
        clauses.append(f"({', '.join(key)}) > ({marks})")
        params |= {f"k{n}": value for n, value in enumerate(page.after)}
    return ("WHERE " + " AND ".join(clauses)) if clauses else "", params


def _rows(engine: Engine, sql: str, params: Mapping[str, Any]) -> list[Any]:
    with engine.connect() as conn:
        return list(conn.execute(text(sql), params))


def _page(items: list[dict[str, Any]], page: PageRequest, key: Sequence[str]) -> Page:
    if len(items) <= page.limit:
        return Page(items, None)
    items = items[:page.limit]
    return Page(items, encode_cursor([items[-1][part] for part in key]))
