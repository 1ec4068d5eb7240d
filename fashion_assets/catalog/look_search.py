"""Find a look by its picture in the catalog: the index of the promoted photos' hashes,
kept loaded, and the search the read API and ``fashion-assets looks find`` answer with.

What is searched: every photo of a catalog entry, runway show or street-style album, that
the entry shows or keeps as an alternate of a look it shows (``catalog/looks.py``), and
that has its hashes in ``photo_hashes``. Only the catalog's own tables are read, which
promotion alone writes (``catalog/published.py``): a draft's photo is never found, even
hashed (the review page hashes the photos of the drafts it shows).

A process keeps one index (``domain/look_search.py: LookIndex``), of the catalog it
searched last, and builds it again when that catalog changed: ``catalog_revisions``
(sql/0017), which every promotion batch and every merge of an entry raises in its
transaction, is the marker, two rows read before each search. A photo hashed after its
entry's last promotion joins at the kind's next one (promotion hashes every photo it
promotes first, so only a photo that was unreadable then waits).

``find_looks`` is the interface: bytes in, the closest looks out, a refusal
(``RefusedPhoto``) for bytes that are not a photo the search takes.
"""

from __future__ import annotations

import os
import threading
from array import array
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Engine, text

from fashion_assets import settings
from fashion_assets.catalog.entities import RUNWAY, STREET, EntityTables
from fashion_assets.domain.look_answers import RefusedPhoto, UploadRules, closest_looks, query_codes
from fashion_assets.domain.look_search import DEFAULT_SEARCH_WITHIN, MAX_WITHIN, Hit, LookIndex
from fashion_assets.domain.numbers import whole_number
from fashion_assets.storage.base import check_key

__all__ = ["DEFAULT_LIMIT", "DEFAULT_RULES", "MAX_LIMIT", "FoundLook", "LookSearch", "RefusedPhoto",
           "SearchRules", "find_looks"]

DEFAULT_LIMIT = 10
MAX_LIMIT = 50
_BATCH = 10_000  # rows fetched at a time while the index is built

# What names an entry in an answer, by kind: a show by its brand and season, an album by
# its city and month.
_ENTRY_COLUMNS = {RUNWAY.kind: ("brand_slug", "season_code", "title", "season", "city"),
                  STREET.kind: ("city", "year", "month")}
_ENTRY_FIELDS = {RUNWAY.kind: ("brand", "season_code", "title", "season", "city"),
                 STREET.kind: ("city", "year", "month")}


@dataclass(frozen=True)
class SearchRules:
    """A search's settings: the farthest a look may be (``within`` bits of 128) and the
    size an upload may have."""

    within: int = DEFAULT_SEARCH_WITHIN
    upload: UploadRules = field(default_factory=UploadRules)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> SearchRules:
        """``FASHION_LOOK_SEARCH_WITHIN`` (its default is ``DEFAULT_SEARCH_WITHIN``),
        ``FASHION_LOOK_SEARCH_MAX_BYTES`` and the crawler's ``FASHION_MAX_IMAGE_PIXELS``;
        a bad value fails with the setting's name (``ValueError``)."""
        env = os.environ if env is None else env
        raw = settings.setting(env, "FASHION_LOOK_SEARCH_WITHIN")
        within = whole_number(raw, 0, MAX_WITHIN)
        if within is None:
            raise ValueError(f"FASHION_LOOK_SEARCH_WITHIN={raw!r} must be a whole number of "
                             f"bits from 0 to {MAX_WITHIN}")
        return cls(within, UploadRules(
            settings.positive_int(env, "FASHION_LOOK_SEARCH_MAX_BYTES"),
            settings.positive_int(env, "FASHION_MAX_IMAGE_PIXELS")))


DEFAULT_RULES = SearchRules()


@dataclass(frozen=True)
class FoundLook:
    """A look of the catalog: its entry (``kind``, and ``entry``: brand, season_code, title,
    season and city of a show; city, year and month of an album), its ``position`` there,
    the photo the entry shows for it (``object_key``), the ``source`` of the catalog photo
    closest to the upload (the one shown or an alternate), and that photo's ``distance``."""

    kind: str
    entry: dict[str, Any]
    position: int
    object_key: str
    source: str
    distance: int

    def fields(self) -> dict[str, Any]:
        """The look as JSON fields but its photo, which each caller names its own way (the
        API by its URLs, the command line by its object key)."""
        return {"kind": self.kind, **self.entry, "position": self.position,
                "source": self.source, "distance": self.distance}


@dataclass(frozen=True)
class LookSearch:
    """A search's answer: the looks within ``within`` bits, closest first, out of the
    catalog's ``photos`` searched (none: no look was ever promoted, which "no match" alone
    would hide)."""

    within: int
    looks: list[FoundLook]
    photos: int

    @property
    def match(self) -> bool:
        return bool(self.looks)


def find_looks(engine: Engine, data: bytes, *, limit: int = DEFAULT_LIMIT,
               rules: SearchRules = DEFAULT_RULES) -> LookSearch:
    """The catalog's looks closest to the photo ``data``, ``limit`` at most (1 to
    ``MAX_LIMIT``); ``RefusedPhoto`` (reason, detail) when ``data`` is no photo the search
    takes. Blocking (a query, perhaps the index's build, a decode): run it off an event loop."""
    if not 1 <= limit <= MAX_LIMIT:
        raise ValueError(f"limit must be from 1 to {MAX_LIMIT}, not {limit}")
    codes = query_codes(data, rules.upload)
    loaded = _loaded(engine)
    # Every photo within reach: a look counts once however many of its photos are.
    hits = loaded.index.search(codes, within=rules.within, limit=max(len(loaded.index), 1))
    return LookSearch(rules.within, [loaded.found(hit) for hit in
                                     closest_looks(hits, loaded.look_of, limit)],
                      len(loaded.index))


@dataclass
class _Columns:
    """What each photo of the index shows, a column each, read in index order: a million
    photos cost some 60 bytes each here, not a Python object each."""

    entries: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    entry_of: array[int] = field(default_factory=lambda: array("L"))
    position: array[int] = field(default_factory=lambda: array("L"))
    source_of: array[int] = field(default_factory=lambda: array("H"))
    shown: bytearray = field(default_factory=bytearray)  # 20 bytes a photo: its sha1
    phash: array[int] = field(default_factory=lambda: array("Q"))
    dhash: array[int] = field(default_factory=lambda: array("Q"))


class _Loaded:
    """The index of one state of the catalog (``marker``), and what its photos show."""

    def __init__(self, marker: tuple[Any, ...], columns: _Columns) -> None:
        import numpy as np

        self.marker, self.columns = marker, columns
        # The codes as an (n, 2) array, which LookIndex reads as it reads a list of pairs,
        # without a Python object a photo on the way.
        self.index = LookIndex(np.column_stack([  # type: ignore[arg-type]
            np.frombuffer(columns.phash, dtype=np.uint64),
            np.frombuffer(columns.dhash, dtype=np.uint64)]))

    def look_of(self, photo: int) -> tuple[int, int]:
        """The look photo ``photo`` shows: its entry's number, its position there."""
        return self.columns.entry_of[photo], self.columns.position[photo]

    def found(self, hit: Hit) -> FoundLook:
        c = self.columns
        kind, entry = c.entries[c.entry_of[hit.photo]]
        return FoundLook(kind, dict(entry), c.position[hit.photo],  # a copy: the caller's
                         c.shown[20 * hit.photo:20 * hit.photo + 20].hex(),
                         c.sources[c.source_of[hit.photo]], hit.distance)


# The one index a process keeps: of the catalog it searched last, as that catalog was.
_LOADED: list[_Loaded] = []
_LOADING = threading.Lock()


def _loaded(engine: Engine) -> _Loaded:
    """The index of ``engine``'s catalog as it is now: the one loaded, unless the catalog
    changed since, or is another (then built again, by one thread while the others wait:
    a build costs seconds on an archive, and two at once would cost twice the memory)."""
    with _LOADING:
        marker = (str(engine.url), *_marker(engine))  # the URL with its password masked
        if not _LOADED or _LOADED[0].marker != marker:
            _LOADED[:] = []  # the old index is dropped before the new one is built
            _LOADED.append(_build(engine, marker))
        return _LOADED[0]


def _marker(engine: Engine) -> tuple[tuple[str, int], ...]:
    """Each kind's catalog revision: raised by whatever changes the catalog's entries."""
    with engine.connect() as conn:
        return tuple((kind, int(revision)) for kind, revision in conn.execute(text(
            "SELECT kind, revision FROM catalog_revisions ORDER BY kind")))


def _build(engine: Engine, marker: tuple[Any, ...]) -> _Loaded:
    """Every hashed photo of the catalog read, a batch of rows at a time, each entry's
    fields kept once."""
    c = _Columns()
    numbered: dict[tuple[str, int], int] = {}
    sources: dict[str, int] = {}
    with engine.connect() as conn:
        for t in (RUNWAY, STREET):
            result = conn.execution_options(stream_results=True, yield_per=_BATCH).execute(
                text(_photos_sql(t)))
            for entry_id, position, shown, source, phash, dhash, *entry in result:
                number = numbered.get((t.kind, entry_id))
                if number is None:
                    number = numbered[(t.kind, entry_id)] = len(c.entries)
                    c.entries.append((t.kind, dict(zip(_ENTRY_FIELDS[t.kind], entry,
                                                       strict=True))))
                if source not in sources:
                    sources[source] = len(c.sources)
                    c.sources.append(source)
                c.entry_of.append(number)
                c.position.append(int(position))
                c.source_of.append(sources[source])
                c.shown += bytes.fromhex(check_key(shown))  # a sha1, or the build fails
                c.phash.append(int(phash, 16))
                c.dhash.append(int(dhash, 16))
    return _Loaded(marker, c)


def _photos_sql(t: EntityTables) -> str:
    """Every hashed photo of the kind's entries, shown or an alternate: the entry's id, the
    look's position and shown photo, the photo's source and hashes, the entry's key."""
    fk = t.catalog_image_fk
    entry = ", ".join(f"c.{column}" for column in _ENTRY_COLUMNS[t.kind])
    return (f"SELECT c.id, i.position, i.object_key, i.source, h.phash, h.dhash, {entry}"
            f" FROM {t.catalog_images} i JOIN {t.catalog} c ON c.id = i.{fk}"
            " JOIN photo_hashes h ON h.photo_key = i.object_key"
            f" UNION ALL SELECT c.id, i.position, i.object_key, a.source, h.phash, h.dhash,"
            f" {entry} FROM {t.catalog_alternates} a JOIN {t.catalog} c ON c.id = a.{fk}"
            f" JOIN {t.catalog_images} i ON i.{fk} = a.{fk} AND i.object_key = a.kept_key"
            " JOIN photo_hashes h ON h.photo_key = a.object_key")
