"""theImpression's two origins as URLs: which page or photo each path of the WordPress site
(pages, robots, uploads) and of its image CDN answers with.

Kept apart from the server so this source's URL scheme (docs/theimpression.md) reads on its
own, next to Vogue's in ``vogue_routes``; transient faults, counting and the gate are the
server's and apply to every origin alike.
"""

from __future__ import annotations

from aiohttp import web

from fashion_assets.replica import impression_pages
from fashion_assets.replica.build import ReplicaSite
from fashion_assets.replica.photo_replies import stored_photo_reply
from fashion_assets.replica.replies import Reply


class ImpressionRoutes:
    """Replies of theImpression's site and CDN; ``url`` and ``cdn_url`` are set once both
    listen."""

    def __init__(self, site: ReplicaSite) -> None:
        self.site = site
        self.url = ""
        self.cdn_url = ""
        self.pages: dict[str, bytes] = {}
        self.not_found = impression_pages.render_not_found().encode()

    def replace_site(self, site: ReplicaSite) -> None:
        """Answer from ``site`` from now on, forgetting the pages rendered from the old one."""
        self.site = site
        self.pages.clear()

    def page(self, request: web.Request) -> Reply:
        path = request.path
        if path == "/robots.txt":
            robots = impression_pages.render_robots().encode()
            return Reply(200, robots, "text/plain; charset=utf-8")
        body = self.pages.get(path)
        if body is None:
            html = impression_pages.render_page(self.site.impression, path, self.url, self.cdn_url)
            if html is None:
                return Reply(404, self.not_found)
            body = self.pages[path] = html.encode()
        return Reply(200, body)

    def upload(self, request: web.Request) -> Reply:
        """``/wp-content/uploads/YYYY/MM/<name>[-scaled|-WxH].jpg``: every size, same bytes."""
        photo = self.site.impression.upload(request.path)
        if photo is None:
            return Reply(404, self.not_found)
        return stored_photo_reply(request, photo, self.not_found)

    def cdn_photo(self, request: web.Request) -> Reply:
        """``/<photo_id>/<file name>[?w=<one of its widths>]``: every width, same bytes."""
        photo = self.site.impression.cdn_photo(request.path, request.query.getall("w", []))
        if photo is None:
            return Reply(404, self.not_found)
        return stored_photo_reply(request, photo, self.not_found)
