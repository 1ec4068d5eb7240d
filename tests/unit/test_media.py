"""Unit tests for fashion_assets.domain.media: which downloaded bodies are photos to store."""

from __future__ import annotations

import io
import random
import struct
import zlib
from pathlib import Path

import pytest
from PIL import Image, features

from fashion_assets.domain.media import (
    AVIF,
    GIF,
    JPEG,
    PNG,
    WEBP,
    ImageVerdict,
    MediaLimits,
    inspect_image,
    sniff_image_type,
)

# Pillow's bomb guard must never warn or raise through inspect_image.
pytestmark = pytest.mark.filterwarnings("error")

WIDTH, HEIGHT = 96, 64


def _photo() -> Image.Image:
    """A deterministic noisy picture, so encoders produce real entropy-coded data to cut."""
    rng = random.Random(1234)
    return Image.frombytes("RGB", (WIDTH, HEIGHT), rng.randbytes(WIDTH * HEIGHT * 3))


def _encode(image_format: str, **params: object) -> bytes:
    buffer = io.BytesIO()
    _photo().save(buffer, image_format, **params)
    return buffer.getvalue()


def _png_chunk(kind: bytes, payload: bytes) -> bytes:
    crc = zlib.crc32(kind + payload).to_bytes(4, "big")
    return len(payload).to_bytes(4, "big") + kind + payload + crc


def _png_declaring(width: int, height: int) -> bytes:
    """A tiny, well-formed 1-bit PNG whose header declares `width` x `height` pixels."""
    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _png_chunk(b"IHDR", header)
        + _png_chunk(b"IDAT", zlib.compress(bytes(16)))
        + _png_chunk(b"IEND", b"")
    )


def _with_byte(data: bytes, offset: int, value: int) -> bytes:
    return data[:offset] + bytes([value]) + data[offset + 1 :]


def _gif_with_frame(screen: int, frame: int) -> bytes:
    """A GIF whose only frame is larger than its logical screen."""
    return (
        b"GIF89a"
        + struct.pack("<HHBBB", screen, screen, 0x80, 0, 0)
        + bytes(6)  # two-color global table
        + b"\x2c"
        + struct.pack("<HHHHB", 0, 0, frame, frame, 0)
        + b"\x02\x02\x4c\x01\x00"  # LZW minimum code size, one sub-block, terminator
        + b"\x3b"
    )


def _webp_lossless_declaring(width: int, height: int) -> bytes:
    """A RIFF-consistent WebP whose VP8L header declares `width` x `height`."""
    bits = (width - 1) | ((height - 1) << 14)
    payload = b"\x2f" + bits.to_bytes(4, "little") + bytes(3)
    chunk = b"VP8L" + len(payload).to_bytes(4, "little") + payload
    body = b"WEBP" + chunk
    return b"RIFF" + len(body).to_bytes(4, "little") + body


def _box(kind: bytes, payload: bytes) -> bytes:
    return (8 + len(payload)).to_bytes(4, "big") + kind + payload


def _full_box(kind: bytes, payload: bytes) -> bytes:
    return _box(kind, bytes(4) + payload)


def _avif_skeleton(width: int | None, major_brand: bytes = b"avif") -> bytes:
    """ftyp + meta(hdlr, iprp/ipco/ispe): enough structure for sniffing and sizing, no pixels."""
    properties = _full_box(b"ispe", struct.pack(">II", width, width)) if width else b""
    handler = _full_box(b"hdlr", bytes(4) + b"pict" + bytes(12) + b"\x00")
    meta = _full_box(b"meta", handler + _box(b"iprp", _box(b"ipco", properties)))
    return _box(b"ftyp", major_brand + bytes(4) + b"mif1avif") + meta


REAL_IMAGES = {
    "jpeg": (_encode("JPEG", quality=90), JPEG),
    "png": (_encode("PNG"), PNG),
    "webp-lossy": (_encode("WEBP", quality=80), WEBP),
    "webp-lossless": (_encode("WEBP", lossless=True), WEBP),
    "gif": (_encode("GIF"), GIF),
}
if features.check("avif"):
    REAL_IMAGES["avif"] = (_encode("AVIF", quality=60), AVIF)


def _verdict_for(reason: str, verdict: ImageVerdict) -> None:
    assert not verdict.ok, verdict
    assert verdict.reason == reason, verdict
    assert verdict.detail


@pytest.mark.parametrize("name", sorted(REAL_IMAGES))
def test_real_images_are_accepted_with_their_dimensions(name: str) -> None:
    data, content_type = REAL_IMAGES[name]

    assert sniff_image_type(data) == content_type
    assert inspect_image(data) == ImageVerdict(True, content_type, WIDTH, HEIGHT, None, None)


def test_type_comes_from_the_bytes_not_the_file_name(tmp_path: Path) -> None:
    path = tmp_path / "look-0001.jpg"
    _photo().save(path, "WEBP")

    verdict = inspect_image(path.read_bytes())

    assert verdict.ok
    assert verdict.content_type == WEBP


def test_avif_without_pillow_support_is_sized_from_its_ispe_box() -> None:
    verdict = inspect_image(_avif_skeleton(640, major_brand=b"mif1"))

    assert verdict == ImageVerdict(True, AVIF, 640, 640, None, None)


@pytest.mark.parametrize(
    ("prefix", "expected"),
    [
        (b"\xff\xd8\xff\xe0\x00\x10JFIF", JPEG),
        (b"\x89PNG\r\n\x1a\n\x00\x00", PNG),
        (b"RIFF\x00\x00\x00\x00WEBPVP8 ", WEBP),
        (b"GIF87a\x01\x00", GIF),
        (b"GIF89a\x01\x00", GIF),
        (_box(b"ftyp", b"avif" + bytes(4) + b"mif1"), AVIF),
        (_box(b"ftyp", b"mif1" + bytes(4) + b"miafavis"), AVIF),
        (_box(b"ftyp", b"heic" + bytes(4) + b"mif1heic"), None),
        (b"RIFF\x00\x00\x00\x00WAVEfmt ", None),
        (b"GIF88a", None),
        (b"\xff\xd8", None),
        (b"%PDF-1.7", None),
        (b"", None),
    ],
)
def test_sniff_reads_magic_bytes_only(prefix: bytes, expected: str | None) -> None:
    assert sniff_image_type(prefix) == expected


def test_empty_body() -> None:
    _verdict_for("empty", inspect_image(b""))


@pytest.mark.parametrize(
    "body",
    [
        b"<!DOCTYPE html><html><body>Not found</body></html>",
        b"<!doctype html>",
        b"<html lang='en'><head><title>Login</title></head></html>",
        b"\r\n\t  <html>",
        b"\xef\xbb\xbf<!DOCTYPE html>",
        b"\xef\xbb\xbf \n<html>",
        "\ufeff<html><body>Erreur</body></html>".encode("utf-16-le"),
        "\ufeff<html>".encode("utf-16-be"),
        b'<?xml version="1.0"?><Error><Code>AccessDenied</Code></Error>',
        b"<head><meta charset='utf-8'></head>",
        b"<body>gone</body>",
        b"<!-- cached page -->",
        b'<svg xmlns="http://www.w3.org/2000/svg"/>',
    ],
)
def test_markup_pages_are_html(body: bytes) -> None:
    verdict = inspect_image(body)

    _verdict_for("html", verdict)
    assert verdict.content_type is None
    assert "<" not in (verdict.detail or "")


@pytest.mark.parametrize(
    "body",
    [
        b'{"error": "not found", "status": 404}',
        b"  [1, 2, 3]",
        b"Access denied",
        b"< not markup",
        b"\n\n",
        b"%PDF-1.7\n%\xe2\xe3\xcf\xd3",
        random.Random(7).randbytes(4096),
    ],
)
def test_other_bodies_are_not_images(body: bytes) -> None:
    _verdict_for("not_an_image", inspect_image(body))


@pytest.mark.parametrize("name", sorted(REAL_IMAGES))
@pytest.mark.parametrize("keep", [16, 0.25, 0.5, 0.75, -2, -1])
def test_truncated_bodies_are_refused(name: str, keep: float) -> None:
    data, content_type = REAL_IMAGES[name]
    cut = int(len(data) * keep) if isinstance(keep, float) else keep

    verdict = inspect_image(data[:cut])

    _verdict_for("truncated", verdict)
    assert verdict.content_type == content_type


@pytest.mark.parametrize("name", ["jpeg", "png", "gif", "webp-lossy"])
def test_trailing_padding_is_tolerated(name: str) -> None:
    data, content_type = REAL_IMAGES[name]

    verdict = inspect_image(data + b"\x00\x00\r\n")

    assert verdict.ok, verdict
    assert verdict.content_type == content_type


def test_truncated_avif_skeleton_is_refused() -> None:
    data = _avif_skeleton(640)

    for cut in (14, 30, len(data) - 1):
        _verdict_for("truncated", inspect_image(data[:cut]))


def test_body_over_the_byte_limit_is_too_large() -> None:
    data, _ = REAL_IMAGES["jpeg"]

    _verdict_for("too_large", inspect_image(data, MediaLimits(max_bytes=len(data) - 1)))
    assert inspect_image(data, MediaLimits(max_bytes=len(data))).ok


def test_default_byte_limit_is_checked_before_anything_else() -> None:
    html = b"<html>" + bytes(25 * 1024 * 1024)

    _verdict_for("too_large", inspect_image(html))


def test_decompression_bomb_png_is_refused_with_its_declared_size() -> None:
    bomb = _png_declaring(30_000, 30_000)

    verdict = inspect_image(bomb)

    _verdict_for("too_many_pixels", verdict)
    assert (verdict.content_type, verdict.width, verdict.height) == (PNG, 30_000, 30_000)


def test_pixel_cap_is_ours_not_pillows() -> None:
    """900 Mpx is far over Pillow's own guard, yet a caller who allows it gets its size."""
    verdict = inspect_image(_png_declaring(30_000, 30_000), MediaLimits(max_pixels=10**9))

    assert verdict == ImageVerdict(True, PNG, 30_000, 30_000, None, None)


def test_pixel_cap_boundary() -> None:
    data, _ = REAL_IMAGES["png"]

    assert inspect_image(data, MediaLimits(max_pixels=WIDTH * HEIGHT)).ok
    _verdict_for("too_many_pixels", inspect_image(data, MediaLimits(max_pixels=WIDTH * HEIGHT - 1)))


def test_gif_frame_larger_than_its_screen_counts() -> None:
    verdict = inspect_image(_gif_with_frame(screen=10, frame=20_000))

    _verdict_for("too_many_pixels", verdict)
    assert (verdict.width, verdict.height) == (20_000, 20_000)


def test_webp_bomb_is_refused_before_pillow_allocates_its_canvas() -> None:
    verdict = inspect_image(_webp_lossless_declaring(16_000, 16_000))

    _verdict_for("too_many_pixels", verdict)
    assert (verdict.width, verdict.height) == (16_000, 16_000)


def test_pillow_guard_above_a_raised_cap_still_reads_as_too_many_pixels() -> None:
    limits = MediaLimits(max_pixels=2**31)

    _verdict_for("too_many_pixels", inspect_image(_webp_lossless_declaring(16_000, 16_000), limits))


def test_avif_bomb_is_refused_from_its_ispe_box() -> None:
    verdict = inspect_image(_avif_skeleton(30_000))

    _verdict_for("too_many_pixels", verdict)
    assert (verdict.content_type, verdict.width, verdict.height) == (AVIF, 30_000, 30_000)


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(b"\xff\xd8\xff" + bytes(64) + b"\xff\xd9", id="jpeg-garbage-header"),
        pytest.param(
            b"\x89PNG\r\n\x1a\n" + b"garbage!" * 8 + _png_chunk(b"IEND", b""), id="png-no-ihdr"
        ),
        pytest.param(_with_byte(_png_declaring(10, 10), 19, 0x0B), id="png-bad-ihdr-crc"),
        pytest.param(b"RIFF\x0c\x00\x00\x00WEBPJUNK" + bytes(4), id="webp-unknown-chunk"),
        pytest.param(REAL_IMAGES["webp-lossy"][0] + b"trailing", id="webp-riff-size-mismatch"),
        pytest.param(b"GIF89a" + struct.pack("<HHBBB", 1, 1, 0, 0, 0) + b"\x99", id="gif-block"),
        pytest.param(REAL_IMAGES["gif"][0] + b"trailing", id="gif-after-trailer"),
        pytest.param(_gif_with_frame(screen=0, frame=0), id="gif-zero-size"),
        pytest.param(_avif_skeleton(None), id="avif-without-ispe"),
        pytest.param(_box(b"ftyp", b"avif" + bytes(4)) + b"\x00\x00\x00\x04meta", id="avif-box"),
    ],
)
def test_unreadable_headers_are_corrupt(body: bytes) -> None:
    _verdict_for("corrupt", inspect_image(body))


@pytest.mark.parametrize("mode", ["RGB", "L", "CMYK"])
@pytest.mark.parametrize("progressive", [False, True])
def test_jpeg_sizes_read_from_the_frame_header_agree_with_pillow(
        mode: str, progressive: bool) -> None:
    buffer = io.BytesIO()
    Image.new(mode, (321, 123)).save(buffer, "JPEG", progressive=progressive,
                                     exif=b"Exif\x00\x00" + bytes(200))

    verdict = inspect_image(buffer.getvalue())

    assert verdict.ok and (verdict.width, verdict.height) == (321, 123)


def test_a_jpeg_declaring_a_huge_frame_is_a_bomb() -> None:
    buffer = io.BytesIO()
    Image.new("RGB", (16, 16)).save(buffer, "JPEG")
    data = bytearray(buffer.getvalue())
    sof = data.index(b"\xff\xc0")
    data[sof + 5:sof + 9] = struct.pack(">HH", 30000, 30000)

    verdict = inspect_image(bytes(data))

    assert (verdict.ok, verdict.reason) == (False, "too_many_pixels")
    assert (verdict.width, verdict.height) == (30000, 30000)
