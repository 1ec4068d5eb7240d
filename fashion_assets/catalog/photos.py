"""A gallery's photos as the catalog records them: listed by a page, stored, or missing."""

from __future__ import annotations

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
