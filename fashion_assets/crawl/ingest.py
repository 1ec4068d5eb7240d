"""The one ingest path: each listed item (a runway show, a street-style article) becomes a
draft, or has its draft repaired, committed as it finishes.

Every kind of entity goes through the same steps: the decision (``decide_ingest``) first,
needing no download; the item's gallery; its photos stored; the failure rule
(``show_failure``); the draft written with its log entry in one transaction (with the
drafts that finished beside it: ``DraftCommits``), a unique conflict (a concurrent run)
being a skip; every other outcome logged. A kind brings only
what differs (``IngestKind``): its tables, its log entry, its decision inputs, where its
gallery comes from (runway: the stored manifest; street: the article page) and, for runway
shows, the repair of a draft that lacks photos.

Our own outages (the store, the catalog database, the disk) are no item's outcome: their
calls are retried, then raise (``crawl/infra.py``), failing the step with nothing recorded
against the item.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Generic, TypeVar, cast

from sqlalchemy import Engine

from fashion_assets.catalog.drafts import (
    DraftPhoto,
    DraftWrite,
    Listed,
    RepairWrite,
    write_drafts,
)
from fashion_assets.catalog.entities import EntityTables
from fashion_assets.catalog.ingest_log import LogEntry, write_log
from fashion_assets.catalog.photos import ManifestImage, MissingImage, StoredImage
from fashion_assets.crawl.base import CrawlLimits, Gallery, missing_note, store_photos
from fashion_assets.crawl.http import Fetcher
from fashion_assets.crawl.infra import gather_or_cancel, with_retries
from fashion_assets.domain.ingest import Action, IngestDecision, Outcome, show_failure
from fashion_assets.storage import ObjectStore

Item = TypeVar("Item", bound=Listed)
T = TypeVar("T")


@dataclass(frozen=True)
class IngestResult(Generic[Item]):
    """What the ingest did with one item (each kind names its own: ShowResult, ...)."""

    item: Item
    outcome: Outcome
    draft_id: int | None = None
    images_stored: int = 0
    images_missing: int = 0
    reason: str = ""
    entry_photos_added: int = 0  # a repair's merge into the catalog entry
    photos_added: int = 0  # a repair's: photos the draft has more (``photos_added``)


Result = TypeVar("Result", bound=IngestResult[Any])


@dataclass(frozen=True)
class Repair(Generic[Item]):
    """How a kind's draft gets the photos it lacks (runway shows: ``catalog/drafts.py``).
    Both are blocking catalog calls, run in a thread."""

    draft_photos: Callable[[Item], list[DraftPhoto]]
    # (item, photos stored, photos missing, log entry, the draft's photos held before)
    write: Callable[[Item, list[StoredImage], list[MissingImage], LogEntry, dict[int, str]],
                    RepairWrite]


@dataclass(frozen=True)
class IngestKind(Generic[Item, Result]):
    """What one kind of entity brings to the ingest path."""

    tables: EntityTables  # where its drafts are written
    result: Callable[..., Result]  # its ``IngestResult`` type
    log_entry: Callable[[Item], LogEntry]  # the item's ingest entry, its outcome yet to fill
    decide: Callable[[Item], IngestDecision]
    # The item's gallery (title, photos, expected count), or why it has none: a failure.
    gallery: Callable[[Item], Awaitable[Gallery | str]]
    repair: Repair[Item] | None = None  # None: its drafts are never repaired


@dataclass(frozen=True)
class _Run:
    """What a run's items share: where photos are fetched from and stored (one set of
    slots), the catalog, and how long a call to either is retried."""

    fetcher: Fetcher
    store: ObjectStore
    engine: Engine
    limits: CrawlLimits
    slots: asyncio.Semaphore

    async def fetch(self, images: Sequence[ManifestImage]
                    ) -> tuple[list[StoredImage], list[MissingImage]]:
        return await store_photos(self.fetcher, self.store, images, self.limits, self.slots)

    async def gallery_photos(self, gallery: Gallery
                             ) -> tuple[list[StoredImage], list[MissingImage]]:
        """Every photo of ``gallery``, in order: those it was fetched with as they are, the
        others fetched now."""
        done = {photo.position for photo in gallery.fetched}
        stored, missing = await self.fetch([i for i in gallery.images if i.position not in done])
        for photo in gallery.fetched:
            (stored if isinstance(photo, StoredImage) else missing).append(photo)
        return (sorted(stored, key=lambda p: p.position),
                sorted(missing, key=lambda m: m.position))

    async def catalog(self, what: str, function: Callable[..., T], *args: Any) -> T:
        """A catalog call, retried while the database fails (``crawl/infra.py``)."""
        return await with_retries(f"the catalog database ({what})", self.limits.infra_retry_s,
                                  function, *args)


class DraftCommits:
    """Group commit of a run's drafts: a draft that finishes while the previous write
    commits waits for it, then goes with every other that waited, in one transaction
    (``write_drafts``).

    A step whose photos are in already (the runway drafts step: its manifests step fetched
    them) finishes its shows in a burst, and a commit each, with the pool's liveness check
    before it, was most of the step's time. One draft alone is written at once, as before.
    """

    def __init__(self, write: Callable[[list[DraftWrite]], Awaitable[list[int | None]]], *,
                 most: int = 50) -> None:
        """``write``: the drafts' ids in order (``write_drafts``, retried); ``most``: the
        drafts of one transaction at most."""
        self._write, self._most = write, most
        self._waiting: list[tuple[DraftWrite, asyncio.Future[int | None]]] = []
        self._writer: asyncio.Task[None] | None = None

    async def write(self, draft: DraftWrite) -> int | None:
        """The draft's id once committed, or None on a source-key conflict."""
        written: asyncio.Future[int | None] = asyncio.get_running_loop().create_future()
        self._waiting.append((draft, written))
        if self._writer is None:
            self._writer = asyncio.ensure_future(self._write_waiting())
        return await written

    async def _write_waiting(self) -> None:
        try:
            while self._waiting:
                batch, self._waiting = self._waiting[:self._most], self._waiting[self._most:]
                try:
                    ids = await self._write([d for d, _ in batch])
                except BaseException as exc:  # an outage: every draft waiting fails with it
                    batch, self._waiting = batch + self._waiting, []
                    cancelled = isinstance(exc, asyncio.CancelledError)
                    for _, written in batch:
                        if written.done():
                            continue
                        if cancelled:
                            written.cancel()
                        else:
                            written.set_exception(exc)
                    if cancelled:
                        raise
                    return
                for (_, written), draft_id in zip(batch, ids, strict=True):
                    if not written.done():
                        written.set_result(draft_id)
        finally:
            self._writer = None

    async def close(self) -> None:
        """Stop writing (the step ended or failed): drafts still waiting are not written."""
        if self._writer is not None:
            self._writer.cancel()
            await asyncio.gather(self._writer, return_exceptions=True)


async def ingest(kind: IngestKind[Item, Result], fetcher: Fetcher, store: ObjectStore,
                 engine: Engine, items: Sequence[Item], *, limits: CrawlLimits,
                 on_result: Callable[[Result], None]) -> list[Result]:
    """Turn each item into a draft, or repair its draft, committing each as it finishes.

    ``limits.show_concurrency`` items at a time, their photos sharing
    ``limits.image_concurrency`` downloads; ``on_result`` hears of each item as it is done.
    Raises ``InfrastructureError`` when our own store or database kept failing: the items
    not done yet are stopped, none recorded as failed.
    """
    run = _Run(fetcher, store, engine, limits, asyncio.Semaphore(limits.image_concurrency))
    item_slots = asyncio.Semaphore(limits.show_concurrency)
    commits = DraftCommits(lambda drafts: run.catalog("draft write", write_drafts, engine,
                                                      kind.tables, drafts))

    async def one(item: Item) -> Result:
        async with item_slots:
            done = await _ingest_one(kind, run, item)
        # The draft is written out of the item's slot: its photos are in, and the next
        # item's downloads need not wait for the commit.
        result = await _drafted(kind, commits, done) if isinstance(done, DraftWrite) else done
        on_result(result)
        return result

    try:
        return await gather_or_cancel(one(item) for item in items)
    finally:
        await commits.close()


async def _ingest_one(kind: IngestKind[Item, Result], run: _Run, item: Item
                      ) -> Result | DraftWrite:
    """The item's outcome, or the draft to write for it (``_drafted``)."""
    entry = kind.log_entry(item)
    decision = kind.decide(item)
    if not decision.download:
        assert decision.outcome is not None
        return await _record(kind, run, item, entry, decision.outcome, decision.reason)
    gallery = await kind.gallery(item)
    if isinstance(gallery, str):
        return await _record(kind, run, item, entry, Outcome.FAILED, gallery)
    if decision.action is Action.REPAIR:
        assert kind.repair is not None, f"a {kind.tables.kind} draft is never repaired"
        return await _repair(kind, kind.repair, run, item, gallery, entry)

    stored, missing = await run.gallery_photos(gallery)
    failure = show_failure(expected=len(gallery.images), stored=len(stored),
                           missing_reasons=[m.reason for m in missing])
    if failure is not None:
        return await _record(kind, run, item, entry, Outcome.FAILED, failure)
    return DraftWrite(item, gallery.title, gallery.expected_images, stored, missing,
                      replace(entry, outcome=Outcome.CREATED.value,
                              reason=_note(gallery, missing)))


async def _drafted(kind: IngestKind[Item, Result], commits: DraftCommits, draft: DraftWrite
                   ) -> Result:
    """Write the item's draft: created, or a skip when a concurrent run drafted it first."""
    item = cast(Item, draft.listed)
    draft_id = await commits.write(draft)
    if draft_id is None:
        return kind.result(item, Outcome.SKIPPED_CONFLICT, reason="drafted by a concurrent run")
    return kind.result(item, Outcome.CREATED, draft_id, len(draft.images), len(draft.missing),
                       draft.log.reason)


async def _repair(kind: IngestKind[Item, Result], repair: Repair[Item], run: _Run, item: Item,
                  gallery: Gallery, entry: LogEntry) -> Result:
    """Download only the photos the item's draft lacks and add them (``repair.write``).

    Photos are compared by object key: a draft photo counts as present when its object is
    in the store, and a gallery photo is fetched when no present draft photo came from
    its URL. The draft's catalog entry, if it has one, is merged again, so photos deleted
    from the entry alone come back without a download.
    """
    have = await run.catalog("draft photos", repair.draft_photos, item)
    gone = await with_retries(f"the object store's lookup ({run.store.url})",
                              run.limits.infra_retry_s, run.store.missing,
                              [p.object_key for p in have])
    held = {p.position: p.source_image_url for p in have if p.object_key not in gone}
    present = set(held.values())
    stored, missing = await run.fetch(
        [image for image in gallery.images if image.url not in present])
    note = _note(gallery, missing)
    write = await run.catalog("draft repair", repair.write, item, stored, missing,
                              replace(entry, reason=note), held)
    return kind.result(item, write.outcome, write.draft_id, len(stored), len(missing), note,
                       entry_photos_added=write.entry_photos_added,
                       photos_added=write.draft_photos_added)


def _note(gallery: Gallery, missing: Sequence[MissingImage]) -> str:
    """The log's note of a draft: its missing photos, and what the page reader skipped."""
    return "; ".join(filter(None, [missing_note(missing), *gallery.skipped[:5]]))


async def _record(kind: IngestKind[Item, Result], run: _Run, item: Item, entry: LogEntry,
                  outcome: Outcome, reason: str) -> Result:
    """Log an outcome that wrote no draft."""
    await run.catalog("ingest log", write_log, run.engine,
                      [replace(entry, outcome=outcome.value, reason=reason)])
    return kind.result(item, outcome, reason=reason)
