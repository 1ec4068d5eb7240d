"""The byte structure of each image format, read without decoding a pixel.

JPEG segments, WebP chunks, GIF blocks and ISO-BMFF boxes (AVIF): where a body ends and
what size its header declares. ``domain/media.py`` judges a body with these; a body cut
short raises ``Truncated``, one whose framing cannot be walked raises ``Malformed``.
"""

from __future__ import annotations

from collections.abc import Iterator

_ISPE_PATH = (b"meta", b"iprp", b"ipco", b"ispe")


class Truncated(Exception):
    """The body ends before the structure it declares."""


class Malformed(Exception):
    """The structure cannot be parsed even though the bytes are there."""


# Start-of-frame markers (SOF0-SOF15, without DHT C4, JPG C8 and DAC CC) carry the size.
_JPEG_SOF = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}
# Markers without a length field.
_JPEG_STANDALONE = frozenset(range(0xD0, 0xDA)) | {0x01}


def jpeg_frame_size(data: bytes) -> tuple[int, int] | None:
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


def webp_declared_size(data: bytes) -> tuple[int, int] | None:
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


def walk_gif(data: bytes) -> tuple[int, int, int]:
    """Walk the GIF block structure without decompressing anything.

    Returns the canvas (the logical screen grown to cover every frame, since decoders grow it
    the same way) and the offset just past the trailer.
    """
    if len(data) < 13:
        raise Truncated("the GIF ends inside its screen descriptor")
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
                raise Truncated("the GIF ends inside an image descriptor")
            width = max(width, _uint16(data, pos + 1) + _uint16(data, pos + 5))
            height = max(height, _uint16(data, pos + 3) + _uint16(data, pos + 7))
            # Skip the descriptor, the local color table and the LZW minimum code size byte.
            pos += 10 + _gif_color_table_size(data[pos + 9]) + 1
            pos = _skip_gif_sub_blocks(data, pos)
        else:
            raise Malformed(f"unknown GIF block introducer 0x{introducer:02X} at offset {pos}")


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
        raise Truncated(message)
    return data[pos]


def ftyp_brands(data: bytes) -> list[bytes]:
    """Major and compatible brands of a leading ISO-BMFF 'ftyp' box, even a cut-off one.

    A body cut inside the 'ftyp' box still names its brands, so it is reported as a truncated
    AVIF rather than as not an image.
    """
    if len(data) < 12 or data[4:8] != b"ftyp":
        return []
    box_end = min(int.from_bytes(data[:4], "big"), len(data))
    compatible = data[16:box_end]
    return [data[8:12]] + [compatible[i : i + 4] for i in range(0, len(compatible) - 3, 4)]


def iter_boxes(data: bytes, start: int, end: int) -> Iterator[tuple[bytes, int, int]]:
    """Yield (type, payload start, box end) for the ISO-BMFF boxes tiling data[start:end]."""
    pos = start
    while pos < end:
        if end - pos < 8:
            raise Truncated(f"the body ends inside a box header at offset {pos}")
        size, header = int.from_bytes(data[pos : pos + 4], "big"), 8
        if size == 1:
            if end - pos < 16:
                raise Truncated(f"the body ends inside a box header at offset {pos}")
            size, header = int.from_bytes(data[pos + 8 : pos + 16], "big"), 16
        elif size == 0:
            size = end - pos
        if size < header:
            raise Malformed(f"a box at offset {pos} declares an impossible size of {size}")
        if pos + size > end:
            raise Truncated(f"a box at offset {pos} declares {size} bytes past the end")
        yield data[pos + 4 : pos + 8], pos + header, pos + size
        pos += size


def avif_ispe_size(data: bytes) -> tuple[int, int] | None:
    """Largest 'ispe' (image spatial extents) property in meta/iprp/ipco, or None.

    Used when Pillow cannot open the AVIF. Taking the largest extent instead of resolving
    the primary item keeps the fallback short and errs towards refusing a bomb.
    """
    try:
        sizes = [
            _ispe_dimensions(data, start, end)
            for start, end in _find_boxes(data, 0, len(data), _ISPE_PATH)
        ]
    except (Truncated, Malformed):
        return None
    return max(sizes, key=lambda size: size[0] * size[1], default=None)


def _find_boxes(
    data: bytes, start: int, end: int, path: tuple[bytes, ...]
) -> Iterator[tuple[int, int]]:
    """Yield (payload start, box end) of every box reached by following `path` down."""
    for box_type, payload, box_end in iter_boxes(data, start, end):
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
        raise Malformed("an 'ispe' box is too short to hold a width and height")
    width = int.from_bytes(data[start + 4 : start + 8], "big")
    height = int.from_bytes(data[start + 8 : start + 12], "big")
    return width, height
