"""Discovery: the designers a source lists that the catalog lacks, within a team's scope;
and the season page read as the designers who showed in it, on the real page and the
replica's."""

from __future__ import annotations

import pytest

from fashion_assets.domain.discovery import DiscoveryScope, HeldDesigner, discover
from fashion_assets.replica import build_site
from fashion_assets.replica.vogue_listings import render_season
from fashion_assets.sources import vogue
from fashion_assets.sources.vogue import PageParseError
from tests.real_pages import real_page

LISTED = [("Chloé", "chloe"), ("Maison Margiela", "maison-margiela"),
          ("Maison Kitsuné", "maison-kitsune"), ("Dior", "christian-dior")]


def test_everything_listed_and_unknown_is_new_by_default() -> None:
    found = discover(LISTED, {"chloe": ["chloe", "Chloé"]}, DiscoveryScope())
    assert found.new == (("Maison Margiela", "maison-margiela"),
                         ("Maison Kitsuné", "maison-kitsune"), ("Dior", "christian-dior"))
    assert found.out_of_scope == () and found.known == 1


def test_the_allow_list_narrows_and_the_deny_list_wins() -> None:
    scope = DiscoveryScope.from_lists(allow="maison-*, christian-dior", deny="maison-kitsune")
    found = discover(LISTED, {}, scope)
    assert [slug for _, slug in found.new] == ["maison-margiela", "christian-dior"]
    assert [slug for _, slug in found.out_of_scope] == ["chloe", "maison-kitsune"]


def test_a_known_brand_stays_known_whatever_the_scope() -> None:
    found = discover(LISTED, {"chloe": ["chloe"]}, DiscoveryScope.from_lists(deny="*"))
    assert found.known == 1 and found.new == ()
    assert len(found.out_of_scope) == 3


def test_a_slug_listed_twice_counts_once_with_its_first_name() -> None:
    found = discover([("Chloé", "chloe"), ("CHLOE", "chloe")], {}, DiscoveryScope())
    assert found.new == (("Chloé", "chloe"),)


def test_a_new_slug_whose_name_spells_a_registered_brand_is_held_not_registered() -> None:
    brands = {"yves-saint-laurent": ["yves-saint-laurent", "Yves Saint Laurent",
                                     "Saint Laurent"]}
    listed = [("SAINT LAURENT", "saint-laurent"), ("Dior", "christian-dior")]

    found = discover(listed, brands, DiscoveryScope())

    assert found.held == (HeldDesigner("SAINT LAURENT", "saint-laurent",
                                       ("yves-saint-laurent",)),)
    assert found.new == (("Dior", "christian-dior"),) and found.known == 0


def test_two_new_slugs_of_one_name_register_the_first_and_hold_the_second() -> None:
    found = discover([("Rokh", "rokh"), ("ROKH", "rokh-1")], {}, DiscoveryScope())
    assert found.new == (("Rokh", "rokh"),)
    assert found.held == (HeldDesigner("ROKH", "rokh-1", ("rokh",)),)


def test_a_name_matching_several_brands_is_held_with_every_candidate() -> None:
    brands = {"a-one": ["a-one", "Twin"], "a-two": ["a-two", "Twin"]}
    [held] = discover([("Twin", "twin")], brands, DiscoveryScope()).held
    assert held.candidates == ("a-one", "a-two")


@pytest.mark.parametrize(("allow", "deny", "slug", "admitted"), [
    ("", "", "anything", True),
    ("Maison-*", "", "maison-margiela", True),  # patterns are slugs: case folded
    ("maison-*", "", "chloe", False),
    ("", " chloe , ", "chloe", False),
    ("chlo?", "", "chloe", True),
])
def test_scope_patterns(allow: str, deny: str, slug: str, admitted: bool) -> None:
    assert DiscoveryScope.from_lists(allow, deny).admits(slug) is admitted


def test_the_real_season_page_names_every_designer_who_showed() -> None:
    designers = vogue.parse_season_page(real_page("vogue_season__spring-2012-ready-to-wear.html"))
    slugs = [slug for _, slug in designers]
    assert len(slugs) == len(set(slugs)) == 349  # the real_pages README: 349 shows
    assert ("Jil Sander", "jil-sander") in designers
    assert designers[0] == ("A Détacher", "a-detacher")


def test_the_replica_season_page_names_the_designers_of_its_shows() -> None:
    site = build_site(brands=3, shows_per_brand=3, photos_per_show=2)
    season = next(site.iter_shows()).season_slug
    html = render_season(site, season, "https://assets.vogue.com")
    assert html is not None
    names = {brand.slug: brand.name for brand in site.brands}
    expected = {(names[s.brand_slug], s.brand_slug) for s in site.iter_shows()
                if s.season_slug == season}
    assert set(vogue.parse_season_page(html)) == expected


def test_a_page_that_is_not_a_season_page_is_refused() -> None:
    with pytest.raises(PageParseError) as error:
        vogue.parse_season_page(real_page("vogue_fashion-shows_landing.html"))
    assert error.value.reason == "missing_key"
