"""Perceptual hashes: one look in two renditions stays close, two looks do not."""

import io
import random

import numpy as np
import pytest
from PIL import Image, ImageDraw

from fashion_assets.domain.perceptual_hash import (
    PerceptualHash,
    UnhashablePhoto,
    hamming,
    perceptual_hash,
)


def look(seed: int, size: tuple[int, int] = (400, 600)) -> Image.Image:
    """A photo-like picture: a backdrop and a few shapes of a seeded colour and place."""
    rng = random.Random(seed)
    image = Image.new("RGB", size, tuple(rng.randrange(256) for _ in range(3)))
    draw = ImageDraw.Draw(image)
    width, height = size
    for _ in range(8):
        x, y = rng.randrange(width), rng.randrange(height)
        draw.ellipse((x, y, x + rng.randrange(40, 200), y + rng.randrange(40, 300)),
                     fill=tuple(rng.randrange(256) for _ in range(3)))
    return image


def encoded(image: Image.Image, fmt: str = "JPEG", **options: object) -> bytes:
    out = io.BytesIO()
    image.save(out, fmt, **options)
    return out.getvalue()


def test_a_look_resized_and_recompressed_keeps_its_hashes_within_a_few_bits() -> None:
    for seed in range(20):
        original = look(seed)
        smaller = original.resize((267, 400), Image.Resampling.BILINEAR)
        a = perceptual_hash(encoded(original, quality=92))
        b = perceptual_hash(encoded(smaller, "WEBP", quality=60))
        assert a.distance(b) <= 8, seed


def test_two_different_looks_are_far_apart() -> None:
    hashes = [perceptual_hash(encoded(look(seed))) for seed in range(20)]
    distances = [a.distance(b) for i, a in enumerate(hashes) for b in hashes[i + 1:]]
    assert min(distances) > 20


def test_dhash_reads_the_gradient_left_to_right() -> None:
    brighter_right = Image.fromarray(np.tile(np.arange(256, dtype=np.uint8), (256, 1)))
    brighter_left = brighter_right.transpose(Image.Transpose.FLIP_LEFT_RIGHT)
    assert perceptual_hash(encoded(brighter_right, "PNG")).dhash == "f" * 16
    assert perceptual_hash(encoded(brighter_left, "PNG")).dhash == "0" * 16


def test_hashes_are_sixty_four_bits_in_hex() -> None:
    hashes = perceptual_hash(encoded(look(1), "PNG"))
    assert len(hashes.phash) == len(hashes.dhash) == 16
    int(hashes.phash, 16), int(hashes.dhash, 16)


def test_distance_counts_the_differing_bits_of_both_hashes() -> None:
    assert hamming("0" * 16, "f" * 16) == 64
    assert hamming("00000000000000ff", "000000000000000f") == 4
    a = PerceptualHash("0" * 16, "0" * 16)
    assert a.distance(PerceptualHash("0" * 15 + "1", "0" * 15 + "3")) == 3


@pytest.mark.parametrize("body", [b"", b"<html>not a photo</html>", encoded(look(2))[:200]])
def test_bytes_that_are_no_image_are_unhashable(body: bytes) -> None:
    with pytest.raises(UnhashablePhoto):
        perceptual_hash(body)
