"""The look search's index (``domain/look_search.py``) against the plain answer: every photo's
distance measured one by one. Multi-index hashing claims to miss no photo within the radius;
Hypothesis generates codes near and far from the queries to hold it to that."""

from __future__ import annotations

import io
import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fashion_assets.domain.look_search import (
    MAX_WITHIN,
    SCAN_ABOVE,
    SEGMENTS,
    Hit,
    LookIndex,
    code_of,
    segment_masks,
)
from fashion_assets.domain.perceptual_hash import PerceptualHash, perceptual_hash, query_hashes

# The index's probes alone, however many photos they reach (a small set is soon a tenth).
NEVER_SCAN = math.inf
U64 = st.integers(min_value=0, max_value=2**64 - 1)
CODE = st.tuples(U64, U64)


def distance(a: tuple[int, int], b: tuple[int, int]) -> int:
    return (a[0] ^ b[0]).bit_count() + (a[1] ^ b[1]).bit_count()


def flipped(code: tuple[int, int], bits: list[int]) -> tuple[int, int]:
    """``code`` with each of ``bits`` (0-127) flipped."""
    whole = code[0] << 64 | code[1]
    for bit in bits:
        whole ^= 1 << bit
    return whole >> 64, whole & (2**64 - 1)


def brute(codes: list[tuple[int, int]], queries: list[tuple[int, int]], within: int,
          limit: int) -> list[Hit]:
    hits = []
    for photo, code in enumerate(codes):
        best = min(distance(code, query) for query in queries)
        if best <= within:
            hits.append(Hit(photo, best))
    return sorted(hits, key=lambda hit: (hit.distance, hit.photo))[:limit]


@st.composite
def near_codes(draw: st.DrawFn) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Queries, and codes of which many lie within a few dozen bits of one of them (the
    cases the pigeonhole bound decides), the rest anywhere."""
    queries = draw(st.lists(CODE, min_size=1, max_size=2))
    codes = []
    for _ in range(draw(st.integers(0, 60))):
        if draw(st.booleans()):
            base = draw(st.sampled_from(queries))
            bits = draw(st.lists(st.integers(0, 127), max_size=MAX_WITHIN + 5, unique=True))
            codes.append(flipped(base, bits))
        else:
            codes.append(draw(CODE))
    return codes, queries


@settings(max_examples=300, deadline=None)
@given(near_codes(), st.integers(0, MAX_WITHIN), st.integers(1, 80),
       st.sampled_from([NEVER_SCAN, SCAN_ABOVE, 0.0]))
def test_the_index_finds_exactly_the_photos_the_plain_search_finds(
        case: tuple[list[tuple[int, int]], list[tuple[int, int]]], within: int,
        limit: int, scan_above: float) -> None:
    """Through the probes alone, through the scan alone, and switching as a search does."""
    codes, queries = case
    index = LookIndex(codes, scan_above=scan_above)
    assert index.search(queries, within=within, limit=limit) == brute(
        codes, queries, within, limit)


def test_a_code_whose_every_segment_differs_by_one_bit_more_than_the_radius_is_not_missed(
) -> None:
    """The pigeonhole bound's edge: at ``within`` = 8 x 3 + 7 = 31 a segment is probed within
    3 bits; a code with 3 bits flipped in one segment and 4 in each of the others is 31 bits
    away and must be found, through its one near segment."""
    rng = random.Random(7)
    query = (rng.getrandbits(64), rng.getrandbits(64))
    bits = [0, 1, 2] + [segment * 16 + i for segment in range(1, SEGMENTS) for i in range(4)]
    near = flipped(query, bits)
    far = flipped(query, list(range(0, 128, 4)))  # 4 bits in every segment: 32 away
    index = LookIndex([far, near], scan_above=NEVER_SCAN)
    assert (distance(near, query), distance(far, query)) == (31, 32)
    assert index.search([query], within=31, limit=5) == [Hit(1, 31)]
    assert index.search([query], within=32, limit=5) == [Hit(1, 31), Hit(0, 32)]


def test_a_mirror_query_answers_each_photo_at_its_closest_code() -> None:
    rng = random.Random(3)
    photo = (rng.getrandbits(64), rng.getrandbits(64))
    mirror = (rng.getrandbits(64), rng.getrandbits(64))
    index = LookIndex([flipped(mirror, [5, 77])])
    assert index.search([photo, mirror], within=20, limit=3) == [Hit(0, 2)]


def test_an_empty_index_and_bounds() -> None:
    assert LookIndex([]).search([(1, 2)], within=10, limit=5) == []
    assert len(LookIndex([(1, 2), (3, 4)])) == 2
    assert LookIndex([(1, 2)]).nbytes == 48 + SEGMENTS * 4 * (2**16 + 1)
    with pytest.raises(ValueError, match="between 0 and"):
        LookIndex([(1, 2)]).search([(1, 2)], within=MAX_WITHIN + 1, limit=1)


def test_segment_masks_and_codes() -> None:
    assert len(segment_masks(0)) == 1 and len(segment_masks(3)) == 1 + 16 + 120 + 560
    assert code_of(PerceptualHash("00000000000000ff", "8000000000000000")) == (255, 2**63)


def test_a_mirrored_photo_is_found_through_the_query_s_mirror_hash() -> None:
    """A photo and its mirror image are far apart as codes; ``query_hashes`` gives the
    mirror's, which lies where the mirrored photo does."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (240, 360), (235, 230, 220))
    draw = ImageDraw.Draw(image)
    draw.polygon([(30, 40), (200, 90), (120, 330)], fill=(40, 30, 90))
    draw.ellipse((150, 20, 230, 100), fill=(200, 40, 40))
    buffers = []
    for picture in (image, image.transpose(Image.Transpose.FLIP_LEFT_RIGHT)):
        buffer = io.BytesIO()
        picture.save(buffer, "JPEG", quality=85)
        buffers.append(buffer.getvalue())
    photo, mirror = query_hashes(buffers[0])
    assert photo == perceptual_hash(buffers[0])
    mirrored = perceptual_hash(buffers[1])
    assert photo.distance(mirrored) > 28
    assert mirror.distance(mirrored) <= 6
    index = LookIndex([code_of(mirrored)])
    assert index.search([code_of(photo)], within=28, limit=1) == []
    assert index.search([code_of(photo), code_of(mirror)], within=28, limit=1)[0].photo == 0


def test_the_segments_probed_at_the_full_radius_are_the_query_s_least_crowded() -> None:
    """At ``within`` = 20 (8 x 2 + 4) five segments are probed within 2 bits and three
    within 1: the query picks the five whose 2-bit ring holds the fewest photos. Crowding
    segments 0-4 with photos 2 bits from the query there moves the full radius to segments
    5-7 and two of 0-4; a photo 2 bits away in segments 0-3 and 3 in 4-7 (20 in all) is
    still found, and the crowd, 10 bits away plus random elsewhere, stays exact too."""
    rng = random.Random(11)
    query = (rng.getrandbits(64), rng.getrandbits(64))
    crowd = [flipped(query, [s * 16 + b for s in range(5) for b in rng.sample(range(16), 2)]
                     + [s * 16 + b for s in range(5, SEGMENTS)
                        for b in rng.sample(range(16), rng.randrange(0, 6))])
             for _ in range(300)]
    edge = flipped(query, [s * 16 + b for s in range(4) for b in (0, 1)]
                   + [s * 16 + b for s in range(4, SEGMENTS) for b in (0, 1, 2)])
    codes = [*crowd, edge]
    assert distance(edge, query) == 20
    for within in (19, 20, 21, 27):
        assert LookIndex(codes, scan_above=NEVER_SCAN).search(
            [query], within=within, limit=400) == brute(
            codes, [query], within, 400)
