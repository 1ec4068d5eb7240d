"""Photo bytes for the replica CDN: small real images, plus the bodies of the faulty photos.

Every photo must be a real, decodable image with bytes of its own, because the crawler keys
photos by their content and sniffs their type; yet the benchmark serves tens of thousands of
them many times over, so images are tiny (96x128), cheap to encode (about a millisecond) and
cached after the first request.
"""

from __future__ import annotations

import io
import random
import struct
import zlib
from functools import lru_cache

from PIL import Image, ImageDraw

from fashion_assets.replica.build import ReplicaSite
from fashion_assets.replica.site import IMAGE_SIZE, RESEMBLANCE_SAME, ReplicaPhoto

HUGE_BODY_SIZE = 200 * 1024 * 1024
BOMB_SIZE = (30_000, 30_000)
# The huge body opens like a JPEG so only a byte cap, not sniffing, can stop it.
HUGE_BODY_HEAD = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00"
HTML_BODY = (
    b"<!DOCTYPE html><html><head><title>Vogue</title></head>"
    b"<body><h1>Something went wrong</h1><p>Please try again later.</p></body></html>"
)
JSON_BODY = b'{"error": {"code": 404, "message": "Image not found"}}'
SVG_BODY = (
    b'<?xml version="1.0" encoding="UTF-8"?>'
    b'<svg xmlns="http://www.w3.org/2000/svg" width="96" height="128">'
    b'<rect width="96" height="128" fill="#c0ffee"/></svg>'
)
UTF16_HTML_BODY = "\ufeff<!DOCTYPE html><html><body><h1>Access denied</h1></body></html>".encode(
    "utf-16-le"
)
# Faults whose response carries no stored body: the server answers them without bytes.
BODILESS_FAULTS = frozenset(
    {
        "gone",
        "huge",
        "huge_chunked",
        "redirect_offsite",
        "redirect_private",
        "redirect_metadata_ipv6",
        "redirect_decimal_loopback",
        "redirect_not_allowed",
        "redirect_file_scheme",
        "redirect_loop",
        "redirect_no_location",
    }
)
_CONSTANT_BODIES = {
    "html": HTML_BODY,
    "empty": b"",
    "json_body": JSON_BODY,
    "svg_body": SVG_BODY,
    "utf16_html": UTF16_HTML_BODY,
}
# Faults served as the first half of their image, in a response that is complete otherwise.
_HALVED_FAULTS = frozenset({"truncated_png", "truncated_gif", "truncated_webp"})
_TRAILING_JUNK = b"<!-- cache node 7 -->"
_NOT_IMAGE_BYTES = 4096
_WEBP_BOMB_SIDE = 16_384
_CACHE_SIZE = 65_536  # above the largest benchmark site's photo count: each is encoded once
_CROP = 3  # pixels cut from each edge of a look another source shows again
_RECOMPRESSED_QUALITY = 70


def photo_bytes(site: ReplicaSite, photo_id: str) -> bytes:
    """The body the CDN stores for ``photo_id``; ``KeyError`` when the site has no such photo."""
    photo = site.photo(photo_id)
    if photo is None:
        raise KeyError(photo_id)
    return photo_body(photo)


def photo_body(photo: ReplicaPhoto) -> bytes:
    """The stored body of a photo: its image, or the garbage a faulty photo serves instead.

    A "truncated" photo stores a whole image (the server cuts it in transit), and so do a
    "length_conflict" one (the server frames it badly) and a "gzip_encoded" one (the server
    compresses it). Photos whose fault leaves nothing to store ("gone", "huge", the
    redirects) raise ``ValueError``.
    """
    fault = photo.fault
    if fault in BODILESS_FAULTS:
        raise ValueError(f"photo {photo.photo_id} has no stored body ({fault})")
    if fault in _CONSTANT_BODIES:
        return _CONSTANT_BODIES[fault]
    if fault == "not_image":
        return random.Random(photo.photo_id).randbytes(_NOT_IMAGE_BYTES)
    if fault == "bomb":
        return _bomb_png(photo.photo_id)
    if fault == "webp_bomb":
        return _bomb_webp()
    image = (_resembling(photo) if photo.look_of is not None
             else _encoded(photo.photo_id, photo.format, photo.pixels or IMAGE_SIZE))
    if fault in _HALVED_FAULTS:
        return image[: len(image) // 2]
    if fault == "webp_trailing_junk":
        return image + _TRAILING_JUNK
    if fault == "jpeg_bomb":
        return _with_jpeg_size(image, *BOMB_SIZE)
    if fault == "jpeg_zero_size":
        return _with_jpeg_size(image, 0, IMAGE_SIZE[1])
    if fault == "gif_bomb":
        return image[:6] + struct.pack("<HH", *BOMB_SIZE) + image[10:]
    return image


def warm_photos(site: ReplicaSite) -> int:
    """Encode every look and cover now, the photos a crawl fetches; returns how many.

    A cold replica encodes on first request (several hundred photos/s), slower than the
    clients it benchmarks, so benchmarks warm it first to measure the client, not the encoder.
    """
    wanted = {
        photo.photo_id: photo
        for show in site.iter_shows()
        for photo in (show.cover, *show.photos)
        if photo.fault not in BODILESS_FAULTS
    }
    for photo in wanted.values():
        photo_body(photo)
    return len(wanted)


@lru_cache(maxsize=1)
def _grain() -> Image.Image:
    """One shared film grain: gives JPEGs a photo-like size (about 5 KB, not a flat 3 KB)
    without paying for fresh noise on every photo."""
    noise = random.Random("grain").randbytes(IMAGE_SIZE[0] * IMAGE_SIZE[1])
    return Image.frombytes("L", IMAGE_SIZE, noise).convert("RGB")


@lru_cache(maxsize=_CACHE_SIZE)
def _encoded(photo_id: str, image_format: str, size: tuple[int, int] = IMAGE_SIZE) -> bytes:
    """Draw a pattern seeded by the photo id, so every photo's pixels (and bytes) differ.

    At the usual size the pattern gets shapes and grain, for a photo-like JPEG of about 5 KB;
    a smaller size (the archive-shaped replica's) is the smooth gradient alone: a few hundred
    bytes, encoded in a tenth of a millisecond, so a million of them cost little."""
    return _encode(_drawn(photo_id, size), image_format)


def _drawn(photo_id: str, size: tuple[int, int], shapes_of: str | None = None) -> Image.Image:
    """The picture of ``photo_id``: its backdrop (a gradient from its seed) and, at the usual
    size, its shapes, drawn from ``shapes_of``'s seed when given (a look that resembles
    ``photo_id``'s: the same backdrop, other shapes)."""
    rng = random.Random(int(photo_id, 16))
    image = Image.frombytes("RGB", (3, 4), rng.randbytes(3 * 4 * 3))
    image = image.resize(size, Image.Resampling.BILINEAR)
    if size == IMAGE_SIZE:
        if shapes_of is not None:
            rng = random.Random(int(shapes_of, 16))
        width, height = size
        draw = ImageDraw.Draw(image)
        for _ in range(6):
            x, y = rng.randrange(width), rng.randrange(height)
            box = (x, y, x + rng.randrange(8, 40), y + rng.randrange(8, 50))
            draw.ellipse(box, fill=(rng.randrange(256), rng.randrange(256), rng.randrange(256)))
        image = Image.blend(image, _grain(), 0.12)
    return image


def _encode(image: Image.Image, image_format: str, quality: int | None = None) -> bytes:
    out = io.BytesIO()
    if image_format == "jpeg":
        image.save(out, "JPEG", quality=quality or 85)
    elif image_format == "png":
        image.save(out, "PNG", compress_level=1)
    elif image_format == "webp":
        image.save(out, "WEBP", quality=quality or 80, method=0)
    elif image_format == "gif":
        image.save(out, "GIF")
    else:
        raise ValueError(f"unknown image format {image_format!r}")
    return out.getvalue()


@lru_cache(maxsize=_CACHE_SIZE)
def _resembling(photo: ReplicaPhoto) -> bytes:
    """The bytes of a photo showing another photo's look (``photo.look_of``): the look
    itself cropped by a few pixels, resized and compressed anew ("same"), or a look of its
    own on the same backdrop ("alike"); at ``photo.pixels``, in ``photo.format``."""
    assert photo.look_of is not None
    size = photo.pixels or IMAGE_SIZE
    if photo.resemblance == RESEMBLANCE_SAME:
        original = _drawn(photo.look_of, IMAGE_SIZE)
        width, height = IMAGE_SIZE
        cropped = original.crop((_CROP, _CROP, width - _CROP, height - _CROP))
        return _encode(cropped.resize(size, Image.Resampling.LANCZOS), photo.format,
                       _RECOMPRESSED_QUALITY)
    alike = _drawn(photo.look_of, IMAGE_SIZE, shapes_of=photo.photo_id)
    return _encode(alike.resize(size, Image.Resampling.LANCZOS), photo.format)


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _bomb_png(photo_id: str) -> bytes:
    """A ~1 KB PNG whose header declares 30000x30000 RGB (2.7 GB decoded).

    Only the first rows carry data: a client must refuse it from the header alone, and one
    that decodes anyway fails rather than allocating gigabytes in a test.
    """
    width, height = BOMB_SIZE
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    rows = zlib.compress(bytes(1 + width * 3) * 16, 9)
    return b"".join(
        (
            b"\x89PNG\r\n\x1a\n",
            _png_chunk(b"IHDR", header),
            _png_chunk(b"tEXt", b"Comment\x00" + photo_id.encode()),
            _png_chunk(b"IDAT", rows),
            _png_chunk(b"IEND", b""),
        )
    )


def _bomb_webp() -> bytes:
    """A complete 30-byte WebP: a VP8X header declaring a 16384x16384 canvas and nothing else."""
    side = (_WEBP_BOMB_SIDE - 1).to_bytes(3, "little")
    chunk = b"VP8X" + struct.pack("<I", 10) + bytes(4) + side + side
    return b"RIFF" + struct.pack("<I", 4 + len(chunk)) + b"WEBP" + chunk


# Start-of-frame markers, where a JPEG states its size (baseline, extended, progressive).
_JPEG_SOF_MARKERS = frozenset({0xC0, 0xC1, 0xC2})


def _with_jpeg_size(jpeg: bytes, width: int, height: int) -> bytes:
    """The same JPEG with another size written into its frame header (the pixels stay)."""
    pos = 2
    while jpeg[pos + 1] not in _JPEG_SOF_MARKERS:
        pos += 2 + int.from_bytes(jpeg[pos + 2 : pos + 4], "big")
    return jpeg[: pos + 5] + struct.pack(">HH", height, width) + jpeg[pos + 9 :]
