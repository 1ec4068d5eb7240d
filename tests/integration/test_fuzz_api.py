"""Fuzzing the read API (issue 36): hostile values in every query parameter, path segment
and cursor of every route, and hostile uploads to the look search, sent byte for byte to
the real server (uvicorn on loopback) on SQLite and PostgreSQL.

Every answer is below 500 and carries no traceback, and the catalog is as it was after
each request (the API only reads). Cursors are the API's own, hostile text, and URL-safe
base64 of hostile JSON (numbers past 64 bits, lone surrogates, controls, nesting), since a
cursor that decodes is what reaches the query. How many examples: ``tests/fuzz.py``; the
long run: docs/reliability.md, "Fuzzing".
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from sqlalchemy import Engine, text

from fashion_assets.catalog.published import ALBUM_FILTERS, SHOW_FILTERS
from fashion_assets.catalog.sql import insert_rows
from fashion_assets.catalog_api import create_api
from fashion_assets.domain.paging import encode_cursor
from fashion_assets.resources import catalog_engine
from fashion_assets.storage import object_key, open_store
from tests.fuzz import (
    check_answer,
    encoded,
    example_done,
    fuzz_log,
    fuzzed,
    hostile_text,
    path_segment,
    query_string,
    send,
    snapshot,
)
from tests.integration.test_review_app import png, serve

pytestmark = pytest.mark.usefixtures("fuzz_log")
__all__ = ["fuzz_log"]  # the fixture, imported for pytest to find

TABLES = ("brands", "brand_runways", "brand_runway_images", "cities", "street_snaps",
          "street_snap_images")
BRANDS = ("chloe", "dior")
SEASONS = ("spring-2020-ready-to-wear", "fall-2021-menswear")
CITY = "fuzz-city"


@dataclass
class Api:
    url: str
    engine: Engine
    keys: tuple[str, ...]
    cursors: tuple[str, ...]  # cursors the API could give: real keys of each listing

    def snapshot(self) -> dict[str, list[tuple[Any, ...]]]:
        return snapshot(self.engine, TABLES)

    def get(self, target: bytes | str) -> int:
        """GET ``target``; its answer checked, and the catalog unchanged by it."""
        before = self.snapshot()
        status, answer = send(self.url, "GET", target)
        shown = target if isinstance(target, str) else target.decode("latin-1")
        check_answer(status, answer, f"GET {shown[:300]}")
        assert self.snapshot() == before, f"GET {shown[:300]}: HTTP {status} wrote"
        return status


@pytest.fixture
def api(database_url: str, tmp_path: Path) -> Iterator[Api]:
    """Two brands of two shows each and a street album, every entry with two photos."""
    engine = catalog_engine(database_url)
    store = open_store(f"file://{tmp_path / 'objects'}", home=tmp_path)
    photos = [png(seed) for seed in range(1, 11)]
    keys = [object_key(data) for data in photos]
    for key, data in zip(keys, photos, strict=True):
        store.put(key, data, "image/png")
    shows = [(brand, season, f"{season} by {brand}", 2020 + n, "spring")
             for n, (brand, season) in enumerate((b, s) for b in BRANDS for s in SEASONS)]
    with engine.begin() as conn:
        insert_rows(conn, "brands", ("slug", "display_name"), [(b, b.title()) for b in BRANDS])
        insert_rows(conn, "brand_runways", ("brand_slug", "season_code", "title", "year",
                                            "season"), shows)
        ids = [row[0] for row in conn.execute(text("SELECT id FROM brand_runways ORDER BY id"))]
        insert_rows(conn, "brand_runway_images", ("runway_id", "position", "object_key",
                                                  "content_type", "byte_size"),
                    [(runway, n + 1, keys[2 * i + n], "image/png", len(photos[2 * i + n]))
                     for i, runway in enumerate(ids) for n in range(2)])
        insert_rows(conn, "cities", ("slug", "display_name"), [(CITY, "Fuzz City")])
        insert_rows(conn, "street_snaps", ("city", "year", "month", "title"),
                    [(CITY, 2026, 2, "Street style")])
        [snap] = conn.execute(text("SELECT id FROM street_snaps")).scalars()
        insert_rows(conn, "street_snap_images", ("snap_id", "position", "object_key",
                                                 "content_type", "byte_size"),
                    [(snap, n + 1, keys[8 + n], "image/png", len(photos[8 + n]))
                     for n in range(2)])
    cursors = (encode_cursor(["chloe"]), encode_cursor(["chloe", SEASONS[0]]),
               encode_cursor([CITY, 2026, 2]), encode_cursor(["dior", 2 ** 63 - 1]))
    with serve(create_api(engine, store)) as url:
        yield Api(url, engine, tuple(keys), cursors)
    engine.dispose()


JSON_LEAF = st.one_of(st.none(), st.booleans(), st.integers(-(2 ** 80), 2 ** 80),
                      st.floats(), hostile_text(*BRANDS, *SEASONS, CITY),
                      st.sampled_from(("\ud800", "\udfff", "a\ud83d", "\x00")))
HOSTILE_JSON = st.recursive(JSON_LEAF, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=5), inner, max_size=3)),
    max_leaves=8)


@st.composite
def cursor(draw: st.DrawFn, known: tuple[str, ...]) -> str:
    """A cursor as it is sent: the API's own, hostile text, or base64 of hostile JSON
    (lists of a listing's length mostly: what gets past the shape check)."""
    kind = draw(st.sampled_from(("known", "text", "json", "json", "json")))
    if kind == "known":
        return draw(st.sampled_from(known))
    if kind == "text":
        return draw(encoded())
    value = draw(st.one_of(st.lists(JSON_LEAF, min_size=1, max_size=3), HOSTILE_JSON))
    raw = json.dumps(value, ensure_ascii=draw(st.booleans())).encode("utf-8", "surrogatepass")
    encoded_json = base64.urlsafe_b64encode(raw).decode()
    return encoded_json.rstrip("=") if draw(st.booleans()) else encoded_json.replace("=", "%3D")


@st.composite
def listing_query(draw: st.DrawFn, names: tuple[str, ...], api: Api) -> str:
    """A listing's query: its filters, limit and cursor (any of them repeated) and others,
    with hostile values."""
    words = (*BRANDS, CITY, "spring", "2020", "2026", "1", "200", "201", "0")
    pairs = draw(st.lists(st.tuples(st.one_of(st.sampled_from((*names, "limit", "cursor")),
                                              encoded()),
                                    encoded(*words)), max_size=5))
    if draw(st.booleans()):
        pairs.append(("cursor", draw(cursor(api.cursors))))
    return "&".join(f"{name}={value}" for name, value in pairs)


LISTINGS = {"/brands": (), "/shows": tuple(SHOW_FILTERS), "/street": tuple(ALBUM_FILTERS)}


def test_every_listing_takes_any_filter_limit_and_cursor(api: Api) -> None:
    @fuzzed
    @given(data=st.data(), listing=st.sampled_from(sorted(LISTINGS)))
    @example(data=None, listing="/shows?cursor=WyJcdWQ4MDAiLCAiYSJd")  # a lone surrogate
    def check(data: st.DataObject | None, listing: str) -> None:
        if data is None:  # an explicit example: the target as written
            api.get(f"/api/v1{listing}")
        else:
            query = data.draw(listing_query(LISTINGS[listing], api))
            api.get(f"/api/v1{listing}?{query}" if query else f"/api/v1{listing}")
        example_done()

    check()


ENTRY_ROUTES = ("/shows/{0}/{1}", "/street/{0}/{1}/{2}", "/photos/{0}", "/photos/{0}/thumbnail",
                "/openapi.json", "/{0}", "/shows/{0}", "/street/{0}/{1}")


def test_every_entry_and_photo_takes_any_path_segment(api: Api) -> None:
    words = (*BRANDS, *SEASONS, CITY, *api.keys, "2026", "2", "..", "%2e%2e", "%2f")
    numbers = st.one_of(st.sampled_from(("2026", "2", "0", "13", str(2 ** 63), str(2 ** 64),
                                         "9" * 5000)), path_segment())

    @fuzzed
    @given(route=st.sampled_from(ENTRY_ROUTES), first=path_segment(*words),
           second=st.one_of(path_segment(*words), numbers), third=numbers,
           query=st.one_of(st.just(""), encoded()))
    @example(route="/street/{0}/{1}/{2}", first=CITY, second="9" * 5000, third="2", query="")
    def check(route: str, first: str, second: str, third: str, query: str) -> None:
        path = "/api/v1" + route.format(first, second, third)
        api.get(f"{path}?{query}" if query else path)
        example_done()

    check()


CONTENT_TYPES = ("image/jpeg", "image/png", "application/octet-stream", "multipart/form-data",
                 "multipart/form-data; boundary=b", "multipart/form-data; boundary=",
                 "text/html", "")


@st.composite
def upload(draw: st.DrawFn) -> tuple[str, bytes]:
    """A look search's body and its Content-Type: a photo cut, patched or padded, bytes of
    any kind, or a multipart form of them with hostile framing and field names."""
    photo = bytearray(png(draw(st.integers(1, 50))))
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(photo) - 1))
        photo[at:at + draw(st.integers(0, 8))] = draw(st.binary(max_size=8))
    data = draw(st.one_of(st.just(bytes(photo)), st.binary(max_size=300),
                          st.just(bytes(photo[:draw(st.integers(0, len(photo)))]))))
    kind = draw(st.one_of(st.sampled_from(CONTENT_TYPES), encoded()))
    if kind.startswith("multipart") and draw(st.booleans()):
        name = draw(st.sampled_from(("photo", "photo", "other", "")))
        header = draw(st.sampled_from((
            f'Content-Disposition: form-data; name="{name}"; filename="a.png"',
            f'Content-Disposition: form-data; name="{name}"', "Content-Type: image/png", "")))
        parts = [b"--b\r\n" + header.encode() + b"\r\n\r\n" + data + b"\r\n"]
        data = b"".join(parts * draw(st.integers(1, 3))) + draw(st.sampled_from(
            (b"--b--\r\n", b"--b", b"", b"--c--\r\n")))
    return kind, data


def test_the_look_search_takes_any_upload(api: Api) -> None:
    """Never a 500: every body is answered 200, 400 or 413, and nothing is written."""
    @fuzzed
    @given(sent=upload(), query=st.one_of(st.just(""), query_string(("limit",),
                                                                    ("1", "50", "51", "0"))))
    def check(sent: tuple[str, bytes], query: str) -> None:
        kind, body = sent
        before = api.snapshot()
        target = "/api/v1/looks/search" + (f"?{query}" if query else "")
        status, answer = send(api.url, "POST", target,
                              {"Content-Type": kind} if kind else None, body)
        check_answer(status, answer, f"POST {target} {kind!r} {body[:80]!r}")
        assert status in (200, 400, 413), (status, answer)
        assert api.snapshot() == before
        example_done()

    check()
