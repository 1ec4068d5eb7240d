"""What a look search answers (domain/look_answers.py): each look once at its closest
photo, closest first; an upload checked as the crawler checks a photo before it is hashed;
the search's settings, and the text that states them."""

from __future__ import annotations

import io
import zlib
from dataclasses import replace

import pytest
from PIL import Image

from fashion_assets import settings
from fashion_assets.catalog.look_search import (
    DEFAULT_LIMIT,
    MAX_LIMIT,
    SearchRules,
)
from fashion_assets.catalog_api.search_gate import SEARCHES_ADMITTED, SEARCHES_AT_ONCE
from fashion_assets.cli.looks import looks_find
from fashion_assets.domain.look_answers import (
    RefusedPhoto,
    UploadRules,
    closest_looks,
    query_codes,
)
from fashion_assets.domain.look_search import DEFAULT_SEARCH_WITHIN, MAX_WITHIN, Hit
from fashion_assets.replica import build_site
from fashion_assets.replica.images import photo_body

PHOTO = build_site(brands=1, shows_per_brand=1, photos_per_show=1,
                   hostile=False).brands[0].shows[0].photos[0]


def test_a_look_found_through_several_photos_is_answered_once_at_its_closest() -> None:
    # Photos 0-2 show look "a" (shown, alternate, alternate), 3 look "b", 4 look "c".
    looks = ["a", "a", "a", "b", "c"]
    hits = [Hit(4, 3), Hit(1, 9), Hit(0, 5), Hit(3, 5), Hit(2, 12), Hit(0, 2)]

    assert closest_looks(hits, looks.__getitem__, 10) == [Hit(0, 2), Hit(4, 3), Hit(3, 5)]
    assert closest_looks(hits, looks.__getitem__, 2) == [Hit(0, 2), Hit(4, 3)]
    assert closest_looks([], looks.__getitem__, 10) == []
    # A tie between two looks: the photo indexed first comes first, whatever the hits' order.
    assert closest_looks([Hit(4, 7), Hit(3, 7)], looks.__getitem__, 10) == [Hit(3, 7),
                                                                           Hit(4, 7)]


def png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def test_a_photo_is_searched_with_its_mirror_image() -> None:
    with Image.open(io.BytesIO(photo_body(PHOTO))) as image:
        upright, flipped = png(image), png(image.transpose(Image.Transpose.FLIP_LEFT_RIGHT))
    photo, mirror = query_codes(upright)
    assert photo != mirror
    assert query_codes(flipped) == [mirror, photo]


@pytest.mark.parametrize(("data", "reason"), [
    (b"", "empty"),
    (b"<html><body>Forbidden</body></html>", "html"),
    (b"\xef\xbb\xbf<?xml version='1.0'?><error/>", "html"),
    (b"PK\x03\x04 a zip file", "not_an_image"),
    (photo_body(PHOTO)[:-200], "truncated"),
    (photo_body(replace(PHOTO, fault="bomb")), "too_many_pixels"),
    (photo_body(replace(PHOTO, fault="jpeg_bomb")), "too_many_pixels"),
])
def test_an_upload_that_is_no_photo_is_refused_before_a_pixel_is_decoded(
        data: bytes, reason: str) -> None:
    with pytest.raises(RefusedPhoto) as refused:
        query_codes(data)
    assert refused.value.reason == reason and refused.value.detail


def test_the_size_caps_are_the_rules_given() -> None:
    data = photo_body(PHOTO)
    assert len(query_codes(data, UploadRules(max_bytes=len(data)))) == 2
    with pytest.raises(RefusedPhoto, match="too_large"):
        query_codes(data, UploadRules(max_bytes=len(data) - 1))
    with pytest.raises(RefusedPhoto, match="too_many_pixels"):
        query_codes(data, UploadRules(max_pixels=100))


def test_sound_headers_over_pixels_that_cannot_be_decoded_are_refused() -> None:
    data = png(Image.new("RGB", (64, 64), (10, 200, 30)))
    at = data.index(b"IDAT")  # its compressed pixels made garbage, checksum and all
    length = int.from_bytes(data[at - 4:at], "big")
    garbage = bytes(n % 251 for n in range(length))
    broken = (data[:at + 4] + garbage + zlib.crc32(b"IDAT" + garbage).to_bytes(4, "big")
              + data[at + 8 + length:])
    assert len(query_codes(data)) == 2
    with pytest.raises(RefusedPhoto) as refused:
        query_codes(broken)
    assert refused.value.reason == "undecodable"


def test_the_search_settings_are_read_and_checked() -> None:
    # The settings table states the default as a number; it is the domain's constant.
    assert settings.setting({}, "FASHION_LOOK_SEARCH_WITHIN") == str(DEFAULT_SEARCH_WITHIN)
    # So are the bounds on a burst of searches the upload's text states.
    [upload] = [s.help for s in settings.SETTINGS if s.env == "FASHION_LOOK_SEARCH_MAX_BYTES"]
    assert f"takes {SEARCHES_ADMITTED} uploads in hand at a time and decodes " \
        f"{SEARCHES_AT_ONCE} at once" in upload
    assert SearchRules.from_env({}) == SearchRules(DEFAULT_SEARCH_WITHIN,
                                                   UploadRules(10 * 1024 * 1024, 50_000_000))
    rules = SearchRules.from_env({"FASHION_LOOK_SEARCH_WITHIN": "0",
                                  "FASHION_LOOK_SEARCH_MAX_BYTES": "1000",
                                  "FASHION_MAX_IMAGE_PIXELS": "20"})
    assert rules == SearchRules(0, UploadRules(1000, 20))
    assert SearchRules.from_env({"FASHION_LOOK_SEARCH_WITHIN": str(MAX_WITHIN)}).within \
        == MAX_WITHIN
    for name, value in (("FASHION_LOOK_SEARCH_WITHIN", str(MAX_WITHIN + 1)),
                        ("FASHION_LOOK_SEARCH_WITHIN", "-1"),
                        ("FASHION_LOOK_SEARCH_WITHIN", "close"),
                        ("FASHION_LOOK_SEARCH_MAX_BYTES", "0")):
        with pytest.raises(ValueError, match=name):
            SearchRules.from_env({name: value})


def test_the_command_line_takes_the_limits_the_search_does() -> None:
    [limit] = [p for p in looks_find.params if p.name == "limit"]
    assert (limit.type.low, limit.type.high, limit.default) == (1, MAX_LIMIT,  # type: ignore
                                                                 DEFAULT_LIMIT)
