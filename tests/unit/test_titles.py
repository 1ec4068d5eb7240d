"""Show-title and season-slug rules, checked against every title in the Vogue Runway corpus."""

import csv
import re
import unicodedata
from pathlib import Path

import pytest

from fashion_assets.domain.names import clean_name
from fashion_assets.domain.titles import (
    COLLECTION_TYPES,
    SEASONS,
    SeasonCode,
    SeasonSlugError,
    ShowTitle,
    TitleParseError,
    parse_season_slug,
    parse_show_title,
    season_slug_for,
    stored_title,
)

CORPUS = Path(__file__).parents[1] / "data" / "vogue_show_titles.csv"
CORPUS_ROWS = 25_876
RTW, MENS, COUTURE, BRIDAL = "ready-to-wear", "menswear", "couture", "bridal"


@pytest.fixture(scope="module")
def corpus_titles() -> list[str]:
    with CORPUS.open(encoding="utf-8", newline="") as handle:
        titles = [row["show"] for row in csv.DictReader(handle)]
    assert len(titles) == CORPUS_ROWS
    return titles


def _misses(titles: list[str], check) -> list[str]:
    """Run ``check`` on every title and describe each failure, so one run lists them all."""
    misses = []
    for title in titles:
        try:
            problem = check(title)
        except ValueError as error:
            problem = str(error)
        if problem:
            misses.append(f"{title!r}: {problem}")
    return misses


def _corpus_problem(title: str) -> str | None:
    parsed = parse_show_title(title)
    (year,) = re.findall(r"[0-9]{4}", title)
    if parsed.year != int(year):
        return f"year {parsed.year} != {year}"
    if parsed.season not in SEASONS or parsed.collection_type not in COLLECTION_TYPES:
        return f"unexpected {parsed}"
    return None


def test_every_corpus_title_parses(corpus_titles: list[str]) -> None:
    misses = _misses(corpus_titles, _corpus_problem)
    assert not misses, f"{len(misses)} misses:\n" + "\n".join(misses[:50])


def _round_trip_problem(title: str) -> str | None:
    parsed = parse_show_title(title)
    code = parse_season_slug(season_slug_for(parsed))
    if (code.season, code.year, code.collection_type) != (
        parsed.season,
        parsed.year,
        parsed.collection_type,
    ):
        return f"{parsed} came back as {code}"
    return None


def test_slug_round_trip_over_corpus(corpus_titles: list[str]) -> None:
    misses = _misses(sorted(set(corpus_titles)), _round_trip_problem)
    assert not misses, f"{len(misses)} misses:\n" + "\n".join(misses[:50])


# Every title shape in the corpus, then the spelling variations people and pages produce.
TITLE_CASES = [
    ("Fall 2019 Ready-to-Wear", ShowTitle("fall", 2019, RTW, None)),
    ("Spring 2013 Ready-to-Wear", ShowTitle("spring", 2013, RTW, None)),
    ("Resort 2020", ShowTitle("resort", 2020, RTW, None)),
    ("Fall 2022 Menswear", ShowTitle("fall", 2022, MENS, None)),
    ("Spring 2017 Menswear", ShowTitle("spring", 2017, MENS, None)),
    ("Pre-Fall 2024", ShowTitle("pre-fall", 2024, RTW, None)),
    ("Fall 2018 Couture", ShowTitle("fall", 2018, COUTURE, None)),
    ("Spring 2022 Couture", ShowTitle("spring", 2022, COUTURE, None)),
    ("Tokyo Fall 2015", ShowTitle("fall", 2015, RTW, "Tokyo")),
    ("Tokyo Spring 2016", ShowTitle("spring", 2016, RTW, "Tokyo")),
    ("Copenhagen Fall 2020", ShowTitle("fall", 2020, RTW, "Copenhagen")),
    ("Copenhagen Spring 2021", ShowTitle("spring", 2021, RTW, "Copenhagen")),
    ("Bridal Spring 2019", ShowTitle("spring", 2019, BRIDAL, None)),
    ("Bridal Fall 2018", ShowTitle("fall", 2018, BRIDAL, None)),
    ("Australia Resort 2019", ShowTitle("resort", 2019, RTW, "Australia")),
    ("Australia Spring 2020", ShowTitle("spring", 2020, RTW, "Australia")),
    ("Tbilisi Spring 2019", ShowTitle("spring", 2019, RTW, "Tbilisi")),
    ("Tbilisi Fall 2018", ShowTitle("fall", 2018, RTW, "Tbilisi")),
    ("Kiev Fall 2017", ShowTitle("fall", 2017, RTW, "Kiev")),
    ("Kiev Spring 2018", ShowTitle("spring", 2018, RTW, "Kiev")),
    ("Pre-Fall 2020 Menswear", ShowTitle("pre-fall", 2020, MENS, None)),
    ("Berlin Fall 2019", ShowTitle("fall", 2019, RTW, "Berlin")),
    ("Berlin Spring 2020", ShowTitle("spring", 2020, RTW, "Berlin")),
    ("Stockholm Fall 2016", ShowTitle("fall", 2016, RTW, "Stockholm")),
    ("Stockholm Spring 2017", ShowTitle("spring", 2017, RTW, "Stockholm")),
    ("Seoul Fall 2018", ShowTitle("fall", 2018, RTW, "Seoul")),
    ("Seoul Spring 2019", ShowTitle("spring", 2019, RTW, "Seoul")),
    ("Ukraine Fall 2019", ShowTitle("fall", 2019, RTW, "Ukraine")),
    ("Ukraine Spring 2020", ShowTitle("spring", 2020, RTW, "Ukraine")),
    ("Resort 2019 Menswear", ShowTitle("resort", 2019, MENS, None)),
    ("Russia Fall 2017", ShowTitle("fall", 2017, RTW, "Russia")),
    ("Russia Spring 2018", ShowTitle("spring", 2018, RTW, "Russia")),
    ("Shanghai Spring 2019", ShowTitle("spring", 2019, RTW, "Shanghai")),
    ("Shanghai Fall 2019", ShowTitle("fall", 2019, RTW, "Shanghai")),
    ("Istanbul Fall 2018", ShowTitle("fall", 2018, RTW, "Istanbul")),
    ("Istanbul Spring 2019", ShowTitle("spring", 2019, RTW, "Istanbul")),
    ("São Paulo Fall 2017", ShowTitle("fall", 2017, RTW, "São Paulo")),
    ("São Paulo Spring 2018", ShowTitle("spring", 2018, RTW, "São Paulo")),
    ("São Paolo Spring 2016", ShowTitle("spring", 2016, RTW, "São Paolo")),
    ("São Paulo Resort 2018", ShowTitle("resort", 2018, RTW, "São Paulo")),
    ("Madrid Fall 2019", ShowTitle("fall", 2019, RTW, "Madrid")),
    ("Madrid Spring 2020", ShowTitle("spring", 2020, RTW, "Madrid")),
    ("Mexico City Fall 2019", ShowTitle("fall", 2019, RTW, "Mexico City")),
    ("Mexico Spring 2018", ShowTitle("spring", 2018, RTW, "Mexico")),
    ("Mexico Fall 2018", ShowTitle("fall", 2018, RTW, "Mexico")),
    ("Spain Spring 2017", ShowTitle("spring", 2017, RTW, "Spain")),
    ("Spain Fall 2017", ShowTitle("fall", 2017, RTW, "Spain")),
    # Seasons the corpus lacks but the grammar allows.
    ("Summer 2021", ShowTitle("summer", 2021, RTW, None)),
    ("Winter 2021 Menswear", ShowTitle("winter", 2021, MENS, None)),
    ("Pre-Spring 2023", ShowTitle("pre-spring", 2023, RTW, None)),
    # Collection type after the year, or before the season, or with a place.
    ("Spring 2019 Bridal", ShowTitle("spring", 2019, BRIDAL, None)),
    ("Menswear Fall 2019", ShowTitle("fall", 2019, MENS, None)),
    ("Tokyo Bridal Fall 2019", ShowTitle("fall", 2019, BRIDAL, "Tokyo")),
    ("Resort 2020 Ready-to-Wear", ShowTitle("resort", 2020, RTW, None)),
    # Case, whitespace, dashes and Unicode normalisation.
    ("fall 2019 ready-to-wear", ShowTitle("fall", 2019, RTW, None)),
    ("FALL 2019 READY-TO-WEAR", ShowTitle("fall", 2019, RTW, None)),
    ("Fall 2019 Ready-To-Wear", ShowTitle("fall", 2019, RTW, None)),
    ("Fall 2019 Ready to Wear", ShowTitle("fall", 2019, RTW, None)),
    ("Fall 2019 Ready–to–Wear", ShowTitle("fall", 2019, RTW, None)),
    ("  Fall   2019\tMenswear \n", ShowTitle("fall", 2019, MENS, None)),
    ("Fall\u00a02019\u202fMenswear", ShowTitle("fall", 2019, MENS, None)),
    ("Pre–Fall 2024", ShowTitle("pre-fall", 2024, RTW, None)),
    ("Pre—Fall 2024", ShowTitle("pre-fall", 2024, RTW, None)),
    ("Pre\u2011Fall 2024", ShowTitle("pre-fall", 2024, RTW, None)),
    ("pre fall 2024", ShowTitle("pre-fall", 2024, RTW, None)),
    ("PreFall 2024", ShowTitle("pre-fall", 2024, RTW, None)),
    ("tokyo FALL 2015", ShowTitle("fall", 2015, RTW, "tokyo")),
    ("Mexico   City Fall 2019", ShowTitle("fall", 2019, RTW, "Mexico City")),
    (
        unicodedata.normalize("NFD", "São Paulo Fall 2017"),
        ShowTitle("fall", 2017, RTW, "São Paulo"),
    ),
    ("St. Petersburg Fall 2019", ShowTitle("fall", 2019, RTW, "St. Petersburg")),
    ("Côte d'Ivoire Spring 2020", ShowTitle("spring", 2020, RTW, "Côte d'Ivoire")),
    ("Fall 1900", ShowTitle("fall", 1900, RTW, None)),
    ("Fall 2100", ShowTitle("fall", 2100, RTW, None)),
]


@pytest.mark.parametrize(("title", "expected"), TITLE_CASES)
def test_parse_show_title(title: str, expected: ShowTitle) -> None:
    assert parse_show_title(title) == expected


def test_place_is_returned_in_composed_form() -> None:
    city = parse_show_title(unicodedata.normalize("NFD", "São Paulo Fall 2017")).city
    assert city is not None and unicodedata.is_normalized("NFC", city)


TITLE_REJECTIONS = [
    ("", "empty"),
    ("   \u00a0\t", "empty"),
    ("Fall", "no 4-digit year"),
    ("Fall 19", "no 4-digit year"),
    ("Fall 20190", "no 4-digit year"),
    ("Tokyo 2019", "no season word"),
    ("Autumn 2019", "no season word"),
    ("Springfield 2019", "no season word"),
    ("Fall 1899", "outside 1900..2100"),
    ("Fall 2101", "outside 1900..2100"),
    ("Fall 2019 Spring 2020", "not shaped like"),
    ("Fall Tokyo Spring 2019", "not shaped like"),
    ("2019 Fall", "not shaped like"),
    ("Fall 2019 Ready-to-Wear Collection", "not shaped like"),
    ("Tokyo-Fall 2019", "not shaped like"),
    ("Fall-2019", "not shaped like"),
    ("2019 Fall 2019", "not a place name"),
    ("Tokyo, Japan Fall 2019", "not a place name"),
    ("Bridal Fall 2019 Menswear", "two collection types"),
    ("Fall\x002019", "control characters"),
    ("Fall 2019\x1b[31m", "control characters"),
    ("Fall 2019\x85", "control characters"),
    ("Fall 2019 \ud800", "control characters"),
    ("Fall 2019 " + "x" * 300, "longer than 300"),
]


@pytest.mark.parametrize(("title", "reason"), TITLE_REJECTIONS)
def test_parse_show_title_rejects(title: str, reason: str) -> None:
    with pytest.raises(TitleParseError, match=re.escape(reason)):
        parse_show_title(title)


def test_error_quotes_the_input_as_given() -> None:
    with pytest.raises(TitleParseError, match=re.escape("'Tokyo  2019\\xa0'")):
        parse_show_title("Tokyo  2019\u00a0")


def test_error_truncates_long_input() -> None:
    with pytest.raises(TitleParseError) as caught:
        parse_show_title("Fall " + "y" * 400)
    assert "y" * 195 in str(caught.value)
    assert "y" * 196 not in str(caught.value)
    assert "405 chars" in str(caught.value)


SLUG_CASES = [
    ("spring-2020-ready-to-wear", SeasonCode("spring-2020-ready-to-wear", "spring", 2020, RTW)),
    ("fall-2022-menswear", SeasonCode("fall-2022-menswear", "fall", 2022, MENS)),
    ("resort-2026", SeasonCode("resort-2026", "resort", 2026, RTW)),
    ("pre-fall-2024", SeasonCode("pre-fall-2024", "pre-fall", 2024, RTW)),
    ("spring-2022-couture", SeasonCode("spring-2022-couture", "spring", 2022, COUTURE)),
    ("bridal-spring-2019", SeasonCode("bridal-spring-2019", "spring", 2019, BRIDAL)),
    ("tokyo-fall-2015", SeasonCode("tokyo-fall-2015", "fall", 2015, RTW)),
    ("sao-paulo-spring-2018", SeasonCode("sao-paulo-spring-2018", "spring", 2018, RTW)),
    ("resort-2019-menswear", SeasonCode("resort-2019-menswear", "resort", 2019, MENS)),
    ("pre-fall-2020-menswear", SeasonCode("pre-fall-2020-menswear", "pre-fall", 2020, MENS)),
    ("mexico-city-fall-2019", SeasonCode("mexico-city-fall-2019", "fall", 2019, RTW)),
    ("Spring-2020-Ready-To-Wear", SeasonCode("spring-2020-ready-to-wear", "spring", 2020, RTW)),
]


@pytest.mark.parametrize(("slug", "expected"), SLUG_CASES)
def test_parse_season_slug(slug: str, expected: SeasonCode) -> None:
    assert parse_season_slug(slug) == expected


SLUG_REJECTIONS = [
    ("", "empty"),
    ("spring 2020", "only contain"),
    ("spring_2020", "only contain"),
    ("spring-2020/", "only contain"),
    ("são-paulo-spring-2018", "only contain"),
    ("spring-2020-ready-to-wear\n", "only contain"),
    ("tokyo", "no season word"),
    ("spring", "no 4-digit year"),
    ("spring-20", "no 4-digit year"),
    ("spring-1850", "outside 1900..2100"),
    ("fall-2019-", "not shaped like"),
    ("fall--2019", "not shaped like"),
    ("fall-2019-ready-to-wear-2", "not shaped like"),
    ("prefall-2024", "no season word"),
    ("fall-2019-ready-to-wear-look-1", "not shaped like"),
    ("-fall-2019", "not a place name"),
    ("tokyo--fall-2019", "not a place name"),
    ("2019-fall-2019", "not a place name"),
    ("bridal-fall-2019-couture", "two collection types"),
    ("tokyo-" * 20 + "fall-2019", "longer than 120"),
]


@pytest.mark.parametrize(("slug", "reason"), SLUG_REJECTIONS)
def test_parse_season_slug_rejects(slug: str, reason: str) -> None:
    with pytest.raises(SeasonSlugError, match=re.escape(reason)):
        parse_season_slug(slug)


@pytest.mark.parametrize(
    ("title", "slug"),
    [
        ("Tokyo Fall 2015", "tokyo-fall-2015"),
        ("Fall 2019 Menswear", "fall-2019-menswear"),
        ("Spring 2018 Ready-to-Wear", "spring-2018-ready-to-wear"),
        ("Resort 2020", "resort-2020"),
        ("Pre-Fall 2020 Menswear", "pre-fall-2020-menswear"),
        ("Fall 2018 Couture", "fall-2018-couture"),
        ("Bridal Spring 2019", "bridal-spring-2019"),
        ("São Paolo Spring 2016", "sao-paolo-spring-2016"),
        ("Mexico City Fall 2019", "mexico-city-fall-2019"),
        ("Côte d'Ivoire Spring 2020", "cote-d-ivoire-spring-2020"),
    ],
)
def test_season_slug_for(title: str, slug: str) -> None:
    assert season_slug_for(parse_show_title(title)) == slug


def test_season_slug_for_refuses_letters_it_would_drop() -> None:
    with pytest.raises(ValueError, match="without losing letters"):
        season_slug_for(ShowTitle("fall", 2019, RTW, "Łódź"))


def test_season_slug_for_refuses_titles_it_cannot_read_back() -> None:
    with pytest.raises(SeasonSlugError):
        season_slug_for(ShowTitle("autumn", 2019, RTW, None))


@pytest.mark.parametrize(("raw", "stored"), [
    ("Fall 1990 Ready-to-Wear \x1b[0m", "Fall 1990 Ready-to-Wear"),
    ("\x1b[1;31mRed\x1b[0m Show", "Red Show"),
    ("\x1b]0;pwned\x07Spring 2020", "Spring 2020"),
    ("\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\", "link"),
    ("\x9b2JResort 2021", "Resort 2021"),
    ("Pre\x00-Fall\x7f 2019\x85", "Pre-Fall 2019"),
    ("Spring\t2020\r\nCouture", "Spring 2020 Couture"),
    ("Copen\u202ehagen\u2066 2020", "Copenhagen 2020"),
    ("São Paulo  Résumé 👩\u200d👩", "São Paulo Résumé 👩\u200d👩"),
])
def test_a_stored_title_keeps_no_control_character_whatever_the_source(
        raw: str, stored: str) -> None:
    assert stored_title(raw) == stored


def test_every_control_character_is_gone_from_a_stored_title() -> None:
    controls = "".join(chr(c) for c in (*range(0x20), *range(0x7f, 0xa0)))
    cleaned = stored_title(f"A{controls}B")
    assert cleaned in ("A B", "AB") and all(c.isprintable() for c in cleaned)


@pytest.mark.parametrize("raw", ["Dries\x1b[0m Van Noten", "Maison\u202e Margiela", "Acne\tStudios",
                                 "Ann\x00 Demeulemeester", "São\u200dPaulo"])
def test_names_are_kept_by_the_same_rule_as_titles(raw: str) -> None:
    assert clean_name(raw) == stored_title(raw)
    assert "\x1b" not in clean_name(raw) and "\u202e" not in clean_name(raw)
