"""The replica's pages have the real site's shapes: one set of checks, fed both.

Each check is a fact the real page of ``../shared/real_pages/`` shows (see its README). The
same function is fed the real show page and replica show pages, so the replica cannot drift
from the site without this test saying where. A parser right on the replica is then right on
the site too.
"""

from __future__ import annotations

import re
from html import unescape
from typing import Any

import pytest

from fashion_assets.replica import build_site
from fashion_assets.replica.build import ReplicaSite
from fashion_assets.replica.site import HOSTILE_BRAND, ReplicaShow
from fashion_assets.replica.vogue_landing import render_landing
from fashion_assets.replica.vogue_listings import render_designer, render_directory, render_season
from fashion_assets.replica.vogue_show import render_show
from fashion_assets.replica.vogue_shows import old_file_names
from fashion_assets.sources import vogue
from tests.real_pages import real_page

REAL_SHOW = "vogue_show__spring-2012-ready-to-wear__jil-sander.html"
REAL_SHOW_PATH = "/fashion-shows/spring-2012-ready-to-wear/jil-sander"
REAL_SEASON = "vogue_season__spring-2012-ready-to-wear.html"
REAL_LANDING = "vogue_fashion-shows_landing.html"
CDN = "https://assets.vogue.com"

STATE_SCRIPT = re.compile(
    r'<script type="text/javascript">window\.__PRELOADED_STATE__\s*=\s*(\{.*?)</script>', re.S
)
DESIGNER_LINK = re.compile(r'<a href="/fashion-shows/designer/[a-z0-9-]+">(?P<text>[^<]+)</a>')
SEASON_LINK = re.compile(r'<a href="/fashion-shows/(?P<season>[a-z0-9-]+)">(?P<text>[^<]+)</a>')
PUB_DATE = re.compile(r"(January|February|March|April|May|June|July|August|September|October"
                      r"|November|December) [1-9][0-9]?, [0-9]{4}")
# A sized CDN URL: the comma sometimes written %2C, old or new file names.
SIZED_URL = re.compile(
    r"https?://[^/]+/photos/[0-9a-f]{24}/master/w_(?P<width>[0-9]+)(,|%2C)c_limit/"
    r"(?P<file>[0-9]{5}fullscreen\.jpg|[0-9]{5}-[a-z0-9-]+-credit-gorunway\.jpg)"
)
GALLERIES = {  # id: (title, slideshow slug, caption before "Look N")
    "gallery-collection": ("Collection", "collection", ""),
    "gallery-detail": ("Details", "details", "Detail "),
    "gallery-beauty": ("Beauty", "beauty", "Beauty "),
    "gallery-front-row": ("Front Row", "front-row", "Front Row "),
}
SOURCE_KEYS = {"aspectRatio", "width", "url", "srcset"}
SHOW_PATH = re.compile(r"/fashion-shows/(?P<season>[a-z0-9-]+)/(?P<brand>[a-z0-9-]+)")
ALL_SHOWS_LINK_KEYS = {"text", "url", "isSecondary", "analyticsEvent"}
CURATED_SHOW_KEYS = {"hed", "url", "image", "isLive", "customMessage", "analyticsEvent"}
RIVER_SHOW_KEYS = {"id", "contentType", "dangerousHed", "dangerousDek", "url", "image", "rubric",
                   "source"}
RUNWAY_RUBRIC = {"name": "Runway", "url": "/fashion-shows"}
SIZE_WIDTHS = {"sm": 360, "md": 1024, "lg": 1280, "xl": 1280, "xxl": 2560}


def assert_show_page_shape(html: str, path: str) -> None:
    """Every point of the real show page's shape that the parsers or the crawl depend on."""
    script = STATE_SCRIPT.search(html)
    assert script is not None, "the state is assigned in a text/javascript script"
    assert "\\u002F" in script.group(1) and '"https://' not in script.group(1)
    state = vogue.extract_preloaded_state(html)["transformed"]
    assert_show_content(state["runwayShowContent"])
    galleries = state["runwayShowGalleries"]["galleries"]
    assert {gallery["id"] for gallery in galleries} == set(GALLERIES)
    for gallery in galleries:
        assert_gallery(gallery, path)
    assert_recommendations(state["runwayRecommendations"], path)


def assert_show_content(content: dict[str, Any]) -> None:
    header = content["sectionHeader"]
    designer = DESIGNER_LINK.fullmatch(header["hed"])
    season = SEASON_LINK.fullmatch(header["subHed"])
    assert designer is not None and season is not None, header
    season_title = content["reviewTitle"].removeprefix(unescape(designer["text"]) + " ")
    assert season_title != content["reviewTitle"] and season_title.upper() == season["text"]
    assert PUB_DATE.fullmatch(content["pubDate"]), content["pubDate"]
    assert "brand" not in content and "eventDate" not in content
    review = content["review"]
    assert isinstance(review, list) and review[0] == "div" and review[1][0] == "p"


def assert_season_page_shape(html: str, season: str) -> None:
    """The season page: every show of the season by designer initial, and a few highlights;
    never mistaken for a show page."""
    with pytest.raises(vogue.PageParseError):
        vogue.parse_show_page(html)
    content = vogue.extract_preloaded_state(html)["transformed"]["runwaySeasonContent"]
    assert isinstance(content["name"], str) and isinstance(content["subHed"], str)
    show_url = re.compile(rf"/fashion-shows/{re.escape(season)}/[a-z0-9-]+")
    groups = content["allShows"]
    letters = [group["groupName"] for group in groups]
    assert letters == sorted(letters, key=lambda letter: (letter == "#", letter))
    links = [link for group in groups for link in group["links"]]
    assert links and all(set(link) == {"text", "url", "isSecondary", "analyticsEvent"}
                         for link in links)
    assert all(show_url.fullmatch(link["url"]) for link in links)
    assert len({link["url"] for link in links}) == len(links)
    curated = content["curatedShows"]
    assert curated and all(show_url.fullmatch(show["url"]) for show in curated)
    for show in curated:
        assert {"hed", "url", "image"} <= set(show) and isinstance(show["hed"], str)
        assert set(show["image"]) == {"altText", "contentType", "sources"}
        assert all(set(source) == SOURCE_KEYS for source in show["image"]["sources"].values())


def assert_landing_page_shape(html: str) -> str:
    """The ``/fashion-shows`` landing: containers by template, the current season's shows in a
    curated container, the latest shows (articles and slideshows mixed in) in a river, and
    editorial containers beside them; never mistaken for a show, season or directory page.
    Returns the current season's slug, named by the curated container's title."""
    script = STATE_SCRIPT.search(html)
    assert script is not None and "\\u002F" in script.group(1)
    assert '"https://' not in script.group(1)
    for parse in (vogue.parse_show_page, vogue.parse_season_page,
                  vogue.parse_designer_directory):
        with pytest.raises(vogue.PageParseError):
            parse(html)
    containers = vogue.extract_preloaded_state(html)["transformed"]["bundle"]["containers"]
    templates = [container["template"] for container in containers]
    assert "verso-ticker" in templates and "verso-mid-content-ad" in templates
    (curated,) = [c for c in containers if c["template"] == "verso-curated-shows"]
    season = assert_curated_container(curated)
    (river,) = [c for c in containers if c["template"] == "verso-river"]
    assert_river(river)
    (street,) = [c for c in containers if c.get("dangerousHed") == "Street Style"]
    assert street["template"] == "verso-features" and street["items"]
    for item in street["items"]:
        assert item["contentType"] == "gallery" and item["url"].startswith("/slideshow/")
    return season


def assert_curated_container(container: dict[str, Any]) -> str:
    """The current season: ``items[0]`` lists all its shows as a season page does."""
    (item,) = container["items"]
    assert set(item) == {"name", "curatedShows", "allShows"}
    assert container["dangerousHed"] == item["name"] and container["subHed"] == "Highlights"
    season = re.sub(r"[^a-z0-9]+", "-", item["name"].lower()).strip("-")
    groups = item["allShows"]
    letters = [group["groupName"] for group in groups]
    assert letters == sorted(letters, key=lambda letter: (letter == "#", letter))
    links = [link for group in groups for link in group["links"]]
    assert links and all(set(link) == ALL_SHOWS_LINK_KEYS for link in links)
    urls = [link["url"] for link in links]
    matches = [SHOW_PATH.fullmatch(url) for url in urls]
    assert all(match is not None and match["season"] == season for match in matches), urls
    assert len(set(urls)) == len(urls)
    curated = item["curatedShows"]
    assert curated and {show["url"] for show in curated} <= set(urls)
    for show in curated:
        assert set(show) == CURATED_SHOW_KEYS and isinstance(show["hed"], str)
        assert set(show["image"]) == {"altText", "contentType", "sources"}
        # The real landing's covers also give a height; nothing reads these images.
        assert all(set(source) >= SOURCE_KEYS for source in show["image"]["sources"].values())
    return season


def assert_river(river: dict[str, Any]) -> None:
    """"Latest in Runway": shows of several seasons, with articles and slideshows among them."""
    assert river["dangerousHed"] == "Latest in Runway"
    assert 0 < len(river["items"]) <= river["limit"]
    shows = [item for item in river["items"] if item["contentType"] == "fashionshow"]
    others = [item for item in river["items"] if item["contentType"] != "fashionshow"]
    assert shows and others and {item["contentType"] for item in others} <= {"article", "gallery"}
    assert all(re.fullmatch(r"/(article|slideshow)/[a-z0-9-]+", item["url"]) for item in others)
    seasons = set()
    for show in shows:
        assert set(show) >= RIVER_SHOW_KEYS and show["rubric"] == RUNWAY_RUBRIC
        match = SHOW_PATH.fullmatch(show["url"])
        assert match is not None, show["url"]
        seasons.add(match["season"])
        assert show["dangerousHed"] and show["dangerousDek"]  # designer, season title
        assert show["source"] == {"hed": show["dangerousHed"], "dek": show["dangerousDek"]}
        assert set(show["image"]) >= {"altText", "id", "sources"}
        assert all(set(source) == SOURCE_KEYS for source in show["image"]["sources"].values())
    assert len(seasons) > 1


def assert_gallery(gallery: dict[str, Any], path: str) -> None:
    title, slug, caption = GALLERIES[gallery["id"]]
    assert gallery["title"] == title
    for number, item in enumerate(gallery["items"], start=1):
        assert item["caption"] == f"{caption}Look {number}"
        assert item["url"] == f"{path}/slideshow/{slug}#{number}"
        assert set(item["image"]) == {"altText", "contentType", "sources"}
        for size, source in item["image"]["sources"].items():
            assert set(source) == SOURCE_KEYS  # no height
            assert source["width"] == SIZE_WIDTHS[size]
            match = SIZED_URL.fullmatch(source["url"])
            assert match is not None and int(match["width"]) == source["width"], source["url"]
            for candidate in source["srcset"].split(", "):
                url, width = candidate.rsplit(" ", 1)
                sized = SIZED_URL.fullmatch(url)
                assert sized is not None and width == f"{sized['width']}w", candidate
                assert sized["file"] == match["file"]  # the same photo at other widths


def assert_recommendations(recommendations: dict[str, Any], path: str) -> None:
    items = recommendations["items"]
    assert items and isinstance(recommendations["collectionName"], str)
    brand = path.rsplit("/", 1)[1]
    for item in items:
        assert {"id", "url", "title", "designerName", "seasonName", "image"} <= set(item)
        assert re.fullmatch(r"/fashion-shows/[a-z0-9-]+/[a-z0-9-]+", item["url"])
        assert not item["url"].endswith(f"/{brand}")  # another house's show
        # Not designerName + seasonName: the title keeps the house's name of the day
        # ("Paco Rabanne Spring 2012 Ready-to-Wear" by designerName "Rabanne").
        assert item["title"].endswith(f" {item['seasonName']}")


@pytest.fixture(scope="module")
def site() -> ReplicaSite:
    return build_site(brands=4, shows_per_brand=4, photos_per_show=12)


def replica_show(site: ReplicaSite, *, old_names: bool) -> ReplicaShow:
    return next(
        show
        for show in site.iter_shows()
        if show.brand_slug != HOSTILE_BRAND and show.photos and not show.page_fault
        and old_file_names(show.brand_slug, show.season_slug) == old_names
    )


@pytest.mark.parametrize("page", ["real", "replica-old-names", "replica-new-names"])
def test_show_page_has_the_real_shape(page: str, site: ReplicaSite) -> None:
    if page == "real":
        html, path = real_page(REAL_SHOW), REAL_SHOW_PATH
    else:
        show = replica_show(site, old_names=page == "replica-old-names")
        html, path = render_show(site, show, CDN), show.path
    assert_show_page_shape(html, path)


@pytest.mark.parametrize("page", ["real", "replica"])
def test_season_page_has_the_real_shape(page: str, site: ReplicaSite) -> None:
    if page == "real":
        html, season = real_page(REAL_SEASON), "spring-2012-ready-to-wear"
    else:
        season = replica_show(site, old_names=False).season_slug
        rendered = render_season(site, season, CDN)
        assert rendered is not None
        html = rendered
    assert_season_page_shape(html, season)


@pytest.mark.parametrize("page", ["real", "replica"])
def test_landing_page_has_the_real_shape(page: str, site: ReplicaSite) -> None:
    if page == "real":
        html, season = real_page(REAL_LANDING), "fall-2025-ready-to-wear"
    else:
        html = render_landing(site, CDN)
        newest = max((show for show in site.iter_shows() if show.brand_slug != HOSTILE_BRAND),
                     key=lambda show: show.event_date)
        season = newest.season_slug
    assert assert_landing_page_shape(html) == season
    landing = vogue.parse_landing_page(html)
    assert landing.seasons[0] == season and len(landing.seasons) > 1
    assert landing.designers


def test_replica_serves_every_shape_the_real_site_has(site: ReplicaSite) -> None:
    """Where the site has several shapes, the replica serves each somewhere."""
    pages = [
        vogue.extract_preloaded_state(render_show(site, show, CDN))["transformed"]
        for show in site.iter_shows()
        if show.brand_slug != HOSTILE_BRAND and show.photos and not show.page_fault
    ]
    details = [
        item
        for page in pages
        for gallery in page["runwayShowGalleries"]["galleries"]
        if gallery["id"] == "gallery-detail"
        for item in gallery["items"]
    ]
    urls = [
        source["url"]
        for page in pages
        for gallery in page["runwayShowGalleries"]["galleries"]
        for item in gallery["items"]
        for source in item["image"]["sources"].values()
    ]
    assert {"lookNumber" in item for item in details} == {True, False}
    assert any("%2C" in url for url in urls) and any(",c_limit" in url for url in urls)
    assert any(url.endswith("0fullscreen.jpg") for url in urls)
    assert any(url.endswith("-credit-gorunway.jpg") for url in urls)


def test_designer_and_directory_pages_have_the_shape_sources_md_gives(site: ReplicaSite) -> None:
    """No real designer or directory page is public: ``../shared/sources.md`` is all that is
    known of them, and the replica's follow it in the state's frame the real pages share
    (a text/javascript script, ``/`` written ``\\u002F``) and in the image shape."""
    brand = next(b for b in site.brands if b.slug != HOSTILE_BRAND and not b.junk_entries)
    html = render_designer(brand, CDN)
    script = STATE_SCRIPT.search(html)
    assert script is not None and "\\u002F" in script.group(1)
    content = vogue.extract_preloaded_state(html)["transformed"]["runwayDesignerContent"]
    assert content["name"] == brand.name and content["body"]
    collections = content["designerCollections"]
    dates = [entry["eventDate"] for entry in collections]
    assert dates == sorted(dates, reverse=True)  # newest first
    for entry in collections:
        match = SHOW_PATH.fullmatch(entry["url"])  # relative, season then brand
        assert match is not None and match["brand"] == brand.slug
        assert entry["hed"] and set(entry["image"]) >= {"sources"}
        for size, source in entry["image"]["sources"].items():
            assert set(source) == SOURCE_KEYS and source["width"] == SIZE_WIDTHS[size]

    directory = render_directory(site)
    directory_script = STATE_SCRIPT.search(directory)
    assert directory_script is not None and "\\u002F" in directory_script.group(1)
    groups = vogue.extract_preloaded_state(directory)["transformed"]["allRunwayDesigners"]
    links = [link for group in groups["groupedLinks"] for link in group["links"]]
    assert {"text", "url"} <= set(links[0])
    assert {(link["text"], link["url"]) for link in links} == {
        (b.name, f"/fashion-shows/designer/{b.slug}") for b in site.brands}
