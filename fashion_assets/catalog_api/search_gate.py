"""How many look searches one read API process takes on at once: what a burst of uploads
may cost it is bounded here, for the JSON route and the browse pages' form alike.

A search is open to anyone the API is, and its cost is the upload's, not the catalog's: the
body (up to ``FASHION_LOOK_SEARCH_MAX_BYTES``, 10 MiB) is held while it is searched, and
its pixels are decoded. A JPEG is decoded at a reduced scale (``Image.draft``), a few MB
whatever its size; any other image is decoded whole, since Pillow has no reduced decode for
PNG, WebP or GIF: a flat-colour 50-megapixel PNG is a few hundred KB on the wire and some
200 MB in memory (its RGB pixels, then their grayscale copy). Before this gate, every
search ran in the thread pool as soon as its body was read, 40 at a time.

Two bounds, both taken by the route:

- ``admit``: at most ``SEARCHES_ADMITTED`` searches in hand, from before the upload is read
  until the answer is made; one more is refused at once (``SearchBusy``: 503 with
  ``Retry-After``) before a byte of its body is read. This bounds the bodies held.
- ``find``: of those, ``SEARCHES_AT_ONCE`` decode and search at a time; the others wait
  their turn with their body read. This bounds the pixels.

Why not one bound, taken before the body is read, with the waiting requests' bodies left in
their sockets? A place would then be held while its body arrives: two clients sending their
uploads a byte a second would hold both places, and every other search would wait on them
until the body deadline (``FASHION_REVIEW_BODY_TIMEOUT``). And a request waiting with its
body unread is on that deadline too: past it the connection is closed, where a refusal
tells the client when to come back. So a place to decode is taken only once the body is
whole, and the wait for one is short and does not depend on any client's speed.

A search keeps the crawler's pixel cap (``FASHION_MAX_IMAGE_PIXELS``, 50 MP). Phone photos
are 12 to 48 MP, and a lower cap for searches would refuse a full-size photo saved as PNG
that the catalog itself would take; the gate bounds what the largest decode costs in total
instead.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from sqlalchemy import Engine
from starlette.concurrency import run_in_threadpool

from fashion_assets.catalog.look_search import LookSearch, SearchRules, find_looks

SEARCHES_AT_ONCE = 2
"""Photos decoded and searched at once. A decode runs on a core (Pillow's decoders release
the GIL), so two keep two cores busy; each may hold some 200 MB (a 50 MP PNG's pixels and
their grayscale copy), so two kept 32 flat 50 MP PNGs sent at once to 482 MB over the
process's idle 83 MB, where all of them decoded at once took it to 6.5 GB (``python -m
bench.search_burst``, docs/reliability.md)."""
SEARCHES_ADMITTED = 16
"""Searches in hand at once: reading their upload, waiting for a place to decode, or
searching. Their bodies are at most 160 MiB together at the default cap, and the last of
them waits for seven rounds of two searches: under a second for JPEGs (0.1 s for one of
9 MB), some 6 s for the largest PNGs (0.9 s each). One more is refused (503), rather than left
waiting with its body in memory or in its socket (the module's docstring)."""
RETRY_AFTER_S = 2
"""What a refused search is told to wait (``Retry-After``): a round of searches, or two."""
BUSY_HEADERS = {"Retry-After": str(RETRY_AFTER_S), "Cache-Control": "no-store"}


class SearchBusy(Exception):
    """Every place for a search is taken: answered 503, with ``Retry-After``."""

    def __init__(self) -> None:
        super().__init__(f"the search has {SEARCHES_ADMITTED} photos in hand already; "
                         f"try again in {RETRY_AFTER_S} seconds")


class SearchGate:
    """The bounds of one API process's searches (the module's docstring). Used from its
    event loop only: the count of searches in hand needs no lock."""

    def __init__(self) -> None:
        self.in_hand = 0
        self.searching = asyncio.Semaphore(SEARCHES_AT_ONCE)

    @asynccontextmanager
    async def admit(self) -> AsyncIterator[None]:
        """A place for one search, held until the block ends; ``SearchBusy`` when there is
        none. Enter it before the upload is read."""
        if self.in_hand >= SEARCHES_ADMITTED:
            raise SearchBusy
        self.in_hand += 1
        try:
            yield
        finally:
            self.in_hand -= 1

    async def find(self, engine: Engine, data: bytes, *, limit: int,
                   rules: SearchRules) -> LookSearch:
        """``find_looks`` in the thread pool once a place to decode is free."""
        async with self.searching:
            return await run_in_threadpool(find_looks, engine, data, limit=limit,
                                           rules=rules)

