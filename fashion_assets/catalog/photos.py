"""A gallery's photos as the catalog records them: listed by a page, stored, or missing."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class ManifestImage:
    """A photo a gallery page lists, at its position."""

    position: int
    url: str
    caption: str | None


@dataclass(frozen=True)
class StoredImage:
    """A photo fetched, checked and stored under the sha1 of its bytes (``object_key``)."""

    position: int
    object_key: str
    source_image_url: str
    content_type: str
    width: int | None
    height: int | None
    byte_size: int


@dataclass(frozen=True)
class MissingImage:
    """A photo that could not be stored, with why: a repair fetches it again later."""

    position: int
    url: str
    reason: str
    detail: str


@dataclass(frozen=True)
class FetchedPhoto:
    """A manifest photo the manifests step of run ``run_id`` tried, as soon as the show's
    page was read: stored, or missing with why."""

    run_id: str
    photo: StoredImage | MissingImage

    @property
    def url(self) -> str:
        photo = self.photo
        return photo.source_image_url if isinstance(photo, StoredImage) else photo.url


def photos_fetched_already(images: Sequence[ManifestImage], fetched: Iterable[FetchedPhoto],
                           run_id: str) -> tuple[StoredImage | MissingImage, ...]:
    """The photos of a manifest (``images``) that the drafts step of run ``run_id`` takes as
    the manifests step left them, without fetching them again.

    Only this run's: they were fetched minutes ago, and its stored ones were made durable
    before they were recorded. What an earlier run left (a run that failed before its drafts
    step) is fetched again, as the object may be gone by now (media cleanup deletes what no
    draft references) and a photo that failed then may be back. A photo counts only while
    the manifest lists its URL at its position.
    """
    listed = {(image.position, image.url) for image in images}
    return tuple(f.photo for f in fetched
                 if f.run_id == run_id and (f.photo.position, f.url) in listed)
