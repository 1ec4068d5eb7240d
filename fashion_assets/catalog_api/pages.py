"""The catalog people browse: HTML pages of the promoted catalog, served by the read API's
own process under ``/catalog/``.

Designers A-Z, a designer's shows by season, a show's looks as a grid of thumbnails (each a
link to its full photo, with the other source's photos of it), street-style albums by city
and month, an album's photos, and the look search as an upload form. No script: plain links
and one form, so a phone, a keyboard and a screen reader all get the whole catalog.

The pages read what the JSON does (``catalog/published.py``: promoted entries only, never a
draft) and are answered the way it is (``app.py: _Api.cached``): the same token rule, the
same allowed hosts, an ``ETag`` and a ``Cache-Control`` lifetime, ``304`` for a client that
has the page, and answers kept in memory for ``cache_s``. A page names thumbnails only (the
full photo is a link), each ``img`` with its size and ``loading="lazy"``, and one stylesheet
whose URL holds its digest, so it is cached for good. Templates autoescape everything.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from importlib.resources import files
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from fashion_assets.catalog import published
from fashion_assets.catalog.entities import RUNWAY
from fashion_assets.catalog.look_search import DEFAULT_LIMIT, FoundLook, RefusedPhoto
from fashion_assets.catalog_api import browse_views as views
from fashion_assets.catalog_api.search_gate import BUSY_HEADERS, SearchBusy
from fashion_assets.catalog_api.uploads import read_photo
from fashion_assets.domain.look_answers import TOO_LARGE
from fashion_assets.domain.numbers import whole_number
from fashion_assets.domain.paging import MAX_LIMIT, PageRequest, page_request
from fashion_assets.review_app.rendering import heading

if TYPE_CHECKING:
    from fashion_assets.catalog_api.app import _Api

BROWSE = "/catalog"
_STYLESHEET = files("fashion_assets.catalog_api").joinpath("static/browse.css").read_bytes()
STYLESHEET_URL = f"{BROWSE}/browse-{hashlib.sha1(_STYLESHEET).hexdigest()[:12]}.css"
_FOREVER_S = 31_536_000
# Pages load their own stylesheet and the API's photos and post their one form to
# themselves; no script at all, and no framing (clickjacking).
PAGE_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; img-src 'self'; style-src 'self';"
                               " form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
    "X-Content-Type-Options": "nosniff",
}
HTML = "text/html; charset=utf-8"


def page_routes(api: _Api) -> list[Route]:
    """The browsing pages' routes on ``api``."""
    pages = _Pages(api)

    def cached(answer: Callable[[Request], tuple[int, str]]) -> Callable[[Request], Any]:
        return api.cached(answer, pages.encode, HTML, PAGE_HEADERS)

    designers = cached(pages.designers)
    return [
        Route(BROWSE, designers),
        Route(f"{BROWSE}/", designers),
        Route(f"{BROWSE}/designers/{{brand}}", cached(pages.designer)),
        Route(f"{BROWSE}/shows/{{brand}}/{{season_code}}", cached(pages.show)),
        Route(f"{BROWSE}/street", cached(pages.albums)),
        Route(f"{BROWSE}/street/{{city}}/{{year}}/{{month}}", cached(pages.album)),
        Route(f"{BROWSE}/looks/search", cached(pages.search_form), methods=["GET", "HEAD"]),
        Route(f"{BROWSE}/looks/search", pages.search, methods=["POST"]),
        Route(STYLESHEET_URL, pages.stylesheet),
    ]


class _Pages:
    """The page handlers: each reads the catalog as the JSON routes do and renders one
    template; ``encode`` makes bytes of what ``_Api.cached`` keeps and answers."""

    def __init__(self, api: _Api) -> None:
        self.api = api
        self.templates = Environment(
            loader=PackageLoader("fashion_assets.catalog_api"),
            autoescape=select_autoescape(default=True, default_for_string=True))
        self.templates.filters.update(heading=heading)
        self.templates.globals.update(stylesheet=STYLESHEET_URL, browse=BROWSE,
                                      source_name=views.source_name)

    # -- the pages -------------------------------------------------------------------------

    def designers(self, request: Request) -> tuple[int, str]:
        groups = views.by_initial(_every(lambda page: published.brands(self.api.engine, page),
                                         published.BRAND_KEY))
        for group in groups:
            for brand in group.items:
                brand["href"] = _href("designers", brand["slug"])
                brand["count"] = _count(brand["shows"], "show")
        return 200, self.render("designers.html", groups=groups, here="designers")

    def designer(self, request: Request) -> tuple[int, str]:
        slug = request.path_params["brand"]
        shows = _every(lambda page: published.shows(self.api.engine, page, {"brand": slug}),
                       published.SHOW_KEY)
        if not shows:
            return self.not_found("No such designer in the catalog.")
        for show in shows:
            show["href"] = _href("shows", show["brand"], show["season_code"])
            show["label"] = views.season_label(show)
            show["cover_url"] = self._thumbnail(request, show["cover"])
            show["count"] = _count(show["photo_count"], "look") + (
                f" · {show['city']}" if show["city"] else "")
        return 200, self.render("designer.html", name=shows[0]["brand_name"], slug=slug,
                                groups=views.by_season(shows), box=views.PORTRAIT,
                                here="designers")

    def show(self, request: Request) -> tuple[int, str]:
        p = request.path_params
        found = published.show(self.api.engine, p["brand"], p["season_code"])
        if found is None:
            return self.not_found("No such show in the catalog.")
        season = views.season_label(found)
        looks = self._photos(request, found["photos"], lambda n: views.look_alt(
            found["brand_name"], season, n))
        return 200, self.render("show.html", show=found, season=season, looks=looks,
                                designer_href=_href("designers", found["brand"]),
                                here="designers")

    def albums(self, request: Request) -> tuple[int, str]:
        albums = _every(lambda page: published.albums(self.api.engine, page, {}),
                        published.ALBUM_KEY)
        for album in albums:
            album["href"] = _href("street", album["city"], album["year"], album["month"])
            album["label"] = views.month_label(album["year"], album["month"])
            album["cover_url"] = self._thumbnail(request, album["cover"])
            album["count"] = _count(album["photo_count"], "photo")
        return 200, self.render("street.html", groups=views.by_city(albums),
                                box=views.PORTRAIT, here="street")

    def album(self, request: Request) -> tuple[int, str]:
        p = request.path_params
        year, month = whole_number(p["year"]), whole_number(p["month"])
        found = None if year is None or month is None else published.album(
            self.api.engine, p["city"], year, month)
        if found is None:
            return self.not_found("No such street-style album in the catalog.")
        place = f"{views.city_name(found['city'])}, {views.month_label(year, month)}"
        photos = self._photos(request, found["photos"],
                              lambda n: f"Street style, {place}, photo {n}")
        return 200, self.render("album.html", album=found, place=place, photos=photos,
                                here="street")

    def search_form(self, request: Request) -> tuple[int, str]:
        return 200, self.render("search.html", here="search", searched=False,
                                max_mb=self._max_mb())

    async def search(self, request: Request) -> Response:
        """The upload form's answer: the closest looks, by the read API's own search
        (``catalog/look_search.py: find_looks``, the upload read by ``uploads.py``, both
        under the API's ``search_gate.py``), never cached (each photo is its own question);
        a photo it refuses, with the reason; 503 while the search is full."""
        refused = self.api._refused(request)
        if refused is not None:
            return refused
        try:
            async with self.api.searches.admit():
                data = await read_photo(request, self.api.search.upload.max_bytes)
                found = await self.api.searches.find(self.api.engine, data,
                                                     limit=DEFAULT_LIMIT, rules=self.api.search)
        except SearchBusy as error:
            busy = self.html(503, "search.html", here="search", searched=True,
                             max_mb=self._max_mb(),
                             error=f"This photo cannot be searched now: {error}.")
            busy.headers.update(BUSY_HEADERS)
            return busy
        except RefusedPhoto as error:
            return self.html(413 if error.reason == TOO_LARGE else 400, "search.html",
                             here="search", searched=True, max_mb=self._max_mb(),
                             error=f"This photo cannot be searched: {error.detail}")
        results = await run_in_threadpool(self._results, request, found.looks)
        return self.html(200, "search.html", here="search", searched=True, results=results,
                         within=found.within, empty=not found.photos, max_mb=self._max_mb())

    async def stylesheet(self, request: Request) -> Response:
        refused = self.api._refused(request)
        return refused or Response(_STYLESHEET, media_type="text/css", headers={
            **self.api._caching(_FOREVER_S, immutable=True), "X-Content-Type-Options": "nosniff"})

    # -- shared ----------------------------------------------------------------------------

    def render(self, template: str, **context: Any) -> str:
        return self.templates.get_template(template).render(**context)

    def html(self, status: int, template: str, **context: Any) -> HTMLResponse:
        """A page answered as it is, for a request no cache may keep (a search)."""
        return HTMLResponse(self.render(template, **context), status, headers={
            **PAGE_HEADERS, "Cache-Control": "no-store"})

    def not_found(self, message: str) -> tuple[int, str]:
        return 404, self.render("error.html", title="Not found", message=message)

    def encode(self, status: int, payload: Any) -> bytes:
        """A page's bytes; a refused request (``payload``: its error) as a page too."""
        if isinstance(payload, str):
            return payload.encode()
        return self.render("error.html", title="Bad request",
                           message=str(payload.get("error", ""))).encode()

    def _results(self, request: Request, looks: list[FoundLook]) -> list[dict[str, Any]]:
        """The looks a search found as the page lists them: a show's with its designer's
        name and season (from the catalog, one read per show), an album's with its place."""
        shows: dict[tuple[str, str], dict[str, Any] | None] = {}
        results = []
        for look in looks:
            entry, size = look.entry, None
            if look.kind == RUNWAY.kind:
                key = (entry["brand"], entry["season_code"])
                if key not in shows:
                    shows[key] = published.show(self.api.engine, *key)
                show = shows[key] or {**entry, "brand_name": entry["brand"], "photos": []}
                alt = views.look_alt(show["brand_name"], views.season_label(show),
                                     look.position)
                href = _href("shows", *key) + f"#look-{look.position}"
                size = next((p for p in show["photos"] if p["position"] == look.position), {})
            else:
                place = (f"{views.city_name(entry['city'])}, "
                         f"{views.month_label(entry['year'], entry['month'])}")
                alt = f"Street style, {place}, photo {look.position}"
                href = _href("street", entry["city"], entry["year"], entry["month"]) + \
                    f"#photo-{look.position}"
            width, height = views.thumbnail_box((size or {}).get("width"),
                                                (size or {}).get("height"))
            results.append({
                "alt": alt, "show_href": href, "source": look.source,
                "distance": look.distance, "city": entry.get("city") or "",
                "width": width, "height": height,
                "url": self.api._photo_url(request, look.object_key, ""),
                "thumbnail_url": self.api._photo_url(request, look.object_key, "/thumbnail")})
        return results

    def _max_mb(self) -> str:
        return f"{self.api.search.upload.max_bytes / 1_048_576:g}"

    def _thumbnail(self, request: Request, key: str | None) -> str | None:
        return self.api._photo_url(request, key, "/thumbnail")

    def _photos(self, request: Request, photos: list[dict[str, Any]],
                alt: Callable[[int], str]) -> list[dict[str, Any]]:
        """An entry's photos as the grid shows them: thumbnail, full photo, size, alt text,
        and the other source's photos of the same look."""
        def cell(photo: dict[str, Any], text: str, scale: int = 1) -> dict[str, Any]:
            width, height = views.thumbnail_box(photo.get("width"), photo.get("height"))
            width, height = max(1, width // scale), max(1, height // scale)
            key = photo["object_key"]
            return {"alt": text, "width": width, "height": height,
                    "thumbnail_url": self.api._photo_url(request, key, "/thumbnail"),
                    "url": self.api._photo_url(request, key, ""),
                    "source": photo.get("source", "")}

        shown = []
        for photo in photos:
            text = alt(int(photo["position"]))
            shown.append({**cell(photo, text), "position": photo["position"],
                          "alternates": [cell(a, views.alternate_alt(text, a["source"]), 2)
                                         for a in photo.get("alternates", [])]})
        return shown


def _every(fetch: Callable[[PageRequest], published.Page], key: tuple[type, ...]
           ) -> list[dict[str, Any]]:
    """Every row of a listing, a page at a time by its key (``domain/paging.py``): a page
    of the archive's 26,000 shows costs what the first does."""
    rows: list[dict[str, Any]] = []
    cursor: str | None = None
    while True:
        page = fetch(page_request(str(MAX_LIMIT), cursor, key))
        rows += page.items
        if page.next_cursor is None:
            return rows
        cursor = page.next_cursor


def _href(*parts: object) -> str:
    """A page's path from its parts, each escaped whole (a slash in a slug stays in it)."""
    return BROWSE + "".join("/" + quote(str(part), safe="") for part in parts)


def _count(n: int, thing: str) -> str:
    return f"{n} {thing}" + ("" if n == 1 else "s")
