"""Vogue's show pages in the replica, and the hostile shows' bent versions of them.

Show pages follow the real page of ``shared/real_pages/`` point by point, so that a parser
right on the replica is right on the site: ``hed`` is a link holding the designer, ``subHed``
a link holding the season in capitals, ``reviewTitle`` both, ``pubDate`` the only date and no
``brand``; image sources carry ``aspectRatio``, ``width``, ``url`` and ``srcset`` (no
``height``); galleries carry ids; captions read ``Look N``, ``Detail Look N``...; Details
items carry ``lookNumber`` on some shows only; the review is JsonML; and
``runwayRecommendations`` links to other shows, which a crawler must not take for looks. A
hostile show's ``page_fault`` edits the page's state or its JSON text.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from typing import Any

from fashion_assets.replica.build import ReplicaSite
from fashion_assets.replica.site import (
    HOSTILE_BRAND,
    ReplicaBrand,
    ReplicaPhoto,
    ReplicaShow,
)
from fashion_assets.replica.vogue_frame import (
    TEASERS,
    image_entry,
    image_url,
    state_text,
    variant,
    wrap_page,
)

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
_GALLERY_ORDERS = (
    ("Collection", "Details", "Beauty", "Front Row"),
    ("Details", "Collection", "Beauty", "Front Row"),
    ("Front Row", "Collection", "Details", "Beauty"),
)


def _gallery_items(
    cdn_base: str, show: ReplicaShow, title: str, photos: tuple[ReplicaPhoto, ...]
) -> list[dict[str, Any]]:
    """A gallery's items in the real shape; Details carry ``lookNumber`` on some shows only,
    as on the real site (the 2011 page has none), and it counts details, not looks."""
    slug = _GALLERY_IDS[title][1]
    prefix = _CAPTION_PREFIXES.get(title, f"{title} ")
    look_numbers = title == "Details" and variant(show.path + "#lookNumber", 2) == 0
    items = []
    for number, photo in enumerate(photos, start=1):
        item: dict[str, Any] = {
            "caption": f"{prefix}Look {number}",
            "url": f"{show.path}/slideshow/{slug}#{number}",
            "image": image_entry(cdn_base, photo, f"{title} {number}", photo.widths),
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
        "image": image_entry(cdn_base, show.cover, show.title, show.cover.widths[:2]),
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
    order = _GALLERY_ORDERS[variant(show.path, len(_GALLERY_ORDERS))]
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
        for number, photo in enumerate(show.photos[:TEASERS], start=1)
    )
    header = f"<h1>{escape(brand.name)}</h1><h2>{escape(show.title)}</h2>"
    body = f"{header}<article>{escape(show.review)}</article>{teasers}"
    fault = show.page_fault or ""
    if fault in _STATE_EDITS:
        _STATE_EDITS[fault](state)
    text = _TEXT_EDITS.get(fault, _unchanged)(state_text(state))
    if fault == "empty_page":
        return ""
    if fault == "json_page":
        return text
    if fault == "nul_in_html":
        body = f"\x00{body}\x00"
    if fault == "no_state":
        return wrap_page(show.path, show.title, None, body)
    return wrap_page(
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
