"""Healing the store: lost objects fetched again from their source URLs, through the crawl's
own client, and stored back under their keys.

Two callers: the drafts step, once its items are done, for the photos of the items it
touched (``heal_after_ingest``), and the scheduled ``store_heal`` job, a bounded page of
the archive per tick (``heal_tick``). Both find the lost objects and record what could not
be healed through ``catalog/store_heal.py``; each source URL's answer is judged by
``domain/store_heal.py: judge`` (only the lost key's own bytes are stored). Our own store
and database are called through ``crawl/infra.py``: an outage fails the step or the tick
with its reason and records nothing against any photo.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine

from fashion_assets.catalog.entities import EntityTables
from fashion_assets.catalog.store_heal import (
    HealCursor,
    archive_page,
    find_lost,
    finish_tick,
    keys_of,
    read_cursor,
    record_checked,
)
from fashion_assets.crawl.base import CrawlLimits
from fashion_assets.crawl.http import Fetcher
from fashion_assets.crawl.infra import gather_or_cancel, with_retries
from fashion_assets.crawl.ingest import IngestResult
from fashion_assets.domain.ingest import Outcome
from fashion_assets.domain.media import inspect_image
from fashion_assets.domain.store_heal import (
    Healing,
    HealReport,
    LostObject,
    Refetch,
    Step,
    Unhealed,
    advance,
    judge,
    nowhere_to_fetch,
)
from fashion_assets.domain.store_scrub import read_damage, with_damage
from fashion_assets.storage import ObjectStore, object_key

WHOLE_AGAIN = ""
"""Where a damaged object was healed from when it was whole again before its removal (a
concurrent heal stored it back): nowhere this heal fetched."""


@dataclass(frozen=True)
class Tick:
    """One tick of the scheduled heal: its report, the range of the walk it covered and the
    cursor it started from."""

    report: HealReport
    step: Step
    cursor: HealCursor


async def heal_after_ingest(fetcher: Fetcher, store: ObjectStore, engine: Engine,
                            tables: EntityTables, results: Sequence[IngestResult[Any]], *,
                            limits: CrawlLimits, on_done: Callable[[], None] = lambda: None
                            ) -> HealReport:
    """Heal the photos of the items a drafts step handled: their drafts' and their catalog
    entries'. Items drafted by this step are left out: their photos were stored moments ago,
    and asking the store again would cost a request per photo on S3."""
    items = [r.item for r in results if r.outcome is not Outcome.CREATED]
    if not items:
        return HealReport()
    keys = await with_retries("the catalog database (photos to heal)", limits.infra_retry_s,
                              keys_of, engine, tables, items)
    outcomes = await heal_keys(fetcher, store, engine, keys, limits=limits, on_done=on_done)
    await with_retries("the catalog database (lost objects)", limits.infra_retry_s,
                       record_checked, engine, keys, _unhealed(outcomes), datetime.now(UTC))
    report = HealReport()
    report.add(len(keys), outcomes)
    return report


async def heal_tick(fetcher: Fetcher, store: ObjectStore, engine: Engine, batch: int, *,
                    limits: CrawlLimits) -> Tick:
    """Check the next ``batch`` referenced keys of the walk, heal the lost ones, then record
    the tick (lost rows of its range, the cursor) in one transaction."""
    cursor = await with_retries("the catalog database (heal cursor)", limits.infra_retry_s,
                                read_cursor, engine)
    page = await with_retries("the catalog database (referenced keys)", limits.infra_retry_s,
                              archive_page, engine, cursor.after, batch)
    step = advance(cursor.after, page, batch)
    outcomes = await heal_keys(fetcher, store, engine, page, limits=limits)
    await with_retries("the catalog database (heal tick)", limits.infra_retry_s,
                       finish_tick, engine, step, _unhealed(outcomes), datetime.now(UTC))
    report = HealReport()
    report.add(len(page), outcomes)
    return Tick(report, step, cursor)


async def heal_keys(fetcher: Fetcher, store: ObjectStore, engine: Engine, keys: Sequence[str],
                    *, limits: CrawlLimits, on_done: Callable[[], None] = lambda: None
                    ) -> list[Healing]:
    """The outcome of every key of ``keys`` the store lacks or holds damaged (those it has
    whole are not touched), ``limits.image_concurrency`` objects at a time; durable before
    returning."""
    if not keys:
        return []
    lost = await with_retries(f"the object store's lookup ({store.url})", limits.infra_retry_s,
                              find_lost, engine, store, keys)
    return await heal_lost(fetcher, store, lost, limits=limits, on_done=on_done)


async def heal_lost(fetcher: Fetcher, store: ObjectStore, lost: Sequence[LostObject], *,
                    limits: CrawlLimits, on_done: Callable[[], None] = lambda: None
                    ) -> list[Healing]:
    """Fetch ``lost`` again. A damaged one is removed from the store first: the store is
    create-only, so its bytes could not be written over, and none of it is served meanwhile
    (a tick that dies before recording leaves a missing object, which the heal's walk
    finds). One read again whole before its removal (healed meanwhile) is not fetched: its
    outcome is healed from ``WHOLE_AGAIN``."""
    whole_again: set[str] = set()
    for item in lost:
        if item.damage and await with_retries(
                f"the object store's re-read and delete ({store.url})", limits.infra_retry_s,
                remove_damaged, store, item.key):
            whole_again.add(item.key)
    slots = asyncio.Semaphore(limits.image_concurrency)

    async def one(item: LostObject) -> Healing:
        if item.key in whole_again:
            outcome = Healing(item.key, WHOLE_AGAIN, (), True)
        else:
            async with slots:
                outcome = await heal_object(fetcher, store, item, limits)
        on_done()
        return outcome

    outcomes = await gather_or_cancel(one(item) for item in lost)
    if any(outcome.healed_from for outcome in outcomes):
        await with_retries(f"the object store's sync ({store.url})", limits.infra_retry_s,
                           store.sync)
    return outcomes


def remove_damaged(store: ObjectStore, key: str) -> bool:
    """Remove the object found damaged under ``key`` if it still is; True if it is whole
    now. Read again first: since the read or lookup that found it damaged, a concurrent
    heal (a crawl's, another tick's) may have removed it and stored the key's own bytes
    back, which deleting would lose again. (A heal that stores it between this read and the
    delete still loses it: the next pass of the heal's walk finds it missing and fetches it
    again.) Blocking: run in a thread."""
    try:
        digest = store.digest(key)
    except KeyError:
        return False  # removed meanwhile: fetched again as any lost object
    if read_damage(key, digest.size, digest.sha1) is None:
        return True
    store.delete(key)
    return False


async def heal_object(fetcher: Fetcher, store: ObjectStore, lost: LostObject,
                      limits: CrawlLimits) -> Healing:
    """Try each source URL of ``lost`` in turn; store the first answer that is its bytes."""
    damaged = bool(lost.damage)
    if not lost.urls:
        return Healing(lost.key, None, (with_damage(nowhere_to_fetch(lost.key), lost.damage),),
                       damaged)
    failures: list[Unhealed] = []
    for url in lost.urls:
        got, body, content_type = await _refetch(fetcher, url, limits)
        failure = judge(lost.key, got)
        if failure is None:
            # Create-only: a concurrent heal or crawl that stored it first wrote these bytes.
            await with_retries(f"the object store's put ({store.url})", limits.infra_retry_s,
                               store.put, lost.key, body, content_type)
            return Healing(lost.key, url, tuple(failures), damaged)
        failures.append(with_damage(failure, lost.damage))
    return Healing(lost.key, None, tuple(failures), damaged)


async def _refetch(fetcher: Fetcher, url: str, limits: CrawlLimits
                   ) -> tuple[Refetch, bytes, str]:
    """Fetch ``url`` as the crawl fetches a photo, and check the bytes the same way."""
    fetched = await fetcher.fetch(url, max_bytes=limits.media.max_bytes, kind="image")
    if not fetched.ok:
        return Refetch(url, str(fetched.error), fetched.detail), b"", ""
    verdict = inspect_image(fetched.body, limits.media)
    if not verdict.ok:
        return Refetch(url, str(verdict.reason), verdict.detail or ""), b"", ""
    assert verdict.content_type is not None
    return (Refetch(url, sha1=object_key(fetched.body), size=len(fetched.body)), fetched.body,
            verdict.content_type)


def _unhealed(outcomes: Sequence[Healing]) -> list[Unhealed]:
    return [failure for outcome in outcomes if not outcome.healed
            for failure in outcome.failures]
