"""How one Vogue show of the replica is made: its photos (ids, file names, formats and
faults), its side galleries, cover and review.

A photo's id is a hash of where it sits and everything else it has is drawn from its brand's
own random stream (seeded by the site seed and the brand's slug), so a photo's identity,
format and faults never change between runs; ``vogue_brands.py`` decides which shows a brand
has.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass
from datetime import date, timedelta

from fashion_assets.domain.titles import parse_show_title, season_slug_for
from fashion_assets.replica.hostile import (
    LONG_FILE_NAME_CHARS,
    TOO_LONG_FILE_NAME_CHARS,
)
from fashion_assets.replica.site import (
    SIDE_GALLERIES,
    SIZE_WIDTHS,
    ReplicaGallery,
    ReplicaPhoto,
    ReplicaShow,
)

_ALL_WIDTHS = tuple(sorted(set(SIZE_WIDTHS.values())))
_SHORT_WIDTHS = _ALL_WIDTHS[:3]  # items that only have sm..xl
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

_REVIEWS = (
    "{brand} opened with tailoring {{sharp, then sharper}}; the finale undid it all.",
    "Backstage, {brand} talked about {{archive}} pieces; nobody mentioned the shoes.",
    "A tight show of {count} looks; colour came late {{and loud}}; the knits stole it.",
    "{brand} said the mood was 'function {{f}}'; the crowd read it as a love letter.",
)


@dataclass
class BrandContext:
    """What every photo of one brand is derived from."""

    seed: int
    slug: str
    name: str
    rng: random.Random
    pixels: tuple[int, int] | None = None


def brand_context(seed: int, name: str, slug: str, pixels: tuple[int, int] | None = None
             ) -> BrandContext:
    """A brand's context, its random stream seeded by the site seed and its slug."""
    return BrandContext(seed, slug, name, random.Random(f"{seed}/{slug}"), pixels)


def brand_bio(name: str) -> str:
    """A brand's bio, its free text holding ``{``, ``}`` and ``;``."""
    return (
        f"{name} is a fashion house {{founded on a dare}}; its shows run long; "
        f"critics call the style 'quiet {{loud}}'. See also: {{archive}};"
    )


def show_date(year: int, when: tuple[int, int, int], jitter_days: int) -> date:
    """The day of a show: ``when`` (year offset, month, day) of ``year``, a few days late."""
    offset, month, day = when
    return date(year + offset, month, day) + timedelta(days=jitter_days)


def season_slug_of(title: str) -> str:
    """Vogue's season slug of a show title."""
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


def new_photo(
    ctx: BrandContext, season_slug: str, role: str, number: int, fault: str | None = None
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


def new_show(
    ctx: BrandContext,
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
    cover = looks[0] if first and looks else new_photo(ctx, season_slug, "cover", 1)
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


def _side_galleries(ctx: BrandContext, season_slug: str, looks: int) -> tuple[ReplicaGallery, ...]:
    sizes = {
        "Details": max(1, looks // 6),
        "Beauty": max(1, looks // 12),
        "Front Row": 1 + looks // 10,
    }
    return tuple(
        ReplicaGallery(
            title,
            tuple(
                new_photo(ctx, season_slug, title.lower().replace(" ", "-"), n)
                for n in range(1, sizes[title] + 1)
            ),
        )
        for title in SIDE_GALLERIES
    )


def good_looks(ctx: BrandContext, season_slug: str, count: int) -> tuple[ReplicaPhoto, ...]:
    """``count`` looks without a fault."""
    return tuple(new_photo(ctx, season_slug, "look", n) for n in range(1, count + 1))
