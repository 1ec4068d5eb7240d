"""The read API through a real server: the promoted catalog, a page at a time, with its
photos; never a draft that was not promoted.

The catalog comes from real crawls of the replica and a real promotion, on SQLite and
PostgreSQL; the API runs under uvicorn on loopback and is asked over HTTP.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from dagster import DagsterInstance
from sqlalchemy import Engine

from fashion_assets.catalog.sql import insert_rows
from fashion_assets.catalog_api import create_api
from fashion_assets.catalog_api.openapi import openapi_document
from fashion_assets.replica import ReplicaServer
from fashion_assets.resources import catalog_engine
from fashion_assets.storage import ObjectStore, open_store
from tests.catalog_db import query
from tests.conftest import normal_brands, pipeline_env
from tests.integration.test_promotion import promote, set_status
from tests.integration.test_review_app import serve
from tests.pipeline import crawl_partitions


class Clock:
    """The API's clock for its answers' lifetime, moved by the test."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def catalog(tmp_path: Path, database_url: str, replica: ReplicaServer
            ) -> tuple[Engine, ObjectStore, dict[str, Any]]:
    """Every normal brand and a street week crawled; every draft approved and promoted but
    the first brand's last show, whose draft waits for review."""
    store_url = f"file://{tmp_path / 'objects'}"
    env = pipeline_env(tmp_path, database_url, store_url, replica)
    instance = DagsterInstance.ephemeral()
    brands = normal_brands(replica)
    crawl_partitions([("brand", b.slug) for b in brands]
                     + [("week", "copenhagen-fashion-week")], instance, env)
    pending = (brands[0].slug, brands[0].shows[-1].season_slug)
    set_status(database_url, "brand_runway_drafts", "approved",
               "NOT (brand_slug = :b AND season_code = :s)", b=pending[0], s=pending[1])
    set_status(database_url, "street_snap_drafts", "approved", "1 = 1")
    promote(env, instance)
    return (catalog_engine(database_url), open_store(store_url, home=tmp_path),
            {"pending": pending, "brands": brands})


@pytest.fixture
def api(catalog: tuple[Engine, ObjectStore, dict[str, Any]]) -> Iterator[httpx.Client]:
    engine, store, _ = catalog
    with serve(create_api(engine, store)) as url, httpx.Client(base_url=url) as client:
        yield client


def get(client: httpx.Client, path: str, status: int = 200, **params: Any) -> Any:
    answer = client.get(f"/api/v1{path}", params=params)
    assert answer.status_code == status, answer.text
    return answer.json()


def test_every_promoted_show_is_listed_with_its_photos_and_the_pending_one_is_not(
        api: httpx.Client, catalog: tuple[Engine, ObjectStore, dict[str, Any]],
        database_url: str) -> None:
    _, store, crawled = catalog
    entries = query(database_url, "SELECT brand_slug, season_code FROM brand_runways"
                                  " ORDER BY brand_slug, season_code")
    listed = get(api, "/shows", limit=200)
    assert [(s["brand"], s["season_code"]) for s in listed["items"]] == entries
    assert listed["next_cursor"] is None
    assert crawled["pending"] not in entries
    get(api, f"/shows/{crawled['pending'][0]}/{crawled['pending'][1]}", status=404)

    brands = get(api, "/brands")["items"]
    assert [(b["slug"], b["shows"]) for b in brands] == query(
        database_url, "SELECT brand_slug, count(*) FROM brand_runways GROUP BY brand_slug"
                      " ORDER BY brand_slug")

    brand, season = entries[0]
    show = get(api, f"/shows/{brand}/{season}")
    keys = [k for (k,) in query(database_url,
                                "SELECT i.object_key FROM brand_runway_images i JOIN"
                                " brand_runways r ON r.id = i.runway_id WHERE r.brand_slug = :b"
                                " AND r.season_code = :s ORDER BY i.position",
                                b=brand, s=season)]
    assert [p["object_key"] for p in show["photos"]] == keys and keys
    assert show["photo_count"] == len(keys) and show["cover"] == keys[0]
    for photo in show["photos"][:3]:
        full = httpx.get(photo["url"])
        assert full.status_code == 200 and full.content == store.get(photo["object_key"])
        assert full.headers["content-type"].startswith("image/")
        assert "immutable" in full.headers["cache-control"]
        thumb = httpx.get(photo["thumbnail_url"])
        assert thumb.status_code == 200 and thumb.headers["content-type"].startswith("image/")
    assert httpx.get(show["cover_thumbnail_url"]).status_code == 200


def test_a_photo_only_a_draft_holds_is_never_served(
        api: httpx.Client, catalog: tuple[Engine, ObjectStore, dict[str, Any]],
        database_url: str) -> None:
    _, store, crawled = catalog
    brand, season = crawled["pending"]
    [(key,)] = query(database_url, "SELECT i.object_key FROM brand_runway_draft_images i JOIN"
                                   " brand_runway_drafts d ON d.id = i.draft_id WHERE"
                                   " d.brand_slug = :b AND d.season_code = :s"
                                   " AND i.position = 1", b=brand, s=season)
    assert store.get(key)  # stored, but not published
    for path in (f"/photos/{key}", f"/photos/{key}/thumbnail", "/photos/../../etc/passwd",
                 "/photos/" + "g" * 40):
        assert api.get(f"/api/v1{path}").status_code == 404


def test_street_albums_are_listed_and_filtered(api: httpx.Client, database_url: str) -> None:
    albums = query(database_url, "SELECT city, year, month FROM street_snaps"
                                 " ORDER BY city, year, month")
    assert albums
    listed = get(api, "/street")["items"]
    assert [(a["city"], a["year"], a["month"]) for a in listed] == albums
    city, year, month = albums[0]
    assert get(api, "/street", city=city, year=year)["items"]
    assert get(api, "/street", year=1999)["items"] == []
    album = get(api, f"/street/{city}/{year}/{month}")
    assert album["photo_count"] == len(album["photos"]) > 0
    assert httpx.get(album["photos"][0]["url"]).status_code == 200
    get(api, f"/street/{city}/{year}/13", status=404)


def test_filters_and_pages_answer_and_bad_parameters_are_refused(
        api: httpx.Client, database_url: str) -> None:
    [(brand, shows)] = query(database_url, "SELECT brand_slug, count(*) FROM brand_runways"
                                           " GROUP BY brand_slug ORDER BY brand_slug LIMIT 1")
    assert len(get(api, "/shows", brand=brand)["items"]) == shows
    [(year,)] = query(database_url, "SELECT min(year) FROM brand_runways")
    assert {s["year"] for s in get(api, "/shows", year=year)["items"]} == {year}
    seen: list[tuple[str, str]] = []
    cursor = None
    while True:
        page = get(api, "/shows", limit=1, **({"cursor": cursor} if cursor else {}))
        seen += [(s["brand"], s["season_code"]) for s in page["items"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == query(database_url, "SELECT brand_slug, season_code FROM brand_runways"
                                       " ORDER BY brand_slug, season_code")
    # A number is ASCII digits a 64-bit column holds: no superscript (str.isdigit says
    # yes, int no), no other script's digit, nothing past 64 bits (SQLite's overflow).
    for params in ({"year": "last"}, {"limit": "0"}, {"limit": "201"}, {"cursor": "abc"},
                   {"colour": "red"}, {"year": "\u00b2"}, {"year": "\u0663"},
                   {"year": "99999999999999999999999"}, {"limit": "\u00b2"}):
        assert "error" in get(api, "/shows", status=400, **params)
    # A NUL reached PostgreSQL (a 500 there): refused before any route, path or query.
    for path, params in (("/shows", {"brand": "x\x00"}), ("/shows", {"cursor": "\x00"}),
                         ("/shows/x%00/spring-2020-ready-to-wear", {})):
        answer = api.get(f"/api/v1{path}", params=params)
        assert answer.status_code == 400 and "control character" in answer.text, path
    assert api.get(f"/api/v1/street/paris/{2 ** 80}/1").status_code == 404
    # The fuzz's find (test_fuzz_api.py): 4,300 digits and more were a 500 (``int``'s limit
    # in the route's convertor); another script's digit is no year either.
    for year in ("9" * 5000, "\u0663", "-1"):
        assert api.get(f"/api/v1/street/paris/{year}/1").status_code == 404, year
    get(api, "/brands", status=400, brand="x")


def test_answers_are_cached_for_their_lifetime_and_revalidated_by_etag(
        catalog: tuple[Engine, ObjectStore, dict[str, Any]], database_url: str) -> None:
    engine, store, _ = catalog
    clock = Clock()
    with serve(create_api(engine, store, cache_s=30, clock=clock)) as url, \
            httpx.Client(base_url=url) as client:
        first = client.get("/api/v1/brands")
        assert first.headers["cache-control"] == "public, max-age=30"
        again = client.get("/api/v1/brands", headers={"If-None-Match": first.headers["etag"]})
        assert again.status_code == 304
        with engine.begin() as conn:
            insert_rows(conn, "brands", ("slug", "display_name"), [("zz-new", "ZZ New")])
            insert_rows(conn, "brand_runways", ("brand_slug", "season_code", "title", "year"),
                        [("zz-new", "spring-2030-ready-to-wear", "Spring 2030", 2030)])
        assert client.get("/api/v1/brands").content == first.content  # from memory
        clock.now += 31
        fresh = client.get("/api/v1/brands", headers={"If-None-Match": first.headers["etag"]})
        assert fresh.status_code == 200 and fresh.json()["items"][-1]["slug"] == "zz-new"


def test_a_configured_token_is_required(
        catalog: tuple[Engine, ObjectStore, dict[str, Any]]) -> None:
    engine, store, _ = catalog
    with serve(create_api(engine, store, token="s3cret")) as url:
        refused = httpx.get(f"{url}/api/v1/shows")
        assert refused.status_code == 401 and "s3cret" not in refused.text
        assert httpx.get(f"{url}/api/v1/shows",
                         headers={"Authorization": "Bearer wrong"}).status_code == 401
        answer = httpx.get(f"{url}/api/v1/shows", headers={"Authorization": "Bearer s3cret"})
        assert answer.status_code == 200
        # Issue 36: a shared cache must not hand an answer to a client without the token.
        show = answer.json()["items"][0]
        entry = httpx.get(f"{url}/api/v1/shows/{show['brand']}/{show['season_code']}",
                          headers={"Authorization": "Bearer s3cret"}).json()
        photo = httpx.get(entry["photos"][0]["url"],
                          headers={"Authorization": "Bearer s3cret"})
        for cached in (answer, photo):
            assert cached.headers["cache-control"].startswith("private, max-age=")
            assert cached.headers["vary"] == "Authorization"
    with serve(create_api(engine, store)) as url:
        open_answer = httpx.get(f"{url}/api/v1/shows")
        assert open_answer.headers["cache-control"].startswith("public, max-age=")
        assert "vary" not in open_answer.headers


def test_only_listed_host_names_are_answered_and_photo_urls_name_one(
        catalog: tuple[Engine, ObjectStore, dict[str, Any]]) -> None:
    """Issue 36: photo URLs were built from any Host, even one holding markup."""
    engine, store, _ = catalog
    with serve(create_api(engine, store, hosts=["127.0.0.1", "photos.example"])) as url:
        for host in ('evil.example', '"><script>alert(1)</script>', "photos.example@evil"):
            refused = httpx.get(f"{url}/api/v1/shows", headers={"Host": host})
            assert refused.status_code == 400 and "script" not in refused.text, host
        show = httpx.get(f"{url}/api/v1/shows").json()["items"][0]
        path = f"/api/v1/shows/{show['brand']}/{show['season_code']}"
        entry = httpx.get(f"{url}{path}", headers={"Host": "photos.example:8443"}).json()
        assert entry["photos"][0]["url"].startswith("http://photos.example:8443/api/v1/")
        entry = httpx.get(f"{url}{path}").json()
        assert entry["photos"][0]["url"].startswith(f"{url}/api/v1/photos/")
        slashed = httpx.get(f"{url}/api/v1/shows/", headers={"Host": "photos.example"})
        assert slashed.status_code == 404 and "location" not in slashed.headers


def test_the_openapi_document_names_every_route(api: httpx.Client) -> None:
    document = get(api, "/openapi.json")
    assert document == openapi_document() and document["openapi"] == "3.1.0"
    app = create_api(None, None)  # type: ignore[arg-type]  # routes only, nothing asked
    served = {route.path for route in app.routes  # type: ignore[attr-defined]
              if route.path.startswith("/api/")}  # the pages (pages.py) are no API
    assert served == set(document["paths"])


def test_the_address_api_serve_prints_says_what_the_api_serves(api: httpx.Client) -> None:
    """``GET /api/v1/``, the address ``api serve`` prints, was a plain-text 404."""
    index = get(api, "/")
    assert set(index["routes"]) == {f"{method.upper()} {path}"
                                    for path, methods in openapi_document()["paths"].items()
                                    for method in methods}
    assert index["routes"]["POST /api/v1/looks/search"] and index["catalog_pages"] == "/catalog/"


def test_it_pages_through_an_archive_of_26000_shows(tmp_path: Path, database_url: str
                                                     ) -> None:
    engine = catalog_engine(database_url)
    brands = [(f"designer-{n:04d}", f"Designer {n}") for n in range(1_893)]
    shows = [(brands[n % len(brands)][0], f"season-{n:05d}", f"Show {n}", 2000 + n % 26)
             for n in range(26_000)]
    with engine.begin() as conn:
        insert_rows(conn, "brands", ("slug", "display_name"), brands)
        insert_rows(conn, "brand_runways", ("brand_slug", "season_code", "title", "year"),
                    shows)
    store = open_store(f"file://{tmp_path / 'objects'}", home=tmp_path)
    seen: list[tuple[str, str]] = []
    with serve(create_api(engine, store)) as url, httpx.Client(base_url=url) as client:
        cursor, pages = None, 0
        while True:
            page = get(client, "/shows", limit=200, **({"cursor": cursor} if cursor else {}))
            seen += [(s["brand"], s["season_code"]) for s in page["items"]]
            pages += 1
            cursor = page["next_cursor"]
            if cursor is None:
                break
        brand_pages = get(client, "/brands", limit=200)
        assert brand_pages["next_cursor"] is not None
    assert pages == 130
    assert seen == sorted((brand, season) for brand, season, _, _ in shows)
