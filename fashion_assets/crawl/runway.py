"""The three steps of a runway crawl for one brand: listing, manifests, ingest.

Each step fetches, calls the pure rules (parsers, the ingest decision, the media check) and
writes through ``fashion_assets.catalog.runway``. The Dagster assets call these functions
and turn their results into metadata; the CLI and tests can call them the same way.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from sqlalchemy import Engine

from fashion_assets.catalog import runway as catalog
from fashion_assets.catalog.runway import (
    LogEntry,
    ManifestImage,
    MissingImage,
    ShowRow,
    StoredImage,
)
from fashion_assets.crawl.http import Fetcher
from fashion_assets.domain.ingest import Outcome, decide_ingest, show_failure
from fashion_assets.domain.media import MediaLimits, inspect_image
from fashion_assets.domain.runway import RunwayShow, runway_show
from fashion_assets.domain.titles import TitleParseError
from fashion_assets.sources import vogue
from fashion_assets.storage import ObjectStore, object_key


@dataclass(frozen=True)
class SourceSite:
    """Where a source is fetched from, and the public address its drafts record."""

    source: str
    base_url: str
    public_base_url: str

    def url(self, path: str) -> str:
        return self.base_url.rstrip("/") + path


@dataclass(frozen=True)
class CrawlLimits:
    image_concurrency: int = 16
    show_concurrency: int = 4
    max_page_bytes: int = 10 * 1024 * 1024
    media: MediaLimits = field(default_factory=MediaLimits)


@dataclass(frozen=True)
class ListingResult:
    brand_slug: str
    display_name: str
    shows: tuple[RunwayShow, ...]
    new_shows: int
    skipped: tuple[str, ...]


class ListingError(RuntimeError):
    """The brand's listing could not be fetched or read: nothing to crawl."""


@dataclass(frozen=True)
class ManifestResult:
    show: ShowRow
    outcome: str  # "fetched", "kept" (stored before) or "failed"
    expected_images: int
    reason: str = ""


@dataclass(frozen=True)
class ShowResult:
    show: ShowRow
    outcome: Outcome
    draft_id: int | None = None
    images_stored: int = 0
    images_missing: int = 0
    reason: str = ""


async def crawl_listing(fetcher: Fetcher, site: SourceSite, engine: Engine, brand_slug: str,
                        *, run_id: str, max_page_bytes: int) -> ListingResult:
    """Fetch the brand's designer page and record every show it lists (no show limit)."""
    fetched = await fetcher.fetch(site.url(vogue.designer_path(brand_slug)),
                                  max_bytes=max_page_bytes)
    if not fetched.ok:
        _log_listing_failure(engine, site, brand_slug, run_id, f"{fetched.error}: {fetched.detail}")
        raise ListingError(f"listing of {brand_slug} not fetched: {fetched.error}: "
                           f"{fetched.detail}")
    try:
        page = vogue.parse_designer_page(fetched.body.decode("utf-8", "replace"))
    except vogue.PageParseError as exc:
        _log_listing_failure(engine, site, brand_slug, run_id, f"{exc.reason}: {exc}")
        raise ListingError(f"listing of {brand_slug} unreadable: {exc}") from None
    shows, skipped = [], list(page.skipped)
    for position, listed in enumerate(page.shows, start=1):
        try:
            shows.append(runway_show(
                source=site.source, public_base_url=site.public_base_url, brand_slug=brand_slug,
                path=listed.path, season_slug=listed.season_slug, title=listed.title,
                listing_position=position,
            ))
        except TitleParseError as exc:
            skipped.append(f"{listed.path}: {exc}")
    new = await asyncio.to_thread(catalog.record_listing, engine, shows)
    return ListingResult(brand_slug, page.name, tuple(shows), new, tuple(skipped))


def _log_listing_failure(engine: Engine, site: SourceSite, brand_slug: str, run_id: str,
                         reason: str) -> None:
    catalog.write_log(engine, [LogEntry(run_id, brand_slug, site.source,
                                        site.public_base_url + vogue.designer_path(brand_slug),
                                        "listing", Outcome.FAILED.value, reason=reason)])


async def fetch_manifests(fetcher: Fetcher, site: SourceSite, engine: Engine,
                          shows: Sequence[ShowRow], *, run_id: str, limits: CrawlLimits,
                          on_result: Callable[[ManifestResult], None] = lambda r: None,
                          ) -> list[ManifestResult]:
    """Fetch and store the image manifest of every show that has none yet.

    A stored manifest is kept: the ordered photo list of a published show does not change,
    and a re-crawl must not re-fetch every show page.
    """
    gate = asyncio.Semaphore(limits.show_concurrency)

    async def one(show: ShowRow) -> ManifestResult:
        if show.has_manifest:
            result = ManifestResult(show, "kept", show.expected_images)
        else:
            async with gate:
                result = await _fetch_manifest(fetcher, site, engine, show, run_id, limits)
        on_result(result)
        return result

    return list(await asyncio.gather(*(one(show) for show in shows)))


async def _fetch_manifest(fetcher: Fetcher, site: SourceSite, engine: Engine, show: ShowRow,
                          run_id: str, limits: CrawlLimits) -> ManifestResult:
    fetched = await fetcher.fetch(site.url(show.source_path), max_bytes=limits.max_page_bytes)
    entry = LogEntry(run_id, show.brand_slug, show.source, show.source_url, "manifest", "failed")
    if not fetched.ok:
        reason = f"{fetched.error}: {fetched.detail}"
        await asyncio.to_thread(catalog.write_log, engine, [replace(entry, reason=reason)])
        return ManifestResult(show, "failed", 0, reason)
    try:
        page = vogue.parse_show_page(fetched.body.decode("utf-8", "replace"))
    except vogue.PageParseError as exc:
        reason = f"{exc.reason}: {exc}"
        await asyncio.to_thread(catalog.write_log, engine, [replace(entry, reason=reason)])
        return ManifestResult(show, "failed", 0, reason)
    images = [ManifestImage(i.position, i.url, i.caption) for i in page.images]
    note = "; ".join(page.skipped)
    await asyncio.to_thread(catalog.store_manifest, engine, show.id, page.expected_images,
                            page.title, images, replace(entry, outcome="fetched", reason=note))
    return ManifestResult(show, "fetched", page.expected_images, note)


async def ingest_shows(fetcher: Fetcher, store: ObjectStore, engine: Engine,
                       shows: Sequence[ShowRow], *, run_id: str, limits: CrawlLimits,
                       on_result: Callable[[ShowResult], None] = lambda r: None,
                       ) -> list[ShowResult]:
    """Turn each show into a draft, committing show by show.

    The decision comes first and needs no download: an article already drafted (any status)
    or a show already in the catalog is skipped before any photo is requested.
    """
    manifests = await asyncio.to_thread(
        catalog.manifest_images, engine, [s.id for s in shows if s.has_manifest])
    photo_slots = asyncio.Semaphore(limits.image_concurrency)
    show_slots = asyncio.Semaphore(limits.show_concurrency)

    async def one(show: ShowRow) -> ShowResult:
        async with show_slots:
            result = await _ingest_show(fetcher, store, engine, show, manifests.get(show.id),
                                        run_id, limits, photo_slots)
        on_result(result)
        return result

    return list(await asyncio.gather(*(one(show) for show in shows)))


async def _ingest_show(fetcher: Fetcher, store: ObjectStore, engine: Engine, show: ShowRow,
                       manifest: list[ManifestImage] | None, run_id: str, limits: CrawlLimits,
                       photo_slots: asyncio.Semaphore) -> ShowResult:
    entry = LogEntry(run_id, show.brand_slug, show.source, show.source_url, "ingest", "")
    decision = decide_ingest(source_key_drafted=show.drafted, entity_in_catalog=show.in_catalog)
    if not decision.download:
        assert decision.outcome is not None
        return await _record(engine, show, entry, decision.outcome, decision.reason)
    if manifest is None:
        return await _record(engine, show, entry, Outcome.FAILED, "no manifest for this show")

    async def photo(image: ManifestImage) -> StoredImage | MissingImage:
        async with photo_slots:
            return await _store_photo(fetcher, store, image, limits)

    try:
        outcomes = await asyncio.gather(*(photo(image) for image in manifest))
        await asyncio.to_thread(store.sync)  # durable before the catalog references them
    except OSError as exc:  # StoreError or a disk error: nothing drafted, the next run retries
        return await _record(engine, show, entry, Outcome.FAILED, f"store error: {exc}")
    stored = [o for o in outcomes if isinstance(o, StoredImage)]
    missing = [o for o in outcomes if isinstance(o, MissingImage)]
    failure = show_failure(expected=len(manifest), stored=len(stored),
                           missing_reasons=[m.reason for m in missing])
    if failure is not None:
        return await _record(engine, show, entry, Outcome.FAILED, failure)
    note = _missing_note(missing)
    draft_id = await asyncio.to_thread(
        catalog.write_draft, engine, show, stored, missing,
        replace(entry, outcome=Outcome.CREATED.value, reason=note))
    if draft_id is None:
        return ShowResult(show, Outcome.SKIPPED_CONFLICT, reason="drafted by a concurrent run")
    return ShowResult(show, Outcome.CREATED, draft_id, len(stored), len(missing), note)


async def _record(engine: Engine, show: ShowRow, entry: LogEntry, outcome: Outcome,
                  reason: str) -> ShowResult:
    await asyncio.to_thread(catalog.write_log, engine,
                            [replace(entry, outcome=outcome.value, reason=reason)])
    return ShowResult(show, outcome, reason=reason)


async def _store_photo(fetcher: Fetcher, store: ObjectStore, image: ManifestImage,
                       limits: CrawlLimits) -> StoredImage | MissingImage:
    fetched = await fetcher.fetch(image.url, max_bytes=limits.media.max_bytes)
    if not fetched.ok:
        return MissingImage(image.position, image.url, str(fetched.error), fetched.detail)
    verdict = inspect_image(fetched.body, limits.media)
    if not verdict.ok:
        return MissingImage(image.position, image.url, str(verdict.reason), verdict.detail or "")
    assert verdict.content_type is not None
    key = object_key(fetched.body)
    # Create-only: a key that exists holds these very bytes already, so it is not written again.
    await asyncio.to_thread(store.put, key, fetched.body, verdict.content_type)
    return StoredImage(image.position, key, image.url, verdict.content_type, verdict.width,
                       verdict.height, len(fetched.body))


def _missing_note(missing: Sequence[MissingImage]) -> str:
    if not missing:
        return ""
    return "missing: " + ", ".join(f"#{m.position} {m.reason}" for m in missing[:20]) + (
        f" and {len(missing) - 20} more" if len(missing) > 20 else "")
