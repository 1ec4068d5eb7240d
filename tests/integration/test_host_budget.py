"""The per-host politeness budget shared through the catalog database (SQLite and PostgreSQL).

First the store itself, called from several processes at once; then four crawl runs side by
side at the replica, which records when each request arrives and how many each origin
serves at once: together they keep to one host's budget, not four.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from sqlalchemy import text

from bench.reliability import CrawlProcess, gate_closed, held_client, own_instance, wait_until
from fashion_assets.catalog.host_budget import DatabaseBudgetStore
from fashion_assets.catalog.migrations import apply_migrations
from fashion_assets.crawl.budget import HostBudget
from fashion_assets.crawl.http import Fetcher, HttpPolicy
from fashion_assets.crawl.robots import ROBOTS_MAX_AGE_S, RobotsFile
from fashion_assets.domain.hosts import HostPolicy
from fashion_assets.domain.politeness import PaceRules
from fashion_assets.replica import ReplicaServer
from fashion_assets.resources import catalog_engine
from tests.conftest import normal_brands, pipeline_env

HOST = "photos.example:443"
RULES = PaceRules(page_delay_s=0.05, image_cap=4, restore_successes=2, restore_s=3600)
# How much closer than the delay two pages of different runs may arrive: turns are handed out
# the delay apart, but a sender on a busy machine can wake late for its turn (by up to
# crawl/budget.py: PAGE_TURN_SLACK_S, 0.05 s; later, it takes a new turn) while the next one
# is on time, and the way from the check to the server takes a moment more (within one client
# the delay holds exactly, test_http_politeness.py).
LATE_SENDER_S = 0.1
DEADLINE_S = 180
WAIT_S = 600.0  # for crawls held at the gate while four `dagster dev` start on 2 loaded cores


def store(database_url: str) -> DatabaseBudgetStore:
    engine = catalog_engine(database_url)
    apply_migrations(engine)
    return DatabaseBudgetStore(engine)


# Takes page turns of HOST as fast as it can, in a process of its own; prints their times.
TAKE_TURNS = """
import json, sys, time
from fashion_assets.catalog.db import create_catalog_engine
from fashion_assets.catalog.host_budget import DatabaseBudgetStore
budget = DatabaseBudgetStore(create_catalog_engine(sys.argv[1]))
print(json.dumps([budget.take_page_turn(sys.argv[2], time.time(), 0.05, 4)
                  for _ in range(int(sys.argv[3]))]))
"""


def test_page_turns_taken_at_once_by_four_processes_are_all_the_delay_apart(
        database_url: str) -> None:
    store(database_url)
    processes = [subprocess.Popen([sys.executable, "-c", TAKE_TURNS, database_url, HOST, "10"],
                                  stdout=subprocess.PIPE, text=True) for _ in range(4)]
    turns = sorted(itertools.chain.from_iterable(
        json.loads(p.communicate(timeout=DEADLINE_S)[0]) for p in processes))

    assert [p.returncode for p in processes] == [0] * 4
    assert len(turns) == 40
    assert min(b - a for a, b in itertools.pairwise(turns)) == pytest.approx(0.05)


def test_leases_share_the_cap_and_a_holder_that_leaves_or_dies_frees_its_slots(
        database_url: str) -> None:
    budget, now = store(database_url), time.time()

    a, _ = budget.renew_lease(HOST, "a", 4, 0, now, 10, RULES)
    b, _ = budget.renew_lease(HOST, "b", 4, 0, now, 10, RULES)
    assert (a.limit, b.limit) == (4, 0)  # a holds the cap; b waits for a to give back
    a, _ = budget.renew_lease(HOST, "a", 4, 4, now + 1, 10, RULES)
    assert (a.limit, a.held) == (2, 4)  # a's share is 2; its 4 in flight stay counted
    b, _ = budget.renew_lease(HOST, "b", 4, 0, now + 1, 10, RULES)
    assert b.limit == 0
    a, _ = budget.renew_lease(HOST, "a", 4, 2, now + 2, 10, RULES)
    b, _ = budget.renew_lease(HOST, "b", 4, 0, now + 2, 10, RULES)
    assert (a.held, b.limit) == (2, 2)

    budget.release("a")
    assert budget.renew_lease(HOST, "b", 4, 2, now + 3, 10, RULES)[0].limit == 4
    c, _ = budget.renew_lease(HOST, "c", 4, 0, now + 3, 10, RULES)
    assert c.limit == 0
    # b dies without a word: once its lease expires, its slots are c's.
    assert budget.renew_lease(HOST, "c", 4, 0, now + 14, 10, RULES)[0].limit == 4


def test_a_throttle_seen_by_one_client_halves_the_cap_for_every_client(
        database_url: str) -> None:
    one, other = store(database_url), store(database_url)
    now = time.time()
    other.renew_lease(HOST, "other", 4, 0, now, 10, RULES)

    assert one.record_answer(HOST, 429, now, now + 1, RULES) == 2
    assert one.record_answer(HOST, 429, now, now + 1, RULES) == 2  # sent before the cut
    given, cap = other.renew_lease(HOST, "other", 4, 0, now + 2, 10, RULES)
    assert (given.limit, cap) == (2, 2)
    for _ in range(2):  # restore_successes=2: one step back up
        other.record_answer(HOST, 200, now + 3, now + 3, RULES)
    assert one.renew_lease(HOST, "one", 4, 0, now + 4, 10, RULES)[1] == 3


def test_robots_txt_read_by_one_client_serves_the_others_for_an_hour(
        database_url: str, replica: ReplicaServer) -> None:
    """Two clients one after the other ask the site once; a client an hour later asks again."""
    budgets = store(database_url)
    designers = f"{replica.base_url}/fashion-shows/designers"

    async def fetch(clock: Callable[[], float]) -> str | None:
        budget = HostBudget(budgets, PaceRules(page_delay_s=0), clock=clock)
        async with Fetcher(HttpPolicy(user_agent="fashion-assets-test", timeout_s=5.0),
                           HostPolicy.from_config(replica.base_url, []), budget=budget) as f:
            return (await f.fetch(designers, max_bytes=1 << 22)).error

    replica.reset_stats()
    errors = [asyncio.run(fetch(clock)) for clock in
              (time.time, time.time, lambda: time.time() + ROBOTS_MAX_AGE_S + 1)]

    assert errors == [None] * 3
    assert len(replica.arrivals("site", "page")) == 3
    assert len(replica.arrivals("site", "robots")) == 2


def test_clients_that_start_together_ask_for_robots_txt_once(
        database_url: str, replica: ReplicaServer) -> None:
    """Four clients, each with its own budget, fetch a page at the same moment: one reads
    robots.txt, the others wait for what it keeps."""
    budgets = store(database_url)
    designers = f"{replica.base_url}/fashion-shows/designers"

    async def fetch() -> str | None:
        budget = HostBudget(budgets, PaceRules(page_delay_s=0))
        async with Fetcher(HttpPolicy(user_agent="fashion-assets-test", timeout_s=5.0),
                           HostPolicy.from_config(replica.base_url, []), budget=budget) as f:
            return (await f.fetch(designers, max_bytes=1 << 22)).error

    async def together() -> list[str | None]:
        return await asyncio.gather(*(fetch() for _ in range(4)))

    replica.reset_stats()
    assert asyncio.run(together()) == [None] * 4
    assert len(replica.arrivals("site", "page")) == 4
    assert len(replica.arrivals("site", "robots")) == 1


def test_a_claim_to_read_robots_txt_holds_until_given_up_released_or_expired(
        database_url: str) -> None:
    budget, origin, now = store(database_url), "https://site.example", time.time()
    assert budget.claim_robots_read(origin, "a", now, 60)
    assert budget.claim_robots_read(origin, "a", now + 1, 60)  # its own claim, renewed
    assert not budget.claim_robots_read(origin, "b", now + 1, 60)
    budget.end_robots_read(origin, "b")  # not b's claim: no effect
    assert not budget.claim_robots_read(origin, "b", now + 2, 60)
    budget.end_robots_read(origin, "a")  # a could not read it: b may
    assert budget.claim_robots_read(origin, "b", now + 3, 60)
    budget.release("b")  # b's client closed
    assert budget.claim_robots_read(origin, "c", now + 4, 60)
    assert not budget.claim_robots_read(origin, "d", now + 63, 60)
    assert budget.claim_robots_read(origin, "d", now + 64, 60)  # c's claim ran out
    budget.keep_robots(origin, RobotsFile("User-agent: *\n"), now + 65)
    # d's claim holds on: a client that looked before d kept the file waits and finds it.
    assert not budget.claim_robots_read(origin, "e", now + 66, 60)
    assert budget.kept_robots(origin, now) == RobotsFile("User-agent: *\n")


@pytest.mark.slow
@pytest.mark.timeout(900)  # four commands, each starting a `dagster dev`, at once
def test_four_concurrent_runs_together_keep_to_one_hosts_budget(
        tmp_path: Path, database_url: str, replica: ReplicaServer) -> None:
    """Four crawls (two per brand) with 16 photo downloads each per run: the CDN never
    serves more than the host's photo cap, and the site's pages arrive the page delay
    apart, whichever run sent them.

    The image gate holds every photo request; once every run's clients wait for photo slots
    (their leases say so in the catalog), the CDN holds exactly the cap and no more.

    Each crawl has a Dagster instance of its own: one instance's run queue would run the two
    crawls of a brand one after the other, and the budget is kept in the catalog, for runs
    of any deployment.
    """
    cap, delay = 2, 0.2
    env = pipeline_env(tmp_path, database_url, f"file://{tmp_path / 'objects'}", replica,
                       DAGSTER_HOME=str(tmp_path / "dagster"), FASHION_PAGE_DELAY=str(delay),
                       FASHION_HOST_IMAGE_CONCURRENCY=str(cap),
                       # Photos wait at the gate until every run is under way (each command
                       # starts a `dagster dev` first), never cut and retried into the gate
                       # twice.
                       **held_client(WAIT_S))
    cdn = urlsplit(replica.cdn_url).netloc
    engine = catalog_engine(database_url)
    apply_migrations(engine)

    def holders_wanting_photos() -> int:
        with engine.connect() as conn:
            return conn.execute(text(
                "SELECT count(*) FROM host_leases WHERE host = :host AND wanted > 0"),
                {"host": cdn}).scalar_one()

    brands = [brand.slug for brand in normal_brands(replica)[:2]]
    replica.reset_stats()
    crawls: list[CrawlProcess] = []
    try:
        with gate_closed(replica, after=0):
            crawls = [CrawlProcess(own_instance(env, f"crawl{n}", runs=1), [brand],
                                   tmp_path / "logs") for n, brand in enumerate(brands * 2)]
            wait_until(lambda: holders_wanting_photos() >= 4, "every run to want photos",
                       crawls, WAIT_S)
            assert replica.held_count() <= cap
            wait_until(lambda: replica.held_count() == cap, "the cap to be in use", crawls,
                       WAIT_S)
        runs = [crawl.finish(WAIT_S) for crawl in crawls]
    finally:
        for crawl in crawls:
            if not crawl.exited():  # only after an error: no crawl outlives the test
                crawl.kill()

    assert [run.log_tail for run in runs if not run.ok] == []
    stats = replica.stats()
    assert stats.peak_in_flight["cdn"] == cap
    pages = replica.arrivals("site", "page")
    assert len(pages) >= 4 * 4  # each run: its brand's listing and three show pages
    # However many pages of any run lie between two arrivals, they never came faster than
    # the delay allows (less the lateness of one busy sender).
    assert all(later - earlier >= (j - i) * delay - LATE_SENDER_S
               for (i, earlier), (j, later) in itertools.combinations(enumerate(pages), 2))
