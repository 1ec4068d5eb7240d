"""The guarded HTTP client against the replica's real server and its switchable faults."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from fashion_assets.crawl.http import Fetched, Fetcher, HttpPolicy
from fashion_assets.crawl.robots import ROBOTS_UNREADABLE_RETRY_S
from fashion_assets.crawl.windows import RetryAfterWindows
from fashion_assets.domain.hosts import HostPolicy
from fashion_assets.replica import HOSTILE_BRAND, FaultPlan, ReplicaServer
from fashion_assets.replica.vogue_frame import image_url
from tests.conftest import normal_brands

MAX = 5 * 1024 * 1024


def policy(**changes: object) -> HttpPolicy:
    base = {"user_agent": "fashion-assets-test", "timeout_s": 2.0, "retries": 4,
            "backoff_base_s": 0.01, "backoff_cap_s": 0.05}
    return HttpPolicy(**{**base, **changes})  # type: ignore[arg-type]


def hosts(replica: ReplicaServer) -> HostPolicy:
    return HostPolicy.from_config(replica.base_url, [replica.cdn_url.split("://", 1)[1]])


def fetch_all(replica: ReplicaServer, urls: list[str], **changes: object) -> list[Fetched]:
    async def run() -> list[Fetched]:
        async with Fetcher(policy(**changes), hosts(replica), rng=random.Random(1)) as f:
            return list(await asyncio.gather(*(f.fetch(u, max_bytes=MAX) for u in urls)))
    return asyncio.run(run())


@pytest.fixture
def faults(replica: ReplicaServer) -> Iterator[Callable[..., None]]:
    """Switch the replica's transient faults on for one test; off again afterwards."""
    replica.reset_stats()
    yield lambda **plan: replica.set_faults(FaultPlan(**plan))
    replica.set_faults(FaultPlan())
    replica.reset_stats()


def photo_urls(replica: ReplicaServer, count: int) -> list[str]:
    brand = normal_brands(replica)[0]
    photos = [p for s in brand.shows for p in s.photos][:count]
    return [f"{replica.cdn_url}/photos/{p.photo_id}/master/w_{p.widths[-1]},c_limit/"
            f"{p.file_name}" for p in photos]


def test_transient_faults_are_retried_until_every_fetch_succeeds(
        replica: ReplicaServer, faults: Callable[..., None]) -> None:
    faults(error_5xx=0.2, drop=0.1, truncate=0.1, seed=3)
    urls = photo_urls(replica, 20)

    results = fetch_all(replica, urls, retries=8)

    assert [r.error for r in results] == [None] * len(urls)
    assert all(r.body for r in results)
    stats = replica.stats()
    assert stats.image_requests > len(urls)  # some attempts failed and were retried


def test_a_fault_that_persists_fails_with_its_reason_after_the_retries(
        replica: ReplicaServer, faults: Callable[..., None]) -> None:
    faults(error_5xx=1.0)
    [url] = photo_urls(replica, 1)

    # robots.txt would fail too, and a site that cannot serve it is kept out: off here.
    [result] = fetch_all(replica, [url], retries=2, obey_robots=False)

    assert not result.ok and result.error.startswith("http_5")
    assert result.attempts == 3
    assert replica.stats().image_requests == 3


def test_no_request_is_sent_inside_a_retry_after_window(
        replica: ReplicaServer, faults: Callable[..., None]) -> None:
    faults(rate_429=0.3, retry_after_s=1, seed=5)
    urls = photo_urls(replica, 12)

    results = fetch_all(replica, urls, retries=10, host_concurrency=1)

    assert all(r.ok for r in results)
    stats = replica.stats()
    assert stats.by_status.get(429, 0) > 0
    assert stats.retry_after_violations == 0


@pytest.mark.parametrize("header", ["\u00b2", "\u0663", "1_0", "+5", " ", "9" * 400])
def test_a_retry_after_no_rule_reads_as_seconds_is_a_429_like_any_other(
        replica: ReplicaServer, faults: Callable[..., None], header: str) -> None:
    """A superscript digit (``str.isdigit`` says yes, ``float`` no), another script's digit,
    an underscore, a sign, a blank: retried with the client's own backoff, never an error
    that escapes the fetcher. 400 nines read as a window too long to wait."""
    faults(rate_429=0.3, retry_after_s=1, retry_after_header=header, seed=5)
    urls = photo_urls(replica, 12)

    results = fetch_all(replica, urls, retries=10, host_concurrency=1)

    assert replica.stats().by_status.get(429, 0) > 0
    if header == "9" * 400:
        assert {r.error for r in results if not r.ok} == {"retry_after_too_long"}
    else:
        assert all(r.ok for r in results)


def test_a_request_waiting_out_retry_after_also_waits_for_a_window_extended_meanwhile(
        replica: ReplicaServer, faults: Callable[..., None]) -> None:
    """A 429 read while a request sleeps until the old window's end extends its wait.

    ``held`` is sent first and frozen at the gate (in flight; the replica fixes its answer,
    a 429 with Retry-After 2 s, when it arrives); ``first`` then gets a 429 with Retry-After
    1 s; ``waiting`` starts once that 429 is read, so it sleeps until that window ends. Then
    ``held`` is released into its 429. Waking at the old end, ``waiting`` would arrive inside
    the new window, and the replica would count a violation.
    """
    faults(rate_429=1.0, retry_after_s=2)
    first, held, waiting = photo_urls(replica, 3)

    async def run() -> list[Fetched]:
        async with Fetcher(policy(retries=3, obey_robots=False), hosts(replica),
                           rng=random.Random(1)) as fetcher:
            replica.hold_images(after=0)
            tasks = [asyncio.create_task(fetcher.fetch(held, max_bytes=MAX))]
            assert await asyncio.to_thread(replica.wait_held, 1)
            replica.set_faults(FaultPlan(rate_429=1.0, retry_after_s=1))
            replica.hold_images(after=1)  # ``held`` stays frozen; ``first`` passes
            tasks.append(asyncio.create_task(fetcher.fetch(first, max_bytes=MAX)))
            await until(lambda: fetcher.counters.retries == 1)  # the first 429 is read
            # Its first step runs before the loop reads any socket again, so it is asleep
            # in the window before the second 429 can be read.
            tasks.append(asyncio.create_task(fetcher.fetch(waiting, max_bytes=MAX)))
            replica.release_images()
            await until(lambda: replica.stats().by_status.get(429) == 2)
            replica.set_faults(FaultPlan())  # the windows stay; the retries now succeed
            return list(await asyncio.gather(*tasks))

    try:
        results = asyncio.run(run())
    finally:
        replica.release_images()

    assert [r.error for r in results] == [None, None, None]
    assert replica.stats().retry_after_violations == 0


def test_a_retry_after_window_given_to_one_client_is_honoured_by_the_others(
        replica: ReplicaServer, faults: Callable[..., None], tmp_path: Path) -> None:
    """Worker processes, runs side by side and the next step each have their own client.

    A window given to one holds for all: the second client, with windows of its own read
    from the same folder (as in another process), waits before its first request.
    """
    faults(rate_429=1.0, retry_after_s=1, in_flight_grace_s=0.0)
    first, second = photo_urls(replica, 2)

    async def fetch(url: str, retries: int) -> Fetched:
        async with Fetcher(policy(retries=retries, obey_robots=False), hosts(replica),
                           windows=RetryAfterWindows(tmp_path, 60)) as fetcher:
            return await fetcher.fetch(url, max_bytes=MAX)

    throttled = asyncio.run(fetch(first, retries=0))
    replica.set_faults(FaultPlan(in_flight_grace_s=0.0))
    later = asyncio.run(fetch(second, retries=4))

    assert throttled.error == "http_429" and later.ok
    assert replica.stats().retry_after_violations == 0


async def until(condition: Callable[[], bool], deadline_s: float = 10.0) -> None:
    """Poll a real condition, bounded in time."""
    end = asyncio.get_running_loop().time() + deadline_s
    while not condition():
        assert asyncio.get_running_loop().time() < end, "condition not reached in time"
        await asyncio.sleep(0.005)  # polling interval, not a synchronisation


def test_a_retry_after_longer_than_allowed_fails_instead_of_stalling(
        replica: ReplicaServer, faults: Callable[..., None]) -> None:
    faults(rate_429=1.0, retry_after_s=3600)
    [url] = photo_urls(replica, 1)

    [result] = fetch_all(replica, [url], max_retry_after_s=60)

    assert result.error == "retry_after_too_long"


def test_timeouts_are_retried_then_reported(
        replica: ReplicaServer, faults: Callable[..., None]) -> None:
    faults(timeout=1.0, hang_s=5)
    [url] = photo_urls(replica, 1)

    [result] = fetch_all(replica, [url], timeout_s=0.3, retries=1, obey_robots=False)

    assert result.error == "timeout" and result.attempts == 2


def test_hosts_outside_the_policy_are_refused_without_a_request(
        replica: ReplicaServer, faults: Callable[..., None]) -> None:
    urls = ["http://example.com/x.jpg", "http://169.254.169.254/latest/meta-data/",
            "file:///etc/passwd", "http://[::1]:1/x"]

    results = fetch_all(replica, urls)

    assert [r.error for r in results] == ["host_not_allowed", "private_address", "scheme",
                                          "private_address"]
    assert replica.stats().image_requests == 0


def test_a_site_that_cannot_serve_robots_txt_is_kept_out_for_a_while_then_read_again(
        replica: ReplicaServer, faults: Callable[..., None]) -> None:
    faults(error_5xx=1.0)
    [url] = photo_urls(replica, 1)
    skew = [0.0]  # the client's clock, moved on past the pause instead of waiting for it

    async def run() -> list[Fetched]:
        async with Fetcher(policy(retries=1), hosts(replica), rng=random.Random(1),
                           clock=lambda: time.monotonic() + skew[0]) as fetcher:
            down = await fetcher.fetch(url, max_bytes=MAX, kind="image")
            replica.set_faults(FaultPlan())  # the site is back
            still_out = await fetcher.fetch(url, max_bytes=MAX, kind="image")
            skew[0] += ROBOTS_UNREADABLE_RETRY_S
            back = await fetcher.fetch(url, max_bytes=MAX, kind="image")
            return [down, still_out, back]

    down, still_out, back = asyncio.run(run())

    # Kept out (RFC 9309) with a reason that says outage, not the site's refusal ...
    assert (down.error, still_out.error) == ("robots_unavailable", "robots_unavailable")
    assert "could not be read" in down.detail
    # ... until the pause is over: robots.txt is read again and the photo fetched.
    assert back.ok, back.detail
    assert replica.stats().by_path == {"/robots.txt": 3, urlsplit(url).path: 1}


def test_robots_txt_is_obeyed_by_default_and_can_be_switched_off(
        replica: ReplicaServer, faults: Callable[..., None]) -> None:
    url = f"{replica.base_url}/fashion-shows/designer/robots-blocked"

    [obeyed] = fetch_all(replica, [url])
    [ignored] = fetch_all(replica, [url], obey_robots=False)

    assert obeyed.error == "robots_disallowed"
    assert ignored.ok


def test_bodies_over_the_cap_are_refused(
        replica: ReplicaServer, faults: Callable[..., None]) -> None:
    [url] = photo_urls(replica, 1)

    async def run() -> Fetched:
        async with Fetcher(policy(), hosts(replica)) as fetcher:
            return await fetcher.fetch(url, max_bytes=100)

    assert asyncio.run(run()).error == "too_large"


def test_every_request_names_the_project(replica: ReplicaServer,
                                         faults: Callable[..., None]) -> None:
    [result] = fetch_all(replica, [replica.base_url + "/fashion-shows/designers"])

    assert result.ok
    assert policy().user_agent.startswith("fashion-assets")


def hostile_photo_url(replica: ReplicaServer, fault: str) -> str:
    brand = replica.site.brand(HOSTILE_BRAND)
    assert brand is not None
    [photo] = [p for show in brand.shows for p in show.photos if p.fault == fault]
    return image_url(replica.cdn_url, photo, photo.widths[-1])


def test_a_body_in_an_encoding_that_was_not_asked_for_is_refused(
        replica: ReplicaServer, faults: Callable[..., None]) -> None:
    """Only identity is asked for: a gzip body would read as no image, so it is named."""
    [result] = fetch_all(replica, [hostile_photo_url(replica, "gzip_encoded")])

    assert (result.error, result.body, result.attempts) == ("unexpected_encoding", b"", 1)


def test_a_response_the_http_parser_rejects_is_retried_then_reported(
        replica: ReplicaServer, faults: Callable[..., None]) -> None:
    """The HTTP parser rejects a malformed response: it must come back as a value."""
    [result] = fetch_all(replica, [hostile_photo_url(replica, "length_conflict")])

    assert (result.error, result.attempts) == ("bad_response", 5)
    # The replica counts decoded paths: the URL may spell its comma %2C.
    assert replica.stats().by_path[unquote(urlsplit(result.url).path)] == 5
