"""A store that scrubs itself: what counts as a damaged object, and how the scrub's walk of the
archive moves under a byte budget.

An object's key is the sha1 of the bytes first written, and nothing rewrites them, so bytes
with another sha1 under a key (a file truncated to nothing, overwritten by a faulty disk or
a careless hand) can only be damage. Two ways to see it: a lookup the store makes anyway
(the heal's, the crawl's) gives the stored size, and a size other than the one the photo
rows recorded is damage found without reading a byte (``size_damage``); the scheduled scrub
reads every referenced object in turn and compares the sha1 of its bytes with its key
(``read_damage``). A damaged object is a lost one: removed from the store, then fetched
again from its source URLs by the heal (``domain/store_heal.py``), or recorded as lost with
the reason, the damage named in the detail.

The scrub walks the referenced keys in key order from a cursor, as the heal does, but a tick
is bounded by the bytes it reads (``scrub_walk``): at most the budget plus the last object
read (one photo, ``FASHION_MAX_IMAGE_BYTES`` at most), and always one object at least, so a
pass always ends. Pure functions and plain data: the store and the catalog are the caller's
(``crawl/store_scrub.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from fashion_assets.domain.store_heal import Step, Unhealed

EMPTY = "empty"
"""The store holds 0 bytes under the key: no photo is empty."""
WRONG_SIZE = "wrong_size"
"""The store's size for the key is not the size the photo rows recorded for it."""
WRONG_SHA1 = "wrong_sha1"
"""The bytes read under the key have another sha1: truncated, or overwritten."""
PAGE = 1000
"""Keys asked of the catalog at a time by a tick's walk: one query per thousand objects."""


@dataclass(frozen=True)
class Damage:
    """What is wrong with the object stored under ``key``, and a sentence saying so."""

    key: str
    reason: str
    detail: str

    def line(self) -> str:
        """The damage as a prefix of the lost object's recorded detail."""
        return f"damaged in the store ({self.reason}: {self.detail})"


def size_damage(key: str, stored: int, recorded: Collection[int]) -> Damage | None:
    """The damage a lookup shows: 0 bytes, or a size none of the photo rows of ``key``
    recorded (``recorded`` empty: no row says, only emptiness counts)."""
    if stored == 0:
        return Damage(key, EMPTY, "0 bytes stored")
    if recorded and stored not in recorded:
        sizes = " or ".join(f"{size:,}" for size in sorted(recorded))
        return Damage(key, WRONG_SIZE, f"{stored:,} bytes stored, {sizes} recorded")
    return None


def read_damage(key: str, size: int, sha1: str) -> Damage | None:
    """The damage a full read shows: nothing, or bytes whose sha1 is not the key."""
    if size == 0:
        return Damage(key, EMPTY, "0 bytes stored")
    if sha1 != key:
        return Damage(key, WRONG_SHA1, f"the {size:,} bytes stored have sha1 {sha1}")
    return None


def with_damage(failure: Unhealed, damage: str) -> Unhealed:
    """A failed try at fetching a damaged object again, its detail saying what the damage
    was (``damage``: ``Damage.line``; "" for an object that was simply missing), so ``store
    missing`` tells a damaged object from one that vanished."""
    if not damage:
        return failure
    detail = damage + (f"; {failure.detail}" if failure.detail else "")
    return Unhealed(failure.key, failure.url, failure.reason, detail)


@dataclass(frozen=True)
class Walked:
    """A tick of the scrub: where it stands in the walk, the keys it read in order, and the
    bytes it read."""

    step: Step
    read: tuple[str, ...]
    bytes_read: int


def scrub_walk(after: str, budget: int, page: Callable[[str, int], Sequence[str]],
               read: Callable[[str], int], page_size: int = PAGE) -> Walked:
    """Read the referenced keys after ``after`` in key order until ``budget`` bytes are
    read or the walk reaches its last key (the pass is then complete: the next tick starts
    over from the first key).

    ``page(after, n)`` gives the first ``n`` referenced keys after ``after``; ``read(key)``
    checks one object and says how many bytes it read (0 for one the store lacks: the
    heal's). Every object read counts in full, so a tick reads its budget plus at most one
    object, and at least one object unless the walk is over.
    """
    if budget < 1:
        raise ValueError(f"the scrub's byte budget must be at least 1, got {budget}")
    if page_size < 1:
        raise ValueError(f"a page must hold at least one key, got {page_size}")
    keys_read: list[str] = []
    spent, last = 0, after
    while True:
        keys = list(page(last, page_size))
        if len(keys) > page_size or keys != sorted(keys) or (keys and keys[0] <= last):
            raise ValueError("a page must hold at most page_size keys after the cursor, "
                             "in key order")
        for position, key in enumerate(keys, start=1):
            spent += read(key)
            keys_read.append(key)
            last = key
            if spent >= budget:
                if position == len(keys) and len(keys) < page_size:
                    break  # the last key of the walk: the pass ends with this tick
                return Walked(Step(after, key, key, False), tuple(keys_read), spent)
        if len(keys) < page_size:
            return Walked(Step(after, None, "", True), tuple(keys_read), spent)
