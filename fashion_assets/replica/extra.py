"""Further sites the replica serves beside Vogue and theImpression, each on an origin of
its own: a source added to the registry brings its replica site along (the tests' toy
source does), and every request to it takes the same path as the built-in sites' (counters,
transient faults, the gate)."""

from __future__ import annotations

from typing import Protocol

from fashion_assets.replica.replies import Reply


class ExtraSite(Protocol):
    """What each path of a further site answers; ``origin_url`` is where it listens."""

    def kind(self, path: str) -> str:
        """"page" or "image": how the request is counted and gated (the replica counts every
        origin's robots.txt as such itself, never as a page or a photo)."""
        ...

    def reply(self, path: str, origin_url: str) -> Reply:
        ...
