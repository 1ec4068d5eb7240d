"""HTML pages of the replica, in Vogue Runway's real format (see docs in shared/sources.md).

The pages exist to break parsers that only work on one lucky page: the state script moves
between script tags, the spacing around ``=`` changes, decoy scripts mention the state, ``/``
is escaped as ``\\u002F``, free text holds ``{``, ``}`` and ``;``, galleries come in any order
and unknown keys sit everywhere. Each variation is chosen by a stable hash of the brand or
page path, so a page renders identically on every run.
"""

from __future__ import annotations

import json
import unicodedata
import zlib
from collections.abc import Iterable
from html import escape
from itertools import groupby
from typing import Any

from fashion_assets.replica.site import (
    ROBOTS_BLOCKED_BRAND,
    SIZE_WIDTHS,
    ReplicaBrand,
    ReplicaPhoto,
    ReplicaShow,
    ReplicaSite,
)

_TEASERS = 4
# How the assignment is spelled on different pages; decoders must not care.
_ASSIGNMENTS = (" = ", "=", " =", "= ", "  =\n  ")
_AFTER_STATE = (";", ';\nwindow.__APP_VERSION__ = "4.12.0";', ";  ")
_GALLERY_ORDERS = (
    ("Collection", "Details", "Beauty", "Front Row"),
    ("Details", "Collection", "Beauty", "Front Row"),
    ("Front Row", "Collection", "Details", "Beauty"),
)
_DECOYS = (
    '<script type="text/javascript">window.dataLayer = window.dataLayer || [];'
    ' dataLayer.push({"event": "pageview", "section": "runway"});</script>',
    # Names the state without assigning it: finding the state by "__PRELOADED_STATE__"
    # alone lands here, on an object literal that is not JSON.
    '<script type="text/javascript">/* the app hydrates from window.__PRELOADED_STATE__ once;'
    " see the bundle */ window.cnBus = window.cnBus || {queue: [], ready: false};</script>",
    '<script async src="https://www.vogue.com/static/js/main.5f1c2a.js"></script>',
)


def _variant(key: str, choices: int) -> int:
    """A stable choice per key; ``hash()`` is salted per process, CRC-32 is not."""
    return zlib.crc32(key.encode()) % choices


def image_url(cdn_base: str, photo: ReplicaPhoto, width: int) -> str:
    """A sized CDN URL; some photos spell the comma as ``%2C``, as the real CDN's links do."""
    comma = "%2C" if _variant(f"{photo.photo_id}/{width}", 4) == 0 else ","
    return f"{cdn_base}/photos/{photo.photo_id}/master/w_{width}{comma}c_limit/{photo.file_name}"


def original_url(cdn_base: str, photo: ReplicaPhoto) -> str:
    return f"{cdn_base}/photos/{photo.photo_id}/master/pass/{photo.file_name}"


def _state_text(state: dict[str, Any]) -> str:
    """JSON with every ``/`` written ``\\u002F``, like the real site (which also keeps the
    text from ever closing its ``<script>``)."""
    return json.dumps(state, ensure_ascii=False).replace("/", "\\u002F")


def _sources(cdn_base: str, photo: ReplicaPhoto, widths: Iterable[int]) -> dict[str, Any]:
    wanted = set(widths)
    return {
        size: {"url": image_url(cdn_base, photo, width), "width": width, "height": width * 4 // 3}
        for size, width in SIZE_WIDTHS.items()
        if width in wanted
    }


def _image(cdn_base: str, photo: ReplicaPhoto, alt: str, widths: Iterable[int]) -> dict[str, Any]:
    return {
        "id": photo.photo_id,
        "contentType": "photo",
        "altText": alt,
        "credit": "Photo: Courtesy of the designer",
        "sources": _sources(cdn_base, photo, widths),
    }


def _document(title: str, scripts: list[str], body: str) -> str:
    return (
        '<!DOCTYPE html><html lang="en-US"><head><meta charset="utf-8">'
        f"<title>{escape(title)} | Vogue</title>{''.join(scripts[:1])}</head>"
        f'<body><div id="app-root">{body}</div>{"".join(scripts[1:])}</body></html>'
    )


def _page(
    key: str, title: str, state: dict[str, Any] | None, body: str, *, cut: bool = False
) -> str:
    """Wrap a page, placing the state script among the decoys by a stable per-page choice.

    ``cut`` truncates the state JSON mid-way, as an interrupted render would; ``state=None``
    renders the page without any state script.
    """
    scripts = list(_DECOYS)
    if state is not None:
        text = _state_text(state)
        if cut:
            text = text[: len(text) // 2]
        else:
            text += _AFTER_STATE[_variant(key, len(_AFTER_STATE))]
        assignment = _ASSIGNMENTS[_variant(key, len(_ASSIGNMENTS))]
        script = f'<script type="text/javascript">window.__PRELOADED_STATE__{assignment}{text}'
        scripts.insert(_variant(key + "#pos", len(scripts) + 1), script + "</script>")
    ld_json = json.dumps({"@context": "https://schema.org", "@type": "WebPage", "name": title})
    ld_json = ld_json.replace("</", "<\\/")
    scripts.insert(1, f'<script type="application/ld+json">{ld_json}</script>')
    return _document(title, scripts, body)


def render_designer(brand: ReplicaBrand, cdn_base: str) -> str:
    """``/fashion-shows/designer/<slug>``: the brand's whole history, newest first."""
    collections = [
        {
            "hed": show.title,
            "url": show.path,
            "image": _image(cdn_base, show.cover, show.title, show.cover.widths[:2]),
            "eventDate": show.event_date.isoformat(),
            "contentType": "runwayshow",
            "isVideo": show.video_only,
        }
        for show in brand.shows
    ]
    state = {
        "transformed": {
            "runwayDesignerContent": {
                "name": brand.name,
                "body": brand.bio,
                "slug": brand.slug,
                "designerCollections": collections,
                "followCount": len(brand.shows) * 1000,
            },
            "headerProps": {"rubric": "Designer"},
        },
        "coreDataLayer": {"content": {"contentType": "designer"}},
    }
    teasers = "".join(
        f'<a href="{escape(show.path)}"><img src="{escape(image_url(cdn_base, show.cover, 320))}"'
        f' alt="{escape(show.title[:200])}"></a>'
        for show in brand.shows[:_TEASERS]
    )
    header = f"<h1>{escape(brand.name)}</h1><p>{escape(brand.bio)}</p>"
    body = f"{header}{teasers}<button>Show more</button>"
    return _page(brand.slug, brand.name, state, body)


def _directory_group(name: str) -> str:
    letter = unicodedata.normalize("NFKD", name)[:1].upper()
    return letter if letter.isalpha() else "#"


def render_directory(site: ReplicaSite) -> str:
    """``/fashion-shows/designers``: every designer, grouped by first letter."""
    brands = sorted(
        site.brands, key=lambda brand: (_directory_group(brand.name), brand.name.casefold())
    )
    groups = [
        {
            "group": letter,
            "links": [{"text": brand.name, "url": brand.path, "isNew": False} for brand in members],
        }
        for letter, members in groupby(brands, key=lambda brand: _directory_group(brand.name))
    ]
    state = {
        "transformed": {"allRunwayDesigners": {"groupedLinks": groups, "totalCount": len(brands)}}
    }
    links = "".join(f'<a href="{escape(brand.path)}">{escape(brand.name)}</a>' for brand in brands)
    return _page("/fashion-shows/designers", "Designers", state, f"<nav>{links}</nav>")


def _gallery_items(
    cdn_base: str, title: str, photos: tuple[ReplicaPhoto, ...]
) -> list[dict[str, Any]]:
    items = []
    for number, photo in enumerate(photos, start=1):
        item: dict[str, Any] = {
            "id": f"{photo.photo_id}-slide",
            "image": _image(cdn_base, photo, f"{title} {number}", photo.widths),
            "isSponsored": False,
        }
        if title == "Collection":
            item["caption"] = f"Look {number}"
        elif title == "Details":
            item["caption"] = ""
            item["lookNumber"] = number  # counts details, not looks
        else:
            item["caption"] = f"{title} {number}"
        items.append(item)
    return items


def render_show(brand: ReplicaBrand, show: ReplicaShow, cdn_base: str) -> str:
    """``/fashion-shows/<season>/<brand>``: the galleries (looks and the rest) and the review."""
    photos = {"Collection": show.photos} | {g.title: g.photos for g in show.side_galleries}
    order = _GALLERY_ORDERS[_variant(show.path, len(_GALLERY_ORDERS))]
    galleries = [
        {
            "title": title,
            "items": _gallery_items(cdn_base, title, photos.get(title, ())),
            "layout": "grid",
        }
        for title in order
    ]
    state = {
        "transformed": {
            "runwayShowGalleries": {"galleries": galleries, "slideshowType": "runway"},
            "runwayShowContent": {
                "sectionHeader": {"hed": show.title, "rubric": "Runway"},
                "brand": {"name": brand.name, "slug": brand.slug},
                "eventDate": f"{show.event_date.isoformat()}T19:00:00.000Z",
                "pubDate": f"{show.event_date.isoformat()}T21:30:00.000Z",
                "review": show.review,
                "contributors": {"author": {"name": "Vogue Runway"}},
            },
        },
        "coreDataLayer": {"content": {"contentType": "runwayshow", "hasVideo": show.video_only}},
    }
    teasers = "".join(
        f'<img src="{escape(image_url(cdn_base, photo, 640))}" alt="Look {number}">'
        for number, photo in enumerate(show.photos[:_TEASERS], start=1)
    )
    body = f"<h1>{escape(show.title)}</h1><article>{escape(show.review)}</article>{teasers}"
    if show.page_fault == "no_state":
        return _page(show.path, show.title, None, body)
    return _page(show.path, show.title, state, body, cut=show.page_fault == "truncated_state")


def render_not_found() -> str:
    """The 404 page, shared by unknown paths, wrong slugs and throttling in disguise."""
    return _document("Page Not Found", [], "<h1>Sorry, we couldn't find that page.</h1>")


def render_robots(site: ReplicaSite) -> str:
    lines = ["User-agent: *"]
    if site.brand(ROBOTS_BLOCKED_BRAND) is not None:
        lines.append(f"Disallow: /fashion-shows/designer/{ROBOTS_BLOCKED_BRAND}")
    else:
        lines.append("Disallow:")
    return "\n".join(lines) + "\n"
