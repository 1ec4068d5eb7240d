"""Name resolution in the catalog: aliases once, pending names, and an editor's decisions."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from fashion_assets.catalog import names
from fashion_assets.catalog.names import NameActionError, WaitingArticle
from fashion_assets.catalog.runway import add_brand
from fashion_assets.domain.names import NameKind
from fashion_assets.resources import catalog_engine
from tests.catalog_db import query

SOURCE = "theimpression"


def _runway_waiting(url: str, code: str = "spring-2020-ready-to-wear") -> WaitingArticle:
    path = url.removeprefix("https://theimpression.com")
    return WaitingArticle("runway", SOURCE, url, path, code, "Spring 2020 Ready-to-Wear",
                          season_code=code, listing_position=1)


def test_a_new_spelling_is_recorded_once_as_an_alias(database_url: str) -> None:
    engine = catalog_engine(database_url)
    add_brand(engine, "chloe", "Chloé")

    first = names.resolve_names(engine, NameKind.BRAND, [("CHLOE", SOURCE, "u1")])
    again = names.resolve_names(engine, NameKind.BRAND, [("CHLOE", SOURCE, "u2")])

    assert first["CHLOE"] == names.NameOutcome("resolved", "chloe", alias_recorded=True)
    assert again["CHLOE"] == names.NameOutcome("resolved", "chloe")
    assert query(database_url, "SELECT alias, entity_slug, origin FROM name_aliases"
                               " WHERE kind = 'brand'") == [("CHLOE", "chloe", "normalization")]


def test_an_unknown_name_waits_once_per_normalized_form(database_url: str) -> None:
    engine = catalog_engine(database_url)

    outcomes = names.resolve_names(engine, NameKind.BRAND, [
        ("Maison Inconnue", SOURCE, "https://theimpression.com/a/"),
        ("MAISON INCONNUE", SOURCE, "https://theimpression.com/b/")])

    first, second = outcomes["Maison Inconnue"], outcomes["MAISON INCONNUE"]
    assert first.status == second.status == "pending" and first.pending_id == second.pending_id
    assert query(database_url, "SELECT count(*) FROM brands") == [(0,)]
    [pending] = names.list_pending(engine)
    assert (pending.name, pending.kind, pending.example_url) == (
        "Maison Inconnue", "brand", "https://theimpression.com/a/")


def test_a_merge_adds_the_alias_and_releases_the_waiting_runway_articles(
        database_url: str) -> None:
    engine = catalog_engine(database_url)
    add_brand(engine, "maison-martin-margiela", "Maison Margiela")
    [outcome] = names.resolve_names(engine, NameKind.BRAND, [("Margiela", SOURCE, "u")]).values()
    url = "https://theimpression.com/margiela-spring-2020-ready-to-wear-collection/"
    assert names.hold_articles(engine, outcome.pending_id, [_runway_waiting(url)]) == 1
    assert names.hold_articles(engine, outcome.pending_id, [_runway_waiting(url)]) == 0
    assert names.list_pending(engine)[0].waiting == 1

    release = names.merge_name(engine, outcome.pending_id, "maison-martin-margiela",
                               editor="ed")

    assert (release.entity_slug, release.articles_released, release.partitions) == (
        "maison-martin-margiela", 1, (("runway", "spring-2020-ready-to-wear"),))
    assert query(database_url, "SELECT brand_slug, source, source_url, season_code, year"
                               " FROM runway_shows") == [
        ("maison-martin-margiela", SOURCE, url, "spring-2020-ready-to-wear", 2020)]
    assert query(database_url, "SELECT count(*) FROM waiting_articles") == [(0,)]
    assert query(database_url, "SELECT status, entity_slug, resolved_by FROM pending_names") == [
        ("merged", "maison-martin-margiela", "ed")]
    again = names.resolve_names(engine, NameKind.BRAND, [("Margiela", SOURCE, "u")])
    assert again["Margiela"] == names.NameOutcome("resolved", "maison-martin-margiela")
    with pytest.raises(NameActionError, match="merged already"):
        names.merge_name(engine, outcome.pending_id, "maison-martin-margiela", editor="ed")


def test_an_approved_city_releases_street_articles_with_their_first_crawl_month(
        database_url: str) -> None:
    engine = catalog_engine(database_url)
    [outcome] = names.resolve_names(engine, NameKind.CITY, [("Lagos", SOURCE, "u")]).values()
    waiting = WaitingArticle("street", SOURCE, "https://theimpression.com/lagos-1/", "/lagos-1/",
                             "lagos-fashion-week", "Lagos street style", year=2026, month=3)
    names.hold_articles(engine, outcome.pending_id, [waiting])

    release = names.approve_name(engine, outcome.pending_id, editor="ed")

    assert release.entity_slug == "lagos" and release.partitions == (
        ("street", "lagos-fashion-week"),)
    assert query(database_url, "SELECT slug, display_name FROM cities WHERE slug = 'lagos'") == [
        ("lagos", "Lagos")]
    assert query(database_url, "SELECT week_slug, city, year, month FROM street_style_articles"
                 ) == [("lagos-fashion-week", "lagos", 2026, 3)]


def test_approving_a_name_whose_slug_exists_asks_for_a_merge(database_url: str) -> None:
    engine = catalog_engine(database_url)
    with engine.begin() as conn:  # a name whose normalized form no city has, slug taken
        conn.execute(text("INSERT INTO pending_names (kind, name, normalized, source)"
                          " VALUES ('city', 'Paris!', 'paris x', 'theimpression')"))
    [pending] = names.list_pending(engine, kind=NameKind.CITY)

    with pytest.raises(NameActionError, match="exists already"):
        names.approve_name(engine, pending.id, editor="ed", slug="paris")
    with pytest.raises(NameActionError, match="no city 'atlantis'"):
        names.merge_name(engine, pending.id, "atlantis", editor="ed")


def test_a_dismissed_name_drops_its_waiting_articles_and_stays_dismissed(
        database_url: str) -> None:
    engine = catalog_engine(database_url)
    [outcome] = names.resolve_names(engine, NameKind.BRAND, [("Sponsored", SOURCE, "u")]).values()
    names.hold_articles(engine, outcome.pending_id,
                        [_runway_waiting("https://theimpression.com/ad/")])

    names.dismiss_name(engine, outcome.pending_id, editor="ed")

    assert query(database_url, "SELECT count(*) FROM waiting_articles") == [(0,)]
    again = names.resolve_names(engine, NameKind.BRAND, [("SPONSORED", SOURCE, "u")])
    assert again["SPONSORED"].status == "dismissed"
    assert names.list_pending(engine) == []


def test_a_merged_city_reaches_the_vogue_shows_and_drafts_that_named_it(
        database_url: str) -> None:
    engine = catalog_engine(database_url)
    add_brand(engine, "acme")
    [outcome] = names.resolve_names(engine, NameKind.CITY, [("Kyiiv", "vogue", "u")]).values()
    with engine.begin() as conn:
        for n, city_pending in ((1, outcome.pending_id), (2, None)):
            url = f"https://www.vogue.com/fashion-shows/kyiiv-fall-201{n}/acme"
            conn.execute(text(
                "INSERT INTO runway_shows (brand_slug, source, source_url, source_path,"
                " season_code, city_name, city_pending_id) VALUES ('acme', 'vogue', :u, '/p',"
                " :code, 'Kyiiv', :p)"), {"u": url, "code": f"kyiiv-fall-201{n}",
                                           "p": city_pending})
            conn.execute(text("INSERT INTO brand_runway_drafts (source, source_url, brand_slug,"
                              " season_code, city_name) VALUES ('vogue', :u, 'acme', :code,"
                              " 'Kyiiv')"), {"u": url, "code": f"kyiiv-fall-201{n}"})

    release = names.merge_name(engine, outcome.pending_id, "kyiv", editor="ed")

    assert release.shows_updated == 1
    assert query(database_url, "SELECT season_code, city, city_pending_id FROM runway_shows"
                               " ORDER BY season_code") == [
        ("kyiiv-fall-2011", "kyiv", None), ("kyiiv-fall-2012", None, None)]
    assert query(database_url, "SELECT season_code, city FROM brand_runway_drafts"
                               " ORDER BY season_code") == [
        ("kyiiv-fall-2011", "kyiv"), ("kyiiv-fall-2012", None)]


def test_a_name_two_brands_share_is_pending_with_both_as_candidates(database_url: str) -> None:
    engine = catalog_engine(database_url)
    add_brand(engine, "viktor-rolf", "Viktor & Rolf")
    add_brand(engine, "viktorandrolf", "Viktor&Rolf")

    outcomes = names.resolve_names(engine, NameKind.BRAND, [
        ("Viktor and Rolf", SOURCE, "u"), ("Viktor&Rolf", SOURCE, "u")])

    assert outcomes["Viktor&Rolf"].entity == "viktorandrolf"
    assert outcomes["Viktor and Rolf"].status == "pending"
    [pending] = names.list_pending(engine)
    assert pending.candidates == ("viktor-rolf", "viktorandrolf")


def test_the_brand_page_name_is_kept_without_taking_another_brand_s_spelling(
        database_url: str) -> None:
    engine = catalog_engine(database_url)
    add_brand(engine, "viktor-rolf", "Viktor & Rolf")
    add_brand(engine, "maison-martin-margiela")

    assert names.record_own_name(engine, "maison-martin-margiela", "Maison Margiela") is None
    assert names.record_own_name(engine, "maison-martin-margiela", "MM6 Maison Margiela") is None
    note = names.record_own_name(engine, "viktorandrolf", "Viktor&Rolf")

    assert note is not None and "viktor-rolf" in note
    assert query(database_url, "SELECT display_name FROM brands WHERE slug ="
                               " 'maison-martin-margiela'") == [("Maison Margiela",)]
    assert query(database_url, "SELECT alias FROM name_aliases WHERE entity_slug ="
                               " 'maison-martin-margiela'") == [("MM6 Maison Margiela",)]


def test_a_show_released_by_a_name_decision_keeps_its_title_city(database_url: str) -> None:
    """The listing stores a show's title city (a known one resolved, an unknown one waiting
    on its pending name); a show held for its designer's name and released by an editor is
    stored the same way, by the same recorder."""
    engine = catalog_engine(database_url)
    [outcome] = names.resolve_names(engine, NameKind.BRAND, [("Maison Neuve", SOURCE, "u")]
                                    ).values()
    base = "https://theimpression.com/maison-neuve-"
    held = [WaitingArticle("runway", SOURCE, f"{base}{code}/", f"/maison-neuve-{code}/", code,
                           title, season_code=code, listing_position=n)
            for n, (code, title) in enumerate([("tokyo-fall-2015", "Tokyo Fall 2015"),
                                               ("lagos-fall-2015", "Lagos Fall 2015")], 1)]
    assert names.hold_articles(engine, outcome.pending_id, held) == 2

    names.approve_name(engine, outcome.pending_id, editor="ed")

    shows = query(database_url, "SELECT season_code, city, city_name, city_pending_id IS NULL"
                                " FROM runway_shows ORDER BY listing_position")
    assert [tuple(row[:3]) for row in shows] == [
        ("tokyo-fall-2015", "tokyo", "Tokyo"), ("lagos-fall-2015", None, "Lagos")]
    assert [bool(row[3]) for row in shows] == [True, False]  # Lagos waits on its name
    [lagos] = names.list_pending(engine, kind=NameKind.CITY)
    assert (lagos.name, lagos.waiting) == ("Lagos", 1)
