"""The replica's site model: Vogue's brands, shows and photos, and the cases they carry.

Tests, the demo and the benchmarks all need the same two sites to crawl without internet,
so the whole replica is a pure function of ``build_site``'s parameters: two builds with the
same arguments are equal, and a photo's identity, format and faults never change between
runs. This module holds what a site is made of; ``vogue_brands.py`` and ``vogue_shows.py``
build Vogue's side, ``impression_build.py`` theImpression's from the Vogue brands (its
runway galleries are second sources of the same shows), and ``build.py`` puts the two
together, so the model knows nothing of either builder and the imports go one way.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from fashion_assets.replica.hostile import (
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
