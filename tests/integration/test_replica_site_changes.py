"""The replica's site changes under a running server, as the real one does between visits.

Discovery is tested against a site where a designer appears after a first crawl: the
server is told to answer from a bigger site (``replace_site``) and must then serve the new
brand everywhere, with no page rendered from the old site left in its cache. The landing
page is served over HTTP and read by the real parser. Each test starts a replica of its
own: the session's replica is shared and must never change under other tests.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from fashion_assets.replica import HOSTILE_BRAND, ReplicaSite, build_site, start_replica
from fashion_assets.sources import vogue

SITE_ARGS = {"shows_per_brand": 3, "photos_per_show": 4, "seed": 11}
BRANDS = 2


@pytest.fixture
def client() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=10.0) as http:
        yield http


def newest_season(site: ReplicaSite) -> str:
    regular = [show for show in site.iter_shows() if show.brand_slug != HOSTILE_BRAND]
    return max(regular, key=lambda show: show.event_date).season_slug


def test_a_bigger_site_keeps_the_first_brands_as_they_were() -> None:
    """What the swap relies on: one more brand, same seed, and the others stay identical."""
    first = build_site(brands=BRANDS, **SITE_ARGS)
    second = build_site(brands=BRANDS + 1, **SITE_ARGS)
    assert second.brands[:BRANDS] == first.brands[:BRANDS]
    assert second.brands[BRANDS + 1:] == first.brands[BRANDS:]  # the hostile brands
    assert second.brands[BRANDS].slug not in {brand.slug for brand in first.brands}


def test_replace_site_makes_a_new_designer_appear(client: httpx.Client) -> None:
    first = build_site(brands=BRANDS, **SITE_ARGS)
    second = build_site(brands=BRANDS + 1, **SITE_ARGS)
    new = second.brands[BRANDS]
    with start_replica(first) as server:
        directory = f"{server.base_url}{vogue.DIRECTORY_PATH}"
        designer = f"{server.base_url}{vogue.designer_path(new.slug)}"
        landing = f"{server.base_url}{vogue.LANDING_PATH}"
        before = vogue.parse_designer_directory(client.get(directory).text)
        assert new.slug not in {slug for _, slug in before}
        assert client.get(designer).status_code == 404
        assert new.slug not in {slug for _, slug in
                                vogue.parse_landing_page(client.get(landing).text).designers}

        server.replace_site(second)

        assert server.site is second
        after = vogue.parse_designer_directory(client.get(directory).text)  # was cached
        assert set(before) < set(after) and (new.name, new.slug) in after
        response = client.get(designer)
        assert response.status_code == 200
        assert vogue.parse_designer_page(response.text).name == new.name
        # Every show of the small site is in the landing's river: the new brand is too.
        assert (new.name, new.slug) in vogue.parse_landing_page(client.get(landing).text).designers
        show = new.shows[0]
        assert client.get(f"{server.base_url}{show.path}").status_code == 200
        cover = show.cover
        cover_url = f"{server.cdn_url}/photos/{cover.photo_id}/master/pass/{cover.file_name}"
        assert client.get(cover_url).status_code == 200


def test_landing_is_served_and_names_the_newest_season(client: httpx.Client) -> None:
    site = build_site(brands=BRANDS + 1, **SITE_ARGS)
    with start_replica(site) as server:
        response = client.get(f"{server.base_url}{vogue.LANDING_PATH}")
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/html")
        landing = vogue.parse_landing_page(response.text)
        assert landing.seasons[0] == newest_season(site)
        # The season the landing leads with is a season page the replica serves, and every
        # designer of it is on the landing too.
        season = client.get(f"{server.base_url}{vogue.season_path(landing.seasons[0])}")
        assert season.status_code == 200
        assert set(vogue.parse_season_page(season.text)) <= set(landing.designers)
        # Every season the landing names is one the replica serves.
        for slug in landing.seasons:
            url = f"{server.base_url}{vogue.season_path(slug)}"
            assert client.get(url).status_code == 200, slug
