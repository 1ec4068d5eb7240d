"""The replica's second source shows many of Vogue's looks again, at other sizes and
compressions, and a few looks that only resemble them: what the look merge is tested on."""

import io

from PIL import Image

from fashion_assets.domain.perceptual_hash import perceptual_hash
from fashion_assets.replica.build import build_site
from fashion_assets.replica.images import photo_body
from fashion_assets.replica.site import IMAGE_SIZE, RESEMBLANCE_ALIKE, RESEMBLANCE_SAME

SITE = build_site(brands=6, shows_per_brand=2, photos_per_show=30, hostile=False)
VOGUE = {photo.photo_id: photo for show in SITE.iter_shows() for photo in show.photos}
GALLERY_PHOTOS = [photo for article in SITE.impression.iter_articles() if article.brand_slug
                  for photo in article.photos]


def of(resemblance: str) -> list:
    return [photo for photo in GALLERY_PHOTOS if photo.resemblance == resemblance]


def test_about_six_in_ten_gallery_photos_show_a_vogue_look_and_one_in_ten_resembles_one() -> None:
    assert 0.5 < len(of(RESEMBLANCE_SAME)) / len(GALLERY_PHOTOS) < 0.7
    assert 0.04 < len(of(RESEMBLANCE_ALIKE)) / len(GALLERY_PHOTOS) < 0.16
    assert all(photo.look_of in VOGUE for photo in of(RESEMBLANCE_SAME) + of(RESEMBLANCE_ALIKE))


def test_a_look_shown_again_has_other_bytes_and_size_but_close_hashes() -> None:
    for photo in of(RESEMBLANCE_SAME):
        body, original = photo_body(photo), photo_body(VOGUE[photo.look_of])
        assert body != original
        with Image.open(io.BytesIO(body)) as image:
            assert image.size == photo.pixels != IMAGE_SIZE
        assert perceptual_hash(body).distance(perceptual_hash(original)) <= 22


def test_a_look_that_resembles_another_is_farther_than_any_look_shown_again() -> None:
    for photo in of(RESEMBLANCE_ALIKE):
        distance = perceptual_hash(photo_body(photo)).distance(
            perceptual_hash(photo_body(VOGUE[photo.look_of])))
        assert distance > 22
