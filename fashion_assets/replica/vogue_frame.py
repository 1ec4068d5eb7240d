"""The frame every Vogue page of the replica shares: the state script among decoys, the
images' sources and CDN URLs, and the 404 page and robots.txt beside them.

The pages exist to break parsers that only work on one lucky page: the state script moves
between script tags, the spacing around ``=`` changes, decoy scripts mention the state, ``/``
is escaped as ``\\u002F``, free text holds ``{``, ``}`` and ``;``, galleries come in any order
and unknown keys sit everywhere. Each variation is chosen by a stable hash of the brand or
page path, so a page renders identically on every run. The pages themselves are in
``vogue_listings.py`` (designer, directory, season), ``vogue_landing.py`` (``/fashion-shows``)
and ``vogue_show.py`` (show pages); their shapes are in shared/sources.md.
"""

from __future__ import annotations

import json
import re
import zlib
from collections.abc import Iterable
from html import escape
from typing import Any

from fashion_assets.replica.build import ReplicaSite
from fashion_assets.replica.site import (
    ROBOTS_BLOCKED_BRAND,
    SIZE_WIDTHS,
    ReplicaPhoto,
)

TEASERS = 4
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
# How the assignment is spelled on different pages; decoders must not care.
_ASSIGNMENTS = (" = ", "=", " =", "= ", "  =\n  ")
_AFTER_STATE = (";", ';\nwindow.__APP_VERSION__ = "4.12.0";', ";  ")
_DECOYS = (
    '<script type="text/javascript">window.dataLayer = window.dataLayer || [];'
    ' dataLayer.push({"event": "pageview", "section": "runway"});</script>',
    # Names the state without assigning it: finding the state by "__PRELOADED_STATE__"
    # alone lands here, on an object literal that is not JSON.
    '<script type="text/javascript">/* the app hydrates from window.__PRELOADED_STATE__ once;'
    " see the bundle */ window.cnBus = window.cnBus || {queue: [], ready: false};</script>",
    '<script async src="https://www.vogue.com/static/js/main.5f1c2a.js"></script>',
)
# Scripts that assign the state something other than an object, or only compare it.
_STATE_DECOYS = (
    '<script type="text/javascript">'
    "window.__PRELOADED_STATE__ = window.__PRELOADED_STATE__ || null;</script>",
    '<script type="text/javascript">if (window.__PRELOADED_STATE__ === undefined) '
    "{ window.__PRELOADED_STATE__ = []; }</script>",
)


def variant(key: str, choices: int) -> int:
    """A stable choice per key; ``hash()`` is salted per process, CRC-32 is not."""
    return zlib.crc32(key.encode()) % choices


def image_url(cdn_base: str, photo: ReplicaPhoto, width: int) -> str:
    """A sized CDN URL; some photos spell the comma as ``%2C``, as the real CDN's links do."""
    comma = "%2C" if variant(f"{photo.photo_id}/{width}", 4) == 0 else ","
    return f"{cdn_base}/photos/{photo.photo_id}/master/w_{width}{comma}c_limit/{photo.file_name}"


def original_url(cdn_base: str, photo: ReplicaPhoto) -> str:
    return f"{cdn_base}/photos/{photo.photo_id}/master/pass/{photo.file_name}"


def state_text(state: dict[str, Any]) -> str:
    """JSON with every ``/`` written ``\\u002F``, like the real site (which also keeps the
    text from ever closing its ``<script>``).

    A lone surrogate (hostile text) is written as its ``\\uXXXX`` escape, the only way JSON
    can carry one, so the page still encodes to bytes.
    """
    text = json.dumps(state, ensure_ascii=False).replace("/", "\\u002F")
    return _LONE_SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def image_sources(cdn_base: str, photo: ReplicaPhoto, widths: Iterable[int]) -> dict[str, Any]:
    """One source per size, as the real page: no ``height``, and a ``srcset`` of every width
    up to the size's own."""
    wanted = sorted(set(widths))
    return {
        size: {
            "aspectRatio": "master",
            "width": width,
            "url": _source_url(cdn_base, photo, width),
            "srcset": ", ".join(
                f"{_source_url(cdn_base, photo, w)} {w}w" for w in wanted if w <= width
            ),
        }
        for size, width in SIZE_WIDTHS.items()
        if width in wanted
    }


def _source_url(cdn_base: str, photo: ReplicaPhoto, width: int) -> str:
    """The URL a page gives for one size of a photo; the "url_file_scheme" case gives none."""
    if photo.fault == "url_file_scheme":
        return "file:///etc/passwd"
    return image_url(cdn_base, photo, width)


def image_entry(
    cdn_base: str, photo: ReplicaPhoto, alt: str, widths: Iterable[int]
) -> dict[str, Any]:
    """An image as real pages give it: no id of its own, the photo id lives in the URLs."""
    sources = image_sources(cdn_base, photo, widths)
    return {"altText": alt, "contentType": "photo", "sources": sources}


def _document(title: str, scripts: list[str], body: str) -> str:
    return (
        '<!DOCTYPE html><html lang="en-US"><head><meta charset="utf-8">'
        f"<title>{escape(title)} | Vogue</title>{''.join(scripts[:1])}</head>"
        f'<body><div id="app-root">{body}</div>{"".join(scripts[1:])}</body></html>'
    )


def wrap_page(
    key: str,
    title: str,
    text: str | None,
    body: str,
    *,
    cut: bool = False,
    state_last: bool = False,
) -> str:
    """Wrap a page, placing the state script among the decoys by a stable per-page choice.

    ``text`` is the state's JSON text, ``None`` for a page without any state script. ``cut``
    truncates it mid-way, as an interrupted render would; ``state_last`` puts the state after
    extra decoys that assign the state something else or compare it.
    """
    scripts = list(_DECOYS)
    if state_last:
        scripts += _STATE_DECOYS
    if text is not None:
        if cut:
            text = text[: len(text) // 2]
        else:
            text += _AFTER_STATE[variant(key, len(_AFTER_STATE))]
        assignment = _ASSIGNMENTS[variant(key, len(_ASSIGNMENTS))]
        script = f'<script type="text/javascript">window.__PRELOADED_STATE__{assignment}{text}'
        where = len(scripts) if state_last else variant(key + "#pos", len(scripts) + 1)
        scripts.insert(where, script + "</script>")
    ld_json = json.dumps({"@context": "https://schema.org", "@type": "WebPage", "name": title})
    ld_json = ld_json.replace("</", "<\\/")
    scripts.insert(1, f'<script type="application/ld+json">{ld_json}</script>')
    return _document(title, scripts, body)


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
