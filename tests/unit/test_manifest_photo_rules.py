"""The rule of which photos fetched with a manifest the drafts step takes as they are
(``catalog/photos.py: photos_fetched_already``): plain data in and out."""

from fashion_assets.catalog.photos import (
    FetchedPhoto,
    ManifestImage,
    MissingImage,
    StoredImage,
    photos_fetched_already,
)

IMAGES = [ManifestImage(1, "https://cdn/a.jpg", None), ManifestImage(2, "https://cdn/b.jpg", None),
          ManifestImage(3, "https://cdn/c.jpg", None)]


def stored(position: int, url: str) -> StoredImage:
    return StoredImage(position, f"{position:040x}", url, "image/jpeg", 10, 20, 300)


def test_this_runs_photos_are_taken_stored_and_missing_alike() -> None:
    fetched = [FetchedPhoto("run-1", stored(1, "https://cdn/a.jpg")),
               FetchedPhoto("run-1", MissingImage(2, "https://cdn/b.jpg", "not_found", "404"))]

    taken = photos_fetched_already(IMAGES, fetched, "run-1")

    assert taken == (stored(1, "https://cdn/a.jpg"),
                     MissingImage(2, "https://cdn/b.jpg", "not_found", "404"))


def test_an_earlier_runs_photos_are_fetched_again() -> None:
    fetched = [FetchedPhoto("run-1", stored(1, "https://cdn/a.jpg")),
               FetchedPhoto("run-1", MissingImage(2, "https://cdn/b.jpg", "timeout", ""))]

    assert photos_fetched_already(IMAGES, fetched, "run-2") == ()


def test_a_photo_the_manifest_no_longer_lists_where_it_was_is_not_taken() -> None:
    fetched = [FetchedPhoto("run-1", stored(1, "https://cdn/moved.jpg")),  # a new URL there
               FetchedPhoto("run-1", stored(3, "https://cdn/b.jpg")),  # b moved to 2
               FetchedPhoto("run-1", stored(4, "https://cdn/d.jpg")),  # no 4th photo now
               FetchedPhoto("run-1", stored(3, "https://cdn/c.jpg"))]

    assert photos_fetched_already(IMAGES, fetched, "run-1") == (stored(3, "https://cdn/c.jpg"),)


def test_the_url_of_a_fetched_photo_is_its_source_url_stored_or_not() -> None:
    assert FetchedPhoto("r", stored(1, "https://cdn/a.jpg")).url == "https://cdn/a.jpg"
    assert FetchedPhoto("r", MissingImage(1, "https://cdn/x.jpg", "html", "")).url == (
        "https://cdn/x.jpg")
