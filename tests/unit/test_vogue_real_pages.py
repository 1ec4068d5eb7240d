"""The Vogue adapter on real vogue.com pages (``../shared/real_pages/``, read where they lie).

The pages are facts about the site, not fixtures of ours: each test checks every field the
project stores (the manifest's title, the photos in order at the widest size, the expected
count, the captions) against what the page really holds. The expectations are read off the
page's own state with a plain JSON walk, never through the parser under test.
"""

from __future__ import annotations

from typing import Any

import pytest

from fashion_assets.sources import vogue
from fashion_assets.sources.vogue import PageParseError
from tests.real_pages import real_page, require_real_pages

require_real_pages()

SHOW = "vogue_show__spring-2012-ready-to-wear__jil-sander.html"
SEASON = "vogue_season__spring-2012-ready-to-wear.html"
LANDING = "vogue_fashion-shows_landing.html"
FRAGMENT = "vogue_slideshow_items_fragment__spring-2012-ready-to-wear__jil-sander.json"


@pytest.fixture(scope="module")
def show_html() -> str:
    return real_page(SHOW)


@pytest.fixture(scope="module")
def show_page(show_html: str) -> vogue.ShowPage:
    return vogue.parse_show_page(show_html)


def collection_items(html: str) -> list[dict[str, Any]]:
    """The Collection gallery's items, found by the id the real page gives it."""
    state = vogue.extract_preloaded_state(html)
    galleries = state["transformed"]["runwayShowGalleries"]["galleries"]
    (collection,) = [g for g in galleries if g["id"] == "gallery-collection"]
    return collection["items"]


def test_show_title_is_the_season_in_the_house_case_never_html(
    show_page: vogue.ShowPage,
) -> None:
    assert show_page.title == "Spring 2012 Ready-to-Wear"
    assert show_page.brand == "Jil Sander"


def test_show_date_falls_back_to_pub_date_as_written(show_page: vogue.ShowPage) -> None:
    assert show_page.event_date == "September 23, 2011"


def test_show_photos_all_49_in_order_at_the_widest_size(
    show_html: str, show_page: vogue.ShowPage
) -> None:
    items = collection_items(show_html)
    assert len(items) == show_page.expected_images == len(show_page.images) == 49
    assert show_page.skipped == ()
    assert [image.position for image in show_page.images] == list(range(1, 50))
    assert [image.url for image in show_page.images] == [
        item["image"]["sources"]["xxl"]["url"] for item in items
    ]
    assert {(image.width, image.height) for image in show_page.images} == {(2560, None)}
    # The old file names of 2011 (look N is "<N*10, five digits>fullscreen.jpg").
    assert [image.url.rsplit("/", 1)[1] for image in show_page.images] == [
        f"{n * 10:05d}fullscreen.jpg" for n in range(1, 50)
    ]


def test_show_captions_are_the_looks_and_no_other_gallery_leaks_in(
    show_html: str, show_page: vogue.ShowPage
) -> None:
    assert [image.caption for image in show_page.images] == [f"Look {n}" for n in range(1, 50)]
    state = vogue.extract_preloaded_state(show_html)
    others = {
        item["image"]["sources"]["xxl"]["url"]
        for gallery in state["transformed"]["runwayShowGalleries"]["galleries"]
        if gallery["id"] != "gallery-collection"
        for item in gallery["items"]
    }
    recommended = {
        item["url"] for item in state["transformed"]["runwayRecommendations"]["items"]
    }
    assert len(others) == 84 + 37 + 13
    assert others.isdisjoint(image.url for image in show_page.images)
    assert all(url.startswith("/fashion-shows/") for url in recommended)
    assert not any(path in image.url for path in recommended for image in show_page.images)


@pytest.mark.parametrize("name", [SEASON, LANDING])
def test_season_and_landing_pages_are_refused_as_no_show_page(name: str) -> None:
    with pytest.raises(PageParseError) as caught:
        vogue.parse_show_page(real_page(name))
    assert caught.value.reason == "missing_key"
    assert "runwayShowGalleries" in str(caught.value)


def test_slideshow_fragment_is_no_page() -> None:
    with pytest.raises(PageParseError) as caught:
        vogue.parse_show_page(real_page(FRAGMENT))
    assert caught.value.reason == "no_state"
