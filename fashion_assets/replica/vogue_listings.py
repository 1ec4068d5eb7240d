"""Vogue's designer, directory and season pages in the replica (see shared/sources.md).

Season pages follow the real one (``runwaySeasonContent``: every show of the season by
designer initial, and a few ``curatedShows``), whose groups and curated entries the landing
page (``vogue_landing.py``) lists too; designer and directory pages keep the shapes of
``shared/sources.md``, since no real one is public. A hostile brand's designer page lists
entries bent by their show's ``listing_fault`` and entries that are no show at all.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from html import escape
from itertools import groupby
from typing import Any

from fashion_assets.replica.build import ReplicaSite
from fashion_assets.replica.site import (
    HOSTILE_BRAND,
    ReplicaBrand,
    ReplicaShow,
)
from fashion_assets.replica.vogue_frame import (
    TEASERS,
    image_entry,
    image_url,
    state_text,
    wrap_page,
)

# The real season page highlights ten shows.
_CURATED_SHOWS = 10


def render_designer(brand: ReplicaBrand, cdn_base: str) -> str:
    """``/fashion-shows/designer/<slug>``: the brand's whole history, newest first."""
    collections: list[Any] = []
    for show in brand.shows:
        entry = {
            "hed": show.title,
            "url": show.path,
            "image": image_entry(cdn_base, show.cover, show.title, show.cover.widths[:2]),
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
        for show in brand.shows[:TEASERS]
    )
    header = f"<h1>{escape(brand.name)}</h1><p>{escape(brand.bio)}</p>"
    body = f"{header}{teasers}<button>Show more</button>"
    return wrap_page(brand.slug, brand.name, state_text(state), body)


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
    return wrap_page(
        "/fashion-shows/designers", "Designers", state_text(state), f"<nav>{links}</nav>"
    )


def _group_order(letter: str) -> tuple[bool, str]:
    """Season pages list letters first and ``#`` (names starting otherwise) last."""
    return (letter == "#", letter)


def analytics_slug(slug: str) -> str:
    """A slug as the real pages' analytics events spell it: ``-`` as ``_``."""
    return slug.replace("-", "_")


def season_groups(
    names: dict[str, str], shows: Iterable[ReplicaShow], season_slug: str
) -> list[dict[str, Any]]:
    """``allShows``: a season's shows by designer initial, letters first and ``#`` last, as
    the real season page and the landing's curated container both list them."""
    named = sorted(shows, key=lambda show: names[show.brand_slug].casefold())
    named.sort(key=lambda show: _group_order(_directory_group(names[show.brand_slug])))
    event = f"runway-seasonshowsnav-{analytics_slug(season_slug)}"
    return [
        {
            "groupName": letter,
            "links": [
                {
                    "text": names[show.brand_slug],
                    "url": show.path,
                    "isSecondary": True,
                    "analyticsEvent": f"{event}-{analytics_slug(show.brand_slug)}",
                }
                for show in members
            ],
        }
        for letter, members in groupby(
            named, key=lambda show: _directory_group(names[show.brand_slug])
        )
    ]


def curated_show(
    names: dict[str, str], show: ReplicaShow, cdn_base: str, analytics_event: str
) -> dict[str, Any]:
    """One ``curatedShows`` entry: the designer, the show's path and its cover."""
    name = names[show.brand_slug]
    return {
        "hed": name,
        "url": show.path,
        "image": image_entry(cdn_base, show.cover, name, show.cover.widths[:2]),
        "isLive": False,
        "customMessage": "",
        "analyticsEvent": analytics_event,
    }


def designer_names(site: ReplicaSite) -> dict[str, str]:
    """Every brand's display name by slug."""
    return {brand.slug: brand.name for brand in site.brands}


def render_season(site: ReplicaSite, season_slug: str, cdn_base: str) -> str | None:
    """``/fashion-shows/<season>``: every show of a season, as the real season page lists
    them (``runwaySeasonContent.allShows[].links[]`` by designer initial, and a few
    ``curatedShows``); None when no show has that season, so the server answers 404.
    """
    shows = [show for show in site.iter_shows() if show.season_slug == season_slug]
    if not shows:
        return None
    names = designer_names(site)
    groups = season_groups(names, shows, season_slug)
    regular = [show for show in shows if show.brand_slug != HOSTILE_BRAND] or shows
    curated = [
        curated_show(names, show, cdn_base, "runway-season-curated")
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
    return wrap_page(
        f"/fashion-shows/{season_slug}", title, state_text(state), f"<nav>{links}</nav>"
    )
