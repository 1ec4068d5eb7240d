"""Look searches sent at once (``catalog_api/search_gate.py``): each answered with its look
or refused 503 with ``Retry-After``, never failed; a place taken only once a body arrived
whole; and a burst of large PNGs bounded in the memory of the API's own process.

The catalog holds one promoted show of the replica (tests/looks_catalog.py), on SQLite and
PostgreSQL; theImpression's copies of its looks are what is searched for. The API is
served as ``api serve`` serves it (uvicorn with the request deadlines of
``review_app/server.py``), in this process, and for the memory bound as the command itself.
"""

from __future__ import annotations

import json
import re
import socket
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from sqlalchemy import Engine

from bench.search_burst import burst, flat_png, served_api, small_catalog
from bench.sign_in_burst import memory_mb
from fashion_assets.catalog_api import create_api
from fashion_assets.catalog_api.pages import BROWSE
from fashion_assets.catalog_api.search_gate import RETRY_AFTER_S, SEARCHES_ADMITTED
from fashion_assets.replica.images import photo_body
from fashion_assets.replica.site import RESEMBLANCE_SAME, ReplicaPhoto
from fashion_assets.resources import catalog_engine
from fashion_assets.review_app.server import timed_config
from fashion_assets.storage import ObjectStore, open_store
from tests.integration.test_review_app import serve
from tests.looks_catalog import SHOWS, add_draft, gallery_of, key_of, position_of, promote_approved

SEARCH = "/api/v1/looks/search"
SHOW = SHOWS[1]
# 16 flat PNGs of 12.5 MP at once: each some 50 MB once decoded (RGB, and its grayscale
# copy). The API's memory may grow by this much: two decodes at once and change, where all
# 16 at once took it from 83 MB to 849 MB. (A 50 MP PNG, the pixel cap, is 200 MB
# decoded: python -m bench.search_burst; it would make this test four times as slow.)
BURST_PIXELS = (5_000, 2_500)
BURST_BOUND_MB = 400


@pytest.fixture
def catalog(tmp_path: Path, database_url: str) -> tuple[Engine, ObjectStore]:
    engine = catalog_engine(database_url)
    store = open_store(f"file://{tmp_path / 'objects'}", home=tmp_path)
    add_draft(engine, store, "vogue", SHOW, SHOW.photos, "approved")
    promote_approved(engine, store)
    return engine, store


@pytest.fixture
def engine(catalog: tuple[Engine, ObjectStore]) -> Engine:
    return catalog[0]


@pytest.fixture
def url(catalog: tuple[Engine, ObjectStore]) -> Iterator[str]:
    with serve(create_api(*catalog), timed_config) as url:
        yield url


def copies() -> list[ReplicaPhoto]:
    """theImpression's copies of the show's looks: each finds its look first."""
    return [p for p in gallery_of(SHOW).photos if p.resemblance == RESEMBLANCE_SAME]


def look_of(engine: Engine, copy: ReplicaPhoto) -> int:
    """The position in the show of the look ``copy`` shows again."""
    vogue = {p.photo_id: p for p in SHOW.photos}
    return position_of(engine, SHOW, key_of(vogue[copy.look_of]))


def first_look(answer: httpx.Response) -> int | None:
    """The position of the first look an answer names, from the JSON or from the page."""
    if answer.headers["content-type"].startswith("application/json"):
        looks = answer.json()["looks"]
        return looks[0]["position"] if looks else None
    found = re.search(rf'href="{BROWSE}/shows/[^"#]+#look-(\d+)"', answer.text)
    return int(found.group(1)) if found else None


def assert_refused_busy(answer: httpx.Response) -> None:
    assert answer.status_code == 503, answer.text
    assert answer.headers["retry-after"] == str(RETRY_AFTER_S)
    assert answer.headers["cache-control"] == "no-store"
    if answer.headers["content-type"].startswith("application/json"):
        assert answer.json()["reason"] == "busy"
    else:
        assert 'id="search-error"' in answer.text and "try again" in answer.text


@pytest.mark.parametrize("at_once", [16, 32])
def test_searches_sent_at_once_are_each_answered_with_their_look_or_refused(
        engine: Engine, url: str, at_once: int) -> None:
    """Half by the JSON route, half by the browse page's form. The first
    ``SEARCHES_ADMITTED`` to arrive are always taken on, so that many at least are 200."""
    photos = [copies()[n % len(copies())] for n in range(at_once)]

    def send(n: int) -> httpx.Response:
        body = photo_body(photos[n])
        if n % 2:
            return httpx.post(f"{url}{BROWSE}/looks/search", files={"photo": ("a.jpg", body)},
                              timeout=60)
        return httpx.post(f"{url}{SEARCH}", content=body, timeout=60,
                          headers={"Content-Type": "image/jpeg"})

    with ThreadPoolExecutor(at_once) as pool:
        answers = list(pool.map(send, range(at_once)))
    for photo, answer in zip(photos, answers, strict=True):
        if answer.status_code == 503:
            assert_refused_busy(answer)
        else:
            assert answer.status_code == 200, answer.text
            assert first_look(answer) == look_of(engine, photo), photo
    statuses = Counter(answer.status_code for answer in answers)
    assert statuses[200] >= SEARCHES_ADMITTED, statuses


def slow_upload(url: str, body: bytes) -> socket.socket:
    """A search whose upload has arrived in part: its head, and half its body."""
    address = urlsplit(url)
    sock = socket.create_connection((address.hostname, address.port), timeout=30)
    sock.sendall(f"POST {SEARCH} HTTP/1.1\r\nHost: {address.netloc}\r\n"
                 f"Content-Type: image/jpeg\r\nContent-Length: {len(body)}\r\n"
                 "Connection: close\r\n\r\n".encode() + body[:len(body) // 2])
    return sock


def finish(sock: socket.socket, body: bytes) -> tuple[int, bytes]:
    """The rest of a slow upload's body sent; its answer's status and body."""
    sock.sendall(body[len(body) // 2:])
    received = b""
    while chunk := sock.recv(65536):
        received += chunk
    sock.close()
    head, _, content = received.partition(b"\r\n\r\n")
    return int(head.split()[1]), content


def test_uploads_still_arriving_hold_the_places_but_none_to_decode(
        engine: Engine, url: str) -> None:
    """``SEARCHES_ADMITTED`` uploads still arriving hold every place: one more search is
    refused at once, before its body is read. Once one of them is answered, a search is
    answered at once: the others, still arriving, hold no place to decode. Then each of
    them is answered with its look."""
    photo = copies()[0]
    body = photo_body(photo)
    held = [slow_upload(url, body) for _ in range(SEARCHES_ADMITTED)]
    deadline = time.monotonic() + 10
    with httpx.Client(base_url=url, timeout=10) as client:
        while True:  # until the server has taken on every slow upload
            answer = client.post(SEARCH, content=body, headers={"Content-Type": "image/jpeg"})
            if answer.status_code != 200 or time.monotonic() > deadline:
                break
        assert_refused_busy(answer)
        assert_refused_busy(client.post(f"{BROWSE}/looks/search",
                                        files={"photo": ("a.jpg", body)}))
        assert finish(held.pop(), body)[0] == 200
        answer = client.post(SEARCH, content=body, headers={"Content-Type": "image/jpeg"})
        assert answer.status_code == 200 and first_look(answer) == look_of(engine, photo)
    for sock in held:
        status, content = finish(sock, body)
        assert status == 200, content
        assert json.loads(content)["looks"][0]["position"] == look_of(engine, photo)


def test_a_burst_of_large_pngs_stays_within_the_apis_memory_bound(tmp_path: Path) -> None:
    """16 flat-colour PNGs at once through ``api serve``: a few dozen KB each on the wire,
    decoded whole (Pillow has no reduced decode for a PNG). Two are decoded at a time: the
    process's high-water mark stays within ``BURST_BOUND_MB`` of its idle figure, and every
    search is answered."""
    png = flat_png(*BURST_PIXELS)
    with served_api(small_catalog(tmp_path)) as (api_url, pid):
        idle = memory_mb(pid, "VmRSS")
        statuses = burst(api_url, [png] * 16, "image/png")
        peak = memory_mb(pid, "VmHWM")
    assert statuses == Counter({200: 16})
    assert peak - idle < BURST_BOUND_MB, (idle, peak)

