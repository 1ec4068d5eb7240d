"""The heading a draft is shown under (``domain/display_names.py: draft_heading``): the
designer by the name the catalog knows, the season in words, the city; a street-style
album by its city and month, as the browsing pages name them."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from fashion_assets.domain.display_names import designer_name, draft_heading
from fashion_assets.domain.titles import COLLECTION_TYPES, SEASONS

TOKYO_SHOW = {"brand_slug": "anrealage", "season_code": "tokyo-fall-2015", "title":
              "Tokyo Fall 2015", "season": "fall", "year": 2015,
              "collection_type": "ready-to-wear", "city": "tokyo", "city_name": "Tokyo"}


def test_a_show_is_named_by_its_designer_season_and_city_not_by_its_source_title() -> None:
    heading = draft_heading("runway", TOKYO_SHOW, brand_name="Anrealage", city_display="Tokyo")
    assert heading.text == "Anrealage, Fall 2015 Ready-to-Wear, Tokyo"
    assert heading.parts == (("designer", "Anrealage"), ("season", "Fall 2015 Ready-to-Wear"),
                             ("city", "Tokyo"))


def test_the_designers_name_not_its_slug_and_the_catalogs_city_name() -> None:
    main_show = {"brand_slug": "chloe", "title": "Fall 2026 Ready-to-Wear", "season": "fall",
                 "year": 2026, "collection_type": "ready-to-wear", "city": "sao-paulo"}
    assert draft_heading("runway", main_show, brand_name="Chloé",
                         city_display="São Paulo").text == (
        "Chloé, Fall 2026 Ready-to-Wear, São Paulo")
    # Without the catalog's names: the slug, and the city's slug in words.
    assert draft_heading("runway", main_show).text == "chloe, Fall 2026 Ready-to-Wear, Sao Paulo"
    # A city not resolved yet: as the title wrote it; none at all: left out.
    unresolved = {**main_show, "city": None, "city_name": "Lagos"}
    assert draft_heading("runway", unresolved, brand_name="Chloé").city == "Lagos"
    assert draft_heading("runway", {**main_show, "city": None},
                         brand_name="Chloé").text == "Chloé, Fall 2026 Ready-to-Wear"


def test_a_show_without_a_season_is_named_by_its_title() -> None:
    odd = {"brand_slug": "chloe", "title": "Capsule", "season": "", "year": 0}
    assert draft_heading("runway", odd, brand_name="Chloé").text == "Chloé, Capsule"


def test_a_street_album_is_named_by_its_city_and_month() -> None:
    album = {"city": "copenhagen", "year": 2024, "month": 2}
    heading = draft_heading("street", album, city_display="Copenhagen")
    assert heading.text == "Street style, Copenhagen, February 2024"
    assert heading.designer == "" and heading.season == "February 2024"
    assert draft_heading("street", {"city": "new-york", "year": 2024, "month": 9}).city == (
        "New York")


names = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=30)
slugs = st.from_regex(r"[a-z0-9][a-z0-9-]{0,30}", fullmatch=True)
shows = st.fixed_dictionaries({
    "brand_slug": slugs, "season": st.sampled_from(SEASONS), "year": st.integers(1900, 2100),
    "collection_type": st.sampled_from(COLLECTION_TYPES), "title": names,
    "city": st.none() | slugs, "city_name": st.none() | names})


@settings(max_examples=300, deadline=None)
@given(shows, st.none() | names, st.none() | names)
def test_every_show_heading_names_its_designer_first_then_its_season(
        show: dict[str, Any], brand_name: str | None, city_display: str | None) -> None:
    heading = draft_heading("runway", show, brand_name=brand_name, city_display=city_display)
    designer = designer_name(show["brand_slug"], brand_name)
    assert heading.designer == designer and designer.strip()
    if brand_name and brand_name.strip():  # a name the catalog knows wins over the slug
        assert heading.designer == brand_name.strip()
    assert heading.text.startswith(f"{designer}, ")
    assert str(show["year"]) in heading.season and heading.season in heading.text
    assert [role for role, _ in heading.parts][:2] == ["designer", "season"]
    assert all(part for _, part in heading.parts)  # nothing empty, no stray comma
    assert heading.text == ", ".join(part for _, part in heading.parts)
