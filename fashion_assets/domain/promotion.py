"""The promotion merge: what one catalog entry holds, from the approved drafts of its entity.

An entry's photos are the union of the photos of every approved (or already promoted) draft
with its entity key, from every source, each photo once (by object key: the sha1 of its
bytes), in a stable order: source priority first, then the draft, then the photo's position
in it. Rejected, pending and deleted drafts contribute nothing. The catalog's set-based SQL
(``catalog/promotion.py``) implements exactly this rule; its tests compare the two.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from fashion_assets.sources.registry import SOURCES

# Sources in the order their photos and text lead an entry: the registry's order (Vogue's
# looks are the reference gallery of a show, theImpression's add what Vogue lacks).
SOURCE_PRIORITY: tuple[str, ...] = tuple(source.name for source in SOURCES)
# Statuses whose drafts make up an entry: approved ones are promoted now, promoted ones were
# before and stay part of it.
CONTRIBUTING_STATUSES: tuple[str, ...] = ("approved", "promoted")


def contributes(status: str, is_deleted: bool) -> bool:
    """Whether a draft in ``status`` makes up its entity's catalog entry: approved or
    promoted, and not deleted (``catalog/entities.py: contributes`` is its SQL)."""
    return status in CONTRIBUTING_STATUSES and not is_deleted


def source_rank(source: str) -> int:
    """Where ``source`` stands in ``SOURCE_PRIORITY``; unknown sources come last."""
    return SOURCE_PRIORITY.index(source) if source in SOURCE_PRIORITY else len(SOURCE_PRIORITY)


@dataclass(frozen=True)
class DraftPhoto:
    position: int
    object_key: str


@dataclass(frozen=True)
class DraftForPromotion:
    draft_id: int
    source: str
    status: str
    is_deleted: bool
    photos: tuple[DraftPhoto, ...]

    @property
    def contributes(self) -> bool:
        return contributes(self.status, self.is_deleted)


@dataclass(frozen=True)
class EntryPhoto:
    """A photo of a catalog entry: its position there, and which draft photo it came from."""

    position: int
    object_key: str
    draft_id: int
    draft_position: int


def merge_photos(drafts: Iterable[DraftForPromotion]) -> list[EntryPhoto]:
    """The photos of one entry, from the drafts of its entity key (any status given)."""
    ordered = sorted((d for d in drafts if d.contributes),
                     key=lambda d: (source_rank(d.source), d.draft_id))
    seen: set[str] = set()
    merged: list[EntryPhoto] = []
    for draft in ordered:
        for photo in sorted(draft.photos, key=lambda p: p.position):
            if photo.object_key not in seen:
                seen.add(photo.object_key)
                merged.append(EntryPhoto(len(merged) + 1, photo.object_key, draft.draft_id,
                                         photo.position))
    return merged


def lead_draft(drafts: Sequence[DraftForPromotion]) -> DraftForPromotion | None:
    """The draft whose text (title, season...) the entry shows: the first contributing one."""
    contributing = [d for d in drafts if d.contributes]
    return min(contributing, key=lambda d: (source_rank(d.source), d.draft_id), default=None)
