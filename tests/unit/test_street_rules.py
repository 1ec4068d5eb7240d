"""The street-style entity key and the seeded cities: plain data in and out."""

from __future__ import annotations

import csv
from datetime import UTC, datetime
from pathlib import Path

import pytest

from fashion_assets.domain.cities import SEED_CITIES
from fashion_assets.domain.names import normalize_name, resolve_name
from fashion_assets.domain.street import CrawlPeriod, StreetEntityKey, street_article
from fashion_assets.domain.titles import TitleParseError, parse_show_title

TITLES = Path(__file__).parents[1] / "data" / "vogue_show_titles.csv"
CITY_BOOK = {c.slug: [c.slug, c.name, *c.aliases] for c in SEED_CITIES}


def test_one_clock_reading_gives_the_year_and_the_month() -> None:
    period = CrawlPeriod.of(datetime(2026, 2, 28, 23, 59, tzinfo=UTC))

    assert period.key("copenhagen") == StreetEntityKey("copenhagen", 2026, 2)


def test_two_fashion_weeks_of_one_year_are_two_albums() -> None:
    february = CrawlPeriod.of(datetime(2026, 2, 3, tzinfo=UTC)).key("copenhagen")
    august = CrawlPeriod.of(datetime(2026, 8, 10, tzinfo=UTC)).key("copenhagen")

    assert february != august and (february.year, august.year) == (2026, 2026)


@pytest.mark.parametrize(("city", "year", "month"), [
    ("copenhagen", 0, 2), ("copenhagen", 2026, 0), ("copenhagen", 2026, 13), ("", 2026, 2)])
def test_a_key_without_a_real_year_month_or_city_is_refused(city: str, year: int,
                                                             month: int) -> None:
    with pytest.raises(ValueError, match="not a street-style entity key"):
        StreetEntityKey(city, year, month)


def test_an_article_records_its_public_address_and_keeps_its_title_as_text() -> None:
    article = street_article(source="theimpression", public_base_url="https://theimpression.com",
                             week_slug="copenhagen-fashion-week", path="/street-style-cph/?x=1",
                             title="  The Best   Street Style ", listing_position=3)

    assert article.source_key.source_url == "https://theimpression.com/street-style-cph/"
    assert article.title == "The Best Street Style" and article.listing_position == 3


def test_seeded_cities_spell_every_name_once() -> None:
    forms = [normalize_name(s) for c in SEED_CITIES for s in {c.slug, c.name, *c.aliases}]
    owners: dict[str, set[str]] = {}
    for city in SEED_CITIES:
        for spelling in {city.slug, city.name, *city.aliases}:
            owners.setdefault(normalize_name(spelling), set()).add(city.slug)

    assert forms and all(len(slugs) == 1 for slugs in owners.values()), owners


@pytest.mark.parametrize(("spelling", "city"), [
    ("Kiev", "kyiv"), ("Kyiv", "kyiv"), ("São Paolo", "sao-paulo"), ("SAO PAULO", "sao-paulo"),
    ("NYFW", "new-york"), ("PFW", "paris"), ("CPHFW", "copenhagen"), ("Mexico City", "mexico-city"),
])
def test_the_short_forms_and_spellings_of_the_sources_resolve(spelling: str, city: str) -> None:
    assert resolve_name(spelling, CITY_BOOK).entity == city


def test_every_city_prefix_of_the_real_vogue_titles_resolves_to_a_seeded_city() -> None:
    places = set()
    with TITLES.open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            try:
                city = parse_show_title(row["show"]).city
            except TitleParseError:
                continue
            if city:
                places.add(city)

    unresolved = sorted(p for p in places if resolve_name(p, CITY_BOOK).pending)

    assert len(places) >= 15 and unresolved == []
    assert resolve_name("Lagos", CITY_BOOK).pending
