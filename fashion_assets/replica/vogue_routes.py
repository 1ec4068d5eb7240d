"""Vogue Runway's two origins as URLs: which page or photo each path of the site and CDN
answers with, and the permanent page faults of hostile shows.

Kept apart from the server so the URL scheme of one source (shared/sources.md) reads on its
own, next to theImpression's in ``impression_routes``; transient faults, counting and the
gate are the server's and apply to every origin alike.
"""

from __future__ import annotations

import gzip
from urllib.parse import unquote

from aiohttp import web

from fashion_assets.replica.build import ReplicaSite
from fashion_assets.replica.images import HUGE_BODY_SIZE
from fashion_assets.replica.photo_replies import stored_photo_reply
from fashion_assets.replica.replies import Reply
from fashion_assets.replica.site import ReplicaPhoto
from fashion_assets.replica.vogue_frame import original_url, render_not_found, render_robots
from fashion_assets.replica.vogue_landing import render_landing
from fashion_assets.replica.vogue_listings import render_designer, render_directory, render_season
from fashion_assets.replica.vogue_show import render_show

# How hostile show pages are encoded; every other page is UTF-8, as it declares.
_PAGE_ENCODINGS = {"cp1252_page": "cp1252"}
_HUGE_PAGE_HEAD = b"<!DOCTYPE html><html><head><title>Vogue</title></head><body>"


class VogueRoutes:
    """Replies of Vogue's site and CDN; ``cdn_url`` is set once the CDN listens."""

    def __init__(self, site: ReplicaSite) -> None:
        self.site = site
        self.cdn_url = ""
        self.pages: dict[str, bytes] = {}
        self.not_found = render_not_found().encode()

    def replace_site(self, site: ReplicaSite) -> None:
        """Answer from ``site`` from now on; pages rendered from the old one are forgotten,
        or a cached directory would keep hiding the brands the new site adds."""
        self.site = site
        self.pages.clear()

    def page(self, request: web.Request) -> Reply:
        path = request.path
        if path == "/robots.txt":
            return Reply(200, render_robots(self.site).encode(), "text/plain; charset=utf-8")
        show = self.site.show(path)
        fault = show.page_fault if show is not None else None
        if fault == "page_gone":
            return Reply(404, self.not_found)
        if fault == "page_redirect_offsite":
            return Reply(302, headers={"Location": "http://example.com" + path})
        if fault == "huge_page":
            return Reply(200, stream_size=HUGE_BODY_SIZE, stream_head=_HUGE_PAGE_HEAD,
                         declare_length=False)
        body = self.pages.get(path)
        if body is None:
            html = self._render(path)
            if html is None:
                return Reply(404, self.not_found)
            body = self.pages[path] = html.encode(_PAGE_ENCODINGS.get(fault or "", "utf-8"))
        if fault == "gzip_page":
            return Reply(200, gzip.compress(body, mtime=0), headers={"Content-Encoding": "gzip"})
        return Reply(200, body)

    def _render(self, path: str) -> str | None:
        if path == "/fashion-shows":
            return render_landing(self.site, self.cdn_url)
        if path == "/fashion-shows/designers":
            return render_directory(self.site)
        parts = path.split("/")
        if len(parts) == 3 and parts[1] == "fashion-shows" and parts[2]:
            return render_season(self.site, parts[2], self.cdn_url)
        if len(parts) != 4 or parts[1] != "fashion-shows":
            return None
        if parts[2] == "designer":
            brand = self.site.brand(parts[3])
            return None if brand is None else render_designer(brand, self.cdn_url)
        show = self.site.show(path)
        if show is None:
            return None
        return render_show(self.site, show, self.cdn_url)

    def photo(self, request: web.Request) -> Reply:
        photo = self._photo_at(request.raw_path)
        if photo is None:
            return Reply(404, self.not_found)
        if photo.fault == "redirect_same_cdn" and "/master/pass/" not in request.raw_path:
            return Reply(302, headers={"Location": original_url(self.cdn_url, photo)})
        return stored_photo_reply(request, photo, self.not_found)

    def _photo_at(self, raw_path: str) -> ReplicaPhoto | None:
        """Resolve ``/photos/<id>/master/<w_N,c_limit | pass>/<file>``; only listed widths.

        Read from the path as sent, the file name being everything after the size, decoded
        once on both sides: names holding encoded slashes, dots or NULs (the hostile path
        tricks) are then served at exactly the URL their page gives.
        """
        parts = raw_path.partition("?")[0].split("/", 5)
        if len(parts) != 6 or parts[1] != "photos" or parts[3] != "master":
            return None
        photo = self.site.photo(parts[2])
        if self.site.impression.photo(parts[2]) is not None:
            return None  # a theImpression photo: served by its own origins only
        if photo is None or unquote(parts[5]) != unquote(photo.file_name):
            return None
        size = unquote(parts[4])  # the comma arrives as "," or as "%2C"
        if size == "pass":
            return photo
        width, _, crop = size.partition(",")
        if crop != "c_limit" or not width.startswith("w_") or not width[2:].isdigit():
            return None
        return photo if int(width[2:]) in photo.widths else None
