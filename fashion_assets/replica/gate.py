"""The replica's request gate: hold a crawl mid-way, at a request count a test chooses.

Tests of interrupted, resumed and step-by-step crawls need the server to stop answering at
an exact point and to say how many requests wait there; that is all this module does.
"""

from __future__ import annotations

import asyncio
import threading


class Gate:
    """Blocks requests of ``kinds`` (images by default; "page" holds pages) beyond the first
    ``after`` until released. robots.txt is never held.

    ``held`` changes under a ``threading.Condition`` so test threads can wait for a crawl to
    reach the gate without sleeping.
    """

    def __init__(self) -> None:
        self.after: int | None = None
        self.passed = 0
        self.kinds: frozenset[str] = frozenset({"image"})
        self.open = asyncio.Event()
        self.open.set()
        self.held = 0
        self.changed = threading.Condition()

    def hold(self, after: int, kinds: frozenset[str] = frozenset({"image"})) -> None:
        """Hold the requests of ``kinds`` after the next ``after``; those held now stay."""
        self.after, self.passed, self.kinds = after, 0, kinds
        if self.open.is_set():
            self.open = asyncio.Event()

    def advance(self, after: int, kinds: frozenset[str] | None = None) -> None:
        """Let the requests held now go and hold again after ``after`` more, with no moment
        in between when the gate is open (a crawl held step by step)."""
        held = self.open
        self.open = asyncio.Event()
        self.after, self.passed = after, 0
        self.kinds = self.kinds if kinds is None else kinds
        held.set()

    def release(self) -> None:
        self.after = None
        self.open.set()

    async def wait(self) -> None:
        if self.after is None:
            return
        self.passed += 1
        if self.passed <= self.after:
            return
        self._count(+1)
        try:
            await self.open.wait()
        finally:
            self._count(-1)

    def _count(self, delta: int) -> None:
        with self.changed:
            self.held += delta
            self.changed.notify_all()
