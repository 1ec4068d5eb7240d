"""The read API described in OpenAPI 3.1, served at ``/api/v1/openapi.json``, the look
search's upload in both its shapes.

Written out rather than generated: the API is small, and its tests check every path here
against the routes the app serves, and every listed parameter against the filters the
catalog takes, so the two cannot drift.
"""

from __future__ import annotations

from typing import Any

from fashion_assets.catalog.look_search import DEFAULT_LIMIT as LOOKS_DEFAULT
from fashion_assets.catalog.look_search import MAX_LIMIT as LOOKS_MAX
from fashion_assets.catalog.published import ALBUM_FILTERS, SHOW_FILTERS
from fashion_assets.catalog_api.uploads import PHOTO_FIELD
from fashion_assets.domain.paging import DEFAULT_LIMIT, MAX_LIMIT

_PAGING = [
    {"name": "limit", "in": "query", "required": False,
     "description": f"Entries a page, 1 to {MAX_LIMIT}.",
     "schema": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT,
                "default": DEFAULT_LIMIT}},
    {"name": "cursor", "in": "query", "required": False,
     "description": "The next_cursor of the page before; none for the first page.",
     "schema": {"type": "string"}},
]
_NUMBERS = {"year"}


def _filter(name: str) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": False,
            "description": f"Only entries whose {name.replace('_', ' ')} is this.",
            "schema": {"type": "integer" if name in _NUMBERS else "string"}}


def _path(name: str, kind: str = "string") -> dict[str, Any]:
    return {"name": name, "in": "path", "required": True, "schema": {"type": kind}}


def _answer(description: str, schema: str) -> dict[str, Any]:
    return {"200": {"description": description, "content": {"application/json": {
        "schema": {"$ref": f"#/components/schemas/{schema}"}}}},
        "400": {"description": "A parameter the API cannot read (the reason is given)."},
        "401": {"description": "A token is configured and the request has none."}}


def _entry(description: str, schema: str, *params: dict[str, Any]) -> dict[str, Any]:
    responses = _answer(description, schema)
    responses["404"] = {"description": "No such entry in the catalog."}
    return {"get": {"summary": description, "parameters": list(params),
                    "responses": responses}}


def _photo_path(description: str) -> dict[str, Any]:
    return {"get": {"summary": description, "parameters": [_path("key")], "responses": {
        "200": {"description": "The image bytes; cached for good (content-addressed).",
                "content": {"image/*": {}}},
        "404": {"description": "No photo of a catalog entry has this key."}}}}


_STRING = {"type": "string"}
_COVER = {"type": ["string", "null"]}
_PHOTO_FIELDS = {
    "object_key": _STRING, "content_type": _STRING,
    "width": {"type": ["integer", "null"]}, "height": {"type": ["integer", "null"]},
    "byte_size": {"type": "integer"}, "source": _STRING, "source_image_url": _STRING,
    "url": _STRING, "thumbnail_url": _STRING}
_ALTERNATE = {"type": "object", "description": (
    "Another source's photo of the look the photo shows, kept beside it (promotion's look "
    "merge); distance: the two photos' perceptual hashes differ in that many bits of 128, "
    "null where an editor joined them"), "properties": {
        **_PHOTO_FIELDS, "distance": {"type": ["integer", "null"]}}}
_PHOTO = {"type": "object", "properties": {
    "position": {"type": "integer"}, **_PHOTO_FIELDS,
    "alternates": {"type": "array", "items": _ALTERNATE}}}
_SHOW_FIELDS = {"brand": _STRING, "brand_name": _STRING, "season_code": _STRING,
                "title": _STRING, "season": _STRING, "year": {"type": "integer"},
                "collection_type": _STRING, "city": {"type": ["string", "null"]},
                "updated_at": _STRING, "photo_count": {"type": "integer"}, "cover": _COVER,
                "cover_thumbnail_url": _COVER}
_ALBUM_FIELDS = {"city": _STRING, "year": {"type": "integer"}, "month": {"type": "integer"},
                 "title": _STRING, "updated_at": _STRING, "photo_count": {"type": "integer"},
                 "cover": _COVER, "cover_thumbnail_url": _COVER}


_BINARY = {"type": "string", "contentMediaType": "application/octet-stream"}
_LOOK = {"type": "object", "description": (
    "A look of the catalog: its entry (a show: brand, season_code, title, season, city; an "
    "album: city, year, month), its position there, the photo the entry shows for it, the "
    "source of the catalog photo closest to the upload (the one shown or an alternate of "
    "another source), and that photo's distance in bits of 128 (pHash and dHash)"),
    "properties": {
        "kind": {"type": "string", "enum": ["runway", "street"]}, "brand": _STRING,
        "season_code": _STRING, "title": _STRING, "season": _STRING,
        "city": {"type": ["string", "null"]}, "year": {"type": "integer"},
        "month": {"type": "integer"}, "position": {"type": "integer"}, "source": _STRING,
        "photo_url": _STRING, "thumbnail_url": _STRING, "distance": {"type": "integer"}}}
_LOOK_SEARCH = {"post": {
    "summary": "The catalog's looks closest to a photo: which show, which look, whose photo.",
    "description": (
        "The photo is the body (Content-Type image/...) or the file field "
        f"{PHOTO_FIELD!r} of a multipart form; it is checked as the crawler checks a photo "
        "(not an image, HTML, cut short, a decompression bomb: 400 with the reason) and "
        "held to FASHION_LOOK_SEARCH_MAX_BYTES (413). Its mirror image is searched too. Only "
        "promoted entries are searched, their shown photos and alternates, never a draft; "
        "each look once, at its closest photo's distance, closest first, and none farther "
        "than `within` bits (then `match` is false)."),
    "parameters": [{"name": "limit", "in": "query", "required": False,
                    "description": f"Looks at most, 1 to {LOOKS_MAX}.",
                    "schema": {"type": "integer", "minimum": 1, "maximum": LOOKS_MAX,
                               "default": LOOKS_DEFAULT}}],
    "requestBody": {"required": True, "content": {
        "image/*": {"schema": _BINARY},
        "multipart/form-data": {"schema": {
            "type": "object", "required": [PHOTO_FIELD],
            "properties": {PHOTO_FIELD: _BINARY}}}}},
    "responses": {
        "200": {"description": "The closest looks (none: no match)", "content": {
            "application/json": {"schema": {"$ref": "#/components/schemas/LookSearch"}}}},
        "400": {"description": "Not a photo the search takes, or a bad parameter: `error` "
                               "says why, `reason` is a code (empty, html, not_an_image, "
                               "truncated, corrupt, too_many_pixels, undecodable, "
                               "content_type, multipart, no_photo; client_gone, to a client that "
                               "left before its upload ended)."},
        "401": {"description": "A token is configured and the request has none."},
        "413": {"description": "The photo is over the size the search takes (reason "
                               "too_large)."},
        "503": {"description": "The search has all the photos it takes at once in hand "
                               "(reason busy): try again after `Retry-After` seconds."}}}}


def _page(item: str) -> dict[str, Any]:
    return {"type": "object", "properties": {
        "items": {"type": "array", "items": {"$ref": f"#/components/schemas/{item}"}},
        "next_cursor": {"type": ["string", "null"],
                        "description": "The cursor of the next page; null on the last."}}}


def openapi_document() -> dict[str, Any]:
    """The API's OpenAPI 3.1 document."""
    return {
        "openapi": "3.1.0",
        "info": {"title": "fashion-assets catalog", "version": "1",
                 "description": "The promoted catalog: runway shows and street-style albums "
                                "with their photos. Drafts are never shown."},
        "paths": {
            "/api/v1/brands": {"get": {
                "summary": "Brands with at least one show in the catalog, by slug.",
                "parameters": _PAGING, "responses": _answer("A page of brands", "BrandPage")}},
            "/api/v1/shows": {"get": {
                "summary": "Runway shows, by brand and season.",
                "parameters": [*_PAGING, *map(_filter, SHOW_FILTERS)],
                "responses": _answer("A page of shows", "ShowPage")}},
            "/api/v1/shows/{brand}/{season_code}": _entry(
                "One runway show with its photos", "Show", _path("brand"),
                _path("season_code")),
            "/api/v1/street": {"get": {
                "summary": "Street-style albums, by city, year and month.",
                "parameters": [*_PAGING, *map(_filter, ALBUM_FILTERS)],
                "responses": _answer("A page of albums", "AlbumPage")}},
            "/api/v1/street/{city}/{year}/{month}": _entry(
                "One street-style album with its photos", "Album", _path("city"),
                _path("year", "integer"), _path("month", "integer")),
            "/api/v1/photos/{key}": _photo_path("A photo of a catalog entry."),
            "/api/v1/photos/{key}/thumbnail": _photo_path("A photo's thumbnail."),
            "/api/v1/looks/search": _LOOK_SEARCH,
            "/api/v1/openapi.json": {"get": {"summary": "This document.", "responses": {
                "200": {"description": "OpenAPI 3.1"}}}},
            "/api/v1/": {"get": {"summary": "What the API serves: each route and what it is "
                                 "for, and where the catalog's pages are.", "responses": {
                "200": {"description": "The routes, by path"}}}},
        },
        "components": {"schemas": {
            "Brand": {"type": "object", "properties": {
                "slug": _STRING, "name": _STRING, "shows": {"type": "integer"}}},
            "BrandPage": _page("Brand"),
            "ShowSummary": {"type": "object", "properties": _SHOW_FIELDS},
            "ShowPage": _page("ShowSummary"),
            "Show": {"type": "object", "properties": {
                **_SHOW_FIELDS, "photos": {"type": "array", "items": _PHOTO}}},
            "AlbumSummary": {"type": "object", "properties": _ALBUM_FIELDS},
            "AlbumPage": _page("AlbumSummary"),
            "Album": {"type": "object", "properties": {
                **_ALBUM_FIELDS, "photos": {"type": "array", "items": _PHOTO}}},
            "LookSearch": {"type": "object", "properties": {
                "within": {"type": "integer", "description": "The farthest a look may be, "
                           "in bits (FASHION_LOOK_SEARCH_WITHIN)."},
                "match": {"type": "boolean"},
                "looks": {"type": "array", "items": _LOOK},
                "catalog_empty": {"type": "boolean", "description": "The catalog has no "
                                  "look to search yet (nothing promoted): no photo matches."}}},
        }},
    }


def api_index(pages: str) -> dict[str, Any]:
    """What ``GET /api/v1/`` answers, the address ``api serve`` prints: every route of the
    OpenAPI document with its summary, and the catalog's pages (``pages``), so that the
    first address a user opens says where everything is instead of a 404."""
    document = openapi_document()
    return {"title": document["info"]["title"], "description": document["info"]["description"],
            "routes": {f"{method.upper()} {path}": operation["summary"]
                       for path, methods in document["paths"].items()
                       for method, operation in methods.items()},
            "catalog_pages": pages}
