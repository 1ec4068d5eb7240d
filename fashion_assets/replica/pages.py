"""HTML pages of the replica, in Vogue Runway's real format (see docs in shared/sources.md).

The pages exist to break parsers that only work on one lucky page: the state script moves
between script tags, the spacing around ``=`` changes, decoy scripts mention the state, ``/``
is escaped as ``\\u002F``, free text holds ``{``, ``}`` and ``;``, galleries come in any order
and unknown keys sit everywhere. Each variation is chosen by a stable hash of the brand or
page path, so a page renders identically on every run.

Show pages follow the real page of ``shared/real_pages/`` point by point, so that a parser
right on the replica is right on the site: ``hed`` is a link holding the designer, ``subHed``
a link holding the season in capitals, ``reviewTitle`` both, ``pubDate`` the only date and no
``brand``; image sources carry ``aspectRatio``, ``width``, ``url`` and ``srcset`` (no
``height``); galleries carry ids; captions read ``Look N``, ``Detail Look N``...; Details
items carry ``lookNumber`` on some shows only; the review is JsonML; and
``runwayRecommendations`` links to other shows, which a crawler must not take for looks.
Season pages follow the real one too (``runwaySeasonContent``), and so does the
``/fashion-shows`` landing (``bundle.containers``: the current season's shows, the latest
shows mixed with articles, and editorial containers to ignore); designer and directory pages
keep the shapes of ``shared/sources.md``, since no real one is public.
"""

from __future__ import annotations

import json
import re
import unicodedata
import zlib
from collections.abc import Callable, Iterable
from html import escape
from itertools import groupby
from typing import Any

from fashion_assets.replica.build import ReplicaSite
from fashion_assets.replica.site import (
    HOSTILE_BRAND,
    ROBOTS_BLOCKED_BRAND,
    SIZE_WIDTHS,
    ReplicaBrand,
    ReplicaPhoto,
    ReplicaShow,
)

_TEASERS = 4
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
# How the assignment is spelled on different pages; decoders must not care.
_ASSIGNMENTS = (" = ", "=", " =", "= ", "  =\n  ")
_AFTER_STATE = (";", ';\nwindow.__APP_VERSION__ = "4.12.0";', ";  ")
# Gallery ids and slideshow slugs as the real show page writes them.
_GALLERY_IDS = {
    "Collection": ("gallery-collection", "collection"),
    "Details": ("gallery-detail", "details"),
    "Beauty": ("gallery-beauty", "beauty"),
    "Front Row": ("gallery-front-row", "front-row"),
}
# Captions per gallery: "Look 3", "Detail Look 3", "Beauty Look 3", "Front Row Look 3".
_CAPTION_PREFIXES = {"Collection": "", "Details": "Detail "}
# A real season carries about a hundred recommendations; a few make the point.
_RECOMMENDATIONS = 6
# The real season page highlights ten shows.
_CURATED_SHOWS = 10
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
# Scripts that assign the state something other than an object, or only compare it.
_STATE_DECOYS = (
    '<script type="text/javascript">'
    "window.__PRELOADED_STATE__ = window.__PRELOADED_STATE__ || null;</script>",
    '<script type="text/javascript">if (window.__PRELOADED_STATE__ === undefined) '
    "{ window.__PRELOADED_STATE__ = []; }</script>",
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
    text from ever closing its ``<script>``).

    A lone surrogate (hostile text) is written as its ``\\uXXXX`` escape, the only way JSON
    can carry one, so the page still encodes to bytes.
    """
    text = json.dumps(state, ensure_ascii=False).replace("/", "\\u002F")
    return _LONE_SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def _sources(cdn_base: str, photo: ReplicaPhoto, widths: Iterable[int]) -> dict[str, Any]:
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


def _image(cdn_base: str, photo: ReplicaPhoto, alt: str, widths: Iterable[int]) -> dict[str, Any]:
    """An image as real pages give it: no id of its own, the photo id lives in the URLs."""
    return {"altText": alt, "contentType": "photo", "sources": _sources(cdn_base, photo, widths)}


def _document(title: str, scripts: list[str], body: str) -> str:
    return (
        '<!DOCTYPE html><html lang="en-US"><head><meta charset="utf-8">'
        f"<title>{escape(title)} | Vogue</title>{''.join(scripts[:1])}</head>"
        f'<body><div id="app-root">{body}</div>{"".join(scripts[1:])}</body></html>'
    )


def _page(
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
            text += _AFTER_STATE[_variant(key, len(_AFTER_STATE))]
        assignment = _ASSIGNMENTS[_variant(key, len(_ASSIGNMENTS))]
        script = f'<script type="text/javascript">window.__PRELOADED_STATE__{assignment}{text}'
        where = len(scripts) if state_last else _variant(key + "#pos", len(scripts) + 1)
        scripts.insert(where, script + "</script>")
    ld_json = json.dumps({"@context": "https://schema.org", "@type": "WebPage", "name": title})
    ld_json = ld_json.replace("</", "<\\/")
    scripts.insert(1, f'<script type="application/ld+json">{ld_json}</script>')
    return _document(title, scripts, body)


def render_designer(brand: ReplicaBrand, cdn_base: str) -> str:
    """``/fashion-shows/designer/<slug>``: the brand's whole history, newest first."""
    collections: list[Any] = []
    for show in brand.shows:
        entry = {
            "hed": show.title,
            "url": show.path,
            "image": _image(cdn_base, show.cover, show.title, show.cover.widths[:2]),
            "eventDate": show.event_date.isoformat(),
            "contentType": "runwayshow",
            "isVideo": show.video_only,
        }
        collections += _listed(entry, show)
    collections += [_junk_entry(name, brand.slug) for name in brand.junk_entries]
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
        f'<a href="{escape(show.path)}">'
        f'<img src="{escape(image_url(cdn_base, show.cover, show.cover.widths[0]))}"'
        f' alt="{escape(show.title[:200])}"></a>'
        for show in brand.shows[:_TEASERS]
    )
    header = f"<h1>{escape(brand.name)}</h1><p>{escape(brand.bio)}</p>"
    body = f"{header}{teasers}<button>Show more</button>"
    return _page(brand.slug, brand.name, _state_text(state), body)


def _listed(entry: dict[str, Any], show: ReplicaShow) -> list[dict[str, Any]]:
    """The designer-page entries of a show: its own, bent by its listing fault if it has one."""
    fault = show.listing_fault
    if fault == "entry_missing_hed":
        del entry["hed"]
    elif fault == "entry_offsite_url":
        entry["url"] = "https://evil.example" + show.path
    elif fault == "entry_hed_control_chars":
        entry["hed"] = f"\x00{show.title}\x07 \x1b[0m\ud800"
    elif fault == "entry_duplicate":
        again = {**entry, "hed": f"{show.title} (encore)", "url": show.path + "?ref=nl#looks"}
        return [entry, again]
    return [entry]


def _junk_entry(name: str, brand_slug: str) -> Any:
    """A designer-page entry that is no show, as named by its designer-page case."""
    return {
        "entry_not_object": ["Fall 2020 Ready-to-Wear", f"/fashion-shows/fall-2020/{brand_slug}"],
        "entry_bad_url": {"hed": "Spring 2021 Ready-to-Wear",
                          "url": "javascript:alert(document.domain)"},
        "entry_traversal_url": {"hed": "Fall 2021 Ready-to-Wear",
                                "url": "/fashion-shows/../../../etc/passwd"},
        "entry_designer_url": {"hed": "All shows", "url": f"/fashion-shows/designer/{brand_slug}"},
        "entry_bad_season": {"url": f"/fashion-shows/not-a-season/{brand_slug}"},
    }[name]


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
    return _page(
        "/fashion-shows/designers", "Designers", _state_text(state), f"<nav>{links}</nav>"
    )


def _group_order(letter: str) -> tuple[bool, str]:
    """Season pages list letters first and ``#`` (names starting otherwise) last."""
    return (letter == "#", letter)


def _analytics_slug(slug: str) -> str:
    return slug.replace("-", "_")


def _season_groups(
    names: dict[str, str], shows: Iterable[ReplicaShow], season_slug: str
) -> list[dict[str, Any]]:
    """``allShows``: a season's shows by designer initial, letters first and ``#`` last, as
    the real season page and the landing's curated container both list them."""
    named = sorted(shows, key=lambda show: names[show.brand_slug].casefold())
    named.sort(key=lambda show: _group_order(_directory_group(names[show.brand_slug])))
    event = f"runway-seasonshowsnav-{_analytics_slug(season_slug)}"
    return [
        {
            "groupName": letter,
            "links": [
                {
                    "text": names[show.brand_slug],
                    "url": show.path,
                    "isSecondary": True,
                    "analyticsEvent": f"{event}-{_analytics_slug(show.brand_slug)}",
                }
                for show in members
            ],
        }
        for letter, members in groupby(
            named, key=lambda show: _directory_group(names[show.brand_slug])
        )
    ]


def _curated_show(
    names: dict[str, str], show: ReplicaShow, cdn_base: str, analytics_event: str
) -> dict[str, Any]:
    """One ``curatedShows`` entry: the designer, the show's path and its cover."""
    name = names[show.brand_slug]
    return {
        "hed": name,
        "url": show.path,
        "image": _image(cdn_base, show.cover, name, show.cover.widths[:2]),
        "isLive": False,
        "customMessage": "",
        "analyticsEvent": analytics_event,
    }


def _names(site: ReplicaSite) -> dict[str, str]:
    return {brand.slug: brand.name for brand in site.brands}


def render_season(site: ReplicaSite, season_slug: str, cdn_base: str) -> str | None:
    """``/fashion-shows/<season>``: every show of a season, as the real season page lists
    them (``runwaySeasonContent.allShows[].links[]`` by designer initial, and a few
    ``curatedShows``); None when no show has that season, so the server answers 404.
    """
    shows = [show for show in site.iter_shows() if show.season_slug == season_slug]
    if not shows:
        return None
    names = _names(site)
    groups = _season_groups(names, shows, season_slug)
    regular = [show for show in shows if show.brand_slug != HOSTILE_BRAND] or shows
    curated = [
        _curated_show(names, show, cdn_base, "runway-season-curated")
        for show in regular[:_CURATED_SHOWS]
    ]
    title = regular[0].title
    state = {
        "transformed": {
            "runwaySeasonContent": {
                "name": title,
                "subHed": "Highlights",
                "curatedShows": curated,
                "allShows": groups,
            }
        }
    }
    links = "".join(
        f'<a href="{escape(link["url"])}">{escape(link["text"])}</a>'
        for group in groups
        for link in group["links"]
    )
    return _page(f"/fashion-shows/{season_slug}", title, _state_text(state), f"<nav>{links}</nav>")


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
    names = _names(site)
    every = list(site.iter_shows())
    regular = [show for show in every if show.brand_slug != HOSTILE_BRAND] or every
    newest = sorted(regular, key=lambda show: (show.event_date, show.path), reverse=True)
    containers: list[dict[str, Any]] = [_TICKER]
    links = ""
    if newest:
        current = newest[0]
        season = [show for show in every if show.season_slug == current.season_slug]
        highlights = [show for show in newest if show.season_slug == current.season_slug]
        event = f"runway-curatedshows-{_analytics_slug(current.season_slug)}"
        curated = [
            _curated_show(names, show, cdn_base, f"{event}-{_analytics_slug(show.brand_slug)}")
            for show in highlights[:_LANDING_CURATED_SHOWS]
        ]
        containers.append({
            "dangerousHed": current.title,
            "items": [{
                "name": current.title,
                "curatedShows": curated,
                "allShows": _season_groups(names, season, current.season_slug),
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
    return _page("/fashion-shows", _LANDING_TITLE, _state_text(state), f"<nav>{links}</nav>")


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
            "sources": _sources(cdn_base, show.cover, show.cover.widths),
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


def _gallery_items(
    cdn_base: str, show: ReplicaShow, title: str, photos: tuple[ReplicaPhoto, ...]
) -> list[dict[str, Any]]:
    """A gallery's items in the real shape; Details carry ``lookNumber`` on some shows only,
    as on the real site (the 2011 page has none), and it counts details, not looks."""
    slug = _GALLERY_IDS[title][1]
    prefix = _CAPTION_PREFIXES.get(title, f"{title} ")
    look_numbers = title == "Details" and _variant(show.path + "#lookNumber", 2) == 0
    items = []
    for number, photo in enumerate(photos, start=1):
        item: dict[str, Any] = {
            "caption": f"{prefix}Look {number}",
            "url": f"{show.path}/slideshow/{slug}#{number}",
            "image": _image(cdn_base, photo, f"{title} {number}", photo.widths),
            "analyticsEvent": "runway-slideshow-viewimage",
        }
        if look_numbers:
            item["lookNumber"] = number
        items.append(item)
    return items


def _season_link(show: ReplicaShow) -> str:
    return f'<a href="/fashion-shows/{escape(show.season_slug)}">{escape(show.title.upper())}</a>'


def _designer_link(brand: ReplicaBrand) -> str:
    return f'<a href="{escape(brand.path)}">{escape(brand.name)}</a>'


def _pub_date(show: ReplicaShow) -> str:
    """``September 23, 2011``: the real page's only date, written out in English."""
    day = show.event_date
    return f"{day:%B} {day.day}, {day.year}"


def _jsonml_review(text: str) -> list[Any]:
    """The review as the real page carries it: JsonML, a ``div`` of ``p`` elements."""
    return ["div", ["p", text]]


def recommended_shows(site: ReplicaSite, show: ReplicaShow) -> tuple[ReplicaShow, ...]:
    """Other brands' shows a show page recommends: the same season first, as on the real
    site, then other seasons so that a small replica still links somewhere. Hostile House is
    left out: its pages are cases, not shows anyone recommends."""
    others = [
        other
        for other in site.iter_shows()
        if other.brand_slug not in (show.brand_slug, HOSTILE_BRAND)
    ]
    others.sort(key=lambda other: other.season_slug != show.season_slug)
    return tuple(others[:_RECOMMENDATIONS])


def _recommendation(site: ReplicaSite, show: ReplicaShow, cdn_base: str) -> dict[str, Any]:
    brand = site.brand(show.brand_slug)
    designer = brand.name if brand is not None else show.brand_slug
    return {
        "id": show.cover.photo_id,
        "url": show.path,
        "title": f"{designer} {show.title}",
        "designerName": designer,
        "seasonName": show.title,
        "image": _image(cdn_base, show.cover, show.title, show.cover.widths[:2]),
    }


def render_show(site: ReplicaSite, show: ReplicaShow, cdn_base: str) -> str:
    """``/fashion-shows/<season>/<brand>``: the galleries (looks and the rest), the review and
    the recommendations, in the real page's shape.

    A hostile show's page is bent by its ``page_fault``; faults of the HTTP exchange rather
    than of the page (redirects, encodings, sizes) are the server's.
    """
    brand = site.brand(show.brand_slug)
    if brand is None:
        raise ValueError(f"show {show.path} has no brand on this site")
    photos = {"Collection": show.photos} | {g.title: g.photos for g in show.side_galleries}
    order = _GALLERY_ORDERS[_variant(show.path, len(_GALLERY_ORDERS))]
    galleries = [
        {
            "id": _GALLERY_IDS[title][0],
            "title": title,
            "items": _gallery_items(cdn_base, show, title, photos.get(title, ())),
        }
        for title in order
    ]
    state = {
        "transformed": {
            "runwayShowGalleries": {"galleries": galleries, "slideshowType": "runway"},
            "runwayShowContent": {
                "sectionHeader": {"hed": _designer_link(brand), "subHed": _season_link(show)},
                "reviewTitle": f"{brand.name} {show.title}",
                "pubDate": _pub_date(show),
                "review": _jsonml_review(show.review),
                "rubric": {"name": "Runway", "url": "/fashion-shows"},
                "contributors": {"author": {"items": [{"name": "Vogue Runway"}]}},
            },
            "runwayRecommendations": {
                "collectionName": show.title,
                "items": [
                    _recommendation(site, other, cdn_base)
                    for other in recommended_shows(site, show)
                ],
            },
        },
        "coreDataLayer": {"content": {"contentType": "runwayshow", "hasVideo": show.video_only}},
    }
    teasers = "".join(
        f'<img src="{escape(image_url(cdn_base, photo, photo.widths[0]))}" alt="Look {number}">'
        for number, photo in enumerate(show.photos[:_TEASERS], start=1)
    )
    header = f"<h1>{escape(brand.name)}</h1><h2>{escape(show.title)}</h2>"
    body = f"{header}<article>{escape(show.review)}</article>{teasers}"
    fault = show.page_fault or ""
    if fault in _STATE_EDITS:
        _STATE_EDITS[fault](state)
    text = _TEXT_EDITS.get(fault, _unchanged)(_state_text(state))
    if fault == "empty_page":
        return ""
    if fault == "json_page":
        return text
    if fault == "nul_in_html":
        body = f"\x00{body}\x00"
    if fault == "no_state":
        return _page(show.path, show.title, None, body)
    return _page(
        show.path,
        show.title,
        text,
        body,
        cut=fault == "truncated_state",
        state_last=fault == "state_last_script",
    )


def _unchanged(text: str) -> str:
    return text


def _collection(state: dict[str, Any]) -> dict[str, Any]:
    galleries = state["transformed"]["runwayShowGalleries"]["galleries"]
    return next(gallery for gallery in galleries if gallery["title"] == "Collection")


def _galleries_not_list(state: dict[str, Any]) -> None:
    parent = state["transformed"]["runwayShowGalleries"]
    parent["galleries"] = {str(n): gallery for n, gallery in enumerate(parent["galleries"])}


def _no_galleries(state: dict[str, Any]) -> None:
    del state["transformed"]["runwayShowGalleries"]


def _transformed_not_object(state: dict[str, Any]) -> None:
    state["transformed"] = "runwayshow"


def _items_not_list(state: dict[str, Any]) -> None:
    _collection(state)["items"] = "see the slideshow"


def _review_with_bell(state: dict[str, Any]) -> None:
    state["transformed"]["runwayShowContent"]["review"] = _jsonml_review(
        "Ring\x07the bell; {twice}."
    )


def _control_text(state: dict[str, Any]) -> None:
    """Control characters around every header text; inside the designer link only those that
    read as spaces, so the designer still prefixes ``reviewTitle``."""
    content = state["transformed"]["runwayShowContent"]
    header = content["sectionHeader"]
    header["hed"] = header["hed"].replace(">", ">\x00\x07", 1).replace("</a>", "\x7f\ud800</a>")
    header["subHed"] = f"\x1b[31m{header['subHed']}\x1b[0m\x00"
    content["reviewTitle"] = f"\x00{content['reviewTitle']}\x07\x1b[1m\x7f\x85\u2028\ud800"
    for item in _collection(state)["items"]:
        item["caption"] = f"\x00{item['caption']}\x07\udc00"


# Width values no size should be read from: the page still names the sizes.
_ABSURD_WIDTHS = {"sm": -360, "md": 0, "lg": 10**12, "xl": "1280px", "xxl": True}


def _absurd_sizes(state: dict[str, Any]) -> None:
    for item in _collection(state)["items"]:
        for size, source in item["image"]["sources"].items():
            source["width"] = _ABSURD_WIDTHS[size]


def _negative_counts(state: dict[str, Any]) -> None:
    _collection(state).update({"imageCount": -12, "lookCount": 1e308, "totalSlides": "-1"})
    state["transformed"]["runwayShowContent"]["photoCount"] = -1


# Collection items with nothing to fetch, placed before the looks.
JUNK_ITEMS: tuple[Any, ...] = (
    None,
    42,
    "Look 99",
    [],
    {},
    {"image": {"sources": "xl"}},
    {"image": {"sources": {"xl": {"url": 12, "width": 1600}}}, "caption": "Look 0"},
)


def _junk_items(state: dict[str, Any]) -> None:
    collection = _collection(state)
    collection["items"] = [*JUNK_ITEMS, *collection["items"]]


def _duplicate_collection(state: dict[str, Any]) -> None:
    galleries = state["transformed"]["runwayShowGalleries"]["galleries"]
    details = next(gallery for gallery in galleries if gallery["title"] == "Details")
    galleries.append({"id": "gallery-collection", "title": " collection ",
                      "items": details["items"]})


# Hostile shows whose page differs in the state's content.
_STATE_EDITS: dict[str, Callable[[dict[str, Any]], None]] = {
    "galleries_not_list": _galleries_not_list,
    "no_galleries": _no_galleries,
    "transformed_not_object": _transformed_not_object,
    "items_not_list": _items_not_list,
    "raw_control_chars": _review_with_bell,
    "control_text": _control_text,
    "absurd_sizes": _absurd_sizes,
    "negative_counts": _negative_counts,
    "junk_items": _junk_items,
    "duplicate_collection": _duplicate_collection,
}
_NESTING_DEPTH = 100_000
# Hostile shows whose page differs in the state's JSON text.
_TEXT_EDITS: dict[str, Callable[[str], str]] = {
    "state_not_object": lambda text: "null",
    "deep_nesting": lambda text: (
        '{"renderTree": ' + "[" * _NESTING_DEPTH + "]" * _NESTING_DEPTH + ", " + text[1:]
    ),
    "raw_control_chars": lambda text: text.replace("\\u0007", "\x07"),
}


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
