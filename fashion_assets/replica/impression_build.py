"""theImpression in the replica, built from the Vogue brands: its weeks, seasons and articles.

As in site.py, everything is a pure function of ``build_impression``'s arguments: each
article draws from its own random stream, seeded by the site seed and its slug, so article i
of a week is the same however many a week has (a bigger site is a superset of a smaller one).
Runway galleries are second sources of the Vogue shows, so their photos show Vogue's looks
again, or looks that only resemble them.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from dataclasses import replace
from datetime import date, timedelta

from fashion_assets.replica.impression_site import (
    CDN_MARK,
    HOSTILE_ARTICLE_SLUG,
    HOSTILE_PHOTO_FAULTS,
    UNKNOWN_DESIGNER,
    ImpressionArticle,
    ImpressionSite,
    RunwaySeason,
    StreetWeek,
    gallery_show_title,
    pick,
    shouted,
    slugify,
)
from fashion_assets.replica.site import (
    HOSTILE_BRAND,
    IMAGE_SIZE,
    RESEMBLANCE_ALIKE,
    RESEMBLANCE_SAME,
    ROBOTS_BLOCKED_BRAND,
    ReplicaBrand,
    ReplicaPhoto,
)

_WIDTHS = (640, 1280, 2048)
# Of ten gallery photos, how many show Vogue's look of the same number again, and how many a
# look that resembles it; and the sizes theImpression serves them at, against Vogue's.
_SAME_LOOKS, _ALIKE_LOOKS = 6, 1
_RESIZED = (0.75, 1.25, 1.5)
# Street weeks in menu order: slug, heading as the site spells it, date of the first album.
_WEEKS = (
    ("copenhagen-fashion-week", "Copenhagen Fashion Week", date(2025, 1, 27)),
    ("new-york-fashion-week", "NYFW", date(2025, 2, 7)),
    ("london-fashion-week", "London Fashion Week", date(2025, 2, 21)),
    ("paris-fashion-week", "Paris Fashion Week", date(2025, 3, 3)),
    ("kiev-fashion-week", "Kiev Fashion Week", date(2025, 9, 5)),  # an alias of Kyiv
    ("sao-paulo-fashion-week", "Sao Paulo Fashion Week", date(2025, 4, 8)),  # São Paulo
    ("lagos-fashion-week", "Lagos Fashion Week", date(2025, 10, 23)),  # a city nobody knows
    # A misspelling no normalization repairs: pending until an editor merges it into Stockholm.
    ("stockholm-fashion-week", "Stokholm Fashion Week", date(2025, 8, 26)),
)
# Album titles; only the last shape carries a year, which a crawl must never read.
_STREET_TITLES = (
    "The Best Street Style From {heading}",
    "{heading} Street Style, Day {day}",
    "Street Style: {heading}, Day {day}",
    "{heading} {year} Street Style, Day {day}",
)


def build_impression(
    vogue_brands: Sequence[ReplicaBrand],
    *,
    seed: int,
    articles_per_week: int = 3,
    photos_per_article: int = 8,
    runway_shows_per_brand: int = 2,
    hostile: bool = True,
) -> ImpressionSite:
    """Build theImpression next to the Vogue brands it shares runway shows with.

    Runway galleries cover the first shows of every brand that serves good input; every
    second brand's designer is spelled in capitals without accents, so crawls must match
    names by normalization, and one gallery is by a designer Vogue does not have.
    ``hostile`` adds a Copenhagen album holding permanently faulty photos.
    """
    if articles_per_week < 0 or photos_per_article < 1 or runway_shows_per_brand < 0:
        raise ValueError(
            "need articles_per_week >= 0, photos_per_article >= 1, runway_shows_per_brand >= 0"
        )
    weeks = tuple(
        _week(seed, slug, heading, start, articles_per_week, photos_per_article, hostile)
        for slug, heading, start in _WEEKS
    )
    normal = [b for b in vogue_brands if b.slug not in (HOSTILE_BRAND, ROBOTS_BLOCKED_BRAND)]
    galleries = []
    for index, brand in enumerate(normal):
        designer = brand.name if index % 2 == 0 else shouted(brand.name)
        for show in brand.shows[:runway_shows_per_brand]:
            galleries.append(
                _gallery(seed, designer, brand.slug, show.title, show.season_slug,
                         show.event_date + timedelta(days=1), photos_per_article, show.photos)
            )
    first = next((brand.shows[0] for brand in normal if brand.shows), None)
    if first is not None:
        galleries.append(
            _gallery(seed, UNKNOWN_DESIGNER, None, first.title, first.season_slug,
                     first.event_date + timedelta(days=2), photos_per_article)
        )
    return ImpressionSite(weeks=weeks, seasons=_seasons(galleries))


def _week(
    seed: int, slug: str, heading: str, start: date, count: int, photos: int, hostile: bool
) -> StreetWeek:
    """A week's albums, newest first; album i is published i days after the week's start."""
    albums = [_album(seed, slug, heading, start, index, photos) for index in range(count)]
    albums.reverse()
    if hostile and slug == _WEEKS[0][0]:
        rng = _rng(seed, HOSTILE_ARTICLE_SLUG)
        order: list[str | None] = []  # good photos and faulty ones, alternating while both last
        for index in range(max(photos, len(HOSTILE_PHOTO_FAULTS))):
            if index < photos:
                order.append(None)
            if index < len(HOSTILE_PHOTO_FAULTS):
                order.append(HOSTILE_PHOTO_FAULTS[index])
        faulty = tuple(
            _photo(rng, seed, HOSTILE_ARTICLE_SLUG, n, fault)
            for n, fault in enumerate(order, start=1)
        )
        albums.append(ImpressionArticle(HOSTILE_ARTICLE_SLUG, "Hostile Street Style", faulty,
                                        start - timedelta(days=1)))
    return StreetWeek(slug, heading, tuple(albums))


def _album(
    seed: int, week_slug: str, heading: str, start: date, index: int, photos: int
) -> ImpressionArticle:
    slug = f"street-style-{week_slug}-{index + 1}"
    published = start + timedelta(days=index)
    shape = _STREET_TITLES[0 if index == 0 else 1 + (index - 1) % (len(_STREET_TITLES) - 1)]
    title = shape.format(heading=heading, day=index + 1, year=published.year)
    rng = _rng(seed, slug)
    return ImpressionArticle(
        slug, title, tuple(_photo(rng, seed, slug, n) for n in range(1, photos + 1)), published
    )


def _gallery(
    seed: int,
    designer: str,
    brand_slug: str | None,
    show_title: str,
    season_code: str,
    published: date,
    photos: int,
    vogue_looks: Sequence[ReplicaPhoto] = (),
) -> ImpressionArticle:
    stem = (brand_slug or slugify(designer)).strip("-")
    slug = f"{stem}-{season_code}-collection"
    rng = _rng(seed, slug)
    return ImpressionArticle(
        slug=slug,
        title=f"{designer} {show_title} Collection",
        photos=tuple(_of_vogue_look(_photo(rng, seed, slug, n), slug, n, vogue_looks)
                     for n in range(1, photos + 1)),
        published=published,
        designer=designer,
        brand_slug=brand_slug,
        season_code=season_code,
    )


def _of_vogue_look(photo: ReplicaPhoto, slug: str, number: int,
                   vogue_looks: Sequence[ReplicaPhoto]) -> ReplicaPhoto:
    """theImpression photographs the same runway as Vogue: photo ``number`` of a gallery
    shows Vogue's look ``number`` again in about six galleries' photos out of ten, at
    another size and compression (the merge must recognise it), and in one out of ten a
    look that only resembles it (the merge must not take it for the same)."""
    if number > len(vogue_looks):
        return photo
    look = vogue_looks[number - 1]
    if look.fault is not None or look.pixels is not None:
        return photo
    roll = pick(f"{slug}/{number}/look", 10)
    if roll >= _SAME_LOOKS + _ALIKE_LOOKS:
        return photo
    scale = _RESIZED[pick(f"{slug}/{number}/size", len(_RESIZED))]
    return replace(photo, look_of=look.photo_id,
                   resemblance=RESEMBLANCE_SAME if roll < _SAME_LOOKS else RESEMBLANCE_ALIKE,
                   pixels=(round(IMAGE_SIZE[0] * scale), round(IMAGE_SIZE[1] * scale)))


def _seasons(galleries: list[ImpressionArticle]) -> tuple[RunwaySeason, ...]:
    """Group galleries by season, newest gallery first; seasons by their newest gallery."""
    grouped: dict[str, list[ImpressionArticle]] = {}
    for gallery in galleries:
        assert gallery.season_code is not None  # every gallery has its season
        grouped.setdefault(gallery.season_code, []).append(gallery)
    seasons = []
    for code, members in grouped.items():
        members.sort(key=lambda a: (-a.published.toordinal(), a.slug))
        seasons.append(RunwaySeason(code, gallery_show_title(members[0]), tuple(members)))
    seasons.sort(key=lambda s: (-s.articles[0].published.toordinal(), s.code))
    return tuple(seasons)


def _rng(seed: int, slug: str) -> random.Random:
    return random.Random(f"{seed}/theimpression/{slug}")


def _photo(
    rng: random.Random, seed: int, slug: str, number: int, fault: str | None = None
) -> ReplicaPhoto:
    """A photo with an id of its own; about half live on the CDN, the rest are uploads."""
    photo_id = hashlib.sha1(f"{seed}/theimpression/{slug}/{number}".encode()).hexdigest()[:32]
    roll = rng.random()
    image_format = "png" if roll < 0.05 else "webp" if roll < 0.15 else "jpeg"
    widths = _WIDTHS if rng.random() < 0.8 else _WIDTHS[:2]
    mark = CDN_MARK if rng.random() < 0.5 else "-"
    return ReplicaPhoto(photo_id, f"{slug}{mark}{number:02d}.jpg", image_format, widths, fault)
