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


def test_landing_gives_the_current_seasons_and_every_designer_it_shows() -> None:
    """The real ``/fashion-shows``: the curated container's season first, the river's other
    seasons after it; the designers of every show it lists (the curated season's 324 and the
    river's few of other seasons), nothing from its articles, slideshows or tickers."""
    html = real_page(LANDING)
    landing = vogue.parse_landing_page(html)
    # Expectations by a plain walk: curated allShows links, then the river's shows.
    containers = vogue.extract_preloaded_state(html)["transformed"]["bundle"]["containers"]
    shows: list[tuple[str, str]] = []  # (url, designer name) in page order
    elsewhere: list[str] = []  # every other link of the containers
    for container in containers:
        for item in container.get("items") or []:
            if container["template"] == "verso-curated-shows":
                shows += [(link["url"], link["text"])
                          for group in item["allShows"] for link in group["links"]]
            elif container["template"] == "verso-river" and item["contentType"] == "fashionshow":
                shows.append((item["url"], item["dangerousHed"]))
            else:
                elsewhere.append(item["url"])
    expected: dict[str, str] = {}
    for url, name in shows:
        # Spacing is the page's own noise ("Snow Xue Gao " has a trailing space).
        expected.setdefault(url.split("/")[3], " ".join(name.split()))

    assert landing.seasons[0] == "fall-2025-ready-to-wear"
    assert "tokyo-fall-2025" in landing.seasons
    assert len(landing.seasons) == len(set(landing.seasons))
    assert set(landing.seasons) == {url.split("/")[2] for url, _ in shows}
    assert ("A.W.A.K.E. Mode", "a-w-a-k-e") in landing.designers
    assert ("Yueqi Qi", "yueqi-qi") in landing.designers  # in the river only (Tokyo)
    assert len(landing.designers) == len(expected) == 328
    assert {slug: name for name, slug in landing.designers} == expected
    assert elsewhere and not {slug for _, slug in landing.designers} & {
        url.split("?")[0].split("#")[0].rstrip("/").rsplit("/", 1)[-1] for url in elsewhere
    }
