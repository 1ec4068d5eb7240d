"""The three steps of a runway crawl for one brand: listing, manifests, ingest.

Each step fetches, calls the pure rules (parsers, the ingest decision, the media check) and
writes through ``fashion_assets.catalog.runway``. The Dagster assets call these functions
and turn their results into metadata; the CLI and tests can call them the same way.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from sqlalchemy import Engine

from fashion_assets.catalog import runway as catalog
from fashion_assets.catalog.names import resolve_names, show_city
from fashion_assets.catalog.runway import (
    LogEntry,
    ManifestImage,
    ShowRow,
)
from fashion_assets.crawl.base import (
    CrawlLimits,
    SourceSite,
    missing_note,
    parse_error_reason,
    store_photos,
)
from fashion_assets.crawl.http import Fetcher
from fashion_assets.domain.ingest import (
    Action,
    Outcome,
    decide_ingest,
    is_transient,
    show_failure,
)
from fashion_assets.domain.names import NameKind
from fashion_assets.domain.runway import RunwayShow, runway_show
from fashion_assets.domain.titles import TitleParseError
from fashion_assets.sources import vogue
from fashion_assets.storage import ObjectStore


@dataclass(frozen=True)
class ListingResult:
    brand_slug: str
    display_name: str
    shows: tuple[RunwayShow, ...]
    new_shows: int
    skipped: tuple[str, ...]
    pending_cities: tuple[str, ...] = ()


class ListingError(RuntimeError):
    """The brand's listing could not be fetched or read: nothing to crawl.

    ``transient`` when the source could not answer (a retry later may work), not when it
    answered with a 404, a robots.txt refusal or a page that cannot be read.
    """

    def __init__(self, message: str, *, transient: bool = False) -> None:
        super().__init__(message)
        self.transient = transient


@dataclass(frozen=True)
class ManifestResult:
    show: ShowRow
    # "fetched", "refetched" (an incomplete show's page again), "kept" (stored before) or
    # "failed"
    outcome: str
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
    entry_photos_added: int = 0  # a repair's merge into the catalog entry
    photos_added: int = 0  # a repair's: photos the draft has more (``photos_added``)


async def crawl_listing(fetcher: Fetcher, site: SourceSite, engine: Engine, brand_slug: str,
                        *, run_id: str, max_page_bytes: int) -> ListingResult:
    """Fetch the brand's designer page and record every show it lists (no show limit).

    The brand is registered in the catalog only once its page was read: a slug the source
    does not know (a typo, a designer Vogue does not have) leaves no brand behind for every
    later crawl to fail on.
    """
    fetched = await fetcher.fetch(site.url(vogue.designer_path(brand_slug)),
                                  max_bytes=max_page_bytes)
    if not fetched.ok:
        _log_listing_failure(engine, site, brand_slug, run_id, f"{fetched.error}: {fetched.detail}")
        if fetched.error == "not_found":
            raise ListingError(f"no such designer on Vogue: {brand_slug} ({fetched.detail})")
        raise ListingError(f"listing of {brand_slug} not fetched: {fetched.error}: "
                           f"{fetched.detail}", transient=is_transient(str(fetched.error)))
    try:
        page = vogue.parse_designer_page(fetched.body.decode("utf-8", "replace"))
    except vogue.PageParseError as exc:
        _log_listing_failure(engine, site, brand_slug, run_id, f"{exc.reason}: {exc}")
        raise ListingError(f"listing of {brand_slug} unreadable: {exc}") from None
    await asyncio.to_thread(catalog.add_brand, engine, brand_slug)
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
    cities = await asyncio.to_thread(show_cities, engine, shows)
    new = await asyncio.to_thread(catalog.record_listing, engine, shows, cities)
    pending = tuple(sorted({s.city or "" for s in shows
                            if s.city and cities[s.city].slug is None}))
    return ListingResult(brand_slug, page.name, tuple(shows), new, tuple(skipped), pending)


def show_cities(engine: Engine, shows: Sequence[RunwayShow]) -> dict[str, catalog.ShowCity]:
    """Resolve the city prefixes of show titles (`Tokyo Fall 2015`) to canonical cities.

    A city no name matches is pending for an editor; the show is recorded all the same (the
    city is no part of its entity key) and gets the city when the name is resolved.
    """
    outcomes = resolve_names(engine, NameKind.CITY, [
        (s.city, s.source_key.source, s.source_key.source_url) for s in shows if s.city])
    return {name: show_city(outcome) for name, outcome in outcomes.items()}


def _log_listing_failure(engine: Engine, site: SourceSite, brand_slug: str, run_id: str,
                         reason: str) -> None:
    catalog.write_log(engine, [LogEntry(run_id, brand_slug, site.source,
                                        site.public_base_url + vogue.designer_path(brand_slug),
                                        "listing", Outcome.FAILED.value, reason=reason)])


async def fetch_manifests(fetcher: Fetcher, site: SourceSite, engine: Engine,
                          shows: Sequence[ShowRow], *, run_id: str, limits: CrawlLimits,
                          on_result: Callable[[ManifestResult], None] = lambda r: None,
                          ) -> list[ManifestResult]:
    """Fetch and store the image manifest of every show that has none, or is incomplete.

    A complete show's manifest is kept and its page never requested: a re-crawl must not
    re-fetch every show page. An incomplete show (``domain/coverage.py``) is fetched again
    in full, so its repair works from what the page lists now.
    """
    gate = asyncio.Semaphore(limits.show_concurrency)

    async def one(show: ShowRow) -> ManifestResult:
        if show.has_manifest and show.is_complete(limits.coverage):
            result = ManifestResult(show, "kept", show.expected_images)
        else:
            async with gate:
                result = await _fetch_manifest(fetcher, site, engine, show, run_id, limits)
        on_result(result)
        return result

    return list(await asyncio.gather(*(one(show) for show in shows)))


async def _fetch_manifest(fetcher: Fetcher, site: SourceSite, engine: Engine, show: ShowRow,
                          run_id: str, limits: CrawlLimits) -> ManifestResult:
    observed_at = datetime.now(UTC)
    fetched = await fetcher.fetch(site.url(show.source_path), max_bytes=limits.max_page_bytes)
    entry = LogEntry(run_id, show.brand_slug, show.source, show.source_url, "manifest", "failed")
    if not fetched.ok:
        reason = f"{fetched.error}: {fetched.detail}"
        await asyncio.to_thread(catalog.write_log, engine, [replace(entry, reason=reason)])
        return ManifestResult(show, "failed", 0, reason)
    try:
        page = site.read_gallery(fetched.body.decode("utf-8", "replace"), fetched.final_url)
    except ValueError as exc:
        reason = parse_error_reason(exc)
        await asyncio.to_thread(catalog.write_log, engine, [replace(entry, reason=reason)])
        return ManifestResult(show, "failed", 0, reason)
    note = "; ".join(page.skipped)
    outcome = await asyncio.to_thread(
        catalog.store_manifest, engine, show.id, page.expected_images, page.title, page.images,
        replace(entry, reason=note), observed_at=observed_at)
    return ManifestResult(show, outcome, page.expected_images, note)


async def ingest_shows(fetcher: Fetcher, store: ObjectStore, engine: Engine,
                       shows: Sequence[ShowRow], *, run_id: str, limits: CrawlLimits,
                       on_result: Callable[[ShowResult], None] = lambda r: None,
                       ) -> list[ShowResult]:
    """Turn each show into a draft, or repair its draft, committing show by show.

    The decision comes first and needs no download: a complete show already drafted (any
    status) or already in the catalog is skipped before any photo is requested; an
    incomplete one with a draft gets only the photos it lacks.
    """
    manifests = await asyncio.to_thread(
        catalog.manifest_images, engine, [s.id for s in shows if s.has_manifest])
    unlisted = await asyncio.to_thread(
        catalog.manifest_failures, engine, [s for s in shows if not s.has_manifest])
    photo_slots = asyncio.Semaphore(limits.image_concurrency)
    show_slots = asyncio.Semaphore(limits.show_concurrency)

    async def one(show: ShowRow) -> ShowResult:
        async with show_slots:
            result = await _ingest_show(fetcher, store, engine, show, manifests.get(show.id),
                                        run_id, limits, photo_slots,
                                        no_manifest_reason=unlisted.get(show.id, ""))
        on_result(result)
        return result

    return list(await asyncio.gather(*(one(show) for show in shows)))


async def _ingest_show(fetcher: Fetcher, store: ObjectStore, engine: Engine, show: ShowRow,
                       manifest: list[ManifestImage] | None, run_id: str, limits: CrawlLimits,
                       photo_slots: asyncio.Semaphore, *, no_manifest_reason: str = ""
                       ) -> ShowResult:
    entry = LogEntry(run_id, show.brand_slug, show.source, show.source_url, "ingest", "")
    decision = decide_ingest(source_key_drafted=show.drafted, entity_in_catalog=show.in_catalog,
                             complete=show.is_complete(limits.coverage),
                             repairable=show.repairable)
    if not decision.download:
        assert decision.outcome is not None
        return await _record(engine, show, entry, decision.outcome, decision.reason)
    if manifest is None:
        # The show page's own failure, whole: "no manifest" alone does not say what to fix.
        why = f": {no_manifest_reason}" if no_manifest_reason else " for this show"
        return await _record(engine, show, entry, Outcome.FAILED, f"no manifest{why}")
    if decision.action is Action.REPAIR:
        return await _repair_show(fetcher, store, engine, show, manifest, entry, limits,
                                  photo_slots)

    try:
        stored, missing = await store_photos(fetcher, store, manifest, limits, photo_slots)
    except OSError as exc:  # StoreError or a disk error: nothing drafted, the next run retries
        return await _record(engine, show, entry, Outcome.FAILED, f"store error: {exc}")
    failure = show_failure(expected=len(manifest), stored=len(stored),
                           missing_reasons=[m.reason for m in missing])
    if failure is not None:
        return await _record(engine, show, entry, Outcome.FAILED, failure)
    note = missing_note(missing)
    draft_id = await asyncio.to_thread(
        catalog.write_draft, engine, show, stored, missing,
        replace(entry, outcome=Outcome.CREATED.value, reason=note))
    if draft_id is None:
        return ShowResult(show, Outcome.SKIPPED_CONFLICT, reason="drafted by a concurrent run")
    return ShowResult(show, Outcome.CREATED, draft_id, len(stored), len(missing), note)


async def _repair_show(fetcher: Fetcher, store: ObjectStore, engine: Engine, show: ShowRow,
                       manifest: list[ManifestImage], entry: LogEntry, limits: CrawlLimits,
                       photo_slots: asyncio.Semaphore) -> ShowResult:
    """Download only the photos the show's draft lacks and add them (``repair_draft``).

    Photos are compared by object key: a draft photo counts as present when its object is
    in the store, and a manifest photo is fetched when no present draft photo came from
    its URL. The draft's catalog entry, if it has one, is merged again, so photos deleted
    from the entry alone come back without a download.
    """
    assert show.draft_id is not None
    have = await asyncio.to_thread(catalog.draft_photos, engine, show.draft_id)
    try:
        gone = await asyncio.to_thread(store.missing, [p.object_key for p in have])
        held = {p.position: p.source_image_url for p in have if p.object_key not in gone}
        present = set(held.values())
        wanted = [image for image in manifest if image.url not in present]
        stored, missing = await store_photos(fetcher, store, wanted, limits, photo_slots)
    except OSError as exc:  # StoreError or a disk error: nothing written, the next run retries
        return await _record(engine, show, entry, Outcome.FAILED, f"store error: {exc}")
    note = missing_note(missing)
    write = await asyncio.to_thread(catalog.repair_draft, engine, show, stored, missing,
                                    replace(entry, reason=note), limits.coverage, held=held)
    return ShowResult(show, write.outcome, show.draft_id, len(stored), len(missing), note,
                      entry_photos_added=write.entry_photos_added,
                      photos_added=write.draft_photos_added)


async def _record(engine: Engine, show: ShowRow, entry: LogEntry, outcome: Outcome,
                  reason: str) -> ShowResult:
    await asyncio.to_thread(catalog.write_log, engine,
                            [replace(entry, outcome=outcome.value, reason=reason)])
    return ShowResult(show, outcome, reason=reason)
