"""Name resolution: which canonical brand or city a source's spelling means.

A source writes `Céline`, `CELINE` or `Celine`; a title writes `Kiev` or `Kyiv`. Each name is
normalized (case, accents, punctuation, spacing) and matched against the canonical names and
their aliases. A name that matches nothing is not invented as a new entity: it waits for an
editor (``pending``). `Saint Laurent` and `Yves Saint Laurent` are one brand only through an
alias, never through normalization.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum

from fashion_assets.domain.text import clean_text

_SEPARATORS = re.compile(r"[\s\-_./,;:'’`&+]+")
_SLUG_CHARS = re.compile(r"[^a-z0-9]+")
MAX_NAME_CHARS = 200


class NameKind(StrEnum):
    """What a name names; each kind has its own canonical entities and aliases."""

    BRAND = "brand"
    CITY = "city"


def normalize_name(name: str) -> str:
    """The comparison form of a name: lowercase ASCII letters and digits, single spaces.

    `&` and `and` compare equal (`Dolce & Gabbana` = `Dolce and Gabbana`); accents are dropped
    (`Céline` = `CELINE`); punctuation and spacing do not count (`Agnès b.` = `agnes b`).
    """
    decomposed = unicodedata.normalize("NFKD", name.replace("&", " and "))
    ascii_only = decomposed.encode("ascii", "ignore").decode().casefold()
    return " ".join(part for part in _SEPARATORS.split(ascii_only) if part)


def clean_name(name: str) -> str:
    """A source's spelling as it is kept: cleaned by the one rule for kept text
    (``domain/text.py``), capped at ``MAX_NAME_CHARS``."""
    return clean_text(name, MAX_NAME_CHARS)


def name_slug(name: str) -> str:
    """The slug of a new entity approved from a name (`São Paulo` -> `sao-paulo`)."""
    slug = _SLUG_CHARS.sub("-", normalize_name(name)).strip("-")
    if not slug:
        raise ValueError(f"{name!r} has no letters or digits to make a slug from")
    return slug[:120]


@dataclass(frozen=True)
class Resolution:
    """How a source's name resolved.

    ``entity`` is the canonical key when found; ``new_alias`` is the spelling to record as an
    alias when it matched only after normalization (so the next lookup is exact); ``pending``
    means no single match: the name waits for an editor, and ``candidates`` lists the
    entities it matched when it matched more than one.
    """

    entity: str | None
    new_alias: str | None = None
    candidates: tuple[str, ...] = ()

    @property
    def pending(self) -> bool:
        return self.entity is None


def resolve_name(name: str, names: Mapping[str, Iterable[str]]) -> Resolution:
    """Resolve ``name`` against ``names``: canonical key -> its display name and aliases.

    An exact spelling (a display name or a recorded alias) resolves directly; a spelling that
    matches only after normalization resolves too, and is returned as a new alias. A name
    matching several entities is not guessed: it is pending, with those entities as
    candidates, for an editor to merge into the right one.
    """
    spelled = clean_name(name)
    exact = sorted({key for key, spellings in names.items() if spelled in set(spellings)})
    if len(exact) == 1:
        return Resolution(exact[0])
    if exact:
        return Resolution(None, candidates=tuple(exact))
    wanted = normalize_name(spelled)
    if not wanted:
        return Resolution(None)
    matches = sorted({key for key, spellings in names.items()
                      if any(normalize_name(s) == wanted for s in spellings)})
    if len(matches) == 1:
        return Resolution(matches[0], new_alias=spelled)
    return Resolution(None, candidates=tuple(matches))


def named_by(written: str, names: Iterable[tuple[int, str]]) -> list[int]:
    """The ids of the names an editor means by ``written``: those equal to it once
    normalized, by the rule sources' names are matched by (``Stokholm``, ``stokholm``)."""
    key = normalize_name(written)
    return [name_id for name_id, name in names if key and normalize_name(name) == key]
