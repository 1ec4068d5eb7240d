"""The three steps of a runway crawl for one brand: listing, manifests, ingest.

Each step fetches, calls the pure rules (parsers, the ingest decision, the media check) and
writes through ``fashion_assets.catalog.runway``; the ingest is the path every kind of
entity shares (``crawl/ingest.py``), fed the shows' stored manifests. The manifests step
also fetches the photos of each show the ingest will draft, as soon as its page is read:
pages to one host are spaced by the politeness budget, and the photos of the shows read so
far fill those waits, instead of all coming after the last page in the drafts step. The
Dagster assets call these functions and turn their results into metadata; the CLI and tests
can call them the same way.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from functools import partial

from sqlalchemy import Engine

from fashion_assets.catalog import drafts
from fashion_assets.catalog import runway as catalog
from fashion_assets.catalog.entities import RUNWAY
from fashion_assets.catalog.ingest_log import LogEntry, write_log
from fashion_assets.catalog.names import resolve_names, show_city
from fashion_assets.catalog.photos import FetchedPhoto, ManifestImage, photos_fetched_already
from fashion_assets.catalog.runway import ShowRow
from fashion_assets.crawl.base import (
    CrawlLimits,
    Gallery,
    SourceSite,
    parse_error_reason,
    store_photos,
)
from fashion_assets.crawl.http import Fetcher
from fashion_assets.crawl.infra import gather_or_cancel, with_retries
from fashion_assets.crawl.ingest import IngestKind, IngestResult, Repair, ingest
from fashion_assets.domain.ingest import (
    Action,
    IngestDecision,
    Outcome,
    decide_ingest,
    is_transient,
)
from fashion_assets.domain.names import NameKind
from fashion_assets.domain.runway import RunwayShow, runway_show
from fashion_assets.domain.titles import TitleParseError
from fashion_assets.sources.errors import PageParseError
from fashion_assets.sources.registry import BrandListings
from fashion_assets.storage import ObjectStore

# How many times the pages' concurrency of shows may be read ahead of their photos.
SHOWS_AHEAD_FACTOR = 2
# How many shows' manifests the drafts step reads at a time (``ManifestChunks``).
MANIFEST_CHUNK_SHOWS = 50


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
    # The photos fetched with the manifest (a show the ingest will draft): stored, missing.
    photos_stored: int = 0
    photos_missing: int = 0


class ShowResult(IngestResult[ShowRow]):
    """What the ingest did with one show (``crawl/ingest.py``)."""

    @property
    def show(self) -> ShowRow:
        return self.item


async def crawl_listing(fetcher: Fetcher, site: SourceSite, engine: Engine,
                        listings: BrandListings, brand_slug: str, *, run_id: str,
                        max_page_bytes: int) -> ListingResult:
    """Fetch the brand's designer page and record every show it lists (no show limit).

    The brand is registered in the catalog only once its page was read: a slug the source
    does not know (a typo, a designer Vogue does not have) leaves no brand behind for every
    later crawl to fail on.
    """
    fetched = await fetcher.fetch(site.url(listings.designer_path(brand_slug)),
                                  max_bytes=max_page_bytes)
    if not fetched.ok:
        _log_listing_failure(engine, site, listings, brand_slug, run_id,
                             f"{fetched.error}: {fetched.detail}")
        if fetched.error == "not_found":
            raise ListingError(f"no such designer on {site.label}: {brand_slug} "
                               f"({fetched.detail})")
        raise ListingError(f"listing of {brand_slug} not fetched: {fetched.error}: "
                           f"{fetched.detail}", transient=is_transient(str(fetched.error)))
    try:
        page = listings.parse_designer_page(fetched.body.decode("utf-8", "replace"))
    except PageParseError as exc:
        _log_listing_failure(engine, site, listings, brand_slug, run_id, f"{exc.reason}: {exc}")
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


def _log_listing_failure(engine: Engine, site: SourceSite, listings: BrandListings,
                         brand_slug: str, run_id: str, reason: str) -> None:
    write_log(engine, [LogEntry(run_id, brand_slug, site.source,
                                site.public_base_url + listings.designer_path(brand_slug),
                                "listing", Outcome.FAILED.value, reason=reason)])


async def fetch_manifests(fetcher: Fetcher, site: SourceSite, engine: Engine,
                          store: ObjectStore, shows: Sequence[ShowRow], *, run_id: str,
                          limits: CrawlLimits,
                          on_result: Callable[[ManifestResult], None] = lambda r: None,
                          ) -> list[ManifestResult]:
    """Fetch and store the image manifest of every show that has none, or is incomplete, and
    the photos of each show the ingest will draft.

    A complete show's manifest is kept and its page never requested: a re-crawl must not
    re-fetch every show page. An incomplete show (``domain/coverage.py``) is fetched again
    in full, so its repair works from what the page lists now. A show whose manifest was
    just stored and that the ingest decision will draft gets its photos fetched and stored
    at once, outside the pages' gate, recorded for this run's drafts step
    (``catalog/photos.py: photos_fetched_already``), unless ``limits`` says otherwise
    (``FASHION_PHOTOS_WITH_MANIFESTS``). Raises ``InfrastructureError`` when our own store
    or database kept failing.

    Backpressure: pages are read faster than their photos are stored, so a show's page
    waits while ``SHOWS_AHEAD_FACTOR`` times ``limits.show_concurrency`` shows are being
    read or still have photos waiting (``ahead``). Without it the photo tasks of every show
    read so far pile up waiting for the image slots (20,000 of them in a 25-designer batch,
    docs/performance.md, "Photos waiting for their slots"), and memory grows with the batch.
    """
    gate = asyncio.Semaphore(limits.show_concurrency)
    ahead = asyncio.Semaphore(SHOWS_AHEAD_FACTOR * limits.show_concurrency)
    slots = asyncio.Semaphore(limits.image_concurrency)

    async def one(show: ShowRow) -> ManifestResult:
        if show.has_manifest and show.is_complete(limits.coverage):
            result = ManifestResult(show, "kept", show.expected_images)
        else:
            async with ahead:
                async with gate:
                    result, images = await _fetch_manifest(fetcher, site, engine, show,
                                                           run_id, limits)
                if (images and limits.photos_with_manifests and show_decision(
                        _with_manifest(result), limits).action is Action.CREATE):
                    result = await _store_manifest_photos(fetcher, store, engine, result,
                                                          images, run_id, limits, slots)
        on_result(result)
        return result

    return await gather_or_cancel(one(show) for show in shows)


async def _store_manifest_photos(fetcher: Fetcher, store: ObjectStore, engine: Engine,
                                 result: ManifestResult, images: Sequence[ManifestImage],
                                 run_id: str, limits: CrawlLimits, slots: asyncio.Semaphore
                                 ) -> ManifestResult:
    """The photos of a show just read, stored and recorded for this run's drafts step."""
    stored, missing = await store_photos(fetcher, store, images, limits, slots)
    await with_retries("the catalog database (manifest photos)", limits.infra_retry_s,
                       catalog.store_manifest_photos, engine, result.show.id, run_id, stored,
                       missing)
    return replace(result, photos_stored=len(stored), photos_missing=len(missing))


def _with_manifest(result: ManifestResult) -> ShowRow:
    """The show as its new manifest leaves it, for the ingest decision."""
    return replace(result.show, has_manifest=True, expected_images=result.expected_images)


def show_decision(show: ShowRow, limits: CrawlLimits) -> IngestDecision:
    """The ingest decision for a show as stored (``domain/ingest.py: decide_ingest``)."""
    return decide_ingest(source_key_drafted=show.drafted, entity_in_catalog=show.in_catalog,
                         complete=show.is_complete(limits.coverage),
                         repairable=show.repairable)


async def _fetch_manifest(fetcher: Fetcher, site: SourceSite, engine: Engine, show: ShowRow,
                          run_id: str, limits: CrawlLimits
                          ) -> tuple[ManifestResult, tuple[ManifestImage, ...]]:
    """The show's page fetched, read and stored as its manifest; with the manifest's photos
    when it was stored (not when it failed, or a later observation was kept)."""
    observed_at = datetime.now(UTC)
    fetched = await fetcher.fetch(site.url(show.source_path), max_bytes=limits.max_page_bytes)
    entry = LogEntry(run_id, show.brand_slug, show.source, show.source_url, "manifest", "failed")
    if not fetched.ok:
        reason = f"{fetched.error}: {fetched.detail}"
        await asyncio.to_thread(write_log, engine, [replace(entry, reason=reason)])
        return ManifestResult(show, "failed", 0, reason), ()
    try:
        page = site.read_gallery(fetched.body.decode("utf-8", "replace"), fetched.final_url)
    except ValueError as exc:
        reason = parse_error_reason(exc)
        await asyncio.to_thread(write_log, engine, [replace(entry, reason=reason)])
        return ManifestResult(show, "failed", 0, reason), ()
    note = "; ".join(page.skipped)
    outcome = await asyncio.to_thread(
        catalog.store_manifest, engine, show.id, page.expected_images, page.title, page.images,
        replace(entry, reason=note), observed_at=observed_at)
    return (ManifestResult(show, outcome, page.expected_images, note),
            page.images if outcome != "kept" else ())


async def ingest_shows(fetcher: Fetcher, store: ObjectStore, engine: Engine,
                       shows: Sequence[ShowRow], *, run_id: str, limits: CrawlLimits,
                       on_result: Callable[[ShowResult], None] = lambda r: None,
                       ) -> list[ShowResult]:
    """Turn each show into a draft, or repair its draft, committing show by show.

    A show's gallery is its stored manifest, so the decision needs no download: a complete
    show already drafted (any status) or already in the catalog is skipped before any photo
    is requested; an incomplete one with a draft gets only the photos it lacks. The photos
    this run's manifests step fetched already are taken as it left them.

    Manifests are read a chunk of shows at a time as the drafts reach them
    (``ManifestChunks``), and only for the shows the decision downloads: a batch's whole set
    of manifests and fetched photos held at once was the step's peak of memory.
    """
    chunks = ManifestChunks(engine, [s.id for s in shows
                                     if s.has_manifest and show_decision(s, limits).download])
    unlisted = await asyncio.to_thread(
        catalog.manifest_failures, engine, [s for s in shows if not s.has_manifest])

    async def gallery(show: ShowRow) -> Gallery | str:
        if not show.has_manifest:
            # The show page's own failure, whole: "no manifest" alone does not say what to fix.
            why = unlisted.get(show.id)
            return f"no manifest: {why}" if why else "no manifest for this show"
        manifest, fetched = await chunks.read(show.id)
        return Gallery(show.title, tuple(manifest), show.expected_images, (),
                       fetched=photos_fetched_already(manifest, fetched, run_id))

    kind = IngestKind(
        tables=RUNWAY, result=ShowResult, gallery=gallery,
        log_entry=lambda show: LogEntry(run_id, show.brand_slug, show.source, show.source_url,
                                        "ingest", ""),
        decide=partial(show_decision, limits=limits),
        repair=Repair(partial(drafts.draft_photos, engine),
                      partial(drafts.repair_draft, engine, rules=limits.coverage)))
    return await ingest(kind, fetcher, store, engine, shows, limits=limits, on_result=on_result)


class ManifestChunks:
    """The stored manifests of a run's shows and the photos its manifests step fetched,
    read ``size`` shows at a time in the order the drafts step takes the shows.

    The drafts of a chunk's shows are written while the next chunk is read, so at most two
    chunks are held; a chunk asked for again after it was dropped is read again.
    """

    def __init__(self, engine: Engine, show_ids: Sequence[int],
                 size: int = MANIFEST_CHUNK_SHOWS) -> None:
        self._engine = engine
        self._ids = list(show_ids)
        self._size = size
        self._chunk_of = {show_id: n // size for n, show_id in enumerate(self._ids)}
        self._held: dict[int, asyncio.Task[_Chunk]] = {}
        self.reads = 0  # how many chunks were read, for tests

    async def read(self, show_id: int) -> tuple[list[ManifestImage], list[FetchedPhoto]]:
        """The show's manifest images and fetched photos, in position order."""
        n = self._chunk_of[show_id]
        if n not in self._held:
            ids = self._ids[n * self._size:(n + 1) * self._size]
            self._held[n] = asyncio.ensure_future(asyncio.to_thread(self._read, ids))
            self.reads += 1
            for older in [k for k in self._held if k < n - 1]:
                del self._held[older]
        manifests, fetched = await self._held[n]
        return manifests[show_id], fetched[show_id]

    def _read(self, ids: list[int]) -> _Chunk:
        return (catalog.manifest_images(self._engine, ids),
                catalog.manifest_photos(self._engine, ids))


_Chunk = tuple[dict[int, list[ManifestImage]], dict[int, list[FetchedPhoto]]]
