"""Vogue's show page: its header text and the looks of its Collection gallery.

The crawl reads one of these per show to learn what to download, so this is where the photos
come from; listing pages only name the shows. What real show pages taught
(``shared/real_pages/``, a 2011 show saved in 2024):

- ``runwayShowContent.sectionHeader.hed`` is HTML, a link to the designer page holding the
  **designer** name; ``subHed`` is a link holding the **season** in capitals (``SPRING 2012
  READY-TO-WEAR``); ``reviewTitle`` is designer and season in the house's case. The show
  title is therefore the season at the end of ``reviewTitle`` (``Spring 2012
  Ready-to-Wear``), else the text of ``subHed``; tags are stripped and entities decoded, so
  no HTML is ever stored. The designer in ``reviewTitle`` is the house's name at the time
  (``Paco Rabanne`` in a recommendation whose ``designerName`` is ``Rabanne``), so it is
  not cut off by the name in ``hed``. Pages of the older shape (a plain ``hed`` holding the
  season, no ``subHed``) are still read: ``hed`` is the title there.
- There is no ``runwayShowContent.brand``: the designer is the text of ``hed``.
- There is no ``eventDate``, only ``pubDate`` (``September 23, 2011``), the day the review
  went out: ``event_date`` falls back to it, as the page gives it, since nothing better is
  on the page. Nothing reads or stores this date today.
- Image sources carry ``aspectRatio``, ``width``, ``url`` and ``srcset`` but no ``height``;
  widths decide the largest size (xl and lg are both 1280 wide, xxl is 2560).
- Galleries carry ids (``gallery-collection``, ``gallery-detail``...) besides their titles;
  the Collection is still found by title. Captions read ``Look N`` (``Detail Look N`` in
  Details) and give the order; ``lookNumber`` may be absent.
- ``runwayRecommendations`` lists other houses' shows: nothing here reads it, so its links
  are never taken for the page's own looks or for the brand's shows.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from fashion_assets.sources.errors import PageParseError
from fashion_assets.sources.fields import clean_text
from fashion_assets.sources.vogue_state import (
    best_image_source,
    capped,
    extract_preloaded_state,
    markup_text,
    optional_mapping,
    require_list,
    require_mapping,
)

COLLECTION_GALLERY_TITLE = "collection"

_DESIGNER_LINK_RE = re.compile(r"""<a\b[^<>]{0,2000}href=["']?[^"'<>]*/fashion-shows/designer/""")


@dataclass(frozen=True)
class ShowImage:
    """One look of a show's Collection gallery, at the largest size the page offers."""

    url: str
    width: int | None
    height: int | None
    caption: str | None
    position: int


@dataclass(frozen=True)
class ShowPage:
    """A show page: its text and the looks of its Collection gallery.

    ``title`` is the season title (``Spring 2012 Ready-to-Wear``), ``brand`` the designer's
    display name and ``event_date`` the page's ``eventDate``, else its ``pubDate``, as written.
    """

    title: str
    brand: str | None
    event_date: str | None
    images: tuple[ShowImage, ...]
    expected_images: int
    skipped: tuple[str, ...]


def parse_show_page(html: str) -> ShowPage:
    """Read a show page: its title, brand, date and the looks of its Collection gallery.

    Galleries are required (a page without them is not a show page), but an empty or absent
    Collection gallery is a valid video-only show with zero expected images.
    """
    state = extract_preloaded_state(html)
    galleries_parent = require_mapping(state, ("transformed", "runwayShowGalleries"))
    galleries = require_list(galleries_parent, "galleries", "runwayShowGalleries")
    items, skipped = _collection_items(galleries)
    images: list[ShowImage] = []
    for position, item in enumerate(items, start=1):
        image = _show_image(item, position)
        if image is None:
            skipped.append(f"Collection item {position}: no usable image url")
        else:
            images.append(image)
    content = optional_mapping(state["transformed"].get("runwayShowContent"))
    title, designer = _show_title_and_designer(content)
    return ShowPage(
        title=title,
        brand=_brand_name(content.get("brand")) or designer,
        event_date=clean_text(content.get("eventDate"), trim_cut=False)
        or clean_text(content.get("pubDate"), trim_cut=False),
        images=tuple(images),
        expected_images=len(items),
        skipped=tuple(skipped),
    )


def _collection_items(galleries: Iterable[Any]) -> tuple[list[Any], list[str]]:
    """The items of the first Collection gallery, and a note for each further one ignored.

    Galleries are matched by title because their order varies from page to page.
    """
    collections = [gallery for gallery in galleries if _is_collection_gallery(gallery)]
    if not collections:
        return [], []
    notes = [f"ignored extra Collection gallery {n}" for n in range(2, len(collections) + 1)]
    return _gallery_items(collections[0]), notes


def _is_collection_gallery(gallery: Any) -> bool:
    title = optional_mapping(gallery).get("title")
    return isinstance(title, str) and title.strip().casefold() == COLLECTION_GALLERY_TITLE


def _gallery_items(gallery: Mapping[str, Any]) -> list[Any]:
    """The items of a gallery; ``null`` or absent items mean an empty (video-only) gallery."""
    items = gallery.get("items")
    if items is None:
        return []
    if not isinstance(items, list):
        raise PageParseError(
            "bad_value", f"Collection gallery items is {type(items).__name__}, not a list"
        )
    return items


def _show_image(item: Any, position: int) -> ShowImage | None:
    item = optional_mapping(item)
    source = best_image_source(item.get("image"))
    if source is None:
        return None
    return ShowImage(
        url=source.url,
        width=source.width,
        height=source.height,
        caption=clean_text(item.get("caption"), trim_cut=False),
        position=position,
    )


def _show_title_and_designer(content: Mapping[str, Any]) -> tuple[str, str | None]:
    """The season title and the designer name of a show page's header.

    On real pages ``hed`` is the designer (a link to the designer page) and ``subHed`` the
    season in capitals; ``reviewTitle`` ends with the season in the house's case, so that
    tail is taken. It is matched at its end because its front holds the house's name of the
    day, which need not be today's (``Paco Rabanne`` on a show of the house now ``Rabanne``);
    without ``subHed`` the designer is cut off its front instead. On pages without
    ``subHed`` or a designer link, ``hed`` is the season.
    """
    header = optional_mapping(content.get("sectionHeader"))
    hed, sub_hed = header.get("hed"), header.get("subHed")
    hed_text, season = markup_text(hed), markup_text(sub_hed)
    if season is None and not (isinstance(hed, str) and _DESIGNER_LINK_RE.search(hed)):
        return capped(hed_text) or "", None
    review_title = markup_text(content.get("reviewTitle")) or ""
    if season and review_title[-len(season):].casefold() == season.casefold():
        season = review_title[-len(season):]
    elif hed_text and review_title[: len(hed_text)].casefold() == hed_text.casefold():
        season = review_title[len(hed_text):].strip() or season
    return capped(season) or "", capped(hed_text)


def _brand_name(brand: Any) -> str | None:
    """``brand`` is a plain string on some pages and an object with a ``name`` on others."""
    if isinstance(brand, Mapping):
        brand = brand.get("name")
    return clean_text(brand, trim_cut=False)
