"""The read API's routes: brands, shows and street albums, one entry with its photos, the
photos themselves and their thumbnails, and the OpenAPI description of it all; and beside
them the HTML pages people browse (``pages.py``), answered and cached the same way.

Read-only, and open to anyone unless a token is configured (``token``: then every request
must carry ``Authorization: Bearer <token>``). Answers are JSON with an ``ETag`` and a
``Cache-Control`` lifetime of ``cache_s``; within it, the same request is answered from
memory without a query, and a client that sends the ``ETag`` back gets ``304``. Photos are
content-addressed, so they are cached for good. Only photos of catalog entries are served:
never one that is only in a draft. With a token, every answer is ``private`` and varies by
``Authorization``: a shared cache must not hand it to a client without the token.

Photo URLs name the host the request did, and the API answers only the host names of
``hosts`` (``review_app/hosts.py: AllowedHosts``): no URL is built from a ``Host`` nobody
checked (one holding ``"><script>`` was copied into every photo URL, issue 36).

``POST /api/v1/looks/search`` finds the looks of the catalog closest to an uploaded photo
(``catalog/look_search.py``): the upload read under its cap (``uploads.py``), the search in
the thread pool (a decode, a query, the index's build after a promotion), never cached. A
few searches are taken on at a time (``search_gate.py``): a burst of large uploads is
refused 503 with ``Retry-After`` rather than decoded all at once.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sqlalchemy import Engine
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from fashion_assets.catalog import published
from fashion_assets.catalog.look_search import (
    DEFAULT_LIMIT,
    DEFAULT_RULES,
    MAX_LIMIT,
    RefusedPhoto,
    SearchRules,
)
from fashion_assets.catalog_api.openapi import api_index, openapi_document
from fashion_assets.catalog_api.pages import BROWSE, page_routes
from fashion_assets.catalog_api.search_gate import BUSY_HEADERS, SearchBusy, SearchGate
from fashion_assets.catalog_api.uploads import read_photo
from fashion_assets.domain.look_answers import TOO_LARGE
from fashion_assets.domain.numbers import whole_number
from fashion_assets.domain.paging import PagingError, page_request
from fashion_assets.domain.thumbnails import THUMBNAIL, NotAnImage
from fashion_assets.review_app.hosts import AllowedHosts
from fashion_assets.review_app.media import content_type, thumbnail
from fashion_assets.review_app.request_text import RefuseControlCharacters
from fashion_assets.storage import ObjectStore, StoreError, is_object_key

PREFIX = "/api/v1"
DEFAULT_CACHE_S = 30.0
CACHED_ANSWERS = 2_048
_FOREVER_S = 31_536_000  # a photo's bytes never change under its key


class BadRequest(ValueError):
    """A query parameter the API cannot read: answered 400 with the reason."""


def create_api(engine: Engine, store: ObjectStore, *, cache_s: float = DEFAULT_CACHE_S,
               token: str = "", clock: Callable[[], float] = time.monotonic,
               hosts: Sequence[str] | None = None,
               search: SearchRules = DEFAULT_RULES) -> Starlette:
    """The read API on ``engine`` and ``store``, answering the host names of ``hosts``
    (None: any, for a caller that checks them); the look search by ``search``."""
    api = _Api(engine, store, cache_s, token, clock, search)
    routes = [
        Route(f"{PREFIX}/brands", api.json(api.brands)),
        Route(f"{PREFIX}/shows", api.json(api.shows)),
        Route(f"{PREFIX}/shows/{{brand}}/{{season_code}}", api.json(api.show)),
        Route(f"{PREFIX}/street", api.json(api.albums)),
        # Year and month as text, read by the rule for numbers (``album``): Starlette's
        # ``int`` convertor calls ``int``, which raises past 4,300 digits (a 500).
        Route(f"{PREFIX}/street/{{city}}/{{year}}/{{month}}", api.json(api.album)),
        Route(f"{PREFIX}/photos/{{key}}", api.photo),
        Route(f"{PREFIX}/photos/{{key}}/thumbnail", api.thumbnail),
        Route(f"{PREFIX}/looks/search", api.search_looks, methods=["POST"]),
        Route(f"{PREFIX}/openapi.json", api.json(lambda request: (200, openapi_document()))),
        Route(f"{PREFIX}/", api.json(lambda request: (200, api_index(f"{BROWSE}/")))),
    ]
    routes += page_routes(api)  # the pages people browse (pages.py), on the same answers
    middleware = [Middleware(RefuseControlCharacters)]
    if hosts is not None:
        middleware.insert(0, Middleware(AllowedHosts, allowed=list(hosts)))
    app = Starlette(routes=routes, middleware=middleware)
    app.router.redirect_slashes = False  # Starlette would build its Location from Host
    return app


class _Api:
    def __init__(self, engine: Engine, store: ObjectStore, cache_s: float, token: str,
                 clock: Callable[[], float], search: SearchRules) -> None:
        self.engine, self.store, self.cache_s, self.token = engine, store, cache_s, token
        self.clock, self.search = clock, search
        self.searches = SearchGate()  # the look searches in hand, both routes'
        # Answers by URL, the least recently used first; written from the thread pool.
        self.answers: OrderedDict[str, tuple[float, bytes, str, int]] = OrderedDict()
        self.answers_lock = threading.Lock()

    # -- the JSON answers ------------------------------------------------------------------

    def brands(self, request: Request) -> tuple[int, Any]:
        _filters(request, {}, numbers=())
        page = page_request(*_paging(request), published.BRAND_KEY)
        return 200, self._listing(request, published.brands(self.engine, page))

    def shows(self, request: Request) -> tuple[int, Any]:
        page = page_request(*_paging(request), published.SHOW_KEY)
        filters = _filters(request, published.SHOW_FILTERS, numbers=("year",))
        return 200, self._listing(request, published.shows(self.engine, page, filters))

    def show(self, request: Request) -> tuple[int, Any]:
        found = published.show(self.engine, request.path_params["brand"],
                               request.path_params["season_code"])
        return (404, {"error": "no such show in the catalog"}) if found is None \
            else (200, self._with_photo_urls(request, found))

    def albums(self, request: Request) -> tuple[int, Any]:
        page = page_request(*_paging(request), published.ALBUM_KEY)
        filters = _filters(request, published.ALBUM_FILTERS, numbers=("year",))
        return 200, self._listing(request, published.albums(self.engine, page, filters))

    def album(self, request: Request) -> tuple[int, Any]:
        p = request.path_params
        year, month = whole_number(p["year"]), whole_number(p["month"])
        if year is None or month is None:  # no album has them, no column holds them
            return 404, {"error": "no such street-style album in the catalog"}
        found = published.album(self.engine, p["city"], year, month)
        return (404, {"error": "no such street-style album in the catalog"}) if found is None \
            else (200, self._with_photo_urls(request, found))

    def json(self, answer: Callable[[Request], tuple[int, Any]]
             ) -> Callable[[Request], Any]:
        """A route answering JSON: checked for the token, from memory within ``cache_s``,
        ``304`` for a client that has this very answer."""
        return self.cached(answer, _json_body, "application/json")

    def cached(self, answer: Callable[[Request], tuple[int, Any]],
               encode: Callable[[int, Any], bytes], media_type: str,
               headers: Mapping[str, str] | None = None) -> Callable[[Request], Any]:
        """A route whose answer ``encode`` makes bytes of (JSON here, the browsing pages'
        HTML in ``pages.py``): one cache, one ``ETag`` and one token rule for both, so a
        page is as cheap to ask again as the JSON it shows. ``headers`` go on every answer."""
        async def endpoint(request: Request) -> Response:
            refused = self._refused(request)
            if refused is not None:
                return refused
            cache_key = str(request.url.include_query_params())
            status, body, etag = self._cached(cache_key) or await run_in_threadpool(
                self._answer, answer, encode, request, cache_key)
            sent = {**(headers or {}), "ETag": etag, **self._caching(int(self.cache_s))}
            if status == 200 and request.headers.get("if-none-match") == etag:
                return Response(status_code=304, headers=sent)
            return Response(body, status_code=status, headers=sent, media_type=media_type)
        return endpoint

    def _answer(self, answer: Callable[[Request], tuple[int, Any]],
                encode: Callable[[int, Any], bytes], request: Request,
                cache_key: str) -> tuple[int, bytes, str]:
        try:
            status, payload = answer(request)
        except (BadRequest, PagingError) as error:
            status, payload = 400, {"error": str(error)}
        body = encode(status, payload)
        etag = f'"{hashlib.sha1(body).hexdigest()}"'
        if status in (200, 404):
            with self.answers_lock:
                self.answers[cache_key] = (self.clock() + self.cache_s, body, etag, status)
                self.answers.move_to_end(cache_key)
                while len(self.answers) > CACHED_ANSWERS:
                    self.answers.popitem(last=False)
        return status, body, etag

    def _cached(self, cache_key: str) -> tuple[int, bytes, str] | None:
        with self.answers_lock:
            cached = self.answers.get(cache_key)
            if cached is None or cached[0] <= self.clock():
                return None
            self.answers.move_to_end(cache_key)
        _, body, etag, status = cached
        return status, body, etag

    # -- photos ----------------------------------------------------------------------------

    async def photo(self, request: Request) -> Response:
        return await self._photo(request, self._full)

    async def thumbnail(self, request: Request) -> Response:
        return await self._photo(request, self._thumbnail)

    def _full(self, key: str) -> tuple[bytes, str]:
        data = self.store.get(key)
        return data, content_type(self.engine, key, data)

    def _thumbnail(self, key: str) -> tuple[bytes, str]:
        return thumbnail(self.engine, self.store, key), THUMBNAIL.content_type

    async def _photo(self, request: Request, read: Callable[[str], tuple[bytes, str]]
                     ) -> Response:
        """A photo of a catalog entry (``read``: its bytes and type, from the store); the
        key is checked before it reaches the catalog or the store."""
        refused = self._refused(request)
        if refused is not None:
            return refused
        key = request.path_params["key"]
        if not is_object_key(key) or not await run_in_threadpool(
                published.is_published_photo, self.engine, key):
            return JSONResponse({"error": "no such photo in the catalog"}, status_code=404)
        try:
            data, kind = await run_in_threadpool(read, key)
        except (KeyError, NotAnImage):
            return JSONResponse({"error": "the photo is missing from the store"},
                                status_code=404)
        except StoreError:
            return JSONResponse({"error": "the object store cannot be reached"},
                                status_code=503)
        return Response(data, media_type=kind, headers={
            **self._caching(_FOREVER_S, immutable=True), "X-Content-Type-Options": "nosniff"})

    # -- the look search --------------------------------------------------------------------

    async def search_looks(self, request: Request) -> Response:
        """The catalog's looks closest to the uploaded photo; 400 with the reason for an
        upload that is no photo, 413 for one over the cap, 503 while the search has all
        the photos it takes in hand (``search_gate.py``)."""
        refused = self._refused(request)
        if refused is not None:
            return refused
        try:
            limit = _search_limit(request)
            async with self.searches.admit():
                data = await read_photo(request, self.search.upload.max_bytes)
                found = await self.searches.find(self.engine, data, limit=limit,
                                                 rules=self.search)
        except BadRequest as error:
            return JSONResponse({"error": str(error)}, status_code=400)
        except SearchBusy as error:
            return JSONResponse({"error": str(error), "reason": "busy"}, status_code=503,
                                headers=BUSY_HEADERS)
        except RefusedPhoto as error:
            return JSONResponse({"error": error.detail, "reason": error.reason},
                                status_code=413 if error.reason == TOO_LARGE else 400)
        looks = [{**look.fields(), "photo_url": self._photo_url(request, look.object_key, ""),
                  "thumbnail_url": self._photo_url(request, look.object_key, "/thumbnail")}
                 for look in found.looks]
        return JSONResponse({"within": found.within, "match": found.match, "looks": looks,
                             "catalog_empty": not found.photos},
                            headers={"Cache-Control": "no-store"})

    # -- shared ----------------------------------------------------------------------------

    def _caching(self, max_age: int, *, immutable: bool = False) -> dict[str, str]:
        """How long caches keep an answer; with a token, the client's cache alone, by token."""
        lifetime = f"max-age={max_age}" + (", immutable" if immutable else "")
        if not self.token:
            return {"Cache-Control": f"public, {lifetime}"}
        return {"Cache-Control": f"private, {lifetime}", "Vary": "Authorization"}

    def _refused(self, request: Request) -> Response | None:
        if not self.token:
            return None
        given = request.headers.get("authorization", "")
        if hmac.compare_digest(given.encode(), f"Bearer {self.token}".encode()):
            return None
        return JSONResponse({"error": "this API needs a token: Authorization: Bearer ..."},
                            status_code=401, headers={"WWW-Authenticate": "Bearer"})

    def _listing(self, request: Request, page: published.Page) -> dict[str, Any]:
        items = [{**item, "cover_thumbnail_url": self._photo_url(request, item["cover"],
                                                                   "/thumbnail")}
                 if "cover" in item else item for item in page.items]
        return {"items": items, "next_cursor": page.next_cursor}

    def _with_photo_urls(self, request: Request, entry: dict[str, Any]) -> dict[str, Any]:
        def urls(photo: dict[str, Any]) -> dict[str, Any]:
            return {**photo, "url": self._photo_url(request, photo["object_key"], ""),
                    "thumbnail_url": self._photo_url(request, photo["object_key"],
                                                     "/thumbnail")}

        photos = [{**urls(photo), "alternates": [urls(a) for a in photo["alternates"]]}
                  for photo in entry["photos"]]
        return {**entry, "cover_thumbnail_url": self._photo_url(request, entry["cover"],
                                                                "/thumbnail"),
                "photos": photos}

    @staticmethod
    def _photo_url(request: Request, key: str | None, suffix: str) -> str | None:
        return None if key is None else str(request.base_url).rstrip("/") + \
            f"{PREFIX}/photos/{key}{suffix}"


def _json_body(status: int, payload: Any) -> bytes:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()


def _search_limit(request: Request) -> int:
    """The search's ``limit`` (its only parameter): 1 to ``MAX_LIMIT`` looks."""
    unknown = set(request.query_params) - {"limit"}
    if unknown:
        raise BadRequest(f"unknown parameter {sorted(unknown)[0]!r}: the search takes limit")
    raw = request.query_params.get("limit") or str(DEFAULT_LIMIT)
    limit = whole_number(raw, 1, MAX_LIMIT)
    if limit is None:
        raise BadRequest(f"limit must be a whole number from 1 to {MAX_LIMIT}, "
                         f"not {raw[:20]!r}")
    return limit


def _paging(request: Request) -> tuple[str | None, str | None]:
    return request.query_params.get("limit"), request.query_params.get("cursor")


def _filters(request: Request, known: Mapping[str, str], numbers: tuple[str, ...]
             ) -> dict[str, str | int]:
    """The listing's filters present in the query string; a number filter must be one."""
    unknown = set(request.query_params) - set(known) - {"limit", "cursor"}
    if unknown:
        raise BadRequest(f"unknown parameter {sorted(unknown)[0]!r}: this listing takes "
                         + ", ".join([*known, "limit", "cursor"]))
    filters: dict[str, str | int] = {}
    for name in known:
        value = request.query_params.get(name)
        if value is None or value == "":
            continue
        if name in numbers:
            number = whole_number(value)
            if number is None:
                raise BadRequest(f"{name} must be a whole number of at most 64 bits, "
                                 f"not {value[:20]!r}")
            filters[name] = number
        else:
            filters[name] = value
    return filters
