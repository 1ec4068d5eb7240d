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

_SEPARATORS = re.compile(r"[\s\-_./,;:'’`&+]+")


def normalize_name(name: str) -> str:
    """The comparison form of a name: lowercase ASCII letters and digits, single spaces.

    `&` and `and` compare equal (`Dolce & Gabbana` = `Dolce and Gabbana`); accents are dropped
    (`Céline` = `CELINE`); punctuation and spacing do not count (`Agnès b.` = `agnes b`).
    """
    decomposed = unicodedata.normalize("NFKD", name.replace("&", " and "))
    ascii_only = decomposed.encode("ascii", "ignore").decode().casefold()
    return " ".join(part for part in _SEPARATORS.split(ascii_only) if part)


@dataclass(frozen=True)
class Resolution:
    """How a source's name resolved.

    ``entity`` is the canonical key when found; ``new_alias`` is the spelling to record as an
    alias when it matched only after normalization (so the next lookup is exact); ``pending``
    means no match: the name waits for an editor.
    """

    entity: str | None
    new_alias: str | None = None

    @property
    def pending(self) -> bool:
        return self.entity is None


def resolve_name(name: str, names: Mapping[str, Iterable[str]]) -> Resolution:
    """Resolve ``name`` against ``names``: canonical key -> its display name and aliases.

    An exact spelling (a display name or a recorded alias) resolves directly; a spelling that
    matches only after normalization resolves too, and is returned as a new alias. Two
    entities sharing a normalized form is a catalog error, refused rather than guessed.
    """
    spelled = name.strip()
    exact = [key for key, spellings in names.items() if spelled in set(spellings)]
    if exact:
        return Resolution(_only(exact, name))
    wanted = normalize_name(spelled)
    if not wanted:
        return Resolution(None)
    matches = sorted({key for key, spellings in names.items()
                      if any(normalize_name(s) == wanted for s in spellings)})
    if not matches:
        return Resolution(None)
    return Resolution(_only(matches, name), new_alias=spelled)


def _only(keys: list[str], name: str) -> str:
    if len(set(keys)) > 1:
        raise ValueError(f"{name!r} names several entities: {', '.join(sorted(set(keys)))}")
    return keys[0]
