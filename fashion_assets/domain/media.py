"""Decide whether a downloaded body is a photo worth storing.

Sources lie: a `.jpg` URL serves WebP, a 200 response carries an HTML error page, a dropped
connection leaves half a JPEG, and a tiny PNG can declare a 30000x30000 canvas. Each photo is
stored once under the sha1 of its bytes, so a bad body stored once is a bad body kept forever.
Everything here works from the bytes alone (never from file names or HTTP headers) and never
decodes pixels, so inspecting a body costs about as much as hashing it.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from PIL import Image, ImageFile
from PIL.AvifImagePlugin import AvifImageFile
from PIL.JpegImagePlugin import JpegImageFile
from PIL.PngImagePlugin import PngImageFile
from PIL.WebPImagePlugin import WebPImageFile

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
_ISPE_PATH = (b"meta", b"iprp", b"ipco", b"ispe")


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


class _Truncated(Exception):
    """The body ends before the structure it declares."""


class _Malformed(Exception):
    """The structure cannot be parsed even though the bytes are there."""


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
    if _AVIF_BRANDS.intersection(_ftyp_brands(data)):
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
    except _Truncated as exc:
        return "truncated", str(exc)
    except _Malformed as exc:
        return "corrupt", str(exc)
    return None


def _check_jpeg_end(data: bytes) -> None:
    if not data.rstrip(_PADDING).endswith(b"\xff\xd9"):
        raise _Truncated("the JPEG does not end with the EOI marker (FF D9)")


def _check_png_end(data: bytes) -> None:
    if not data.rstrip(_PADDING).endswith(_PNG_IEND_CHUNK):
        raise _Truncated("the PNG does not end with a complete IEND chunk")


def _check_webp_length(data: bytes) -> None:
    """Compare the RIFF size field with the body; a RIFF chunk may carry one pad byte."""
    declared = 8 + int.from_bytes(data[4:8], "little")
    if len(data) < declared:
        raise _Truncated(f"the RIFF header declares {declared} bytes but {len(data)} arrived")
    if data[declared:].strip(_PADDING):
        raise _Malformed(f"{len(data) - declared} bytes follow the {declared} the RIFF declares")


def _check_gif_end(data: bytes) -> None:
    end = _walk_gif(data)[2]
    if data[end:].strip(_PADDING):
        raise _Malformed(f"{len(data) - end} bytes follow the GIF trailer")


def _check_avif_boxes(data: bytes) -> None:
    """Top-level ISO-BMFF boxes must tile the body exactly; a cut leaves the last one short."""
    for _ in _iter_boxes(data, 0, len(data)):
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
        width, height, _ = _walk_gif(data)
        return width, height
    if content_type == JPEG:
        # Most photos are JPEGs: their frame header is read directly, Pillow only as a fallback.
        size = _jpeg_frame_size(data)
        if size is not None:
            return size
    if content_type == WEBP:
        declared = _webp_declared_size(data)
        if declared is not None and declared[0] * declared[1] > max_pixels:
            return declared
    size = _pillow_size(data, _PILLOW_READERS[content_type])
    if size is None and content_type == AVIF:
        return _avif_ispe_size(data)
    return size


# Start-of-frame markers (SOF0-SOF15, without DHT C4, JPG C8 and DAC CC) carry the size.
_JPEG_SOF = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}
# Markers without a length field.
_JPEG_STANDALONE = frozenset(range(0xD0, 0xDA)) | {0x01}


def _jpeg_frame_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a JPEG's start-of-frame segment, or None if there is none."""
    pos = 2
    end = len(data)
    while pos + 4 <= end:
        if data[pos] != 0xFF:
            return None
        marker = data[pos + 1]
        if marker == 0xFF:  # fill byte
            pos += 1
            continue
        if marker in _JPEG_STANDALONE:
            pos += 2
            continue
        if marker == 0xDA:  # start of scan before any frame header: malformed
            return None
        if marker in _JPEG_SOF:
            if pos + 9 > end:
                return None
            height, width = _be16(data, pos + 5), _be16(data, pos + 7)
            return (width, height) if width and height else None
        pos += 2 + _be16(data, pos + 2)
    return None


def _be16(data: bytes, offset: int) -> int:
    return int.from_bytes(data[offset : offset + 2], "big")


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


def _webp_declared_size(data: bytes) -> tuple[int, int] | None:
    """Canvas size from the first WebP chunk (VP8X, lossy VP8 or lossless VP8L)."""
    chunk = data[12:16]
    if chunk == b"VP8X" and len(data) >= 30:
        return _uint24(data, 24) + 1, _uint24(data, 27) + 1
    if chunk == b"VP8 " and len(data) >= 30 and data[23:26] == b"\x9d\x01\x2a":
        return _uint16(data, 26) & 0x3FFF, _uint16(data, 28) & 0x3FFF
    if chunk == b"VP8L" and len(data) >= 25 and data[20] == 0x2F:
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    return None


def _uint16(data: bytes, offset: int) -> int:
    return int.from_bytes(data[offset : offset + 2], "little")


def _uint24(data: bytes, offset: int) -> int:
    return int.from_bytes(data[offset : offset + 3], "little")


def _walk_gif(data: bytes) -> tuple[int, int, int]:
    """Walk the GIF block structure without decompressing anything.

    Returns the canvas (the logical screen grown to cover every frame, since decoders grow it
    the same way) and the offset just past the trailer.
    """
    if len(data) < 13:
        raise _Truncated("the GIF ends inside its screen descriptor")
    width, height = _uint16(data, 6), _uint16(data, 8)
    pos = 13 + _gif_color_table_size(data[10])
    while True:
        introducer = _byte_at(data, pos, "the GIF ends before its trailer (0x3B)")
        if introducer == 0x3B:
            return width, height, pos + 1
        if introducer == 0x21:
            pos = _skip_gif_sub_blocks(data, pos + 2)
        elif introducer == 0x2C:
            if pos + 10 > len(data):
                raise _Truncated("the GIF ends inside an image descriptor")
            width = max(width, _uint16(data, pos + 1) + _uint16(data, pos + 5))
            height = max(height, _uint16(data, pos + 3) + _uint16(data, pos + 7))
            # Skip the descriptor, the local color table and the LZW minimum code size byte.
            pos += 10 + _gif_color_table_size(data[pos + 9]) + 1
            pos = _skip_gif_sub_blocks(data, pos)
        else:
            raise _Malformed(f"unknown GIF block introducer 0x{introducer:02X} at offset {pos}")


def _gif_color_table_size(flags: int) -> int:
    return 3 * (2 << (flags & 0x07)) if flags & 0x80 else 0


def _skip_gif_sub_blocks(data: bytes, pos: int) -> int:
    while True:
        length = _byte_at(data, pos, "the GIF ends inside a data sub-block")
        pos += 1 + length
        if length == 0:
            return pos


def _byte_at(data: bytes, pos: int, message: str) -> int:
    if pos >= len(data):
        raise _Truncated(message)
    return data[pos]


def _ftyp_brands(data: bytes) -> list[bytes]:
    """Major and compatible brands of a leading ISO-BMFF 'ftyp' box, even a cut-off one.

    A body cut inside the 'ftyp' box still names its brands, so it is reported as a truncated
    AVIF rather than as not an image.
    """
    if len(data) < 12 or data[4:8] != b"ftyp":
        return []
    box_end = min(int.from_bytes(data[:4], "big"), len(data))
    compatible = data[16:box_end]
    return [data[8:12]] + [compatible[i : i + 4] for i in range(0, len(compatible) - 3, 4)]


def _iter_boxes(data: bytes, start: int, end: int) -> Iterator[tuple[bytes, int, int]]:
    """Yield (type, payload start, box end) for the ISO-BMFF boxes tiling data[start:end]."""
    pos = start
    while pos < end:
        if end - pos < 8:
            raise _Truncated(f"the body ends inside a box header at offset {pos}")
        size, header = int.from_bytes(data[pos : pos + 4], "big"), 8
        if size == 1:
            if end - pos < 16:
                raise _Truncated(f"the body ends inside a box header at offset {pos}")
            size, header = int.from_bytes(data[pos + 8 : pos + 16], "big"), 16
        elif size == 0:
            size = end - pos
        if size < header:
            raise _Malformed(f"a box at offset {pos} declares an impossible size of {size}")
        if pos + size > end:
            raise _Truncated(f"a box at offset {pos} declares {size} bytes past the end")
        yield data[pos + 4 : pos + 8], pos + header, pos + size
        pos += size


def _avif_ispe_size(data: bytes) -> tuple[int, int] | None:
    """Largest 'ispe' (image spatial extents) property in meta/iprp/ipco, or None.

    Used when Pillow cannot open the AVIF. Taking the largest extent instead of resolving
    the primary item keeps the fallback short and errs towards refusing a bomb.
    """
    try:
        sizes = [
            _ispe_dimensions(data, start, end)
            for start, end in _find_boxes(data, 0, len(data), _ISPE_PATH)
        ]
    except (_Truncated, _Malformed):
        return None
    return max(sizes, key=lambda size: size[0] * size[1], default=None)


def _find_boxes(
    data: bytes, start: int, end: int, path: tuple[bytes, ...]
) -> Iterator[tuple[int, int]]:
    """Yield (payload start, box end) of every box reached by following `path` down."""
    for box_type, payload, box_end in _iter_boxes(data, start, end):
        if box_type != path[0]:
            continue
        if len(path) == 1:
            yield payload, box_end
        else:
            # 'meta' is a full box: version and flags precede its children.
            children = payload + 4 if box_type == b"meta" else payload
            yield from _find_boxes(data, children, box_end, path[1:])


def _ispe_dimensions(data: bytes, start: int, end: int) -> tuple[int, int]:
    # Full box: version and flags, then 32-bit width and height.
    if end - start < 12:
        raise _Malformed("an 'ispe' box is too short to hold a width and height")
    width = int.from_bytes(data[start + 4 : start + 8], "big")
    height = int.from_bytes(data[start + 8 : start + 12], "big")
    return width, height
