"""Per-host politeness of the HTTP client, measured at the replica's real server.

Page requests to one host are spaced by the page delay (the replica records when each request
arrives); photo downloads in flight at one host are capped, the cap is halved after a 429 or
503 from it and comes back step by step (the replica's image gate freezes every request that
reaches it, so the requests in flight at a given moment are counted there, never guessed
from timing).
"""

from __future__ import annotations

import asyncio
import itertools
import random
from collections.abc import Callable, Iterator
from urllib.parse import urlsplit

import pytest

from fashion_assets.crawl.http import Fetched, Fetcher, FetchKind, HttpPolicy
from fashion_assets.crawl.windows import RetryAfterWindows
from fashion_assets.domain.hosts import HostPolicy
from fashion_assets.domain.politeness import PaceRules
from fashion_assets.replica import FaultPlan, ReplicaServer
from fashion_assets.replica.impression_site import is_upload, photo_url
from fashion_assets.resources import resources_from_env
from tests.conftest import normal_brands

MAX = 5 * 1024 * 1024
# How much earlier than the delay a page may reach the server: the client spaces the moments
# it sends; loopback and the two event loops add a little jitter on the way.
ARRIVAL_JITTER_S = 0.02


def policy(**changes: object) -> HttpPolicy:
    base = {"user_agent": "fashion-assets-test", "timeout_s": 5.0, "retries": 4,
            "backoff_base_s": 0.01, "backoff_cap_s": 0.05}
    return HttpPolicy(**{**base, **changes})  # type: ignore[arg-type]


def hosts(replica: ReplicaServer) -> HostPolicy:
    return HostPolicy.from_config(replica.base_url, [
        url.split("://", 1)[1] for url in (replica.cdn_url, replica.impression_url)])


def fetcher(replica: ReplicaServer, **changes: object) -> Fetcher:
    # Windows of its own: a 429 given here must not make other tests' clients wait.
    return Fetcher(policy(**changes), hosts(replica), rng=random.Random(1),
                   windows=RetryAfterWindows(None, 60))


@pytest.fixture
def faults(replica: ReplicaServer) -> Iterator[Callable[..., None]]:
    """Counters zeroed and faults off, before and after; the gate is left open."""
    replica.reset_stats()
    yield lambda **plan: replica.set_faults(FaultPlan(**plan))
    replica.release_images()
    replica.set_faults(FaultPlan())
    replica.reset_stats()


def page_urls(replica: ReplicaServer) -> list[str]:
    brands = normal_brands(replica)
    return ([f"{replica.base_url}/fashion-shows/designers"]
            + [f"{replica.base_url}/fashion-shows/designer/{b.slug}" for b in brands]
            + [f"{replica.base_url}{s.path}" for s in brands[0].shows])


def photo_urls(replica: ReplicaServer, count: int) -> list[str]:
    photos = [p for b in normal_brands(replica) for s in b.shows for p in s.photos][:count]
    assert len(photos) == count
    return [f"{replica.cdn_url}/photos/{p.photo_id}/master/w_{p.widths[-1]},c_limit/"
            f"{p.file_name}" for p in photos]


def impression_page_url(replica: ReplicaServer) -> str:
    return replica.impression_url + replica.site.impression.weeks[0].path


def upload_url(replica: ReplicaServer) -> str:
    """A photo theImpression keeps as a WordPress upload: on the host of its pages."""
    article, photo = next((a, p) for a in replica.site.impression.iter_articles()
                          for p in a.photos if is_upload(p) and p.fault is None)
    return photo_url(photo, article, replica.impression_url, replica.impression_cdn_url)


async def until(condition: Callable[[], bool], deadline_s: float = 10.0) -> None:
    """Poll a real condition, bounded in time."""
    end = asyncio.get_running_loop().time() + deadline_s
    while not condition():
        assert asyncio.get_running_loop().time() < end, "condition not reached in time"
        await asyncio.sleep(0.005)  # polling interval, not a synchronisation


def gaps(times: list[float]) -> list[float]:
    return [later - earlier for earlier, later in itertools.pairwise(times)]


def test_page_requests_to_one_host_arrive_at_least_the_page_delay_apart(
        replica: ReplicaServer, faults: Callable[..., None]) -> None:
    """All sent at once; robots.txt, the host's first request, is a page too."""
    delay = 0.2
    urls = page_urls(replica)

    async def run() -> list[Fetched]:
        async with fetcher(replica, page_delay_s=delay) as client:
            return list(await asyncio.gather(*(client.fetch(u, max_bytes=MAX) for u in urls)))

    results = asyncio.run(run())

    assert [r.error for r in results] == [None] * len(urls)
    robots, pages = replica.arrivals("site", "robots"), replica.arrivals("site", "page")
    assert (len(robots), len(pages)) == (1, len(urls))
    arrived = sorted(robots + pages)
    assert arrived[0] == robots[0]
    assert min(gaps(arrived)) >= delay - ARRIVAL_JITTER_S, gaps(arrived)


def test_the_page_delay_is_per_host_and_never_holds_back_photos(
        replica: ReplicaServer, faults: Callable[..., None]) -> None:
    """With an hour between pages, everything here but a second page of one host goes at
    once: another host's page, photos from a host whose page was just fetched, and photos
    of a CDN. Each fetch is awaited, so a wrongly delayed one would hold the test for an
    hour; the bound below turns that into a failure. The second page of the site waits."""
    hour = 3600.0
    designers = f"{replica.base_url}/fashion-shows/designers"

    async def run() -> tuple[list[Fetched], bool]:
        async with fetcher(replica, page_delay_s=hour, obey_robots=False) as client:
            fetched = [await client.fetch(designers, max_bytes=MAX),
                       await client.fetch(impression_page_url(replica), max_bytes=MAX),
                       await client.fetch(upload_url(replica), max_bytes=MAX, kind="image")]
            fetched += await asyncio.gather(*(client.fetch(u, max_bytes=MAX, kind="image")
                                              for u in photo_urls(replica, 4)))
            second = asyncio.create_task(client.fetch(designers, max_bytes=MAX))
            await asyncio.wait([second], timeout=1.0)
            second.cancel()
            return fetched, second.done() and not second.cancelled()

    results, second_page_went = asyncio.run(asyncio.wait_for(run(), 30))

    assert [r.error for r in results] == [None] * 7
    assert not second_page_went  # the delay is in force: a second page waits its turn
    assert len(replica.arrivals("site", "page")) == 1
    assert len(replica.arrivals("impression", "image")) == 1
    assert len(replica.arrivals("cdn", "image")) == 4


async def settle(replica: ReplicaServer, client: Fetcher, host: str) -> int:
    """Wait until every photo request the client lets through waits at the replica's gate,
    with more queued behind them; returns how many are in flight there.

    While the gate holds them no answer comes back, so the client's limit cannot change and
    no slot frees: what is held then is all the client sends at once.
    """
    def settled() -> bool:
        slots = client.image_slots(host)
        return slots.waiting > 0 and slots.in_flight == replica.held_count()

    await until(settled)
    return replica.held_count()


@pytest.mark.parametrize(("status", "plan"), [
    (429, FaultPlan(rate_429=1.0, retry_after_s=1)),
    # error_5xx answers 500, 502 or 503 by one draw; seed 10's first four draws are all 503.
    (503, FaultPlan(error_5xx=1.0, seed=10)),
])
def test_photos_in_flight_at_a_host_halve_after_it_throttles_and_come_back_step_by_step(
        replica: ReplicaServer, faults: Callable[..., None], status: int,
        plan: FaultPlan) -> None:
    """Cap 4, one step back per 2 successful answers: 4 in flight, the host answers all four
    with ``status``, then 2 in flight (one cut, not one per answer), 3, and 4 again.

    Each stage is frozen at the gate and counted there: the photos held, and the most the
    CDN origin served at once since the stage began. Then the gate opens and the next stage
    is held as it arrives, with the faults off.
    """
    urls = photo_urls(replica, 20)
    host = urlsplit(replica.cdn_url).netloc
    seen: list[tuple[int, int, int]] = []  # per stage: held, peak at the CDN, client's limit

    async def stage(client: Fetcher) -> None:
        held = await settle(replica, client, host)
        seen.append((held, replica.stats().peak_in_flight.get("cdn", 0),
                     client.image_slots(host).limit))

    async def run() -> list[Fetched]:
        async with fetcher(replica, host_image_concurrency=4, throttle_restore_successes=2,
                           throttle_restore_s=3600, retries=6, obey_robots=False) as client:
            # A request an earlier test gave up on may still hang at the CDN: wait until it
            # serves nothing, so that the peak counts this test's requests only.
            await until(lambda: replica.serving("cdn") == 0, deadline_s=60)
            replica.reset_stats()
            # The replica fixes a request's fault plan when it arrives: the four photos held
            # first will be answered ``status``.
            replica.set_faults(plan)
            replica.hold_images(after=0)
            kind: FetchKind = "image"
            tasks = [asyncio.create_task(client.fetch(u, max_bytes=MAX, kind=kind))
                     for u in urls]
            await stage(client)

            # Whatever arrives from now on is answered fault-free (the seed stays, so the
            # held four draw what they would have). They are released into ``status``, and
            # what the client sends next is held (its loop does not run between these calls).
            replica.set_faults(FaultPlan(seed=plan.seed))
            replica.release_images()
            replica.hold_images(after=0)
            await until(lambda: replica.stats().by_status.get(status, 0) == 4)
            await until(lambda: replica.serving("cdn") == replica.held_count())
            replica.reset_stats()  # the peak is counted from here
            await stage(client)

            for _ in range(2):  # two stages of successes, each one step back up
                replica.release_images()
                replica.hold_images(after=0)
                replica.reset_stats()
                await stage(client)

            replica.release_images()
            return list(await asyncio.gather(*tasks))

    results = asyncio.run(run())

    assert seen == [(4, 4, 4), (2, 2, 2), (3, 3, 3), (4, 4, 4)]
    assert [r.error for r in results] == [None] * len(urls)
    assert sorted(r.attempts for r in results) == [1] * 16 + [2] * 4


def test_the_pace_settings_reach_the_client_and_a_page_delay_of_zero_is_allowed() -> None:
    crawler = resources_from_env({"FASHION_PAGE_DELAY": "0",
                                  "FASHION_HOST_IMAGE_CONCURRENCY": "3",
                                  "FASHION_THROTTLE_RESTORE_SECONDS": "5",
                                  "FASHION_THROTTLE_RESTORE_SUCCESSES": "7"})["crawler"]
    defaults = resources_from_env({})["crawler"].http_policy()

    assert crawler.http_policy().pace_rules() == PaceRules(
        page_delay_s=0.0, image_cap=3, restore_successes=7, restore_s=5.0)
    assert (defaults.page_delay_s, defaults.host_image_concurrency, defaults.throttle_restore_s,
            defaults.throttle_restore_successes) == (0.25, 8, 30.0, 100)
    with pytest.raises(ValueError, match="FASHION_PAGE_DELAY"):
        resources_from_env({"FASHION_PAGE_DELAY": "-1"})
    with pytest.raises(ValueError, match="FASHION_HOST_IMAGE_CONCURRENCY"):
        resources_from_env({"FASHION_HOST_IMAGE_CONCURRENCY": "0"})
