"""The look merge: one look published by two sources is one photo of a catalog entry.

Promotion merges the drafts of one entity key (``domain/promotion.py: merge_photos``) by
object key, so the same look from Vogue and theImpression, whose bytes differ, would be
listed twice. This rule runs on the merged photos of one entry:

- Only photos of **different sources** are compared: a source's own gallery lists distinct
  looks, however alike two of them are.
- Two photos whose perceptual hashes (``domain/perceptual_hash.py``) are at most
  ``same_within`` bits apart are **one look**; up to ``uncertain_within`` they are
  **uncertain**: shown to an editor, not merged. An editor's decision on a pair (``same``
  or ``different``) overrides the distance either way, and holds at every later promotion.
- Each photo is one look with at most one photo of each other source: the closest pairs are
  taken first.
- Of one look's photos, the entry keeps the one of the highest resolution (the first in the
  merged order on a tie, so the leading source wins), at the place of the look's first photo
  in that order; the others are its **alternates**, recorded with their sources.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from fashion_assets.domain.perceptual_hash import PerceptualHash


class PairDecision(StrEnum):
    """An editor's word on two photos of one entry."""

    SAME = "same"  # one look: merged whatever their distance
    DIFFERENT = "different"  # two looks: never merged (a wrong merge split)


@dataclass(frozen=True)
class LookRules:
    """The two thresholds, in bits of pHash and dHash together (0 to 128)."""

    same_within: int
    uncertain_within: int

    def __post_init__(self) -> None:
        if not 0 <= self.same_within <= self.uncertain_within:
            raise ValueError("need 0 <= same_within <= uncertain_within")


# The thresholds the replica's benchmark supports (``python -m bench.looks``,
# docs/performance.md): a look shown again by the second source lies within 22 bits of
# Vogue's, a look that only resembles it 28 or more away.
DEFAULT_LOOK_RULES = LookRules(same_within=20, uncertain_within=28)


@dataclass(frozen=True)
class LookPhoto:
    """A photo of an entry, in the merged order, with what the rule compares."""

    object_key: str
    source: str
    width: int | None
    height: int | None
    hashes: PerceptualHash | None  # None: not hashed (yet); never merged by distance

    @property
    def pixels(self) -> int:
        return (self.width or 0) * (self.height or 0)


@dataclass(frozen=True)
class Alternate:
    """A photo of a look that the entry does not show, beside the one it keeps."""

    kept_key: str
    object_key: str
    source: str
    distance: int | None  # to the kept photo; None when either is not hashed


@dataclass(frozen=True)
class UncertainPair:
    """Two photos of different sources that may be one look: for an editor to decide."""

    first_key: str
    second_key: str
    distance: int


@dataclass(frozen=True)
class LookMerge:
    """An entry's photos once its looks are merged: the keys it shows, in order, the
    alternates of each, and the pairs left for an editor."""

    kept: tuple[str, ...]
    alternates: tuple[Alternate, ...]
    uncertain: tuple[UncertainPair, ...]


def pair_key(a: str, b: str) -> tuple[str, str]:
    """A pair of object keys in one order, however it was named: how decisions are kept."""
    return (a, b) if a <= b else (b, a)


def merge_looks(photos: Sequence[LookPhoto], rules: LookRules,
                decisions: Mapping[tuple[str, str], PairDecision] | None = None) -> LookMerge:
    """Merge the looks of one entry's ``photos`` (in the merged order, each object key once),
    under the editors' ``decisions`` (keyed by ``pair_key``)."""
    decisions = decisions or {}
    joins: list[tuple[int, int, int]] = []  # (rank, i, j): the closest first, editors' before
    uncertain: list[UncertainPair] = []
    for i, a in enumerate(photos):
        for j in range(i + 1, len(photos)):
            b = photos[j]
            if a.source == b.source:
                continue
            decided = decisions.get(pair_key(a.object_key, b.object_key))
            distance = _distance(a, b)
            if decided is PairDecision.SAME:
                joins.append((-1, i, j))
            elif decided is None and distance is not None:
                if distance <= rules.same_within:
                    joins.append((distance, i, j))
                elif distance <= rules.uncertain_within:
                    uncertain.append(UncertainPair(a.object_key, b.object_key, distance))
    looks = _Looks([photo.source for photo in photos])
    for _, i, j in sorted(joins):
        looks.join(i, j)
    kept: list[str] = []
    alternates: list[Alternate] = []
    for members in looks.groups():  # in the order of each look's first photo
        chosen = max(members, key=lambda m: (photos[m].pixels, -m))
        keeper = photos[chosen]
        kept.append(keeper.object_key)
        alternates += [Alternate(keeper.object_key, photos[m].object_key, photos[m].source,
                                 _distance(keeper, photos[m]))
                       for m in members if m != chosen]
    in_looks = {key for a in alternates for key in (a.kept_key, a.object_key)}
    left = tuple(pair for pair in uncertain
                 if pair.first_key not in in_looks and pair.second_key not in in_looks)
    return LookMerge(tuple(kept), tuple(alternates), left)


def _distance(a: LookPhoto, b: LookPhoto) -> int | None:
    return a.hashes.distance(b.hashes) if a.hashes and b.hashes else None


class _Looks:
    """Photos joined into looks, at most one photo of each source a look. A look is named
    by its first photo's index, so looks come out in the merged order."""

    def __init__(self, sources: Sequence[str]) -> None:
        self._sources = sources
        self._look = list(range(len(sources)))

    def join(self, i: int, j: int) -> None:
        a, b = self._look[i], self._look[j]
        if a == b or self._sources_of(a) & self._sources_of(b):
            return  # one look already, or both hold a photo of one source
        first, second = min(a, b), max(a, b)
        self._look = [first if look == second else look for look in self._look]

    def groups(self) -> list[list[int]]:
        grouped: dict[int, list[int]] = {}
        for member, look in enumerate(self._look):
            grouped.setdefault(look, []).append(member)
        return list(grouped.values())

    def _sources_of(self, look: int) -> set[str]:
        return {self._sources[m] for m, of in enumerate(self._look) if of == look}
