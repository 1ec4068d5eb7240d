"""The Vogue adapter's reading of the ``/fashion-shows`` landing page, one variation a test.

The real page is checked in test_vogue_real_pages.py and its shape, shared with the replica,
in test_real_shapes.py; here small states built by hand pin down each rule: which
containers count, in which order, what is dropped, and when the page is refused.
"""

from __future__ import annotations

from typing import Any

import pytest

from fashion_assets.replica import HOSTILE_BRAND, build_site
from fashion_assets.replica.vogue_landing import render_landing
from fashion_assets.sources import vogue
from fashion_assets.sources.vogue import Landing, PageParseError
from tests.unit.test_vogue_adapter import html_page, state_page

EMPTY = Landing(seasons=(), designers=())


def landing_state(*containers: Any) -> dict[str, Any]:
    return {"transformed": {"bundle": {"bundleTitle": "Fashion Shows",
                                       "containers": list(containers)}}}


def curated(season_title: str, links: list[tuple[str, str]],
            highlights: list[str] | None = None) -> dict[str, Any]:
    """A ``verso-curated-shows`` container; ``links`` are (text, url) of ``allShows``."""
    return {
        "template": "verso-curated-shows",
        "dangerousHed": season_title,
        "items": [{
            "name": season_title,
            "curatedShows": [{"hed": "Highlight", "url": url} for url in highlights or []],
            "allShows": [{"groupName": "A", "links": [{"text": text, "url": url}
                                                      for text, url in links]}],
        }],
    }


def river(*items: dict[str, Any]) -> dict[str, Any]:
    return {"template": "verso-river", "dangerousHed": "Latest in Runway", "items": list(items)}


def item(content_type: str, hed: Any, url: Any, dek: str = "Fall 2025 Ready-to-Wear"
         ) -> dict[str, Any]:
    return {"contentType": content_type, "dangerousHed": hed, "dangerousDek": dek, "url": url}


TICKER = {"template": "verso-ticker", "text": "Subscribe",
          "link": {"href": "https://www.vogue.com/v2/offers", "text": "SUBSCRIBE NOW"}}
AD = {"template": "verso-mid-content-ad"}


def test_page_without_state_is_refused() -> None:
    with pytest.raises(PageParseError) as caught:
        vogue.parse_landing_page(html_page("window.dataLayer = [];"))
    assert caught.value.reason == "no_state"
    with pytest.raises(PageParseError) as caught:
        vogue.parse_landing_page(html_page('window.__PRELOADED_STATE__ = {"transformed": ;'))
    assert caught.value.reason == "bad_state_json"


@pytest.mark.parametrize(
    "state",
    [
        {},
        {"transformed": {}},
        {"transformed": {"runwaySeasonContent": {"allShows": []}}},  # another page's state
        {"transformed": {"bundle": {}}},
        {"transformed": {"bundle": {"containers": None}}},
        landing_state(),
        landing_state(TICKER, AD, "not a container", None),
    ],
    ids=["no-transformed", "no-bundle", "season-page", "no-containers", "null-containers",
         "empty-containers", "editorial-only"],
)
def test_state_without_show_containers_reads_as_empty(state: dict[str, Any]) -> None:
    assert vogue.parse_landing_page(state_page(state)) == EMPTY


@pytest.mark.parametrize(
    "state",
    [
        {"transformed": "bundle"},
        {"transformed": {"bundle": ["containers"]}},
        {"transformed": {"bundle": {"containers": {"0": TICKER}}}},
    ],
    ids=["transformed-not-object", "bundle-not-object", "containers-not-list"],
)
def test_structure_of_the_wrong_type_is_a_broken_page(state: dict[str, Any]) -> None:
    with pytest.raises(PageParseError) as caught:
        vogue.parse_landing_page(state_page(state))
    assert caught.value.reason == "bad_value"


def test_curated_season_comes_first_then_the_river_in_page_order() -> None:
    state = landing_state(
        TICKER,
        river(
            item("fashionshow", "Yueqi Qi", "/fashion-shows/tokyo-fall-2025/yueqi-qi",
                 "Tokyo Fall 2025"),
            item("fashionshow", "Chanel", "/fashion-shows/fall-2025-ready-to-wear/chanel"),
            item("fashionshow", "Rhude", "/fashion-shows/fall-2025-menswear/rhude",
                 "Fall 2025 Menswear"),
        ),
        curated("Fall 2025 Ready-to-Wear", [
            ("A.W.A.K.E. Mode", "/fashion-shows/fall-2025-ready-to-wear/a-w-a-k-e"),
            ("Chanel", "/fashion-shows/fall-2025-ready-to-wear/chanel"),
        ]),
    )
    landing = vogue.parse_landing_page(state_page(state))
    assert landing.seasons == ("fall-2025-ready-to-wear", "tokyo-fall-2025", "fall-2025-menswear")
    assert landing.designers == (
        ("A.W.A.K.E. Mode", "a-w-a-k-e"),
        ("Chanel", "chanel"),
        ("Yueqi Qi", "yueqi-qi"),
        ("Rhude", "rhude"),
    )


def test_river_names_are_cleaned_and_the_first_name_of_a_slug_wins() -> None:
    state = landing_state(
        curated("Fall 2025 Ready-to-Wear", [
            ("  Rabanne\n", "/fashion-shows/fall-2025-ready-to-wear/paco-rabanne"),
        ]),
        river(
            item("fashionshow", "Paco Rabanne",
                 "/fashion-shows/fall-2024-ready-to-wear/paco-rabanne"),
            item("fashionshow", "<em>Viktor &amp; Rolf</em>",
                 "/fashion-shows/fall-2025-couture/viktor-rolf"),
            item("fashionshow", "Viktor and Rolf", "/fashion-shows/fall-2025-menswear/viktor-rolf"),
            item("fashionshow", "Agne\u0300s b.\x00", "/fashion-shows/resort-2026/agnes-b-"),
            item("fashionshow", "", "/fashion-shows/resort-2026/no-name"),  # no name: no designer
        ),
    )
    landing = vogue.parse_landing_page(state_page(state))
    assert landing.designers == (
        ("Rabanne", "paco-rabanne"),
        ("Viktor & Rolf", "viktor-rolf"),
        ("Agnès b.", "agnes-b-"),
    )
    # A show without a name still tells its season.
    assert landing.seasons == ("fall-2025-ready-to-wear", "fall-2024-ready-to-wear",
                               "fall-2025-couture", "fall-2025-menswear", "resort-2026")


def test_links_that_are_not_show_paths_and_other_containers_are_ignored() -> None:
    show_in_features = item("fashionshow", "Decoy", "/fashion-shows/fall-2025-couture/decoy")
    state = landing_state(
        TICKER,
        {"template": "verso-features", "dangerousHed": "Street Style", "items": [
            item("gallery", "Street Style", "/slideshow/street-style-paris"),
            show_in_features,
        ]},
        {"template": "verso-related", "dangerousHed": "Must Read", "items": [show_in_features]},
        curated("Fall 2025 Ready-to-Wear", [
            ("Jil Sander", "/fashion-shows/designer/jil-sander"),
            ("All shows", "/fashion-shows/fall-2025-ready-to-wear"),
            ("Offsite", "javascript:alert(1)"),
            ("Chanel", "https://www.vogue.com/fashion-shows/FALL-2025-Ready-To-Wear/chanel/?x=1"),
            ("No URL", None),
        ], highlights=["/fashion-shows/designer/chanel"]),
        river(
            item("article", "Gucci", "/fashion-shows/fall-2025-menswear/gucci"),
            item("gallery", "Backstage", "/slideshow/backstage-paris"),
            item("fashionshow", "Prada", "/fashion-shows/designer/prada"),
            item("fashionshow", "Long", f"/fashion-shows/{'s' * 121}/long"),
            item("fashionshow", "Rhude", None),
            None,
            "fashionshow",
        ),
    )
    landing = vogue.parse_landing_page(state_page(state))
    assert landing.designers == (("Chanel", "chanel"), ("Long", "long"))
    # The uppercase season is lowercased; the overlong one is no season to visit, though its
    # show still names a designer.
    assert landing.seasons == ("fall-2025-ready-to-wear",)


def test_replica_landing_reads_as_its_newest_season_and_its_brands() -> None:
    site = build_site(brands=4, shows_per_brand=3, photos_per_show=4)
    landing = vogue.parse_landing_page(render_landing(site, "https://assets.vogue.com"))
    regular = [show for show in site.iter_shows() if show.brand_slug != HOSTILE_BRAND]
    assert landing.seasons[0] == max(regular, key=lambda show: show.event_date).season_slug
    # Every name is the brand's own, entities decoded ("Viktor & Rolf" is HTML in the river).
    names = {brand.slug: brand.name for brand in site.brands}
    assert landing.designers and all(names[slug] == name for name, slug in landing.designers)
    assert ("Viktor & Rolf", "viktor-rolf") in landing.designers


def test_season_path() -> None:
    assert vogue.LANDING_PATH == "/fashion-shows"
    assert vogue.season_path("fall-2025-ready-to-wear") == "/fashion-shows/fall-2025-ready-to-wear"
    assert vogue.season_path("s" * 120) == "/fashion-shows/" + "s" * 120


@pytest.mark.parametrize(
    "slug", ["", "Fall-2025", "fall 2025", "../designers", "fall/2025", "s" * 121,
             "designer", "designers", "fall-2025\n"],
)
def test_season_path_rejects_bad_slugs(slug: str) -> None:
    with pytest.raises(ValueError, match="not a season slug"):
        vogue.season_path(slug)
