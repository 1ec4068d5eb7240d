"""The thumbnail rule (``domain/thumbnails.py``): small, upright, WebP, never larger than
its photo, the same bytes every time, and a clear refusal for what is no image."""

from __future__ import annotations

import io
import random

import pytest
from PIL import Image

from fashion_assets.domain.media import MediaLimits, sniff_image_type
from fashion_assets.domain.thumbnails import THUMBNAIL, NotAnImage, make_derivative


def photo(width: int, height: int, fmt: str = "JPEG", *, mode: str = "RGB",
          orientation: int | None = None, seed: int = 0) -> bytes:
    """A noisy photo (noise compresses like a real one: badly)."""
    rng = random.Random(seed)
    image = Image.frombytes(mode, (width, height),
                            bytes(rng.getrandbits(8) for _ in range(width * height
                                                                    * len(mode))))
    out = io.BytesIO()
    if orientation is not None:
        exif = Image.Exif()
        exif[0x0112] = orientation
        image.save(out, format=fmt, exif=exif)
    else:
        image.save(out, format=fmt, quality=92) if fmt == "JPEG" else image.save(out, format=fmt)
    return out.getvalue()


def size_of(data: bytes) -> tuple[int, int]:
    with Image.open(io.BytesIO(data)) as image:
        return image.size


def test_a_large_photo_becomes_a_small_webp() -> None:
    full = photo(1280, 1920)
    thumb = make_derivative(full)
    assert sniff_image_type(thumb) == "image/webp"
    assert size_of(thumb) == (320, 480)
    assert len(thumb) < len(full) / 10
    assert make_derivative(full) == thumb  # the same bytes, so the same key, every time


def test_a_small_photo_is_never_enlarged_and_a_tall_one_fits_the_height() -> None:
    assert size_of(make_derivative(photo(200, 100))) == (200, 100)
    assert size_of(make_derivative(photo(300, 1200))) == (160, 640)
    assert THUMBNAIL.max_width == 320


def test_the_thumbnail_is_upright_and_flat() -> None:
    rotated = photo(1000, 500, orientation=6)  # stored sideways, shown rotated 90 degrees
    assert size_of(make_derivative(rotated)) == (320, 640)
    with Image.open(io.BytesIO(make_derivative(photo(64, 64, "PNG", mode="RGBA")))) as thumb:
        assert thumb.mode == "RGB"


@pytest.mark.parametrize("data", [b"<html>not found</html>", b"", photo(64, 64)[:200]])
def test_what_is_no_image_gets_no_thumbnail(data: bytes) -> None:
    with pytest.raises(NotAnImage):
        make_derivative(data)


def test_a_photo_past_the_pixel_cap_gets_no_thumbnail() -> None:
    with pytest.raises(NotAnImage, match="pixel cap"):
        make_derivative(photo(100, 100), limits=MediaLimits(max_pixels=5_000))
