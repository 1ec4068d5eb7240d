"""A toy third source, "toyrunway", added the way docs/architecture.md says a new site is:
one module holding its adapter (pure page readers) and its declaration (``TOY``), plus the
replica site that serves it (``ToySite``) for its tests.

The toy lists its runway galleries per season, like theImpression, under designer names
that resolve to the catalog's brands; its photos partly repeat Vogue's (the same bytes) and
partly add looks of its own, so promotion has something to merge. Nothing outside this
module names it: the pipeline takes it from the ``sources`` given to ``build_definitions``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from html import escape
from urllib.parse import urljoin

from parsel import Selector

from fashion_assets.domain.titles import parse_show_title, season_slug_for
from fashion_assets.replica import ReplicaPhoto, ReplicaShow, ReplicaSite, photo_body
from fashion_assets.replica.replies import Reply
from fashion_assets.sources.errors import PageParseError
from fashion_assets.sources.pages import ListedArticle, ListingPage
from fashion_assets.sources.registry import RunwayNames, SeasonListings, Source

SOURCE = "toyrunway"
PUBLIC_BASE_URL = "https://runway.example"
TITLE_SEPARATOR = " | "


# -- the adapter ---------------------------------------------------------------------------

@dataclass(frozen=True)
class GalleryImage:
    position: int
    url: str
    caption: str


@dataclass(frozen=True)
class GalleryPage:
    title: str
    images: tuple[GalleryImage, ...]
    expected_images: int
    skipped: tuple[str, ...]


def listing_path(season_code: str, page: int = 1) -> str:
    return f"/seasons/{season_code}/" + (f"page/{page}/" if page > 1 else "")


def parse_listing_page(html: str, page_url: str) -> ListingPage:
    """A season page: ``ul.galleries`` of ``a[data-designer]`` links, a ``rel=next``."""
    page = Selector(html)
    if not page.css("ul.galleries"):
        raise PageParseError("no_listing", f"{page_url}: no gallery list")
    articles, skipped = [], []
    for link in page.css("ul.galleries a"):
        path, title = link.attrib.get("href", ""), " ".join(link.css("::text").getall()).strip()
        if not path.startswith("/shows/") or not title:
            skipped.append(f"entry without a show link or title: {path!r}")
            continue
        articles.append(ListedArticle(title, path, link.attrib.get("data-designer")))
    return ListingPage(page.css("h1::text").get("").strip(), tuple(articles),
                       page.css("a[rel=next]::attr(href)").get(), tuple(skipped))


def read_entry(title: str, designer: str | None) -> tuple[str, str, str]:
    """``Designer | Spring 2020 Ready-to-Wear`` -> (designer, show title, season code)."""
    named, _, show_title = title.partition(TITLE_SEPARATOR)
    if not show_title:
        raise PageParseError("bad_title", f"no {TITLE_SEPARATOR!r} in {title!r}")
    return designer or named, show_title, season_slug_for(parse_show_title(show_title))


def parse_gallery(html: str, page_url: str, image_hosts: Collection[str]) -> GalleryPage:
    """A show page: its ``h1``, ``figure img`` photos in order, the announced count."""
    page = Selector(html)
    count = page.css("[data-photo-count]::attr(data-photo-count)").get()
    if count is None:
        raise PageParseError("no_gallery", f"{page_url}: no photo count")
    images = tuple(GalleryImage(n, urljoin(page_url, src), "")
                   for n, src in enumerate(page.css("figure img::attr(src)").getall(), start=1))
    return GalleryPage(page.css("h1::text").get("").strip(), images, int(count), ())


TOY = Source(
    name=SOURCE, label="Toy Runway", public_base_url=PUBLIC_BASE_URL,
    base_url=PUBLIC_BASE_URL, image_hosts="runway.example", read_gallery=parse_gallery,
    runway_listing=SeasonListings(listing_path, parse_listing_page, read_entry),
    runway_names=RunwayNames.of(SOURCE), replica_pages=SOURCE, replica_images=(SOURCE,))


# -- the replica site ----------------------------------------------------------------------

def _photo_id(name: str) -> str:
    """A replica photo id (hex, as the replica's photos draw their pixels from it)."""
    return hashlib.sha1(f"toy:{name}".encode()).hexdigest()[:24]


@dataclass(frozen=True)
class ToyShow:
    show: ReplicaShow
    designer: str
    photos: tuple[ReplicaPhoto, ...]  # Vogue's first looks, then looks of its own

    @property
    def path(self) -> str:
        return f"/shows/{self.show.brand_slug}-{self.show.season_slug}/"


class ToySite:
    """The toy site: for each show of ``brands``, a gallery with ``shared`` of Vogue's
    looks and ``own`` looks only it has; ``per_page`` galleries per listing page."""

    def __init__(self, site: ReplicaSite, brands: Sequence[str], *, shared: int, own: int,
                 per_page: int = 2) -> None:
        self.per_page = per_page
        self.shows = [
            ToyShow(show, brand.name, (*show.photos[:shared], *(
                ReplicaPhoto(_photo_id(f"{show.brand_slug}/{show.season_slug}/{n}"),
                             f"look-{n}.jpg", "jpeg", (800,)) for n in range(1, own + 1))))
            for brand in site.brands if brand.slug in brands for show in brand.shows]
        self.photos = {f"/photos/{p.photo_id}.jpg": p for s in self.shows for p in s.photos}

    def season(self, code: str) -> list[ToyShow]:
        return [s for s in self.shows if s.show.season_slug == code]

    def kind(self, path: str) -> str:
        return "image" if path.startswith("/photos/") else "page"

    def reply(self, path: str, origin_url: str) -> Reply:
        if path == "/robots.txt":
            return Reply(200, b"User-agent: *\nAllow: /\n", "text/plain")
        if path in self.photos:
            return Reply(200, photo_body(self.photos[path]), "image/jpeg")
        html = self._listing(path) or self._show(path)
        return Reply(200, html.encode()) if html else Reply(404, b"Not Found")

    def _listing(self, path: str) -> str | None:
        parts = path.strip("/").split("/")
        if parts[0] != "seasons" or len(parts) not in (2, 4):
            return None
        page = int(parts[3]) if len(parts) == 4 else 1
        shows = self.season(parts[1])
        chunk = shows[(page - 1) * self.per_page:page * self.per_page]
        if not chunk:
            return None
        items = "".join(
            f'<li><a href="{s.path}" data-designer="{escape(s.designer)}">'
            f"{escape(s.designer)}{TITLE_SEPARATOR}{escape(s.show.title)}</a></li>"
            for s in chunk)
        more = len(shows) > page * self.per_page
        next_link = f'<a rel="next" href="{listing_path(parts[1], page + 1)}">next</a>'
        return (f"<html><body><h1>{escape(parts[1])}</h1><ul class=galleries>{items}</ul>"
                f"{next_link if more else ''}</body></html>")

    def _show(self, path: str) -> str | None:
        show = next((s for s in self.shows if s.path == path), None)
        if show is None:
            return None
        figures = "".join(f'<figure><img src="/photos/{p.photo_id}.jpg"></figure>'
                          for p in show.photos)
        return (f"<html><body><h1>{escape(show.show.title)}</h1>"
                f'<p data-photo-count="{len(show.photos)}"></p>{figures}</body></html>')
