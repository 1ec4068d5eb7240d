"""The browsing pages' groupings and wording (``catalog_api/browse_views.py``): what a
designer is filed under, the order of a designer's seasons and a city's months, the words a
screen reader says for a look, and the box a thumbnail is given before it arrives."""

from __future__ import annotations

from fashion_assets.catalog_api import browse_views as views


def test_designers_are_filed_by_their_first_letter_without_accents() -> None:
    brands = [{"slug": s, "name": n} for s, n in (
        ("emilio", "Émilio Pucci"), ("acne", "Acne Studios"), ("agnes", "agnès b."),
        ("3-1", "3.1 Phillip Lim"), ("odd", "<script>"), ("ellery", "Ellery"), ("no", ""))]
    groups = views.by_initial(brands)
    assert [(g.label, [b["slug"] for b in g.items]) for g in groups] == [
        ("A", ["acne", "agnes"]), ("E", ["ellery", "emilio"]), ("#", ["no", "3-1", "odd"])]
    assert [g.anchor for g in groups] == ["initial-A", "initial-E", "initial-other"]


def test_a_designers_shows_are_grouped_by_season_the_latest_first() -> None:
    shows = [{"season_code": c, "season": s, "year": y, "collection_type": k, "title": c}
             for c, s, y, k in (("spring-2020-ready-to-wear", "spring", 2020, "ready-to-wear"),
                                ("fall-2020-menswear", "fall", 2020, "menswear"),
                                ("fall-2020-ready-to-wear", "fall", 2020, "ready-to-wear"),
                                ("resort-2021", "resort", 2021, "resort"),
                                ("odd", "", 0, ""))]
    groups = views.by_season(shows)
    assert [(g.label, [s["season_code"] for s in g.items]) for g in groups] == [
        ("Resort 2021", ["resort-2021"]),
        ("Fall 2020", ["fall-2020-menswear", "fall-2020-ready-to-wear"]),
        ("Spring 2020", ["spring-2020-ready-to-wear"]),
        ("Undated", ["odd"])]
    assert views.season_label(shows[0]) == "Spring 2020 Ready-to-Wear"
    assert views.season_label(shows[-1]) == "odd"  # no season: the title


def test_albums_by_city_the_latest_month_first() -> None:
    albums = [{"city": c, "year": y, "month": m} for c, y, m in (
        ("paris", 2024, 2), ("new-york", 2024, 9), ("paris", 2024, 9), ("paris", 2023, 9))]
    groups = views.by_city(albums)
    assert [(g.label, [(a["year"], a["month"]) for a in g.items]) for g in groups] == [
        ("New York", [(2024, 9)]), ("Paris", [(2024, 9), (2024, 2), (2023, 9)])]
    assert views.month_label(2024, 2) == "February 2024"


def test_alt_text_names_the_brand_the_season_and_the_look() -> None:
    look = views.look_alt("Chloé", "Spring 2020 Ready-to-Wear", 12)
    assert look == "Chloé, Spring 2020 Ready-to-Wear, look 12"
    assert views.alternate_alt(look, "theimpression") == f"{look}, photo by theImpression"


def test_a_thumbnail_box_fits_the_cell_and_keeps_the_photos_shape() -> None:
    assert views.thumbnail_box(1200, 1800) == (160, 240)
    assert views.thumbnail_box(1800, 1200) == (160, 107)
    assert views.thumbnail_box(100, 1000) == (32, 320)  # never taller than the cell
    assert views.thumbnail_box(None, 12) == views.PORTRAIT
    assert views.thumbnail_box(0, 0) == views.PORTRAIT
