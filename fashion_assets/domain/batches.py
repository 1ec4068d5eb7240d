"""Batches of partitions: hundreds of brands crawled as a few runs, not one process each.

A run over a partition range covers consecutive keys of a partitions definition, in its own
order (a dynamic definition keeps the order keys were added in), so batches are slices of
that order, never of a sorted copy.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Batch:
    """Consecutive partition keys ``first`` .. ``last`` (inclusive), ``size`` of them."""

    first: str
    last: str
    size: int

    @property
    def label(self) -> str:
        """A name for the batch in tags, run keys and status lines."""
        return self.first if self.first == self.last else f"{self.first}..{self.last}"

    @classmethod
    def from_label(cls, label: str) -> Batch:
        """The batch a label names (its size unknown, 0): for a run given by its label."""
        first, _, last = label.partition("..")
        return cls(first, last or first, 0)


def batches(keys: Sequence[str], size: int) -> list[Batch]:
    """``keys`` in order, cut into batches of at most ``size`` (the last may be smaller)."""
    if size < 1:
        raise ValueError(f"a batch holds at least one key, got {size}")
    return [Batch(keys[i], keys[min(i + size, len(keys)) - 1], len(keys[i:i + size]))
            for i in range(0, len(keys), size)]


def plan_ranges(order: Sequence[str], wanted: Iterable[str], runs: int, max_size: int
                ) -> list[Batch]:
    """The ``wanted`` keys as ranges of ``order`` (a partitions definition's order) to crawl,
    one run each: the crawl of the command, whose runs each pay a fixed cost (a process, the
    code loaded, the event log) worth paying once per batch rather than once per key.

    A range never covers a key that is not wanted (keys in between that the user did not ask
    for are not crawled), holds at most ``max_size`` keys, and there are at least as many
    ranges as ``runs`` (the runs the deployment executes at once) while there are keys to
    split, so every slot works: the largest range is halved until there are enough. Keys not
    in ``order`` are ignored (the caller adds them first).
    """
    if runs < 1 or max_size < 1:
        raise ValueError(f"runs and range size are at least 1, got {runs} and {max_size}")
    wanted = set(wanted)
    groups: list[list[str]] = []
    previous_wanted = False
    for key in order:
        if key in wanted:
            if not previous_wanted:
                groups.append([])
            groups[-1].append(key)
        previous_wanted = key in wanted
    pieces = [piece for group in groups for piece in _at_most(group, max_size)]
    target = min(runs, sum(len(piece) for piece in pieces))
    while len(pieces) < target:
        largest = max(range(len(pieces)), key=lambda i: len(pieces[i]))
        piece = pieces[largest]
        half = (len(piece) + 1) // 2
        pieces[largest:largest + 1] = [piece[:half], piece[half:]]
    return [Batch(piece[0], piece[-1], len(piece)) for piece in pieces]


def _at_most(keys: list[str], size: int) -> list[list[str]]:
    """``keys`` in consecutive pieces of near-equal length, none longer than ``size``."""
    count = -(-len(keys) // size)
    bounds = [i * len(keys) // count for i in range(count + 1)]
    return [keys[a:b] for a, b in itertools.pairwise(bounds)]
