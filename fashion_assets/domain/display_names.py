"""How a designer, a season, a city and a street-style album are named to people, and the
heading a draft is shown under: one rule for the pages people browse and for the page
editors review on.

A source's title is no heading: Vogue titles a Tokyo show "Tokyo Fall 2015" and a main show
"Fall 2026 Ready-to-Wear", neither naming the designer. The heading is made from the fields
the draft keeps instead (its entity key and what the catalog knows of it): the designer's
name, not its slug, when the catalog has one; the season in words; the city.

Pure functions of plain data, so the wording is tested without a catalog or a server.
"""

from __future__ import annotations

import calendar
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

STREET_STYLE = "Street style"
_SMALL_WORDS = frozenset({"to", "and", "of", "de", "du", "la", "le"})


def words(text: str) -> str:
    """A slug or a code as words: ``ready-to-wear`` is "Ready-to-Wear" (a hyphen stays a
    hyphen; ``city_name`` makes a city's hyphens spaces)."""
    return " ".join("-".join(w if w in _SMALL_WORDS else w[:1].upper() + w[1:]
                             for w in part.split("-"))
                    for part in text.replace("_", " ").split())


def city_name(slug: str) -> str:
    """A city's slug as its name (``new-york`` is "New York")."""
    return words(slug.replace("-", " "))


def designer_name(slug: str, display_name: str | None) -> str:
    """A designer as people read it: the name the catalog knows ("Chloé"), else its slug
    (a brand registered without a name is still found by what its slug says)."""
    return (display_name or "").strip() or slug


def season_label(show: Mapping[str, Any]) -> str:
    """A show's season in words ("Spring 2020 Ready-to-Wear"), from its fields; its title
    where the source gave no season."""
    season, year = str(show.get("season") or ""), int(show.get("year") or 0)
    if not season or not year:
        return str(show.get("title") or show.get("season_code") or "")
    kind = words(str(show.get("collection_type") or ""))
    return " ".join(part for part in (words(season), str(year), kind) if part)


def month_label(year: int, month: int) -> str:
    """ "February 2024"; a month out of range as its number (the catalog checks it)."""
    name = calendar.month_name[month] if 1 <= month <= 12 else str(month)
    return f"{name} {year}"


@dataclass(frozen=True)
class DraftHeading:
    """What a draft of ``kind`` is shown under: its designer ("" for street style), its
    season (a street album's month), its city ("" when the show named none)."""

    kind: str
    designer: str
    season: str
    city: str

    @property
    def parts(self) -> tuple[tuple[str, str], ...]:
        """What the heading says, in its order, each with its role (designer, season, city),
        so that a page can set each apart: a show's designer, season and city; an album's
        "Street style", city and month, as the browsing pages name it. Empty ones left out."""
        ordered = ((("designer", STREET_STYLE), ("city", self.city), ("season", self.season))
                   if self.kind == "street" else
                   (("designer", self.designer), ("season", self.season), ("city", self.city)))
        return tuple((role, part) for role, part in ordered if part)

    @property
    def text(self) -> str:
        """One line: "Chloé, Spring 2020 Ready-to-Wear, Paris"; "Street style, Paris, March
        2024"."""
        return ", ".join(part for _, part in self.parts)


def draft_heading(kind: str, fields: Mapping[str, Any], *, brand_name: str | None = None,
                  city_display: str | None = None) -> DraftHeading:
    """The heading of a draft of ``kind`` (runway or street) from its ``fields`` (a runway
    draft's ``brand_slug``, ``season``, ``year``, ``collection_type``, ``season_code``,
    ``title``, ``city`` and ``city_name``; a street draft's ``city``, ``year`` and ``month``)
    and the names the catalog keeps for its brand and its city, when it has them.

    The city is the catalog's name for the city slug, else the slug in words, else, for a
    show whose city is not resolved yet, the city as its title wrote it.
    """
    slug = str(fields.get("city") or "")
    city = ((city_display or "").strip() or (city_name(slug) if slug else "")
            or str(fields.get("city_name") or "").strip())
    if kind == "street":
        return DraftHeading(kind, "", month_label(int(fields.get("year") or 0),
                                            int(fields.get("month") or 0)), city)
    return DraftHeading(kind, designer_name(str(fields.get("brand_slug") or ""), brand_name),
                        season_label(fields), city)
