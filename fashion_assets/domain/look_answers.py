"""What a look search answers, apart from where the catalog keeps its photos: the uploaded
bytes checked and hashed, and the index's photos grouped into looks.

An upload is checked as the crawler checks a downloaded body (``domain/media.py:
inspect_image``: not an image, HTML, cut short, a bomb), from the bytes alone and before a
pixel is decoded, because the search is open to anyone the read API is. Only then is it
hashed, with its mirror image (``domain/perceptual_hash.py: query_hashes``).

A look is found through each of its photos (the one its entry shows, the other source's
alternates) and each query code (the photo and its mirror), so the index's hits name a look
several times: the answer names it once, at its smallest distance.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass

from fashion_assets.domain.look_search import Hit, code_of
from fashion_assets.domain.media import MediaLimits, inspect_image
from fashion_assets.domain.perceptual_hash import UnhashablePhoto, query_hashes

# The reasons an upload is refused because of its size, not its content (HTTP 413).
TOO_LARGE = "too_large"


class RefusedPhoto(ValueError):
    """Bytes the search does not take: ``reason`` a stable code (``inspect_image``'s:
    ``empty``, ``too_large``, ``html``, ``not_an_image``, ``truncated``, ``corrupt``,
    ``too_many_pixels``; or ``undecodable``: a sound header over pixels Pillow cannot
    decode), ``detail`` what a person reads."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason, self.detail = reason, detail


@dataclass(frozen=True)
class UploadRules:
    """How large an upload may be: bytes, and pixels its header may declare."""

    max_bytes: int = 10 * 1024 * 1024
    max_pixels: int = MediaLimits().max_pixels


def query_codes(data: bytes, rules: UploadRules = UploadRules()) -> list[tuple[int, int]]:
    """The codes to search with (the photo's and its mirror's), once ``data`` passed the
    crawler's check; ``RefusedPhoto`` if it did not, or if its pixels cannot be decoded."""
    verdict = inspect_image(data, MediaLimits(max_bytes=rules.max_bytes,
                                              max_pixels=rules.max_pixels))
    if not verdict.ok:
        raise RefusedPhoto(verdict.reason or "not_an_image", verdict.detail or "")
    try:
        return [code_of(hashes) for hashes in query_hashes(data)]
    except UnhashablePhoto as error:
        raise RefusedPhoto("undecodable", str(error)) from error


def closest_looks(hits: Iterable[Hit], look_of: Callable[[int], Hashable], limit: int
                  ) -> list[Hit]:
    """Of ``hits`` (photos of the index by number, each at its distance), the closest photo
    of each look (``look_of(photo)``), closest first (ties: the photo first indexed),
    ``limit`` looks at most."""
    best: dict[Hashable, Hit] = {}
    for hit in hits:
        look = look_of(hit.photo)
        kept = best.get(look)
        if kept is None or (hit.distance, hit.photo) < (kept.distance, kept.photo):
            best[look] = hit
    return sorted(best.values(), key=lambda hit: (hit.distance, hit.photo))[:max(limit, 0)]
