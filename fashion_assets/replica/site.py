"""The replica's site model: Vogue's brands, shows and photos, and theImpression beside them.

Tests, the demo and the benchmarks all need the same two sites to crawl without internet,
so the whole replica is a pure function of ``build_site``'s parameters: two builds with the
same arguments are equal, and a photo's identity, format and faults never change between
runs. Each brand draws from its own random stream (seeded by the site seed and its slug), so
a larger site is a superset of a smaller one and counts stay comparable across benchmark
sizes. theImpression (``impression.py``) is built from the Vogue brands, because its runway
galleries are second sources of the same shows; ``build.py`` puts the two together, so this
module knows nothing of theImpression and the imports go one way.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta

from fashion_assets.domain.titles import parse_show_title, season_slug_for
from fashion_assets.replica.hostile import (
    LONG_FILE_NAME_CHARS,
    TOO_LONG_FILE_NAME_CHARS,
    cases_at,
)

# Every permanent per-photo fault, as ``ReplicaPhoto.fault`` spells it: the photo cases of
# the hostile table, which also says what each one serves and what a crawl must record.
PHOTO_FAULTS = tuple(case.name for case in cases_at("photo"))
# What is wrong with a hostile show's page (``ReplicaShow.page_fault``): the show-page cases.
PAGE_FAULTS = tuple(case.name for case in cases_at("show page"))
# Designer-page cases about one real show's entry (``ReplicaShow.listing_fault``); the others
# are entries that are no show at all (``ReplicaBrand.junk_entries``).
LISTING_FAULTS = (
    "entry_missing_hed",
    "entry_duplicate",
    "entry_offsite_url",
    "entry_hed_control_chars",
)
JUNK_ENTRIES = tuple(
    case.name for case in cases_at("designer page") if case.name not in LISTING_FAULTS
)
# The CDN's named sizes and the width each stands for (``image.sources`` keys), as on the
# real show page: lg and xl are the same 1280. Every width serves the same bytes, so the
# numbers cost nothing.
SIZE_WIDTHS = {"sm": 360, "md": 1024, "lg": 1280, "xl": 1280, "xxl": 2560}
HOSTILE_BRAND = "hostile-house"
ROBOTS_BLOCKED_BRAND = "robots-blocked"
SIDE_GALLERIES = ("Details", "Beauty", "Front Row")

_ALL_WIDTHS = tuple(sorted(set(SIZE_WIDTHS.values())))
_SHORT_WIDTHS = _ALL_WIDTHS[:3]  # items that only have sm..xl
_NEWEST_YEAR = 2026
_MAX_SHOWS_PER_BRAND = 150  # about 40 years of shows: the title grammar's years stay plausible

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
# File names of the path-trick photo cases, as the page writes them into the URL.
_FAULT_FILE_NAMES = {
    "path_dotdot": "../../../../etc/passwd.jpg",
    "path_encoded_dotdot": "%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd.jpg",
    "path_double_encoded": "%252e%252e%252fetc%252fpasswd.jpg",
    "path_backslash": "..%5c..%5c..%5cwindows%5cwin.ini.jpg",
    "path_absolute": "/etc/passwd.jpg",
    "path_nul": "look.jpg%00.png",
    "path_long_name": "l" * (LONG_FILE_NAME_CHARS - 4) + ".jpg",
    "path_too_long": "t" * (TOO_LONG_FILE_NAME_CHARS - 4) + ".jpg",
    "path_space": "look 1.jpg",
    "path_raw_control": "look\x00\x1b.jpg",
}
# The format a photo case needs (a bomb is a PNG header, a path trick is stored as a JPEG);
# other photos draw theirs.
_FAULT_FORMATS = {
    "bomb": "png",
    "truncated_png": "png",
    "wrong_content_type": "png",
    "gif_photo": "gif",
    "truncated_gif": "gif",
    "gif_bomb": "gif",
    "truncated_webp": "webp",
    "webp_trailing_junk": "webp",
    "webp_bomb": "webp",
    "jpeg_bomb": "jpeg",
    "jpeg_zero_size": "jpeg",
    "gzip_encoded": "jpeg",
    "redirect_same_cdn": "jpeg",
    **dict.fromkeys(_FAULT_FILE_NAMES, "jpeg"),
}
_LONG_TITLE = "Resort 2026 " + "Très long titre; {encore} " * 4_000  # about 100 KB
_CONTROL_REVIEW = "Control\x00characters\x07in\x1bthe review\u2028line; {braces} survive."

_REVIEWS = (
    "{brand} opened with tailoring {{sharp, then sharper}}; the finale undid it all.",
    "Backstage, {brand} talked about {{archive}} pieces; nobody mentioned the shoes.",
    "A tight show of {count} looks; colour came late {{and loud}}; the knits stole it.",
    "{brand} said the mood was 'function {{f}}'; the crowd read it as a love letter.",
)


IMAGE_SIZE = (96, 128)  # a replica photo's width and height, unless it says otherwise
RESEMBLANCE_SAME = "same"
RESEMBLANCE_ALIKE = "alike"


@dataclass(frozen=True)
class ReplicaPhoto:
    """One CDN photo: an id, a file name, its true format and where it is served."""

    photo_id: str
    file_name: str
    format: str
    widths: tuple[int, ...]
    fault: str | None = None
    # Width and height of its image; None: the replica's usual 96 x 128 (``images.py``).
    # The archive-shaped replica serves smaller ones, so a million of them stay cheap.
    pixels: tuple[int, int] | None = None
    # theImpression's photo of a Vogue look: that photo's id, and how it shows it:
    # RESEMBLANCE_SAME (the look itself, cropped, resized and compressed anew) or
    # RESEMBLANCE_ALIKE (another look that resembles it: its backdrop, other shapes).
    look_of: str | None = None
    resemblance: str = ""


@dataclass(frozen=True)
class ReplicaGallery:
    """A non-look gallery of a show page; its photos must never be collected as looks."""

    title: str
    photos: tuple[ReplicaPhoto, ...]


@dataclass(frozen=True)
class ReplicaShow:
    """One runway show: its title, season code, looks, side galleries and page quirks.

    ``page_fault`` names the show-page case the show stands for and ``listing_fault`` the
    designer-page case its listing entry stands for (see ``fashion_assets.replica.hostile``).
    """

    title: str
    season_slug: str
    brand_slug: str
    photos: tuple[ReplicaPhoto, ...]
    video_only: bool
    event_date: date
    cover: ReplicaPhoto
    side_galleries: tuple[ReplicaGallery, ...]
    review: str
    page_fault: str | None = None
    listing_fault: str | None = None

    @property
    def path(self) -> str:
        return f"/fashion-shows/{self.season_slug}/{self.brand_slug}"


@dataclass(frozen=True)
class ReplicaBrand:
    """A designer: display name, slug, bio and shows, newest first.

    ``junk_entries`` names the designer-page cases listed among the shows that are no show.
    """

    slug: str
    name: str
    bio: str
    shows: tuple[ReplicaShow, ...]
    junk_entries: tuple[str, ...] = ()

    @property
    def path(self) -> str:
        return f"/fashion-shows/designer/{self.slug}"


@dataclass
class _BrandContext:
    """What every photo of one brand is derived from."""

    seed: int
    slug: str
    name: str
    rng: random.Random
    pixels: tuple[int, int] | None = None


def build_brands(*, brands: int, shows_per_brand: int, photos_per_show: int, seed: int,
                 hostile: bool) -> tuple[ReplicaBrand, ...]:
    """Vogue's side of the replica (``build.py: build_site`` builds the whole): ``brands``
    houses, and with ``hostile`` the two brands that exercise bad input."""
    if brands < 0 or not 1 <= shows_per_brand <= _MAX_SHOWS_PER_BRAND or photos_per_show < 1:
        raise ValueError(
            f"need brands >= 0, 1 <= shows_per_brand <= {_MAX_SHOWS_PER_BRAND}, "
            "photos_per_show >= 1"
        )
    built = [
        _normal_brand(_context(seed, name, slug), shows_per_brand, photos_per_show)
        for name, slug in map(_brand_identity, range(brands))
    ]
    if hostile:
        built.append(
            _hostile_brand(_context(seed, "Hostile House", HOSTILE_BRAND), photos_per_show)
        )
        robots = _context(seed, "Robots Blocked", ROBOTS_BLOCKED_BRAND)
        built.append(_normal_brand(robots, min(2, shows_per_brand), photos_per_show))
    return tuple(built)


def _brand_identity(index: int) -> tuple[str, str]:
    """The index-th brand: a real name first, then synthetic "Atelier N" houses."""
    if index < len(_BRANDS):
        return _BRANDS[index]
    number = index - len(_BRANDS) + 1
    return f"Atelier {number}", f"atelier-{number}"


def _context(seed: int, name: str, slug: str, pixels: tuple[int, int] | None = None
             ) -> _BrandContext:
    return _BrandContext(seed, slug, name, random.Random(f"{seed}/{slug}"), pixels)


def brand_with_titles(seed: int, name: str, slug: str, titles: Sequence[tuple[date, str]],
                      photos_per_show: int, pixels: tuple[int, int] | None = None
                      ) -> ReplicaBrand:
    """A brand that showed ``titles`` (dates and titles, newest first), each show with
    about ``photos_per_show`` looks of ``pixels`` (None: the usual size), built as every
    replica brand is: the archive-shaped replica (``archive.py``) gives the real titles."""
    return _brand_of(_context(seed, name, slug, pixels), titles, photos_per_show)


def _bio(name: str) -> str:
    return (
        f"{name} is a fashion house {{founded on a dare}}; its shows run long; "
        f"critics call the style 'quiet {{loud}}'. See also: {{archive}};"
    )


def _normal_brand(ctx: _BrandContext, shows: int, photos_per_show: int) -> ReplicaBrand:
    return _brand_of(ctx, _pick_titles(ctx.rng, shows), photos_per_show)


def _brand_of(ctx: _BrandContext, titles: Sequence[tuple[date, str]], photos_per_show: int
              ) -> ReplicaBrand:
    deltas = _paired_deltas(ctx.rng, len(titles), min(3, photos_per_show // 4))
    built = []
    for index, ((event_date, title), delta) in enumerate(zip(titles, deltas, strict=True)):
        season_slug = _slug(title)
        count = photos_per_show + delta
        looks = tuple(_photo(ctx, season_slug, "look", n) for n in range(1, count + 1))
        built.append(_show(ctx, title, season_slug, event_date, looks, first=index == 0))
    return ReplicaBrand(ctx.slug, ctx.name, _bio(ctx.name), tuple(built))


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
            titles.append((_show_date(year, when, rng.randint(0, 6)), template.format(y=year)))
    return titles


def _show_date(year: int, when: tuple[int, int, int], jitter_days: int) -> date:
    offset, month, day = when
    return date(year + offset, month, day) + timedelta(days=jitter_days)


def _slug(title: str) -> str:
    return season_slug_for(parse_show_title(title))


def old_file_names(brand_slug: str, season_slug: str) -> bool:
    """Whether a show's photos have the old CDN names (``00010fullscreen.jpg``).

    The real site has both: a 2011 show's photos are ``<look * 10, five digits>fullscreen.jpg``
    and newer ones ``00001-<brand>-<season>-credit-gorunway.jpg``. A stable hash picks about
    one show in three, so that every replica, however small its years, serves both.
    """
    digest = hashlib.sha1(f"{brand_slug}/{season_slug}".encode()).digest()
    return digest[0] % 3 == 0


def _file_name(brand_slug: str, season_slug: str, role: str, number: int) -> str:
    """A photo's CDN file name; old names repeat across a show's galleries, as on the site
    (the photo id in the URL tells them apart)."""
    if old_file_names(brand_slug, season_slug):
        return f"{number * 10:05d}fullscreen.jpg"
    label = "" if role == "look" else f"-{role}"
    return f"{number:05d}-{brand_slug}-{season_slug}{label}-credit-gorunway.jpg"


def _photo(
    ctx: _BrandContext, season_slug: str, role: str, number: int, fault: str | None = None
) -> ReplicaPhoto:
    """A photo whose id is a hash of where it sits, so ids are stable and site-unique."""
    key = f"{ctx.seed}/{ctx.slug}/{season_slug}/{role}/{number}"
    photo_id = hashlib.sha1(key.encode()).hexdigest()[:24]
    file_name = _file_name(ctx.slug, season_slug, role, number)
    roll = ctx.rng.random()
    # Mostly JPEG as on the real CDN; WebP and PNG are rarer, and slower to encode.
    image_format = "png" if roll < 0.05 else "webp" if roll < 0.15 else "jpeg"
    image_format = _FAULT_FORMATS.get(fault or "", image_format)
    file_name = _FAULT_FILE_NAMES.get(fault or "", file_name)
    widths = _ALL_WIDTHS if ctx.rng.random() < 0.7 else _SHORT_WIDTHS
    return ReplicaPhoto(photo_id, file_name, image_format, widths, fault, ctx.pixels)


def _show(
    ctx: _BrandContext,
    title: str,
    season_slug: str,
    event_date: date,
    looks: tuple[ReplicaPhoto, ...],
    *,
    first: bool,
    video_only: bool = False,
    page_fault: str | None = None,
    listing_fault: str | None = None,
    review: str | None = None,
) -> ReplicaShow:
    """Assemble a show; the brand's newest show reuses look 1 as its cover, as Vogue does."""
    count = len(looks)
    cover = looks[0] if first and looks else _photo(ctx, season_slug, "cover", 1)
    side = () if video_only else _side_galleries(ctx, season_slug, count)
    text = review or ctx.rng.choice(_REVIEWS).format(brand=ctx.name, count=count)
    return ReplicaShow(
        title=title,
        season_slug=season_slug,
        brand_slug=ctx.slug,
        photos=looks,
        video_only=video_only,
        event_date=event_date,
        cover=cover,
        side_galleries=side,
        review=text,
        page_fault=page_fault,
        listing_fault=listing_fault,
    )


def _side_galleries(ctx: _BrandContext, season_slug: str, looks: int) -> tuple[ReplicaGallery, ...]:
    sizes = {
        "Details": max(1, looks // 6),
        "Beauty": max(1, looks // 12),
        "Front Row": 1 + looks // 10,
    }
    return tuple(
        ReplicaGallery(
            title,
            tuple(
                _photo(ctx, season_slug, title.lower().replace(" ", "-"), n)
                for n in range(1, sizes[title] + 1)
            ),
        )
        for title in SIDE_GALLERIES
    )


def _hostile_brand(ctx: _BrandContext, photos_per_show: int) -> ReplicaBrand:
    """Hostile House: one show per kind of bad show page or listing entry, one show holding a
    photo per kind of bad photo, and listing entries that are no show at all."""
    shows = []
    for index, (shape, year, problem) in enumerate(_HOSTILE_SHOWS):
        title = shape.format(y=year)
        season_slug = _slug(title)
        if problem == "photo_faults":
            looks = _fault_looks(ctx, season_slug, photos_per_show)
        elif problem == "video_only":
            looks = ()
        else:
            looks = _good_looks(ctx, season_slug, photos_per_show)
        long_title = problem == "long_title"
        shows.append(
            _show(
                ctx,
                _LONG_TITLE if long_title else title,
                season_slug,
                _show_date(year, _when(shape), 0),
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
        season_slug = _slug(title)
        shows.append(
            _show(
                ctx,
                title,
                season_slug,
                _show_date(year, _when(shape), 0),
                _good_looks(ctx, season_slug, photos_per_show),
                first=False,
                page_fault=fault if fault in PAGE_FAULTS else None,
                listing_fault=fault if fault in LISTING_FAULTS else None,
            )
        )
    return ReplicaBrand(ctx.slug, ctx.name, _bio(ctx.name), tuple(shows), JUNK_ENTRIES)


def _when(shape: str) -> tuple[int, int, int]:
    return next(when for known, _, when in _SHAPES if known == shape)


def _good_looks(ctx: _BrandContext, season_slug: str, count: int) -> tuple[ReplicaPhoto, ...]:
    return tuple(_photo(ctx, season_slug, "look", n) for n in range(1, count + 1))


def _fault_looks(ctx: _BrandContext, season_slug: str, good: int) -> tuple[ReplicaPhoto, ...]:
    """Good looks and one look per permanent fault, alternating while both last."""
    order: list[str | None] = []
    for index in range(max(good, len(PHOTO_FAULTS))):
        if index < good:
            order.append(None)
        if index < len(PHOTO_FAULTS):
            order.append(PHOTO_FAULTS[index])
    return tuple(
        _photo(ctx, season_slug, "look", n, fault) for n, fault in enumerate(order, start=1)
    )
