"""Concurrency limits of the HTTP client that can change while requests are in flight.

A host's photo cap is halved when it throttles and restored step by step
(``domain/politeness.py``); ``Limiter`` enforces whatever the cap is now, and
``ImageSlots`` is what the client reports of it.
"""

from __future__ import annotations

import asyncio
from collections import deque
from dataclasses import dataclass


@dataclass(frozen=True)
class ImageSlots:
    """A host's photo downloads: how many may be in flight now, are, and wait for a slot."""

    limit: int
    in_flight: int
    waiting: int


class Limiter:
    """At most ``limit`` holders at once, with a limit that may change while slots are held.

    asyncio.Semaphore cannot shrink (its counter is the number of free slots), so this counts
    holders and compares them with the limit: a lower limit takes effect as holders leave
    (nobody is interrupted), a higher one lets waiters in at once. Waiters are served in
    arrival order and a freed slot is handed to the first of them directly, so a woken waiter
    never competes again (no thundering herd, no starvation). Invariant: someone waits only
    while ``active >= limit``.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.active = 0
        self._waiters: deque[asyncio.Future[None]] = deque()
        self._error: BaseException | None = None

    @property
    def waiting(self) -> int:
        return len(self._waiters)

    async def __aenter__(self) -> None:
        if self._error is not None:
            raise self._error
        if self.active < self.limit and not self._waiters:
            self.active += 1
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            await waiter
        except asyncio.CancelledError:
            if not waiter.cancelled() and waiter.exception() is None:
                self._release()  # granted a slot just as it was cancelled: hand it on
            elif waiter in self._waiters:
                self._waiters.remove(waiter)
            raise

    async def __aexit__(self, *exc_info: object) -> None:
        self._release()

    def resize(self, limit: int) -> None:
        self.limit = limit
        self._hand_over()

    def fail(self, error: BaseException) -> None:
        """Whoever waits, and whoever comes later, gets ``error`` instead of a slot (what
        sets the limit cannot any more)."""
        self._error = error
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_exception(error)

    def _release(self) -> None:
        self.active -= 1
        self._hand_over()

    def _hand_over(self) -> None:
        while self._waiters and self.active < self.limit:
            waiter = self._waiters.popleft()
            if not waiter.done():  # a cancelled one leaves on its own
                waiter.set_result(None)
                self.active += 1
