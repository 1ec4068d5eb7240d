"""What the browsing pages show, worked out from the read API's entries: designers by initial,
shows by season, the words a screen reader says for a photo, and a thumbnail's box.

Pure functions of plain data (the dicts ``catalog/published.py`` answers), so the grouping
and the wording are tested without a server, and the page handlers (``pages.py``) only
fetch, call these, and render.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

# The naming rule shared with the review page (``domain/display_names.py``), named here too
# for the page handlers.
from fashion_assets.domain.display_names import city_name as city_name
from fashion_assets.domain.display_names import month_label as month_label
from fashion_assets.domain.display_names import season_label as season_label
from fashion_assets.domain.display_names import words as words

# Grid cells are 160 CSS pixels wide; the thumbnail (320 px, ``domain/thumbnails.py``) is
# sharp there on a 2x phone screen. A photo of unknown size gets a portrait box: a look.
CELL_WIDTH = 160
CELL_MAX_HEIGHT = 320
PORTRAIT = (CELL_WIDTH, 240)
OTHER_INITIAL = "#"  # designers whose name starts with a digit or a sign
# A season's place within its year, as the shows of a year follow one another.
_SEASON_ORDER = ("resort", "pre-spring", "spring", "pre-fall", "fall", "winter")


@dataclass(frozen=True)
class Group:
    """A heading's text, the fragment id that jump lists link to, and what it holds."""

    label: str
    anchor: str
    items: list[dict[str, Any]]


def initial(name: str) -> str:
    """The letter a designer is filed under: the first letter of its name without accents
    (Émilio under E, not after Z), else ``OTHER_INITIAL``."""
    for char in unicodedata.normalize("NFKD", name.strip()):
        if unicodedata.combining(char):
            continue
        upper = char.upper()
        return upper if "A" <= upper <= "Z" else OTHER_INITIAL
    return OTHER_INITIAL


def by_initial(brands: Iterable[Mapping[str, Any]]) -> list[Group]:
    """Designers grouped by ``initial``, A to Z then the rest, each group by name."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for brand in brands:
        groups.setdefault(initial(str(brand["name"])), []).append(dict(brand))
    order = sorted(groups, key=lambda letter: (letter == OTHER_INITIAL, letter))
    return [Group(letter, "initial-" + ("other" if letter == OTHER_INITIAL else letter),
                  sorted(groups[letter], key=lambda b: (_fold(b["name"]), b["slug"])))
            for letter in order]


def by_season(shows: Iterable[Mapping[str, Any]]) -> list[Group]:
    """A designer's shows grouped by season and year, the latest first; within a season
    its collections (ready-to-wear, menswear, couture) by name."""
    groups: dict[tuple[int, int, str], list[dict[str, Any]]] = {}
    for show in shows:
        season = str(show.get("season") or "")
        rank = _SEASON_ORDER.index(season) if season in _SEASON_ORDER else len(_SEASON_ORDER)
        groups.setdefault((int(show.get("year") or 0), rank, season), []).append(dict(show))
    ordered = sorted(groups, key=lambda k: (-k[0], -k[1], k[2]))
    return [Group(f"{words(season)} {year}".strip() if year else (words(season) or "Undated"),
                  f"season-{year}-{season or 'other'}",
                  sorted(groups[(year, rank, season)],
                         key=lambda s: (str(s.get("collection_type")), s["season_code"])))
            for year, rank, season in ordered]


def by_city(albums: Iterable[Mapping[str, Any]]) -> list[Group]:
    """Street-style albums grouped by city (by name), each city's months the latest first."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for album in albums:
        groups.setdefault(str(album["city"]), []).append(dict(album))
    return [Group(city_name(city), f"city-{city}",
                  sorted(groups[city], key=lambda a: (-int(a["year"]), -int(a["month"]))))
            for city in sorted(groups, key=lambda c: _fold(city_name(c)))]


def look_alt(brand_name: str, season: str, position: int) -> str:
    """What a screen reader says for a look: "Chloé, Spring 2020 Ready-to-Wear, look 12"."""
    return ", ".join(part for part in (brand_name, season, f"look {position}") if part)


def alternate_alt(look: str, source: str) -> str:
    """The other source's photo of a look: "Chloé, ..., look 12, photo by theImpression"."""
    return f"{look}, photo by {source_name(source)}"


def source_name(source: str) -> str:
    """A source as its site names itself."""
    return {"vogue": "Vogue Runway", "theimpression": "theImpression"}.get(source, source)


def thumbnail_box(width: int | None, height: int | None) -> tuple[int, int]:
    """The width and height an ``img`` of a photo's thumbnail is given, so the page lays
    out before any photo arrives: the photo scaled to a grid cell, never past the cell's
    height (``PORTRAIT`` when its size is unknown)."""
    if not width or not height or width <= 0 or height <= 0:
        return PORTRAIT
    scale = min(CELL_WIDTH / width, CELL_MAX_HEIGHT / height)
    return max(1, round(width * scale)), max(1, round(height * scale))


def jump_list(groups: Sequence[Group]) -> list[tuple[str, str]]:
    """The label and anchor of each group, for the list of links at the top of a page."""
    return [(group.label, group.anchor) for group in groups]


def _fold(name: str) -> str:
    """A name as it is sorted: accents and case put aside."""
    return "".join(c for c in unicodedata.normalize("NFKD", name)
                   if not unicodedata.combining(c)).casefold()
