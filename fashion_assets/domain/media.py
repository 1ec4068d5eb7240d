"""Decide whether a downloaded body is a photo worth storing.

Sources lie: a `.jpg` URL serves WebP, a 200 response carries an HTML error page, a dropped
connection leaves half a JPEG, and a tiny PNG can declare a 30000x30000 canvas. Each photo is
stored once under the sha1 of its bytes, so a bad body stored once is a bad body kept forever.
Everything here works from the bytes alone (never from file names or HTTP headers) and never
decodes pixels, so inspecting a body costs about as much as hashing it. Each format's
segments, chunks, blocks and boxes are walked by ``domain/image_formats.py``.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass

from PIL import Image, ImageFile
from PIL.AvifImagePlugin import AvifImageFile
from PIL.JpegImagePlugin import JpegImageFile
from PIL.PngImagePlugin import PngImageFile
from PIL.WebPImagePlugin import WebPImageFile

from fashion_assets.domain.image_formats import (
    Malformed,
    Truncated,
    avif_ispe_size,
    ftyp_brands,
    iter_boxes,
    jpeg_frame_size,
    walk_gif,
    webp_declared_size,
)

JPEG = "image/jpeg"
PNG = "image/png"
WEBP = "image/webp"
AVIF = "image/avif"
GIF = "image/gif"

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# IEND has no data, so the whole chunk (length, type, CRC) is always these 12 bytes.
_PNG_IEND_CHUNK = b"\x00\x00\x00\x00IEND\xaeB`\x82"
_AVIF_BRANDS = frozenset({b"avif", b"avis"})
# Servers and proxies sometimes pad a body with NULs or a newline after the format's end.
_PADDING = b"\x00\t\n\r\x0b\x0c "
_BYTE_ORDER_MARKS = (
    (b"\xef\xbb\xbf", "utf-8"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)
_MARKUP_PROBE_BYTES = 1024


@dataclass(frozen=True)
class MediaLimits:
    """Caps that keep one hostile body from exhausting memory downstream."""

    max_bytes: int = 25 * 1024 * 1024
    max_pixels: int = 50_000_000


@dataclass(frozen=True)
class ImageVerdict:
    """The outcome of `inspect_image`.

    `reason` is a stable machine code for metrics and refusal records; `detail` is for humans.
    `content_type`, `width` and `height` are filled whenever they were learnt, also on refusals
    (a truncated JPEG still says "image/jpeg"), so a refusal record shows what was rejected.
    """

    ok: bool
    content_type: str | None
    width: int | None
    height: int | None
    reason: str | None
    detail: str | None


def sniff_image_type(data: bytes) -> str | None:
    """Return the image MIME type named by the magic bytes, or None.

    Only the bytes count: file names and Content-Type headers are what lie in the first place.
    """
    if data.startswith(b"\xff\xd8\xff"):
        return JPEG
    if data.startswith(_PNG_SIGNATURE):
        return PNG
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return WEBP
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return GIF
    if _AVIF_BRANDS.intersection(ftyp_brands(data)):
        return AVIF
    return None


def inspect_image(data: bytes, limits: MediaLimits = MediaLimits()) -> ImageVerdict:
    """Say whether `data` is a complete, sanely sized photo, and if not, why not.

    Checks run cheapest first, so a 25 MB HTML page or a bomb never reaches an image parser.
    """
    if not data:
        return _refused("empty", "the body has zero bytes")
    if len(data) > limits.max_bytes:
        return _refused(
            "too_large", f"the body has {len(data)} bytes, over the {limits.max_bytes} limit"
        )
    content_type = sniff_image_type(data)
    if content_type is None:
        if _looks_like_markup(data):
            return _refused("html", "the body is HTML/XML markup, not an image")
        return _refused("not_an_image", "the first bytes match no supported image signature")
    problem = _structure_problem(data, content_type)
    if problem is not None:
        reason, detail = problem
        return _refused(reason, detail, content_type)
    return _size_verdict(data, content_type, limits)


def _refused(
    reason: str,
    detail: str,
    content_type: str | None = None,
    size: tuple[int, int] | None = None,
) -> ImageVerdict:
    width, height = size if size is not None else (None, None)
    return ImageVerdict(False, content_type, width, height, reason, detail)


def _looks_like_markup(data: bytes) -> bool:
    """Spot error and login pages served with status 200, whatever their encoding."""
    text = _decode_probe(data[:_MARKUP_PROBE_BYTES]).lstrip()
    return len(text) >= 2 and text[0] == "<" and (text[1].isalpha() or text[1] in "!?")


def _decode_probe(head: bytes) -> str:
    for mark, encoding in _BYTE_ORDER_MARKS:
        if head.startswith(mark):
            return head[len(mark) :].decode(encoding, errors="ignore")
    return head.decode("utf-8", errors="ignore")


def _structure_problem(data: bytes, content_type: str) -> tuple[str, str] | None:
    """Return (reason, detail) when the body is cut short or its framing is broken.

    Every check reads only markers, lengths and block headers, never compressed pixel data.
    """
    try:
        _STRUCTURE_CHECKS[content_type](data)
    except Truncated as exc:
        return "truncated", str(exc)
    except Malformed as exc:
        return "corrupt", str(exc)
    return None


def _check_jpeg_end(data: bytes) -> None:
    if not data.rstrip(_PADDING).endswith(b"\xff\xd9"):
        raise Truncated("the JPEG does not end with the EOI marker (FF D9)")


def _check_png_end(data: bytes) -> None:
    if not data.rstrip(_PADDING).endswith(_PNG_IEND_CHUNK):
        raise Truncated("the PNG does not end with a complete IEND chunk")


def _check_webp_length(data: bytes) -> None:
    """Compare the RIFF size field with the body; a RIFF chunk may carry one pad byte."""
    declared = 8 + int.from_bytes(data[4:8], "little")
    if len(data) < declared:
        raise Truncated(f"the RIFF header declares {declared} bytes but {len(data)} arrived")
    if data[declared:].strip(_PADDING):
        raise Malformed(f"{len(data) - declared} bytes follow the {declared} the RIFF declares")


def _check_gif_end(data: bytes) -> None:
    end = walk_gif(data)[2]
    if data[end:].strip(_PADDING):
        raise Malformed(f"{len(data) - end} bytes follow the GIF trailer")


def _check_avif_boxes(data: bytes) -> None:
    """Top-level ISO-BMFF boxes must tile the body exactly; a cut leaves the last one short."""
    for _ in iter_boxes(data, 0, len(data)):
        pass


_STRUCTURE_CHECKS: dict[str, Callable[[bytes], None]] = {
    JPEG: _check_jpeg_end,
    PNG: _check_png_end,
    WEBP: _check_webp_length,
    GIF: _check_gif_end,
    AVIF: _check_avif_boxes,
}


def _size_verdict(data: bytes, content_type: str, limits: MediaLimits) -> ImageVerdict:
    try:
        size = _header_size(data, content_type, limits.max_pixels)
    except Image.DecompressionBombError as exc:
        # Only reachable when max_pixels is above Pillow's own process-wide guard.
        detail = f"Pillow's own pixel guard refused the header: {exc}"
        return _refused("too_many_pixels", detail, content_type)
    if size is None or min(size) <= 0:
        return _refused("corrupt", "the image header cannot be read", content_type)
    width, height = size
    if width * height > limits.max_pixels:
        detail = f"{width}x{height} is {width * height} pixels, over the {limits.max_pixels} limit"
        return _refused("too_many_pixels", detail, content_type, size)
    return ImageVerdict(True, content_type, width, height, None, None)


def _header_size(data: bytes, content_type: str, max_pixels: int) -> tuple[int, int] | None:
    """Read (width, height) from the header, or None when the header is unreadable.

    GIF uses its own block walk: Pillow only looks at the first frame and runs its bomb check
    on it. WebP is sized from its first chunk before Pillow sees it, because Pillow's WebP
    decoder allocates the whole canvas as soon as it opens the file.
    """
    if content_type == GIF:
        width, height, _ = walk_gif(data)
        return width, height
    if content_type == JPEG:
        # Most photos are JPEGs: their frame header is read directly, Pillow only as a fallback.
        size = jpeg_frame_size(data)
        if size is not None:
            return size
    if content_type == WEBP:
        declared = webp_declared_size(data)
        if declared is not None and declared[0] * declared[1] > max_pixels:
            return declared
    size = _pillow_size(data, _PILLOW_READERS[content_type])
    if size is None and content_type == AVIF:
        return avif_ispe_size(data)
    return size


def _pillow_size(data: bytes, reader: type[ImageFile.ImageFile]) -> tuple[int, int] | None:
    """Open lazily with the format's own plugin class instead of `Image.open`.

    `Image.open` runs Pillow's process-wide bomb check, which warns or raises before we learn
    the size, and it can only be tuned by mutating global state. The plugin constructor parses
    the header and stops, leaving the pixel cap to us.
    """
    try:
        with reader(io.BytesIO(data)) as image:
            return image.size
    except Image.DecompressionBombError:
        raise
    except Exception:  # Pillow signals an unreadable header with many exception types.
        return None


_PILLOW_READERS: dict[str, type[ImageFile.ImageFile]] = {
    JPEG: JpegImageFile,
    PNG: PngImageFile,
    WEBP: WebPImageFile,
    AVIF: AvifImageFile,
}
