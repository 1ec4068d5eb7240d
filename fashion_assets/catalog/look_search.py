"""Find a look by its picture in the catalog: the index of the promoted photos' hashes,
kept loaded, and the search the read API and ``fashion-assets looks find`` answer with.

What is searched: every photo of a catalog entry, runway show or street-style album, that
the entry shows or keeps as an alternate of a look it shows (``catalog/looks.py``), and
that has its hashes in ``photo_hashes``. Only the catalog's own tables are read, which
promotion alone writes (``catalog/published.py``): a draft's photo is never found, even
hashed (the review page hashes the photos of the drafts it shows).

The index (``domain/look_search.py: LookIndex``) is built once per process and catalog
database, and built again when the catalog changed: ``catalog_revisions`` (sql/0017), which
every promotion batch and every merge of an entry raises in its transaction, is the marker,
two rows read before each search. A photo hashed after its entry's last promotion joins at
the kind's next one (promotion hashes every photo it promotes first, so only a photo that
was unreadable then waits).

``find_looks`` is the interface: bytes in, the closest looks out, a refusal
(``RefusedPhoto``) for bytes that are not a photo the search takes.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Engine, text

from fashion_assets import settings
from fashion_assets.catalog.entities import RUNWAY, STREET, EntityTables
from fashion_assets.domain.look_answers import RefusedPhoto, UploadRules, closest_looks, query_codes
from fashion_assets.domain.look_search import DEFAULT_SEARCH_WITHIN, MAX_WITHIN, Hit, LookIndex
from fashion_assets.domain.numbers import whole_number

__all__ = ["DEFAULT_LIMIT", "DEFAULT_RULES", "MAX_LIMIT", "FoundLook", "LookSearch", "RefusedPhoto",
           "SearchRules", "find_looks"]

DEFAULT_LIMIT = 10
MAX_LIMIT = 50

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
        """``FASHION_LOOK_SEARCH_WITHIN`` (empty: ``DEFAULT_SEARCH_WITHIN``),
        ``FASHION_LOOK_SEARCH_MAX_BYTES`` and the crawler's ``FASHION_MAX_IMAGE_PIXELS``;
        a bad value fails with the setting's name (``ValueError``)."""
        env = os.environ if env is None else env
        raw = settings.setting(env, "FASHION_LOOK_SEARCH_WITHIN")
        within = DEFAULT_SEARCH_WITHIN if not raw else whole_number(raw, 0, MAX_WITHIN)
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
    """A search's answer: the looks within ``within`` bits, closest first."""

    within: int
    looks: list[FoundLook]

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
                                     closest_looks(hits, loaded.look_of, limit)])


class _Loaded:
    """The index of one state of the catalog, and what each of its photos shows, in arrays
    (a million photos: 50 bytes each beside the index's, not a Python object each)."""

    def __init__(self, marker: tuple[tuple[str, int], ...], rows: Sequence[Sequence[Any]],
                 entries: list[tuple[str, dict[str, Any]]]) -> None:
        import numpy as np

        self.marker, self.entries = marker, entries
        self.index = LookIndex([(int(phash, 16), int(dhash, 16))
                                for _, _, _, _, phash, dhash in rows])
        self.sources = sorted({row[3] for row in rows})
        number = {source: n for n, source in enumerate(self.sources)}
        self.entry_of = np.array([row[0] for row in rows], dtype=np.uint32)
        self.position = np.array([row[1] for row in rows], dtype=np.uint32)
        self.shown = np.array([row[2] for row in rows], dtype=np.bytes_)
        self.source_of = np.array([number[row[3]] for row in rows], dtype=np.uint16)

    def look_of(self, photo: int) -> tuple[int, int]:
        """The look photo ``photo`` shows: its entry's number, its position there."""
        return int(self.entry_of[photo]), int(self.position[photo])

    def found(self, hit: Hit) -> FoundLook:
        kind, entry = self.entries[int(self.entry_of[hit.photo])]
        return FoundLook(kind, entry, int(self.position[hit.photo]),
                         self.shown[hit.photo].decode(),
                         self.sources[int(self.source_of[hit.photo])], hit.distance)


_LOADED: dict[str, _Loaded] = {}  # by the catalog database's URL (its password masked)
_LOADING = threading.Lock()


def _loaded(engine: Engine) -> _Loaded:
    """The index of ``engine``'s catalog as it is now: the one loaded, unless the catalog
    changed since (then built again, by one thread while the others wait for it)."""
    with _LOADING:
        marker = _marker(engine)
        loaded = _LOADED.get(str(engine.url))
        if loaded is None or loaded.marker != marker:
            loaded = _build(engine, marker)
            _LOADED[str(engine.url)] = loaded
        return loaded


def _marker(engine: Engine) -> tuple[tuple[str, int], ...]:
    with engine.connect() as conn:
        return tuple((kind, int(revision)) for kind, revision in conn.execute(text(
            "SELECT kind, revision FROM catalog_revisions ORDER BY kind")))


def _build(engine: Engine, marker: tuple[tuple[str, int], ...]) -> _Loaded:
    """Every hashed photo of the catalog read, each entry's fields kept once."""
    rows: list[tuple[int, int, str, str, str, str]] = []
    entries: list[tuple[str, dict[str, Any]]] = []
    numbered: dict[tuple[str, int], int] = {}
    with engine.connect() as conn:
        for t in (RUNWAY, STREET):
            for entry_id, position, shown, source, phash, dhash, *entry in conn.execute(
                    text(_photos_sql(t))):
                number = numbered.get((t.kind, entry_id))
                if number is None:
                    number = numbered[(t.kind, entry_id)] = len(entries)
                    entries.append((t.kind, dict(zip(_ENTRY_FIELDS[t.kind], entry,
                                                     strict=True))))
                rows.append((number, int(position), shown, source, phash, dhash))
    return _Loaded(marker, rows, entries)


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
