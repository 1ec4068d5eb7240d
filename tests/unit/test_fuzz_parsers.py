"""Fuzzing the page parsers (issue 36): the replica's real pages with one field made hostile.

Each example takes a page the replica serves (Vogue's show, designer, season, directory and
landing pages; theImpression's articles and listings) and puts a hostile value in one of
its fields: in Vogue's page state any JSON value at any place (text of any Unicode and any
length, lone surrogates, numbers past 64 bits, another shape), in theImpression's markup
any text in an attribute (a title, an image URL, a width, a ``srcset``) or between tags.
The parser reads the page or refuses it with a ``PageParseError`` (a reason code the crawl
records and goes on from): no other exception may escape. How many examples:
``tests/fuzz.py``.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable
from functools import cache
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fashion_assets.replica import build_site
from fashion_assets.replica.build import ReplicaSite
from fashion_assets.replica.impression_pages import render_page
from fashion_assets.replica.vogue_landing import render_landing
from fashion_assets.replica.vogue_listings import render_designer, render_directory, render_season
from fashion_assets.replica.vogue_show import render_show
from fashion_assets.sources import theimpression, vogue
from fashion_assets.sources.errors import PageParseError
from tests.fuzz import example_done, fuzz_log, fuzzed, hostile_text, huge_text, outcome

pytestmark = pytest.mark.usefixtures("fuzz_log")
__all__ = ["fuzz_log"]  # the fixture, imported for pytest to find

BASE, CDN = "https://www.vogue.com", "https://assets.vogue.com"
IMPRESSION, IMPRESSION_CDN = "https://theimpression.com", "https://img.theimpression.com"
STATE = re.compile(r"window\.__PRELOADED_STATE__\s*=(?!=)\s*(?=\{)")  # the object's start


@cache
def site() -> ReplicaSite:
    return build_site(brands=2, shows_per_brand=2, photos_per_show=3, hostile=False,
                      articles_per_week=1)


@cache
def vogue_pages() -> tuple[tuple[str, str], ...]:
    """(parser name, page) of every kind of Vogue page."""
    s = site()
    show = s.brands[0].shows[0]
    return (("show", render_show(s, show, CDN)), ("designer", render_designer(s.brands[0], CDN)),
            ("season", render_season(s, show.season_slug, CDN) or ""),
            ("directory", render_directory(s)), ("landing", render_landing(s, CDN)))


VOGUE_PARSERS: dict[str, Callable[[str], Any]] = {
    "show": vogue.parse_show_page, "designer": vogue.parse_designer_page,
    "season": vogue.parse_season_page, "directory": vogue.parse_designer_directory,
    "landing": vogue.parse_landing_page}


def parsed(parse: Callable[[str], Any], page: str) -> None:
    """Read ``page``: a result or a recorded refusal, counted by its reason."""
    try:
        parse(page)
    except PageParseError as refused:
        outcome(f"refused: {refused.reason}")
    else:
        outcome("read")
    example_done()


def leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON value (the containers too: one may be replaced whole)."""
    places = [path]
    if isinstance(value, dict):
        for key, inner in value.items():
            places += leaves(inner, (*path, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            places += leaves(inner, (*path, index))
    return places


def replaced(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[path[0]] = replaced(value[path[0]], path[1:], new)
    return copy


def with_state(page: str, state: Any) -> str:
    """``page`` with its state replaced, written as the site writes it (``/`` escaped, a
    lone surrogate as its ``\\u`` escape)."""
    found = STATE.search(page)
    assert found is not None, "a replica page without its state"
    start = found.end()
    _, end = json.JSONDecoder().raw_decode(page, start)
    text = json.dumps(state, ensure_ascii=True).replace("/", "\\u002F")
    return page[:start] + text + page[end:]


JSON_LEAF = st.one_of(st.none(), st.booleans(), st.integers(-(2 ** 80), 2 ** 80), st.floats(),
                      hostile_text("https://assets.vogue.com/photos/x.jpg", "1200", "chloe"),
                      st.text(alphabet=st.characters(codec=None, categories=("Cs", "Cc"))),
                      huge_text())
HOSTILE_JSON = st.recursive(JSON_LEAF, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)),
    max_leaves=6)


def test_every_field_of_a_vogue_page_may_be_anything() -> None:
    @fuzzed
    @given(data=st.data(), which=st.integers(0, len(vogue_pages()) - 1))
    def check(data: st.DataObject, which: int) -> None:
        name, page = vogue_pages()[which]
        state = vogue.extract_preloaded_state(page)
        place = data.draw(st.sampled_from(leaves(state)))
        parsed(VOGUE_PARSERS[name], with_state(page, replaced(state, place,
                                                               data.draw(HOSTILE_JSON))))

    check()


@cache
def impression_pages() -> tuple[tuple[str, str, str], ...]:
    """(parser name, page URL, page) of theImpression's listings and articles."""
    impression = site().impression
    pages = []
    for listing in (*impression.weeks[:1], *impression.seasons[:1]):
        pages.append(("listing", f"{IMPRESSION}{listing.path}",
                      render_page(impression, listing.path, IMPRESSION, IMPRESSION_CDN) or ""))
        article = listing.articles[0]
        pages.append(("article", f"{IMPRESSION}{article.path}",
                      render_page(impression, article.path, IMPRESSION, IMPRESSION_CDN) or ""))
    return tuple(pages)


# An attribute's value, or the text between two tags.
FIELD = re.compile(r'(?<==")[^"]*(?=")|(?<=>)[^<]+(?=<)')
MARKUP_WORDS = ("1200w", "800", "https://img.theimpression.com/x.jpg 1200w, /y.jpg 99999999999w",
                "//evil.example/x.jpg", "/page/2/", "../../..", "Chloé Spring 2020",
                "javascript:alert(1)", "data:image/png;base64,AAAA")


def impression_parse(name: str, url: str) -> Callable[[str], Any]:
    if name == "listing":
        return lambda page: theimpression.parse_listing_page(page, page_url=url)
    return lambda page: theimpression.parse_article_page(
        page, page_url=url, image_hosts=frozenset({"img.theimpression.com", "theimpression.com"}))


def test_every_field_of_a_theimpression_page_may_be_anything() -> None:
    @fuzzed
    @given(data=st.data(), which=st.integers(0, len(impression_pages()) - 1),
           value=hostile_text(*MARKUP_WORDS), escape=st.booleans(), count=st.integers(1, 3))
    def check(data: st.DataObject, which: int, value: str, escape: bool, count: int) -> None:
        name, url, page = impression_pages()[which]
        fields = [m.span() for m in FIELD.finditer(page)]
        for start, end in sorted(data.draw(st.lists(st.sampled_from(fields), min_size=count,
                                                    max_size=count, unique=True)),
                                 reverse=True):  # from the end: earlier spans stay put
            page = page[:start] + (html.escape(value) if escape else value) + page[end:]
        parsed(impression_parse(name, url), page)

    check()


def test_a_control_character_in_an_attributes_name_is_no_error() -> None:
    """The fuzz's find: ``<time class=""\x08"" ...>`` gave an element an attribute whose
    name holds a control character, and lxml raised a ValueError when the attributes of an
    image after it were read."""
    name, url, page = impression_pages()[1]
    start = page.index('class="', page.index("<time")) + len('class="')
    end = page.index('"', start)
    parsed(impression_parse(name, url), page[:start] + '"\x08' + page[end:])
