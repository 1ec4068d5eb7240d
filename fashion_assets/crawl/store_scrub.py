"""Scrubbing the store: every referenced object read again in turn, a byte budget per tick,
its sha1 checked against its key; the damaged ones fetched again as lost ones.

The walk and the budget are ``domain/store_scrub.py: scrub_walk``, what counts as damaged
``read_damage``; the catalog keeps the walk's cursor beside the heal's
(``catalog/store_heal.py: SCRUB_WALK``). A damaged object goes the heal's way
(``crawl/store_heal.py: heal_lost``): removed from the store, fetched again from its source
URLs and stored only if the bytes are its key's, or listed in ``lost_objects`` with the
reason and the damage. An object the store lacks is left to the heal (it reads 0 bytes).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import Engine

from fashion_assets.catalog.store_heal import (
    SCRUB_WALK,
    HealCursor,
    archive_page,
    finish_scrub,
    photo_rows,
    read_cursor,
)
from fashion_assets.crawl.base import CrawlLimits
from fashion_assets.crawl.http import Fetcher
from fashion_assets.crawl.infra import with_retries
from fashion_assets.crawl.store_heal import heal_lost
from fashion_assets.domain.store_heal import HealReport, Step, Unhealed, lost_object
from fashion_assets.domain.store_scrub import Damage, Walked, read_damage, scrub_walk
from fashion_assets.storage import ObjectStore


@dataclass(frozen=True)
class ScrubTick:
    """One tick of the scrub: the walk it made (keys read, bytes read, where it stands), the
    damage it found, what the heal of the damaged objects gave, and the cursor it started
    from."""

    walked: Walked
    damaged: tuple[Damage, ...]
    report: HealReport
    cursor: HealCursor

    @property
    def step(self) -> Step:
        return self.walked.step


def read_walk(engine: Engine, store: ObjectStore, after: str, budget: int
              ) -> tuple[Walked, list[Damage]]:
    """The walk of one tick from ``after``: objects read in full, in key order, until
    ``budget`` bytes are read; the damaged ones among them. Blocking: run in a thread."""
    damaged: list[Damage] = []

    def read(key: str) -> int:
        try:
            digest = store.digest(key)
        except KeyError:
            return 0  # absent, or not the store's own file: the heal's to fetch
        found = read_damage(key, digest.size, digest.sha1)
        if found is not None:
            damaged.append(found)
        return digest.size

    walked = scrub_walk(after, budget, lambda last, n: archive_page(engine, last, n), read)
    return walked, damaged


async def scrub_tick(fetcher: Fetcher, store: ObjectStore, engine: Engine, budget: int, *,
                     limits: CrawlLimits) -> ScrubTick:
    """Read the next ``budget`` bytes of referenced objects, fetch the damaged ones again,
    then record the tick (their lost rows, the cursor) in one transaction. A tick that fails
    (our store or database down) records nothing: the next one reads the same objects."""
    cursor = await with_retries("the catalog database (scrub cursor)", limits.infra_retry_s,
                                read_cursor, engine, SCRUB_WALK)
    walked, damaged = await with_retries(f"the object store's reads ({store.url})",
                                         limits.infra_retry_s, read_walk, engine, store,
                                         cursor.after, budget)
    keys = [damage.key for damage in damaged]
    rows = await with_retries("the catalog database (source URLs)", limits.infra_retry_s,
                              photo_rows, engine, keys)
    lost = [lost_object(d.key, rows.get(d.key, (set(), set()))[0], d.line()) for d in damaged]
    outcomes = await heal_lost(fetcher, store, lost, limits=limits)
    unhealed: list[Unhealed] = [failure for outcome in outcomes if not outcome.healed
                                for failure in outcome.failures]
    await with_retries("the catalog database (scrub tick)", limits.infra_retry_s,
                       finish_scrub, engine, walked.step, keys, unhealed, datetime.now(UTC))
    report = HealReport()
    report.add(len(walked.read), outcomes)
    return ScrubTick(walked, tuple(damaged), report, cursor)
