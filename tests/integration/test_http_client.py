"""The guarded HTTP client against the replica's real server and its switchable faults."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Iterator

import pytest

from fashion_assets.crawl.http import Fetched, Fetcher, HttpPolicy
from fashion_assets.domain.hosts import HostPolicy
from fashion_assets.replica import FaultPlan, ReplicaServer
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


def test_a_site_that_cannot_serve_robots_txt_is_kept_out(
        replica: ReplicaServer, faults: Callable[..., None]) -> None:
    faults(error_5xx=1.0)
    [url] = photo_urls(replica, 1)

    [result] = fetch_all(replica, [url], retries=1)

    assert result.error == "robots_disallowed"
    assert set(replica.stats().by_path) == {"/robots.txt"}  # the photo was never requested


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
