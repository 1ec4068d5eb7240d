"""Batches of partitions: hundreds of brands crawled as a few runs, not one process each.

A run over a partition range covers consecutive keys of a partitions definition, in its own
order (a dynamic definition keeps the order keys were added in), so batches are slices of
that order, never of a sorted copy.
"""

from __future__ import annotations

from collections.abc import Sequence
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
