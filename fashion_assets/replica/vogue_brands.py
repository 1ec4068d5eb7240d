"""Vogue's brands in the replica: which houses, which show titles, and Hostile House's cases.

Each brand draws from its own random stream (seeded by the site seed and its slug), so a
larger site is a superset of a smaller one and counts stay comparable across benchmark
sizes. Hostile House holds a show per bad show page or listing entry, and one show holding a
photo per bad photo (``fashion_assets.replica.hostile`` lists the cases).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import date

from fashion_assets.replica.site import (
    HOSTILE_BRAND,
    JUNK_ENTRIES,
    LISTING_FAULTS,
    PAGE_FAULTS,
    PHOTO_FAULTS,
    ROBOTS_BLOCKED_BRAND,
    ReplicaBrand,
    ReplicaPhoto,
)
from fashion_assets.replica.vogue_shows import (
    BrandContext,
    brand_bio,
    brand_context,
    good_looks,
    new_photo,
    new_show,
    season_slug_of,
    show_date,
)

_NEWEST_YEAR = 2026
MAX_SHOWS_PER_BRAND = 150  # about 40 years of shows: the title grammar's years stay plausible
MAX_BRANDS = 10_000
MAX_PHOTOS_PER_SHOW = 1_000  # a real show has under 100 looks, a few hundred with details
MAX_PHOTOS = 2_000_000
"""The most photos one replica builds: each is an object in memory (a few hundred bytes) from
the start, so a shape past this is refused before anything is built, not found out by the
machine running out of memory. The whole archive-shaped replica (``archive.py``: 26,000
shows) at 40 photos a show is about 1.04 million."""


class ShapeError(ValueError):
    """A replica shape (brands, shows per brand, photos per show) out of bounds."""


def check_shape(brands: int, shows_per_brand: int, photos_per_show: int) -> None:
    """Refuse a shape the replica cannot build, or could only by running out of memory."""
    if not (0 <= brands <= MAX_BRANDS and 1 <= shows_per_brand <= MAX_SHOWS_PER_BRAND):
        raise ShapeError(f"a replica of {brands} brands x {shows_per_brand} shows: need "
                         f"0-{MAX_BRANDS:,} brands and 1-{MAX_SHOWS_PER_BRAND} shows a brand")
    check_photos(brands * shows_per_brand, photos_per_show)


def check_photos(shows: int, photos_per_show: int) -> None:
    """Refuse ``photos_per_show`` photos for each of ``shows`` shows past the bounds."""
    if not (1 <= photos_per_show <= MAX_PHOTOS_PER_SHOW
            and shows * photos_per_show <= MAX_PHOTOS):
        raise ShapeError(f"a replica of {shows:,} shows x {photos_per_show:,} photos: need "
                         f"1-{MAX_PHOTOS_PER_SHOW:,} photos a show and {MAX_PHOTOS:,} photos "
                         "in all")

# Real designer names and their (irregular) Vogue slugs, the awkward ones first so that even
# the default three-brand site exercises accents, dots, ampersands and odd slugs.
_BRANDS: tuple[tuple[str, str], ...] = (
    ("Acne Studios", "acne-studios"),
    ("Agnès b.", "agnes-b-"),
    ("Maison Margiela", "maison-martin-margiela"),
    ("Viktor & Rolf", "viktor-rolf"),
    ("Chloé", "chloe"),
    ("Dolce & Gabbana", "dolce-gabbana"),
    ("Comme des Garçons", "comme-des-garcons"),
    ("Burberry Prorsum", "burberry-prorsum"),
    ("A.P.C.", "a-p-c"),
    ("3.1 Phillip Lim", "31-phillip-lim"),
    ("Hermès", "hermes"),
    ("Viktor&Rolf", "viktorandrolf"),
    ("Rag & Bone", "rag-bone"),
    ("Off-White", "off-white"),
    ("Y-3", "y-3"),
    ("Maison Kitsuné", "maison-kitsune"),
    ("Alexander McQueen", "alexander-mcqueen"),
    ("Balenciaga", "balenciaga"),
    ("Celine", "celine"),
    ("Dries Van Noten", "dries-van-noten"),
    ("Elie Saab", "elie-saab"),
    ("Erdem", "erdem"),
    ("Etro", "etro"),
    ("Givenchy", "givenchy"),
    ("Isabel Marant", "isabel-marant"),
    ("Jacquemus", "jacquemus"),
    ("Junya Watanabe", "junya-watanabe"),
    ("Lanvin", "lanvin"),
    ("Lemaire", "lemaire"),
    ("Loewe", "loewe"),
    ("Marni", "marni"),
    ("Miu Miu", "miu-miu"),
    ("Mugler", "mugler"),
    ("Nina Ricci", "nina-ricci"),
    ("Oscar de la Renta", "oscar-de-la-renta"),
    ("Proenza Schouler", "proenza-schouler"),
    ("Rodarte", "rodarte"),
    ("Sacai", "sacai"),
    ("Saint Laurent", "saint-laurent"),
    ("Thom Browne", "thom-browne"),
    ("Vivienne Westwood", "vivienne-westwood"),
    ("Zuhair Murad", "zuhair-murad"),
)

# Title shapes from the real corpus, how often a brand shows each per year, and when in the
# calendar the show happens relative to the title's year (Spring YYYY shows in YYYY-1).
_SHAPES: tuple[tuple[str, float, tuple[int, int, int]], ...] = (
    ("Fall {y} Ready-to-Wear", 0.9, (0, 2, 20)),
    ("Spring {y} Ready-to-Wear", 0.9, (-1, 9, 24)),
    ("Resort {y}", 0.5, (-1, 5, 20)),
    ("Pre-Fall {y}", 0.4, (-1, 12, 8)),
    ("Fall {y} Menswear", 0.3, (0, 1, 16)),
    ("Spring {y} Menswear", 0.3, (-1, 6, 18)),
    ("Spring {y} Couture", 0.12, (0, 1, 22)),
    ("Fall {y} Couture", 0.12, (0, 7, 3)),
    ("Pre-Fall {y} Menswear", 0.05, (-1, 12, 12)),
    ("Resort {y} Menswear", 0.05, (-1, 6, 2)),
    ("Tokyo Fall {y}", 0.05, (0, 3, 16)),
    ("Copenhagen Spring {y}", 0.04, (-1, 8, 8)),
    ("São Paulo Resort {y}", 0.03, (-1, 5, 4)),
    ("São Paolo Spring {y}", 0.03, (-1, 10, 20)),
    ("Mexico City Fall {y}", 0.03, (0, 4, 2)),
    ("Bridal Spring {y}", 0.04, (-1, 4, 14)),
)

# Hostile House's first shows, newest first: title shape, year and what is wrong with the
# show; every other show-page and listing case gets a show of its own after them.
_HOSTILE_SHOWS = (
    ("Resort {y}", 2026, "long_title"),
    ("Pre-Fall {y} Menswear", 2024, "no_state"),
    ("São Paolo Spring {y}", 2019, "video_only"),
    ("Bridal Spring {y}", 2019, "truncated_state"),
    ("Tokyo Fall {y}", 2015, "photo_faults"),
)
_CASE_SHOW_SHAPE = "Fall {y} Ready-to-Wear"
_CASE_SHOW_FIRST_YEAR = 2014
# A case whose show needs a title outside ASCII, to show what a wrong encoding does to it.
_CASE_SHOW_SHAPES = {"cp1252_page": "São Paulo Resort {y}"}
_LONG_TITLE = "Resort 2026 " + "Très long titre; {encore} " * 4_000  # about 100 KB
_CONTROL_REVIEW = "Control\x00characters\x07in\x1bthe review\u2028line; {braces} survive."


def build_brands(*, brands: int, shows_per_brand: int, photos_per_show: int, seed: int,
                 hostile: bool) -> tuple[ReplicaBrand, ...]:
    """Vogue's side of the replica (``build.py: build_site`` builds the whole): ``brands``
    houses, and with ``hostile`` the two brands that exercise bad input."""
    check_shape(brands, shows_per_brand, photos_per_show)
    built = [
        _normal_brand(brand_context(seed, name, slug), shows_per_brand, photos_per_show)
        for name, slug in map(_brand_identity, range(brands))
    ]
    if hostile:
        built.append(
            _hostile_brand(brand_context(seed, "Hostile House", HOSTILE_BRAND), photos_per_show)
        )
        robots = brand_context(seed, "Robots Blocked", ROBOTS_BLOCKED_BRAND)
        built.append(_normal_brand(robots, min(2, shows_per_brand), photos_per_show))
    return tuple(built)


def _brand_identity(index: int) -> tuple[str, str]:
    """The index-th brand: a real name first, then synthetic "Atelier N" houses."""
    if index < len(_BRANDS):
        return _BRANDS[index]
    number = index - len(_BRANDS) + 1
    return f"Atelier {number}", f"atelier-{number}"


def brand_with_titles(seed: int, name: str, slug: str, titles: Sequence[tuple[date, str]],
                      photos_per_show: int, pixels: tuple[int, int] | None = None
                      ) -> ReplicaBrand:
    """A brand that showed ``titles`` (dates and titles, newest first), each show with
    about ``photos_per_show`` looks of ``pixels`` (None: the usual size), built as every
    replica brand is: the archive-shaped replica (``archive.py``) gives the real titles."""
    return _brand_of(brand_context(seed, name, slug, pixels), titles, photos_per_show)


def _normal_brand(ctx: BrandContext, shows: int, photos_per_show: int) -> ReplicaBrand:
    return _brand_of(ctx, _pick_titles(ctx.rng, shows), photos_per_show)


def _brand_of(ctx: BrandContext, titles: Sequence[tuple[date, str]], photos_per_show: int
              ) -> ReplicaBrand:
    deltas = _paired_deltas(ctx.rng, len(titles), min(3, photos_per_show // 4))
    built = []
    for index, ((event_date, title), delta) in enumerate(zip(titles, deltas, strict=True)):
        season_slug = season_slug_of(title)
        count = photos_per_show + delta
        looks = tuple(new_photo(ctx, season_slug, "look", n) for n in range(1, count + 1))
        built.append(new_show(ctx, title, season_slug, event_date, looks, first=index == 0))
    return ReplicaBrand(ctx.slug, ctx.name, brand_bio(ctx.name), tuple(built))


def _paired_deltas(rng: random.Random, count: int, max_delta: int) -> list[int]:
    """Per-show photo-count offsets in +d/-d pairs: counts vary, yet a brand's total stays
    shows x photos, so benchmark sizes (20 x 30 x 40 = 24,000 looks) hold exactly."""
    deltas = []
    for _ in range(count // 2):
        delta = rng.randint(0, max_delta)
        deltas += [delta, -delta]
    return deltas + [0] * (count % 2)


def _pick_titles(rng: random.Random, count: int) -> list[tuple[date, str]]:
    """Draw ``count`` distinct titles, newest first, walking back from a recent year.

    One extra year is drawn after reaching ``count`` because a year's titles span two
    calendar years (Spring YYYY shows in YYYY-1), so sorting needs the neighbours.
    """
    year = _NEWEST_YEAR - rng.randint(0, 2)
    pool: list[tuple[date, str]] = []
    while len(pool) < count:
        pool.extend(_titles_of_year(rng, year))
        year -= 1
    pool.extend(_titles_of_year(rng, year))
    pool.sort(reverse=True)
    return pool[:count]


def _titles_of_year(rng: random.Random, year: int) -> list[tuple[date, str]]:
    titles = []
    for template, weight, when in _SHAPES:
        if rng.random() < weight:
            titles.append((show_date(year, when, rng.randint(0, 6)), template.format(y=year)))
    return titles


def _hostile_brand(ctx: BrandContext, photos_per_show: int) -> ReplicaBrand:
    """Hostile House: one show per kind of bad show page or listing entry, one show holding a
    photo per kind of bad photo, and listing entries that are no show at all."""
    shows = []
    for index, (shape, year, problem) in enumerate(_HOSTILE_SHOWS):
        title = shape.format(y=year)
        season_slug = season_slug_of(title)
        if problem == "photo_faults":
            looks = _fault_looks(ctx, season_slug, photos_per_show)
        elif problem == "video_only":
            looks = ()
        else:
            looks = good_looks(ctx, season_slug, photos_per_show)
        long_title = problem == "long_title"
        shows.append(
            new_show(
                ctx,
                _LONG_TITLE if long_title else title,
                season_slug,
                show_date(year, _when(shape), 0),
                looks,
                first=index == 0,
                video_only=problem == "video_only",
                page_fault=problem if problem in PAGE_FAULTS else None,
                review=_CONTROL_REVIEW if long_title else None,
            )
        )
    placed = {problem for _, _, problem in _HOSTILE_SHOWS}
    own_show = [fault for fault in PAGE_FAULTS if fault not in placed]
    for offset, fault in enumerate((*own_show, *LISTING_FAULTS)):
        shape = _CASE_SHOW_SHAPES.get(fault, _CASE_SHOW_SHAPE)
        year = _CASE_SHOW_FIRST_YEAR - offset
        title = shape.format(y=year)
        season_slug = season_slug_of(title)
        shows.append(
            new_show(
                ctx,
                title,
                season_slug,
                show_date(year, _when(shape), 0),
                good_looks(ctx, season_slug, photos_per_show),
                first=False,
                page_fault=fault if fault in PAGE_FAULTS else None,
                listing_fault=fault if fault in LISTING_FAULTS else None,
            )
        )
    return ReplicaBrand(ctx.slug, ctx.name, brand_bio(ctx.name), tuple(shows), JUNK_ENTRIES)


def _when(shape: str) -> tuple[int, int, int]:
    return next(when for known, _, when in _SHAPES if known == shape)


def _fault_looks(ctx: BrandContext, season_slug: str, good: int) -> tuple[ReplicaPhoto, ...]:
    """Good looks and one look per permanent fault, alternating while both last."""
    order: list[str | None] = []
    for index in range(max(good, len(PHOTO_FAULTS))):
        if index < good:
            order.append(None)
        if index < len(PHOTO_FAULTS):
            order.append(PHOTO_FAULTS[index])
    return tuple(
        new_photo(ctx, season_slug, "look", n, fault) for n, fault in enumerate(order, start=1)
    )
