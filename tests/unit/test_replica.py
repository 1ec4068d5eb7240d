"""The offline Vogue Runway replica: real page format, photo bytes, faults, counters, gate.

One server serves the whole module (starting one takes milliseconds, but the photo cache
and rendered pages are worth sharing); an autouse fixture resets faults, counters and the
image gate so tests stay independent.
"""

from __future__ import annotations

import io
import json
import queue
import re
import signal
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from html import escape
from typing import Any

import httpx
import pytest
from PIL import Image, UnidentifiedImageError

from fashion_assets.replica import (
    HOSTILE_BRAND,
    PHOTO_FAULTS,
    ROBOTS_BLOCKED_BRAND,
    FaultPlan,
    ReplicaPhoto,
    ReplicaServer,
    ReplicaShow,
    ReplicaStats,
    build_site,
    photo_bytes,
    start_replica,
    with_changed_looks,
)
from fashion_assets.replica import images as replica_images
from fashion_assets.replica.images import HUGE_BODY_SIZE
from fashion_assets.replica.replies import Reply
from fashion_assets.replica.vogue_frame import image_url, original_url

STATE = re.compile(r"window\.__PRELOADED_STATE__\s*=")
SCRIPT = re.compile(r"<script[^>]*>(.*?)</script>", re.DOTALL)
PIL_FORMATS = {"jpeg": "JPEG", "png": "PNG", "webp": "WEBP"}


@pytest.fixture(scope="module")
def server() -> Iterator[ReplicaServer]:
    with start_replica(build_site(brands=4, shows_per_brand=4, photos_per_show=12)) as running:
        yield running


@pytest.fixture(autouse=True)
def clean(server: ReplicaServer) -> None:
    server.set_faults(FaultPlan())
    server.release_images()
    server.reset_stats()


@pytest.fixture
def client() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=5.0) as http:
        yield http


def decode_state(html: str) -> dict[str, Any]:
    """Decode the page state the way sources.md recommends: find the script by content,
    then ``raw_decode`` from the first ``{`` after the ``=``."""
    match = STATE.search(html)
    assert match is not None, "no state script"
    start = html.index("{", match.end())
    state, _ = json.JSONDecoder().raw_decode(html, start)
    return state


def fault_show(server: ReplicaServer) -> ReplicaShow:
    brand = server.site.brand(HOSTILE_BRAND)
    assert brand is not None
    return next(show for show in brand.shows if any(p.fault for p in show.photos))


def fault_photo(server: ReplicaServer, fault: str) -> ReplicaPhoto:
    return next(p for p in fault_show(server).photos if p.fault == fault)


def all_urls(server: ReplicaServer, photo: ReplicaPhoto) -> list[str]:
    sized = [image_url(server.cdn_url, photo, width) for width in photo.widths]
    commas = [url.replace("%2C", ",") for url in sized] + [url.replace(",", "%2C") for url in sized]
    return [*sized, *commas, original_url(server.cdn_url, photo)]


def largest_url(item: dict[str, Any]) -> str:
    sources = item["image"]["sources"]
    return max(sources.values(), key=lambda source: source["width"])["url"]


# -- pages ----------------------------------------------------------------------------------


def test_designer_page_has_escaped_state_with_documented_keys(
    server: ReplicaServer, client: httpx.Client
) -> None:
    brand = server.site.brands[1]
    html = client.get(f"{server.base_url}/fashion-shows/designer/{brand.slug}").text
    assert "\\u002F" in html
    assert html.count("<img ") >= 4
    content = decode_state(html)["transformed"]["runwayDesignerContent"]
    assert content["name"] == brand.name == "Agnès b."
    assert {"{", "}", ";"} <= set(content["body"])
    collections = content["designerCollections"]
    assert [c["hed"] for c in collections] == [show.title for show in brand.shows]
    assert [c["url"] for c in collections] == [show.path for show in brand.shows]
    assert all(c["url"].endswith("/agnes-b-") for c in collections)
    assert all(c["image"]["sources"] for c in collections)


def test_state_script_moves_and_is_spelled_differently_between_brands(
    server: ReplicaServer, client: httpx.Client
) -> None:
    positions, spellings = set(), set()
    for brand in server.site.brands:
        html = client.get(f"{server.base_url}{brand.path}").text
        scripts = SCRIPT.findall(html)
        assert sum("__PRELOADED_STATE__" in s for s in scripts) == 2  # the state and a decoy
        index = next(i for i, s in enumerate(scripts) if STATE.match(s))
        positions.add(index)
        spellings.add(re.match(r"window\.__PRELOADED_STATE__(\s*=\s*)", scripts[index])[1])
    assert len(positions) > 1
    assert len(spellings) > 1


def test_directory_groups_every_designer(server: ReplicaServer, client: httpx.Client) -> None:
    html = client.get(f"{server.base_url}/fashion-shows/designers").text
    groups = decode_state(html)["transformed"]["allRunwayDesigners"]["groupedLinks"]
    links = {link["url"]: link["text"] for group in groups for link in group["links"]}
    assert links == {brand.path: brand.name for brand in server.site.brands}
    assert [group["group"] for group in groups] == sorted(group["group"] for group in groups)


def test_show_page_collection_gallery_matches_model(
    server: ReplicaServer, client: httpx.Client
) -> None:
    first_titles = set()
    with_look_numbers: set[bool] = set()
    partial_sizes = 0
    for show in server.site.iter_shows():
        if show.page_fault or show.brand_slug == HOSTILE_BRAND:
            continue
        state = decode_state(client.get(f"{server.base_url}{show.path}").text)
        galleries = state["transformed"]["runwayShowGalleries"]["galleries"]
        first_titles.add(galleries[0]["title"])
        by_title = {gallery["title"]: gallery["items"] for gallery in galleries}
        looks = by_title["Collection"]
        assert [item["caption"] for item in looks] == [
            f"Look {n}" for n in range(1, len(show.photos) + 1)
        ]
        assert all(
            f"/photos/{photo.photo_id}/" in largest_url(item)
            for item, photo in zip(looks, show.photos, strict=True)
        )
        assert all(
            photo.file_name in largest_url(item)
            for item, photo in zip(looks, show.photos, strict=True)
        )
        partial_sizes += sum("xxl" not in item["image"]["sources"] for item in looks)
        side_urls = {
            largest_url(item)
            for title in ("Details", "Beauty", "Front Row")
            for item in by_title[title]
        }
        assert side_urls and not any(
            f"/photos/{p.photo_id}/" in url for url in side_urls for p in show.photos
        )
        assert [item["caption"] for item in by_title["Details"]] == [
            f"Detail Look {n}" for n in range(1, len(by_title["Details"]) + 1)
        ]
        with_look_numbers.add(all("lookNumber" in item for item in by_title["Details"]))
        content = state["transformed"]["runwayShowContent"]
        brand_name = server.site.brand(show.brand_slug).name
        designer_link = f'<a href="/fashion-shows/designer/{show.brand_slug}">'
        assert content["sectionHeader"]["hed"] == f"{designer_link}{escape(brand_name)}</a>"
        assert content["reviewTitle"] == f"{brand_name} {show.title}"
        assert {"{", "}", ";"} <= set(content["review"][1][1])
        day = show.event_date
        assert content["pubDate"] == f"{day:%B} {day.day}, {day.year}"
    assert "Collection" in first_titles and len(first_titles) > 1
    assert with_look_numbers == {True, False}
    assert partial_sizes > 0


def test_hostile_pages(server: ReplicaServer, client: httpx.Client) -> None:
    brand = server.site.brand(HOSTILE_BRAND)
    by_problem = {
        "video": next(s for s in brand.shows if s.video_only),
        "cut": next(s for s in brand.shows if s.page_fault == "truncated_state"),
        "none": next(s for s in brand.shows if s.page_fault == "no_state"),
        "long": next(s for s in brand.shows if len(s.title) > 100_000),
    }
    pages = {k: client.get(f"{server.base_url}{s.path}") for k, s in by_problem.items()}
    assert all(page.status_code == 200 for page in pages.values())
    video = decode_state(pages["video"].text)["transformed"]["runwayShowGalleries"]["galleries"]
    assert video and all(gallery["items"] == [] for gallery in video)
    with pytest.raises(json.JSONDecodeError):
        decode_state(pages["cut"].text)
    assert STATE.search(pages["none"].text) is None
    long_state = decode_state(pages["long"].text)["transformed"]["runwayShowContent"]
    assert len(long_state["reviewTitle"]) > 100_000
    assert "\x00" in long_state["review"][1][1] and "\x07" in long_state["review"][1][1]


def test_robots_txt_blocks_only_one_designer(server: ReplicaServer, client: httpx.Client) -> None:
    response = client.get(f"{server.base_url}/robots.txt")
    assert response.text == (
        f"User-agent: *\nDisallow: /fashion-shows/designer/{ROBOTS_BLOCKED_BRAND}\n"
    )
    assert server.stats().robots_requests == 1
    assert client.get(f"{server.base_url}/fashion-shows/designer/{ROBOTS_BLOCKED_BRAND}").is_success


def test_season_page_lists_every_show_of_its_season(
    server: ReplicaServer, client: httpx.Client
) -> None:
    season = server.site.brands[0].shows[0].season_slug
    html = client.get(f"{server.base_url}/fashion-shows/{season}").text
    groups = decode_state(html)["transformed"]["runwaySeasonContent"]["allShows"]
    listed = {link["url"] for group in groups for link in group["links"]}
    assert listed == {s.path for s in server.site.iter_shows() if s.season_slug == season}
    assert client.get(f"{server.base_url}/fashion-shows/fall-1850-couture").status_code == 404


def test_unknown_paths_are_404(server: ReplicaServer, client: httpx.Client) -> None:
    show = server.site.brands[0].shows[0]
    photo = show.photos[0]
    narrow = next(p for p in server.site.iter_photos() if len(p.widths) < 4 and not p.fault)
    urls = [
        f"{server.base_url}/nope",
        f"{server.base_url}/fashion-shows/designer/no-such-brand",
        f"{server.base_url}/fashion-shows/{show.season_slug}/agnes-b",
        f"{server.cdn_url}/photos/{photo.photo_id}/master/w_360,c_limit/wrong-name.jpg",
        f"{server.cdn_url}/photos/{'0' * 24}/master/pass/{photo.file_name}",
        image_url(server.cdn_url, narrow, 2560),
    ]
    assert [client.get(url).status_code for url in urls] == [404] * len(urls)


# -- photos ----------------------------------------------------------------------------------


def test_every_url_of_a_photo_serves_the_same_decodable_bytes(
    server: ReplicaServer, client: httpx.Client
) -> None:
    for image_format in ("jpeg", "png", "webp"):
        photo = next(
            p for p in server.site.iter_photos() if p.format == image_format and not p.fault
        )
        bodies = set()
        for url in all_urls(server, photo):
            response = client.get(url)
            assert response.status_code == 200, url
            assert response.headers["content-type"] == "image/jpeg"
            assert "max-age" in response.headers["cache-control"]
            bodies.add(response.content)
        (body,) = bodies
        assert photo.file_name.endswith(".jpg")
        assert Image.open(io.BytesIO(body)).format == PIL_FORMATS[image_format]
        assert body == photo_bytes(server.site, photo.photo_id)


def test_first_show_cover_is_look_one(server: ReplicaServer, client: httpx.Client) -> None:
    for brand in server.site.brands:
        first, *rest = brand.shows
        assert first.cover == first.photos[0]
        assert all(show.cover not in show.photos for show in rest)
    brand = server.site.brands[0]
    html = client.get(f"{server.base_url}{brand.path}").text
    cover = decode_state(html)["transformed"]["runwayDesignerContent"]["designerCollections"][0]
    url = cover["image"]["sources"]["sm"]["url"]
    look_one = image_url(
        server.cdn_url, brand.shows[0].photos[0], brand.shows[0].photos[0].widths[-1]
    )
    assert url != look_one
    assert client.get(url).content == client.get(look_one).content


# The faults whose served bytes this test pins; every photo fault (these included) is pinned
# end to end, by what a crawl records, in tests/integration/test_hostile_input.py.
SERVED_FAULTS = ("gone", "html", "empty", "truncated", "bomb", "huge", "redirect_offsite",
                 "redirect_private", "not_image")


@pytest.mark.parametrize("fault", SERVED_FAULTS)
def test_hostile_photo_faults(server: ReplicaServer, client: httpx.Client, fault: str) -> None:
    photo = fault_photo(server, fault)
    url = image_url(server.cdn_url, photo, photo.widths[0])
    if fault == "truncated":
        with pytest.raises(httpx.RemoteProtocolError):
            client.get(url)
        return
    if fault == "huge":
        with client.stream("GET", url) as response:
            assert int(response.headers["content-length"]) == HUGE_BODY_SIZE
            first = next(response.iter_bytes())
            assert first.startswith(b"\xff\xd8")
        return
    response = client.get(url)
    body = response.content
    if fault == "gone":
        assert {client.get(u).status_code for u in all_urls(server, photo)} == {404}
    elif fault == "html":
        assert response.status_code == 200 and body.startswith(b"<!DOCTYPE html>")
    elif fault == "empty":
        assert response.status_code == 200 and body == b""
    elif fault == "bomb":
        assert body.startswith(b"\x89PNG\r\n\x1a\n") and len(body) < 10_000
        assert struct.unpack(">II", body[16:24]) == (30_000, 30_000)
    elif fault.startswith("redirect"):
        host = "169.254.169.254" if fault == "redirect_offsite" else "10.0.0.1"
        assert response.status_code == 302
        assert httpx.URL(response.headers["location"]).host == host
    else:
        assert fault == "not_image" and response.status_code == 200 and body
        with pytest.raises(UnidentifiedImageError):
            Image.open(io.BytesIO(body))


# -- counters and faults ----------------------------------------------------------------------


def test_counters_count_pages_images_status_and_bytes(
    server: ReplicaServer, client: httpx.Client
) -> None:
    show = server.site.brands[0].shows[0]
    photo = show.photos[1]
    client.get(f"{server.base_url}{show.path}")
    client.get(f"{server.base_url}/nope")
    client.get(image_url(server.cdn_url, photo, 360))
    client.get(image_url(server.cdn_url, photo, 1024))
    client.get(f"{server.base_url}/__replica/stats")
    stats = server.stats()
    assert (stats.page_requests, stats.image_requests, stats.robots_requests) == (2, 2, 0)
    assert stats.by_status == {200: 3, 404: 1}
    assert stats.by_path[show.path] == 1
    assert stats.bytes_sent > 2 * len(photo_bytes(server.site, photo.photo_id))
    server.reset_stats()
    assert server.stats() == ReplicaStats()


def test_error_5xx_fails_every_request(server: ReplicaServer, client: httpx.Client) -> None:
    server.set_faults(FaultPlan(error_5xx=1.0))
    photo = server.site.brands[0].shows[0].photos[0]
    urls = [
        f"{server.base_url}/robots.txt",
        f"{server.base_url}{server.site.brands[0].path}",
        image_url(server.cdn_url, photo, 360),
    ] * 5
    assert {client.get(url).status_code for url in urls} <= {500, 502, 503}


def test_429_sends_retry_after_and_counts_requests_inside_the_window(
    server: ReplicaServer, client: httpx.Client
) -> None:
    server.set_faults(FaultPlan(rate_429=1.0, retry_after_s=0.2, in_flight_grace_s=0.0))
    response = client.get(f"{server.base_url}/robots.txt")
    assert response.status_code == 429
    assert response.headers["retry-after"] == "1"
    assert server.stats().retry_after_violations == 0
    client.get(f"{server.base_url}/fashion-shows/designers")  # the site said wait: a violation
    photo = server.site.brands[0].shows[0].photos[0]
    client.get(image_url(server.cdn_url, photo, 360))  # the CDN gave no window yet
    assert server.stats().retry_after_violations == 1


def test_requests_right_after_a_429_count_as_in_flight_not_as_violations(
    server: ReplicaServer, client: httpx.Client
) -> None:
    server.set_faults(FaultPlan(rate_429=1.0, retry_after_s=1, in_flight_grace_s=30))
    client.get(f"{server.base_url}/robots.txt")
    client.get(f"{server.base_url}/fashion-shows/designers")
    stats = server.stats()
    assert (stats.retry_after_violations, stats.in_flight_after_429) == (0, 1)


def test_drop_truncate_and_hang(server: ReplicaServer, client: httpx.Client) -> None:
    url = f"{server.base_url}/fashion-shows/designers"
    server.set_faults(FaultPlan(drop=1.0))
    with pytest.raises(httpx.RemoteProtocolError):
        client.get(url)
    server.set_faults(FaultPlan(truncate=1.0))
    with pytest.raises(httpx.RemoteProtocolError):
        client.get(url)
    server.set_faults(FaultPlan(timeout=1.0, hang_s=0.5, rate_429=1.0))
    with pytest.raises(httpx.ReadTimeout):
        client.get(url, timeout=0.1)
    # The client hung up during the hang: it gets no answer, so no Retry-After window either.
    deadline = time.monotonic() + 10
    while server.stats().dropped < 2:
        assert time.monotonic() < deadline, "the hung request never finished"
        time.sleep(0.02)  # polling a real condition, not a synchronisation
    stats = server.stats()
    assert (stats.dropped, stats.truncated, stats.by_status.get(429, 0)) == (2, 1, 0)


def test_faults_are_reproducible_from_the_seed(server: ReplicaServer, client: httpx.Client) -> None:
    def statuses() -> list[int]:
        server.set_faults(FaultPlan(error_5xx=0.5, seed=7))
        return [client.get(f"{server.base_url}/robots.txt").status_code for _ in range(20)]

    first = statuses()
    assert first == statuses()
    assert 200 in first and set(first) - {200}


def test_hold_blocks_image_requests_until_release(
    server: ReplicaServer, client: httpx.Client
) -> None:
    photos = server.site.brands[0].shows[0].photos[:5]
    results: queue.Queue[int] = queue.Queue()

    def fetch(photo: ReplicaPhoto) -> None:
        with httpx.Client(timeout=10.0) as own:
            results.put(own.get(image_url(server.cdn_url, photo, 360)).status_code)

    server.hold_images(after=2)
    threads = [threading.Thread(target=fetch, args=(photo,)) for photo in photos]
    for thread in threads:
        thread.start()
    assert server.wait_held(3, timeout=5.0)
    assert [results.get(timeout=5.0) for _ in range(2)] == [200, 200]
    assert server.held_count() == 3 and results.empty()
    assert server.stats().held == 3
    server.release_images()
    for thread in threads:
        thread.join(timeout=5.0)
    assert [results.get_nowait() for _ in range(3)] == [200, 200, 200]
    assert server.held_count() == 0


class _PhotosOnly:
    """A further site that serves only photos: its own kind never says "robots"."""

    def kind(self, path: str) -> str:
        return "image"

    def reply(self, path: str, origin_url: str) -> Reply:
        return Reply(200, b"User-agent: *\nAllow: /\n", "text/plain")


def test_no_origins_robots_txt_is_ever_held_nor_counted_as_a_page_or_a_photo() -> None:
    """A crawler reads each origin's robots.txt before its first page or photo there: a test
    holding photos must hold a photo, not that read, and a photo count must not include it."""
    server = start_replica(build_site(brands=1, shows_per_brand=1, photos_per_show=2),
                           extra_sites={"photos": _PhotosOnly()})
    try:
        server.hold_images(after=0)
        origins = [server.base_url, server.cdn_url, server.impression_url,
                   server.impression_cdn_url, server.origin_url("photos")]
        with httpx.Client(timeout=5.0) as client:
            statuses = [client.get(f"{origin}/robots.txt").status_code for origin in origins]
        stats = server.stats()
        server.release_images()
    finally:
        server.stop()
    assert set(statuses) <= {200, 404}  # answered, not held (a CDN has no robots.txt: 404)
    assert (stats.robots_requests, stats.image_requests, stats.page_requests) == (5, 0, 0)
    assert stats.held == 0


def test_control_endpoints(server: ReplicaServer, client: httpx.Client) -> None:
    base = server.base_url
    assert client.post(f"{base}/__replica/faults", json={"error_5xx": 1.0}).status_code == 200
    assert client.get(f"{base}/robots.txt").status_code >= 500
    assert client.post(f"{base}/__replica/faults", json={"eror_5xx": 1.0}).status_code == 400
    assert client.post(f"{base}/__replica/faults", json={}).status_code == 200
    stats = ReplicaStats.from_dict(client.get(f"{base}/__replica/stats").json())
    assert stats.robots_requests == 1 and stats.page_requests == 0
    assert sum(stats.by_status.values()) == 1 and min(stats.by_status) >= 500
    assert client.post(f"{base}/__replica/reset").status_code == 200
    assert client.get(f"{base}/__replica/stats").json()["robots_requests"] == 0
    assert client.post(f"{base}/__replica/hold", params={"after": 0}).status_code == 200
    photo = server.site.brands[0].shows[0].photos[0]
    done = threading.Event()
    worker = threading.Thread(
        target=lambda: (httpx.get(image_url(server.cdn_url, photo, 360)), done.set())
    )
    worker.start()
    assert server.wait_held(1, timeout=5.0) and not done.is_set()
    assert client.post(f"{base}/__replica/release").status_code == 200
    assert done.wait(timeout=5.0)
    worker.join()
    assert client.post(f"{base}/__replica/hold").status_code == 400


def test_control_endpoint_gives_the_arrival_times(server: ReplicaServer,
                                                  client: httpx.Client) -> None:
    """A benchmark in another process reads when each page arrived, as a test in this one
    reads ``ReplicaServer.arrivals``."""
    base = server.base_url
    client.post(f"{base}/__replica/reset")
    for brand in server.site.brands[:3]:
        client.get(f"{base}/fashion-shows/designer/{brand.slug}")
    arrivals = client.get(f"{base}/__replica/arrivals",
                          params={"origin": "site", "kind": "page"}).json()
    assert arrivals == server.arrivals("site", "page") and len(arrivals) == 3
    assert arrivals == sorted(arrivals)
    assert client.get(f"{base}/__replica/arrivals",
                      params={"origin": "site", "kind": "robots"}).json() == []
    assert client.get(f"{base}/__replica/arrivals").status_code == 400


# -- the model -------------------------------------------------------------------------------


def test_site_is_deterministic_and_photos_are_distinct() -> None:
    site = build_site(seed=3)
    assert site == build_site(seed=3)
    assert build_site(seed=4) != site
    photo = next(p for p in site.iter_photos() if not p.fault)
    before = photo_bytes(site, photo.photo_id)
    replica_images._encoded.cache_clear()
    assert photo_bytes(build_site(seed=3), photo.photo_id) == before
    goods = [p for p in site.iter_photos() if not p.fault][:60]
    assert len({photo_bytes(site, p.photo_id) for p in goods}) == len(goods)


def test_site_shape() -> None:
    site = build_site(brands=46, shows_per_brand=6, photos_per_show=10, hostile=False)
    names = [brand.name for brand in site.brands]
    assert {"Agnès b.", "Viktor & Rolf", "A.P.C."} <= set(names) and "Atelier 4" in names
    assert site.brand("atelier-4") is not None and site.brand(HOSTILE_BRAND) is None
    for brand in site.brands:
        assert len({show.title for show in brand.shows}) == len(brand.shows) == 6
        dates = [show.event_date for show in brand.shows]
        assert dates == sorted(dates, reverse=True)
        assert sum(len(show.photos) for show in brand.shows) == 60
    counts = {len(show.photos) for show in site.iter_shows()}
    assert len(counts) > 1 and min(counts) >= 8
    formats = [photo.format for photo in site.iter_photos()]
    assert formats.count("jpeg") > formats.count("webp") > 0 and "png" in formats
    vogue = [p for p in site.iter_photos() if site.impression.photo(p.photo_id) is None]
    assert all(re.fullmatch(r"[0-9a-f]{24}", p.photo_id) for p in vogue)  # theImpression: 32
    assert site.photo(site.brands[0].shows[0].photos[0].photo_id) is not None


def test_hostile_site_covers_every_fault() -> None:
    site = build_site()
    brand = site.brand(HOSTILE_BRAND)
    assert brand is not None and site.brand(ROBOTS_BLOCKED_BRAND) is not None
    faults = [photo.fault for show in brand.shows for photo in show.photos]
    assert sorted(f for f in faults if f) == sorted(PHOTO_FAULTS)
    assert faults.count(None) > len(PHOTO_FAULTS)
    normal = [p for b in site.brands if b.slug != HOSTILE_BRAND for s in b.shows for p in s.photos]
    assert not any(photo.fault for photo in normal)


def test_the_benchmark_site_has_the_planned_distinct_looks() -> None:
    site = build_site(brands=20, shows_per_brand=30, photos_per_show=40, hostile=False)
    looks = [photo.photo_id for show in site.iter_shows() for photo in show.photos]
    assert len(looks) == len(set(looks)) == 24_000


def test_changed_looks_change_those_photos_only() -> None:
    """A look taken down or replaced at the source, as the store heal's tests need it."""
    site = build_site(brands=2, shows_per_brand=2, photos_per_show=3, hostile=False, seed=5)
    first, second, third = site.brands[0].shows[0].photos
    other_format = "png" if second.format != "png" else "jpeg"

    changed = with_changed_looks(site, {first.photo_id: {"fault": "gone"},
                                        second.photo_id: {"format": other_format}})

    assert changed.photo(first.photo_id) == replace(first, fault="gone")
    assert photo_bytes(changed, second.photo_id) != photo_bytes(site, second.photo_id)
    assert photo_bytes(changed, third.photo_id) == photo_bytes(site, third.photo_id)
    assert [b.slug for b in changed.brands] == [b.slug for b in site.brands]
    assert changed.brands[1] == site.brands[1] and changed.impression == site.impression


def test_command_line_serves_until_sigterm() -> None:
    process = subprocess.Popen(
        # Every origin on a free port: a developer's replica on the default ports (the
        # README's Dagster UI section) must not make this test fail.
        [sys.executable, "-m", "fashion_assets", "replica", "serve", "--port", "0",
         "--cdn-port", "0", "--impression-port", "0", "--impression-cdn-port", "0",
         "--brands", "1", "--no-hostile"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        urls = json.loads(process.stdout.readline())
        assert httpx.get(f"{urls['base_url']}/robots.txt").text == "User-agent: *\nDisallow:\n"
        assert httpx.get(f"{urls['cdn_url']}/photos/x").status_code == 404
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=10) == 0
    finally:
        process.kill()
        process.wait()
