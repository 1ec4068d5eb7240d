"""The look search through the read API, served by uvicorn on loopback and asked over HTTP:
which show, which look, from a copy of its photo; never a draft's photo; bad uploads 400,
large ones 413, never 500.

The catalog (tests/looks_catalog.py) holds the replica's Vogue shows, promoted by the
promotion's own code on SQLite and PostgreSQL: the first with theImpression's gallery of it
too (its copies of the looks become alternates), the second alone, the third only as a
draft waiting for review; and a street-style album. The replica knows which of
theImpression's photos show a Vogue look again and which only resemble one, so every
answer is checked against the truth.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import Engine, text

from fashion_assets.catalog.look_search import SearchRules
from fashion_assets.catalog.photo_hashes import hash_photos
from fashion_assets.catalog_api import create_api
from fashion_assets.domain.look_answers import UploadRules
from fashion_assets.replica.images import photo_body
from fashion_assets.replica.site import RESEMBLANCE_ALIKE, RESEMBLANCE_SAME
from fashion_assets.resources import catalog_engine
from fashion_assets.storage import ObjectStore, open_store
from tests.integration.test_review_app import serve
from tests.looks_catalog import (
    ALBUM,
    SHOWS,
    add_album,
    add_draft,
    approve,
    gallery_of,
    key_of,
    mirrored,
    position_of,
    promote_approved,
)

SEARCH = "/api/v1/looks/search"
MERGED, ALONE, DRAFT = SHOWS[0], SHOWS[1], SHOWS[2]


@pytest.fixture
def catalog(tmp_path: Path, database_url: str) -> tuple[Engine, ObjectStore]:
    engine = catalog_engine(database_url)
    store = open_store(f"file://{tmp_path / 'objects'}", home=tmp_path)
    add_draft(engine, store, "vogue", MERGED, MERGED.photos, "approved")
    add_draft(engine, store, "theimpression", MERGED, gallery_of(MERGED).photos, "approved")
    add_draft(engine, store, "vogue", ALONE, ALONE.photos, "approved")
    add_draft(engine, store, "vogue", DRAFT, DRAFT.photos, "pending")
    add_album(engine, store, ALBUM, "copenhagen", date(2026, 2, 1))
    promote_approved(engine, store)
    return engine, store


@pytest.fixture
def api(catalog: tuple[Engine, ObjectStore]) -> Iterator[httpx.Client]:
    engine, store = catalog
    with serve(create_api(engine, store)) as url, httpx.Client(base_url=url) as client:
        yield client


def raw(client: httpx.Client, data: bytes, status: int = 200, **params: Any) -> Any:
    answer = client.post(SEARCH, content=data, params=params,
                         headers={"Content-Type": "image/jpeg"})
    assert answer.status_code == status, answer.text
    return answer.json()


def form(client: httpx.Client, data: bytes, status: int = 200, **params: Any) -> Any:
    answer = client.post(SEARCH, files={"photo": ("look.png", data, "image/png")},
                         params=params)
    assert answer.status_code == status, answer.text
    return answer.json()


def test_a_copy_of_a_look_finds_that_look_first_mirrored_too(
        api: httpx.Client, catalog: tuple[Engine, ObjectStore]) -> None:
    engine, _ = catalog
    vogue = {p.photo_id: p for p in ALONE.photos}
    copies = [p for p in gallery_of(ALONE).photos if p.resemblance == RESEMBLANCE_SAME]
    assert len(copies) >= 10
    for copy in copies:
        look = vogue[copy.look_of]
        for found in (raw(api, photo_body(copy)), form(api, mirrored(photo_body(copy)))):
            assert found["match"] is True, copy
            first = found["looks"][0]
            assert (first["kind"], first["brand"], first["season_code"], first["position"]) \
                == ("runway", ALONE.brand_slug, ALONE.season_slug,
                    position_of(engine, ALONE, key_of(look))), copy
            assert first["source"] == "vogue" and first["title"] == ALONE.title
            assert first["photo_url"] == f"{str(api.base_url).rstrip('/')}/api/v1/photos/" \
                + key_of(look)
            assert first["thumbnail_url"] == first["photo_url"] + "/thumbnail"
            assert first["distance"] <= found["within"]
            distances = [f["distance"] for f in found["looks"]]
            assert distances == sorted(distances)
    assert api.get(first["photo_url"]).content == photo_body(look)


def test_a_photo_that_only_resembles_a_look_matches_nothing(api: httpx.Client) -> None:
    """theImpression's photos of the show that are not Vogue's looks again: those that only
    resemble one (its backdrop, other shapes), and its other looks."""
    others = [p for p in gallery_of(ALONE).photos if p.resemblance != RESEMBLANCE_SAME]
    assert {p.resemblance for p in others} == {RESEMBLANCE_ALIKE, ""}
    for photo in others:
        assert raw(api, photo_body(photo), limit=50) == {
            "within": SearchRules().within, "match": False, "looks": [],
            "catalog_empty": False}, photo


def test_a_look_found_through_its_alternate_and_its_photo_is_answered_once(
        api: httpx.Client, catalog: tuple[Engine, ObjectStore]) -> None:
    engine, _ = catalog
    with engine.connect() as conn:
        alternates = dict(conn.execute(text(
            "SELECT object_key, kept_key FROM brand_runway_image_alternates")).all())
    copies = {key_of(p): p for p in gallery_of(MERGED).photos}
    kept_copies = [(copies[k], kept) for k, kept in alternates.items() if k in copies]
    assert kept_copies
    for copy, kept in kept_copies:
        found = form(api, photo_body(copy), limit=50)
        first = found["looks"][0]
        assert first["distance"] == 0 and first["source"] == "theimpression"
        assert first["photo_url"].endswith(f"/photos/{kept}")  # the photo the entry shows
        assert first["position"] == position_of(engine, MERGED, kept)
        looks = [(f["brand"], f["season_code"], f["position"]) for f in found["looks"]]
        assert len(set(looks)) == len(looks)
    assert raw(api, photo_body(copy), limit=1)["looks"] == [first]


def test_a_street_style_photo_finds_its_album(api: httpx.Client) -> None:
    photo = ALBUM.photos[2]
    found = form(api, photo_body(photo), limit=1)
    assert found["looks"] == [{
        "kind": "street", "city": "copenhagen", "year": 2026, "month": 2, "position": 3,
        "source": "theimpression", "distance": 0,
        "photo_url": f"{str(api.base_url).rstrip('/')}/api/v1/photos/{key_of(photo)}",
        "thumbnail_url": f"{str(api.base_url).rstrip('/')}/api/v1/photos/{key_of(photo)}"
                         "/thumbnail"}]


def test_a_photo_only_in_a_draft_is_found_once_its_draft_is_promoted(
        api: httpx.Client, catalog: tuple[Engine, ObjectStore]) -> None:
    engine, store = catalog
    photo = DRAFT.photos[3]
    # Hashed, as the review page hashes the photos of the drafts it shows: still a draft's.
    hash_photos(engine, store, [key_of(p) for p in DRAFT.photos])
    assert query_hashed(engine, key_of(photo))
    assert raw(api, photo_body(photo))["match"] is False

    approve(engine, DRAFT)
    promote_approved(engine, store)  # the API, already running, sees it at once

    [first, *_] = raw(api, photo_body(photo))["looks"]
    assert (first["brand"], first["season_code"], first["distance"]) == (
        DRAFT.brand_slug, DRAFT.season_slug, 0)


def query_hashed(engine: Engine, key: str) -> bool:
    with engine.connect() as conn:
        return conn.execute(text("SELECT 1 FROM photo_hashes WHERE photo_key = :k"),
                            {"k": key}).first() is not None


def test_an_upload_that_is_no_photo_is_refused_with_the_reason(api: httpx.Client) -> None:
    body = photo_body(ALONE.photos[0])
    bomb = photo_body(replace(ALONE.photos[0], fault="bomb"))
    for data, reason in ((b"<!doctype html><html><body>sign in</body></html>", "html"),
                         (b"", "empty"), (body[:len(body) // 2], "truncated"),
                         (bomb, "too_many_pixels"), (b"GIF89a" + bytes(40), "corrupt")):
        for send in (raw, form):
            refused = send(api, data, status=400)
            assert refused["reason"] == reason and refused["error"], (reason, refused)
    for headers, content, reason in (
            ({"Content-Type": "text/plain"}, body, "content_type"),
            ({}, body, "content_type"),
            ({"Content-Type": "multipart/form-data"}, body, "multipart"),
            ({"Content-Type": "multipart/form-data; boundary=x"}, b"--x\r\n\r\n", "multipart")):
        refused = api.post(SEARCH, content=content, headers=headers)
        assert refused.status_code == 400 and refused.json()["reason"] == reason, refused.text
    no_photo = api.post(SEARCH, data={"note": "hello"}, files={"other": ("a.jpg", body)})
    assert no_photo.status_code == 400 and no_photo.json()["reason"] == "no_photo"
    for params in ({"limit": "0"}, {"limit": "51"}, {"limit": "ten"}, {"limit": "\u00b2"},
                   {"colour": "red"}):
        assert "limit" in raw(api, body, status=400, **params)["error"], params
    assert len(raw(api, body, limit=1)["looks"]) == 1
    assert api.get(SEARCH).status_code == 405


def test_an_upload_over_the_cap_is_413_before_it_is_read(
        catalog: tuple[Engine, ObjectStore]) -> None:
    engine, store = catalog
    body = photo_body(ALONE.photos[0])
    rules = SearchRules(upload=UploadRules(max_bytes=len(body)))
    large = mirrored(photo_body(ALONE.photos[1])) * 8

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it comes
        yield from (large[n:n + 1024] for n in range(0, len(large), 1024))

    with serve(create_api(engine, store, search=rules, token="s3cret")) as url, \
            httpx.Client(base_url=url, headers={"Authorization": "Bearer s3cret"}) as client:
        assert raw(client, body)["match"] is True  # the cap itself is taken
        assert form(client, body)["match"] is True
        for answer in (
                client.post(SEARCH, content=large, headers={"Content-Type": "image/png"}),
                client.post(SEARCH, content=chunks(), headers={"Content-Type": "image/png"}),
                client.post(SEARCH, files={"photo": ("big.png", large, "image/png")}),
                client.post(SEARCH, content=body + b"\0",
                            headers={"Content-Type": "image/jpeg"})):
            assert answer.status_code == 413, answer.text
            assert answer.json()["reason"] == "too_large"
        refused = httpx.post(f"{url}{SEARCH}", content=body,
                             headers={"Content-Type": "image/jpeg"})
        assert refused.status_code == 401 and "s3cret" not in refused.text


def test_the_openapi_document_describes_the_search(api: httpx.Client) -> None:
    document = api.get("/api/v1/openapi.json").json()
    search = document["paths"][SEARCH]["post"]
    assert set(search["requestBody"]["content"]) == {"image/*", "multipart/form-data"}
    assert search["requestBody"]["content"]["multipart/form-data"]["schema"]["required"] \
        == ["photo"]
    assert {"200", "400", "413"} <= set(search["responses"])
    look = document["components"]["schemas"]["LookSearch"]["properties"]["looks"]["items"]
    assert {"kind", "brand", "season_code", "city", "year", "month", "position", "source",
            "photo_url", "thumbnail_url", "distance"} <= set(look["properties"])
