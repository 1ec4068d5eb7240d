"""Vogue's ``/fashion-shows`` landing page in the replica, in the real one's shape.

The landing follows the real page (``bundle.containers``: the current season's shows, the
latest shows mixed with articles, and editorial containers to ignore), so that a parser right
on the replica is right on the site: the articles and slideshows among the shows are links
off the runway that a crawler must skip.
"""

from __future__ import annotations

import zlib
from html import escape
from typing import Any

from fashion_assets.replica.build import ReplicaSite
from fashion_assets.replica.site import (
    HOSTILE_BRAND,
    ReplicaShow,
)
from fashion_assets.replica.vogue_frame import (
    image_sources,
    state_text,
    wrap_page,
)
from fashion_assets.replica.vogue_listings import (
    analytics_slug,
    curated_show,
    designer_names,
    season_groups,
)

# The landing page's curated container highlights thirty, and its river holds 27 items.
_LANDING_CURATED_SHOWS = 30
_RIVER_ITEMS = 27
_LANDING_TITLE = "Fashion Shows: Fashion Week, Runway, Designer Collections"
_RUNWAY_RUBRIC = {"name": "Runway", "url": "/fashion-shows"}
_TICKER = {
    "id": "667c168204d91adf9606d973",
    "text": "The new issue is here",
    "template": "verso-ticker",
    "link": {"href": "https://www.vogue.com/v2/offers/voga01001", "text": "SUBSCRIBE NOW"},
    "shouldEnableBundleComponentAnalytics": True,
}
_AD_SLOT = {"template": "verso-mid-content-ad", "shouldEnableBundleComponentAnalytics": True}


def render_landing(site: ReplicaSite, cdn_base: str) -> str:
    """``/fashion-shows``: the landing page, in the real one's shape.

    ``transformed.bundle.containers`` holds, as on the real page, a ticker, the current
    season (``verso-curated-shows``: ``items[0]`` with ``name``, ``curatedShows`` and every
    show of the season in ``allShows``), an ad slot, a "Street Style" carousel of slideshows
    and the "Latest in Runway" river (``verso-river``) of the newest shows as ``fashionshow``
    items with articles and slideshows mixed in. The current season is the one of the newest
    show by date. Hostile House is left out of the choice, the highlights and the river (its
    shows are cases, not news) but listed in ``allShows`` like on its season page.
    """
    names = designer_names(site)
    every = list(site.iter_shows())
    regular = [show for show in every if show.brand_slug != HOSTILE_BRAND] or every
    newest = sorted(regular, key=lambda show: (show.event_date, show.path), reverse=True)
    containers: list[dict[str, Any]] = [_TICKER]
    links = ""
    if newest:
        current = newest[0]
        season = [show for show in every if show.season_slug == current.season_slug]
        highlights = [show for show in newest if show.season_slug == current.season_slug]
        event = f"runway-curatedshows-{analytics_slug(current.season_slug)}"
        curated = [
            curated_show(names, show, cdn_base, f"{event}-{analytics_slug(show.brand_slug)}")
            for show in highlights[:_LANDING_CURATED_SHOWS]
        ]
        containers.append({
            "dangerousHed": current.title,
            "items": [{
                "name": current.title,
                "curatedShows": curated,
                "allShows": season_groups(names, season, current.season_slug),
            }],
            "template": "verso-curated-shows",
            "subHed": "Highlights",
            "shouldEnableBundleComponentAnalytics": True,
        })
        links = "".join(
            f'<a href="{escape(entry["url"])}">{escape(entry["hed"])}</a>' for entry in curated
        )
    containers += [_AD_SLOT, _street_style(), _river(names, newest, cdn_base)]
    state = {"transformed": {"bundle": {"bundleTitle": "Fashion Shows", "containers": containers}}}
    return wrap_page("/fashion-shows", _LANDING_TITLE, state_text(state), f"<nav>{links}</nav>")


def _river(names: dict[str, str], newest: list[ReplicaShow], cdn_base: str) -> dict[str, Any]:
    """"Latest in Runway": the newest shows, the editorial items at their fixed places."""
    items = [
        _river_show(names[show.brand_slug], show, cdn_base)
        for show in newest[: _RIVER_ITEMS - len(_RIVER_EDITORIAL)]
    ]
    for position, item in _RIVER_EDITORIAL:
        items.insert(min(position, len(items)), item)
    return {
        "copilotId": "5f502d05d7390ed167e980dd",
        "containerId": "5f502d05d7390ed167e980dd",
        "dangerousDek": "",
        "dangerousHed": "Latest in Runway",
        "featuredDangerousHed": "",
        "items": items,
        "layout": "Paginated",
        "limit": _RIVER_ITEMS,
        "template": "verso-river",
        "totalResults": 10000,
        "shouldEnableBundleComponentAnalytics": True,
        "noChannelItems": True,
    }


def _river_show(name: str, show: ReplicaShow, cdn_base: str) -> dict[str, Any]:
    """A show in the river: ``dangerousHed`` the designer and ``dangerousDek`` the season, both
    HTML (so ``Viktor & Rolf`` arrives as ``Viktor &amp; Rolf``), no date, the cover."""
    hed, dek = escape(name, quote=False), escape(show.title, quote=False)
    return {
        "id": show.cover.photo_id,
        "contributors": {},
        "contentType": "fashionshow",
        "copilotID": show.cover.photo_id,
        "dangerousHed": hed,
        "dangerousDek": dek,
        "date": "",
        "pubDate": "",
        "image": {
            "altText": name,
            "caption": "",
            "credit": "",
            "id": show.cover.photo_id,
            "sources": image_sources(cdn_base, show.cover, show.cover.widths),
        },
        "rubric": _RUNWAY_RUBRIC,
        "source": {"hed": hed, "dek": dek},
        "url": show.path,
    }


def _editorial(content_type: str, hed: str, url: str, day: str) -> dict[str, Any]:
    """An article or slideshow of a landing container: a link off the runway."""
    item_id = f"{zlib.crc32(url.encode()):08x}" * 3
    return {
        "id": item_id,
        "contributors": {},
        "contentType": content_type,
        "copilotID": item_id,
        "dangerousHed": hed,
        "dangerousDek": "",
        "date": day,
        "pubDate": "",
        "rubric": _RUNWAY_RUBRIC,
        "url": url,
    }


def _street_style() -> dict[str, Any]:
    """A carousel of street-style slideshows: on the landing page, never a show."""
    return {
        "dangerousDek": "",
        "dangerousHed": "Street Style",
        "items": list(_STREET_STYLE),
        "layout": "Carousel",
        "template": "verso-features",
        "totalResults": len(_STREET_STYLE),
        "shouldEnableBundleComponentAnalytics": True,
    }


# What the real river mixes in among the shows (articles, a slideshow), at these places:
# links off the runway that a reader of the river must skip. The heds are HTML, as there.
_RIVER_EDITORIAL: tuple[tuple[int, dict[str, Any]], ...] = (
    (4, _editorial("article", "On the Podcast: A New Era at the House",
                   "/article/podcast-a-new-era-at-the-house", "March 14, 2025")),
    (5, _editorial("article", "Addressed: How to Style Cargo Pants",
                   "/article/addressed-how-to-style-cargo-pants", "March 13, 2025")),
    (9, _editorial("gallery", "Au Revoir Fashion Month! The Best Street Style in <em>Paris</em>",
                   "/slideshow/paris-fashion-week-street-style", "March 12, 2025")),
)
_STREET_STYLE: tuple[dict[str, Any], ...] = (
    _editorial("gallery", "Arrivederci Milano! The Best Street Style Photos From Milan",
               "/slideshow/best-street-style-photos-milan", "March 2, 2025"),
    _editorial("gallery", "The Best-Dressed Guests at the London Shows",
               "/slideshow/best-street-style-photos-london", "February 25, 2025"),
    _editorial("gallery", "Street Style at New York Fashion Week &#8212; Day 3",
               "/slideshow/new-york-fashion-week-street-style-day-3", "February 10, 2025"),
)
