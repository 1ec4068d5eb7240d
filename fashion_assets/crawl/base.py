"""What every crawl shares: where a source is, how fast to go, galleries and stored photos.

A gallery is a source page's ordered photos (a Vogue show page, a theImpression article),
read by that source's adapter; storing a photo is the same for every source: fetch, check the
bytes, put them create-only under their sha1.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field

from fashion_assets.catalog.photos import ManifestImage, MissingImage, StoredImage
from fashion_assets.crawl.http import Fetcher
from fashion_assets.crawl.infra import gather_or_cancel, with_retries
from fashion_assets.domain.coverage import CoverageRules
from fashion_assets.domain.media import MediaLimits, inspect_image
from fashion_assets.storage import ObjectStore, object_key


@dataclass(frozen=True)
class Gallery:
    """A page's gallery: its title and ordered photos, as the adapter read them."""

    title: str
    images: tuple[ManifestImage, ...]
    expected_images: int
    skipped: tuple[str, ...]
    # Photos of ``images`` fetched already, taken as they are (a runway show's, by the
    # manifests step of the same run): only the others are fetched to draft it.
    fetched: tuple[StoredImage | MissingImage, ...] = ()


# (page HTML, the URL it was fetched from) -> Gallery; raises ValueError (the adapter's
# PageParseError, whose ``reason`` is a stable code) when the page has no gallery to read.
GalleryReader = Callable[[str, str], Gallery]


@dataclass(frozen=True)
class SourceSite:
    """Where a source is fetched from, the public address its drafts record, and how its
    gallery pages are read."""

    source: str
    base_url: str
    public_base_url: str
    read_gallery: GalleryReader
    image_hosts: Collection[str] = ()
    label: str = ""  # the source's name for people ("Vogue"), in outcomes and errors

    def url(self, path: str) -> str:
        return self.base_url.rstrip("/") + path


@dataclass(frozen=True)
class CrawlLimits:
    image_concurrency: int = 16
    show_concurrency: int = 4
    max_page_bytes: int = 10 * 1024 * 1024
    max_listing_pages: int = 50
    media: MediaLimits = field(default_factory=MediaLimits)
    coverage: CoverageRules = field(default_factory=CoverageRules)
    # How long a call to our own store, database or disk is retried (``crawl/infra.py``).
    infra_retry_s: float = 60.0
    # Fetch the photos of a show to be drafted with its manifest (``crawl/runway.py``).
    photos_with_manifests: bool = True


def parse_error_reason(exc: ValueError) -> str:
    """The adapter's reason code of a parse error, for the log."""
    return f"{getattr(exc, 'reason', 'bad_page')}: {exc}"


async def store_photos(fetcher: Fetcher, store: ObjectStore, images: Sequence[ManifestImage],
                       limits: CrawlLimits, slots: asyncio.Semaphore
                       ) -> tuple[list[StoredImage], list[MissingImage]]:
    """Fetch, check and store every photo; the ones that fail come back with their reason.

    Durable before returning (``store.sync``), so a draft that references them may commit.
    Raises ``InfrastructureError`` when the store kept failing for ``limits.infra_retry_s``:
    nothing may be drafted then, and it is no photo's fault.
    """
    if not images:
        return [], []

    async def one(image: ManifestImage) -> StoredImage | MissingImage:
        async with slots:
            return await store_photo(fetcher, store, image, limits)

    outcomes = await gather_or_cancel(one(image) for image in images)
    await with_retries(f"the object store's sync ({store.url})", limits.infra_retry_s,
                       store.sync)
    return ([o for o in outcomes if isinstance(o, StoredImage)],
            [o for o in outcomes if isinstance(o, MissingImage)])


async def store_photo(fetcher: Fetcher, store: ObjectStore, image: ManifestImage,
                      limits: CrawlLimits) -> StoredImage | MissingImage:
    fetched = await fetcher.fetch(image.url, max_bytes=limits.media.max_bytes, kind="image")
    if not fetched.ok:
        return MissingImage(image.position, image.url, str(fetched.error), fetched.detail)
    verdict = inspect_image(fetched.body, limits.media)
    if not verdict.ok:
        return MissingImage(image.position, image.url, str(verdict.reason), verdict.detail or "")
    assert verdict.content_type is not None
    key = object_key(fetched.body)
    # Create-only: a key that exists holds these very bytes already, so it is not written again.
    await with_retries(f"the object store's put ({store.url})", limits.infra_retry_s,
                       store.put_async, key, fetched.body, verdict.content_type)
    return StoredImage(image.position, key, image.url, verdict.content_type, verdict.width,
                       verdict.height, len(fetched.body))


def missing_note(missing: Sequence[MissingImage]) -> str:
    if not missing:
        return ""
    return "missing: " + ", ".join(f"#{m.position} {m.reason}" for m in missing[:20]) + (
        f" and {len(missing) - 20} more" if len(missing) > 20 else "")
