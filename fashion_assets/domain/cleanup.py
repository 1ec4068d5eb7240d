"""Media cleanup rules: which stored objects may be deleted, and the tally a run reports.

Pure functions of a listing, a set of referenced keys and a clock, so the rule that decides
what is deleted forever is tested without a store or a database.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Protocol, TypeVar

MAX_LISTED_KEYS = 100
"""Keys a run lists in its metadata; the counts cover the rest."""


class Listed(Protocol):
    """What the rule needs of a stored object (``storage.base.StoredObject`` fits)."""

    @property
    def key(self) -> str: ...

    @property
    def size(self) -> int: ...

    @property
    def modified(self) -> datetime: ...


ObjectT = TypeVar("ObjectT", bound=Listed)


def cutoff(now: datetime, grace: timedelta) -> datetime:
    """The newest modification time an orphan may have and still be deleted (exclusive).

    A naive ``now`` or a negative grace is refused: either could delete the photos of an
    ingest that has stored them but not yet committed its draft.
    """
    if now.tzinfo is None:
        raise ValueError("now must be timezone-aware (UTC)")
    if grace < timedelta(0):
        raise ValueError(f"grace period must not be negative, got {grace}")
    return now - grace


def orphans(objects: Iterable[ObjectT], referenced: Collection[str], *, now: datetime,
            grace: timedelta) -> list[ObjectT]:
    """The objects no catalog row references, modified strictly before ``now - grace``.

    An object modified exactly at the boundary stays: when in doubt, keep. Young orphans
    stay because an ingest stores a show's photos before it commits the draft that
    references them.
    """
    limit = cutoff(now, grace)
    return [item for item in objects if item.key not in referenced and item.modified < limit]


@dataclass
class CleanupSummary:
    """What a cleanup run found and did, accumulated batch by batch.

    In a dry run nothing is removed: ``orphans``/``orphan_bytes`` are what would go.
    """

    dry_run: bool
    scanned: int = 0
    orphans: int = 0
    orphan_bytes: int = 0
    removed: int = 0
    bytes_removed: int = 0
    temp_files_removed: int = 0
    listed_keys: list[tuple[str, int]] = field(default_factory=list)

    def add_batch(self, scanned: int, found: Sequence[Listed],
                  removed: Sequence[Listed]) -> None:
        """Count one batch: objects listed, orphans found, orphans actually removed."""
        self.scanned += scanned
        self.orphans += len(found)
        self.orphan_bytes += sum(item.size for item in found)
        self.removed += len(removed)
        self.bytes_removed += sum(item.size for item in removed)
        shown = found if self.dry_run else removed
        room = MAX_LISTED_KEYS - len(self.listed_keys)
        self.listed_keys.extend((item.key, item.size) for item in shown[:max(room, 0)])
