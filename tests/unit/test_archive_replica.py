"""The archive-shaped replica: every designer and show of the real listings, small photos drawn
on request, the same designers for the same fraction."""

from __future__ import annotations

import io
from datetime import date
from pathlib import Path

import pytest
from PIL import Image

from fashion_assets.domain.titles import parse_show_title, season_slug_for
from fashion_assets.replica.archive import (
    PIXELS,
    Corpus,
    build_archive,
    dated_titles,
    designer_slugs,
    in_fraction,
)
from fashion_assets.replica.images import photo_body

DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    return Corpus.read(DATA)


def test_the_whole_archive_has_every_designer_and_every_show_of_the_listings(
        corpus: Corpus) -> None:
    site = build_archive(corpus, photos_per_show=1)  # the shape, without a million photos

    designers = set(corpus.designers) | {name for name, _ in corpus.shows}
    assert {brand.name for brand in site.brands} == designers
    assert len(site.brands) == len(designers) > 1_800
    served = {(brand.name, show.title) for brand in site.brands for show in brand.shows}
    assert served == set(corpus.shows) and len(served) == 25_876
    assert len({brand.slug for brand in site.brands}) == len(site.brands)
    # Names as written, accents and punctuation included; their slugs plain.
    by_name = {brand.name: brand for brand in site.brands}
    assert by_name["À LA GARÇONNE"].slug == "a-la-garconne"
    assert by_name["A.P.C."].slug == "a-p-c"
    # Designers listed without a show keep their (empty) page.
    assert sum(not brand.shows for brand in site.brands) == len(
        set(corpus.designers) - {name for name, _ in corpus.shows})


def test_a_fraction_is_the_same_designers_every_time_and_inside_a_larger_one(
        corpus: Corpus) -> None:
    small, again = build_archive(corpus, fraction=0.02), build_archive(corpus, fraction=0.02)
    larger = build_archive(corpus, fraction=0.05)

    assert small == again
    assert 0.01 < len(small.brands) / len(corpus.designers) < 0.03
    larger_brands = {brand.slug: brand for brand in larger.brands}
    assert all(larger_brands[brand.slug] == brand for brand in small.brands)
    assert [in_fraction(name, 1.0) for name in corpus.designers[:50]] == [True] * 50


@pytest.mark.parametrize("fraction", [0.0, -0.1, 1.5])
def test_a_fraction_outside_zero_to_one_is_refused(corpus: Corpus, fraction: float) -> None:
    with pytest.raises(ValueError, match="fraction"):
        build_archive(corpus, fraction=fraction)


def test_shows_are_dated_by_their_season_and_listed_newest_first() -> None:
    dated = dated_titles(["Spring 2019 Ready-to-Wear", "Tokyo Fall 2015", "Resort 2020",
                          "Fall 2019 Couture"], "house")

    # Fall 2019 couture shows in July 2019, Resort 2020 in May 2019.
    assert [title for _, title in dated] == ["Fall 2019 Couture", "Resort 2020",
                                             "Spring 2019 Ready-to-Wear", "Tokyo Fall 2015"]
    when = dict((title, day) for day, title in dated)
    assert date(2018, 9, 24) <= when["Spring 2019 Ready-to-Wear"] < date(2018, 10, 1)
    assert date(2019, 7, 3) <= when["Fall 2019 Couture"] < date(2019, 7, 10)


def test_designers_whose_names_share_a_slug_get_one_each() -> None:
    assert designer_slugs(["VIKTOR & ROLF", "VIKTOR&ROLF", "Viktor and Rolf", "Rolf"]) == {
        "VIKTOR & ROLF": "viktor-and-rolf", "VIKTOR&ROLF": "viktor-and-rolf-2",
        "Viktor and Rolf": "viktor-and-rolf-3", "Rolf": "rolf"}


def test_photos_are_small_distinct_images_drawn_the_same_every_time(corpus: Corpus) -> None:
    site = build_archive(corpus, fraction=0.01)
    show = next(show for show in site.iter_shows() if show.photos)
    photos = list({p.photo_id: p for p in (show.cover, *show.photos)}.values())
    bodies = [photo_body(photo) for photo in photos]

    assert len(set(bodies)) == len(bodies)
    assert bodies == [photo_body(photo) for photo in photos]
    for body, photo in zip(bodies, photos, strict=True):
        with Image.open(io.BytesIO(body)) as image:
            assert image.size == PIXELS
            assert image.format.lower() == photo.format
        assert len(body) < 2_000
    # Every show's season is the one its real title names.
    assert all(show.season_slug == season_slug_for(parse_show_title(show.title))
               for show in site.iter_shows())
