"""The archive-shaped replica: Vogue Runway's whole shape, from the real listings.

The other replicas have a few dozen synthetic brands; a team that adopts the project starts
from the real archive, about 1,900 designers and 26,000 shows. This one serves every
designer of ``vogue_designers.txt`` (their names as written, accents, dots and ampersands
included) and every show of ``vogue_show_titles.csv`` (the real titles, in their 47
shapes), with the real page shapes of the other replicas, about ``photos_per_show`` looks a
show. Photos are small (``PIXELS``: a few hundred bytes) and drawn when they are asked for,
deterministically, so a million of them cost the replica little and the store a few
hundred megabytes.

``fraction`` takes a part of the designers (with all their shows), chosen by a hash of the
name: the same fraction is always the same designers, and a larger one holds a smaller one.
Designers the corpus lists without a show keep an empty designer page, as such designers'
pages are on the site.
"""

from __future__ import annotations

import csv
import hashlib
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

from fashion_assets.domain.names import name_slug
from fashion_assets.domain.titles import ShowTitle, parse_show_title
from fashion_assets.replica.build import ReplicaSite
from fashion_assets.replica.vogue_brands import brand_with_titles, check_photos

DESIGNERS_FILE = "vogue_designers.txt"
SHOWS_FILE = "vogue_show_titles.csv"
PIXELS = (16, 24)
# When a show happens relative to its title's year (Spring YYYY ready-to-wear shows in
# September of YYYY-1), by season and collection type; city shows follow their season.
_WHEN: dict[tuple[str, str], tuple[int, int, int]] = {
    ("fall", "ready-to-wear"): (0, 2, 20),
    ("spring", "ready-to-wear"): (-1, 9, 24),
    ("resort", "ready-to-wear"): (-1, 5, 20),
    ("pre-fall", "ready-to-wear"): (-1, 12, 8),
    ("fall", "menswear"): (0, 1, 16),
    ("spring", "menswear"): (-1, 6, 18),
    ("resort", "menswear"): (-1, 6, 2),
    ("pre-fall", "menswear"): (-1, 12, 12),
    ("spring", "couture"): (0, 1, 22),
    ("fall", "couture"): (0, 7, 3),
    ("spring", "bridal"): (-1, 4, 14),
    ("fall", "bridal"): (-1, 10, 10),
}


@dataclass(frozen=True)
class Corpus:
    """The real listings: designer names as written, and (designer, show title) pairs."""

    designers: tuple[str, ...]
    shows: tuple[tuple[str, str], ...]

    @classmethod
    def read(cls, folder: Path) -> Corpus:
        """The two files of ``folder`` (the repository's ``tests/data``, or
        ``../shared/corpus``)."""
        designers = tuple(line.strip() for line in
                          (folder / DESIGNERS_FILE).read_text("utf-8").splitlines()
                          if line.strip())
        with (folder / SHOWS_FILE).open(encoding="utf-8", newline="") as handle:
            shows = tuple((row["designer"], row["show"]) for row in csv.DictReader(handle))
        return cls(designers, shows)


def designer_slugs(names: Iterable[str]) -> dict[str, str]:
    """A slug per designer, unique: the name's slug, then ``-2``, ``-3`` for the names that
    share it (``VIKTOR & ROLF`` and ``VIKTOR&ROLF``)."""
    slugs: dict[str, str] = {}
    taken: set[str] = set()
    for name in names:
        base = name_slug(name)
        slug, n = base, 1
        while slug in taken:
            n += 1
            slug = f"{base}-{n}"
        slugs[name] = slug
        taken.add(slug)
    return slugs


def in_fraction(name: str, fraction: float, seed: int = 0) -> bool:
    """Whether ``name`` is in the archive's ``fraction``: a hash of the name below it."""
    digest = hashlib.sha1(f"{seed}/{name}".encode()).digest()
    return int.from_bytes(digest[:8], "big") < fraction * 2**64


def show_date(title: ShowTitle, jitter_days: int) -> date:
    """When a show of ``title`` happens: its season's usual month of the right year."""
    offset, month, day = _WHEN[(title.season, title.collection_type)]
    return date(title.year + offset, month, day) + timedelta(days=jitter_days)


def dated_titles(titles: Sequence[str], key: str) -> list[tuple[date, str]]:
    """A designer's titles with their dates, newest first (a few days' jitter, stable per
    designer and title, so two shows of one week don't tie)."""
    dated = []
    for title in titles:
        jitter = hashlib.sha1(f"{key}/{title}".encode()).digest()[0] % 7
        dated.append((show_date(parse_show_title(title), jitter), title))
    return sorted(dated, reverse=True)


def build_archive(corpus: Corpus, *, fraction: float = 1.0, photos_per_show: int = 40,
                  seed: int = 0) -> ReplicaSite:
    """The archive's designers in ``fraction`` (0 < fraction <= 1), every show of each, in
    the corpus's order of designers."""
    if not 0 < fraction <= 1:
        raise ValueError("need 0 < fraction <= 1")
    titles: dict[str, list[str]] = defaultdict(list)
    for designer, title in corpus.shows:
        titles[designer].append(title)
    names = list(dict.fromkeys([*corpus.designers, *titles]))  # listed, then any unlisted
    slugs = designer_slugs(names)
    names = [name for name in names if in_fraction(name, fraction, seed)]
    check_photos(sum(len(titles[name]) for name in names), photos_per_show)
    brands = tuple(
        brand_with_titles(seed, name, slugs[name], dated_titles(titles[name], slugs[name]),
                          photos_per_show, PIXELS)
        for name in names)
    return ReplicaSite(brands=brands, seed=seed)
