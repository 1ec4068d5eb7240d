"""The polite, guarded HTTP client every crawl goes through.

Every request passes the host policy first (the source's base host and its image hosts, and
nothing else: redirect targets included), then robots.txt (``crawl/robots.py``), then the
host's pace (``domain/politeness.py``: photos within a per-host cap that a 429 or 503 halves,
pages spaced apart, both shared with every other client through ``crawl/budget.py``), a
per-host concurrency limit (``crawl/limits.py``) and any
``Retry-After`` window the host gave us (``crawl/windows.py``). Connections go only to the
addresses the host policy judged (``crawl/resolver.py``), and each exchange has a deadline.
Answers are judged by ``crawl/responses.py``: failures come back as a ``Fetched`` with a
stable reason code instead of an exception, so a crawl records them and goes on.

Connections are aiohttp's (``crawl/session.py``): its client costs about a tenth of a plain
httpx client's CPU per photo, which on a two-core machine is the crawl's speed
(docs/performance.md).
"""

from __future__ import annotations

import asyncio
import functools
import ipaddress
import random
import ssl
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal
from urllib.parse import urlsplit

import aiohttp
import httpx
from aiohttp.abc import AbstractResolver
from yarl import URL

from fashion_assets.crawl.budget import HostBudget, MemoryBudgetStore
from fashion_assets.crawl.limits import ImageSlots
from fashion_assets.crawl.resolver import CheckedResolver
from fashion_assets.crawl.responses import (
    FetchCounters,
    Fetched,
    RateFloor,
    Retry,
    read_response,
    transport_errors_retried,
    within_deadline,
)
from fashion_assets.crawl.robots import (
    ROBOTS_READ_POLL_S,
    RobotsFile,
    RobotsRules,
    Rules,
    rules_from,
)
from fashion_assets.crawl.session import crawl_session, request_headers
from fashion_assets.crawl.windows import RetryAfterWindows, machine_windows_dir
from fashion_assets.domain.hosts import HostDecision, HostPolicy, check_url
from fashion_assets.domain.politeness import PaceRules

# What a request fetches: a photo ("image"), or anything else ("page"), paced differently.
FetchKind = Literal["page", "image"]


@dataclass(frozen=True)
class HttpPolicy:
    """How the client behaves; built from settings (see ``fashion_assets.settings``).

    ``timeout_s`` bounds each wait for the network (connecting, a read); ``deadline_s`` the
    whole exchange; a body must bring ``min_rate_bps`` bytes per second over every
    ``timeout_s`` (0: any rate). The last two cut a host that drips bytes.
    """

    user_agent: str
    timeout_s: float = 20.0
    deadline_s: float = 60.0
    min_rate_bps: float = 1024.0
    retries: int = 4
    backoff_base_s: float = 0.5
    backoff_cap_s: float = 30.0
    max_retry_after_s: float = 300.0
    host_concurrency: int = 16
    obey_robots: bool = True
    max_redirects: int = 5
    page_delay_s: float = 0.25
    host_image_concurrency: int = 8
    throttle_restore_s: float = 30.0
    throttle_restore_successes: int = 100

    def pace_rules(self) -> PaceRules:
        return PaceRules(page_delay_s=self.page_delay_s, image_cap=self.host_image_concurrency,
                         restore_successes=self.throttle_restore_successes,
                         restore_s=self.throttle_restore_s)


@functools.cache
def ssl_context() -> ssl.SSLContext:
    """One TLS context per process: building one loads the CA bundle (tens of ms); the
    crawl's fork server builds it for all its workers."""
    return httpx.create_ssl_context()


class Fetcher:
    """An async HTTP client bound to one host policy. Use as ``async with Fetcher(...)``.

    ``windows`` defaults to the Retry-After windows shared on this machine. ``budget`` is
    this client's share of each host's pace (``crawl/budget.py``): a crawl's is kept in the
    catalog database with every other client's; by default the client is alone (in memory).
    ``clock`` (monotonic seconds) times robots.txt and name lookups. ``resolver`` is the
    name service (the system's when None); the client connects only to the addresses of its
    answers that passed the host policy.
    """

    def __init__(
        self, policy: HttpPolicy, hosts: HostPolicy, *, rng: random.Random | None = None,
        windows: RetryAfterWindows | None = None, clock: Callable[[], float] = time.monotonic,
        resolver: AbstractResolver | None = None, budget: HostBudget | None = None,
    ) -> None:
        self.policy = policy
        self.hosts = hosts
        self.counters = FetchCounters()
        self._rng = rng or random.Random()
        self._clock = clock
        self.budget = budget or HostBudget(MemoryBudgetStore(), policy.pace_rules())
        self._host_slots: dict[str, asyncio.Semaphore] = {}
        self._windows = windows or RetryAfterWindows(machine_windows_dir(),
                                                     policy.max_retry_after_s)
        self._robots = RobotsRules(policy.user_agent, self._read_robots, clock)
        self._resolver = CheckedResolver(resolver, clock)
        # Each URL authority's host name as aiohttp looks it up ("": an IP literal).
        self._names: dict[str, str] = {}
        self._session: aiohttp.ClientSession | None = None
        request_headers(policy.user_agent)  # a User-Agent that cannot be sent fails here
        self._floor = RateFloor(policy.min_rate_bps, policy.timeout_s)

    async def __aenter__(self) -> Fetcher:
        self._session = crawl_session(self._resolver, ssl_context(),
                                      user_agent=self.policy.user_agent,
                                      timeout_s=self.policy.timeout_s)
        await self.budget.__aenter__()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.budget.__aexit__(*exc_info)
        if self._session is not None:
            await self._session.close()
            self._session = None

    def image_slots(self, host: str) -> ImageSlots:
        """This client's photo downloads of ``host`` (``host[:port]``): the limit its share
        of the host's budget allows now, in flight, waiting."""
        return self.budget.slots(host)

    async def fetch(self, url: str, *, max_bytes: int, kind: FetchKind = "page") -> Fetched:
        """GET ``url`` within the policy; never raises for network or HTTP trouble.

        ``kind`` is "image" for a photo (within the host's photo cap) and "page" for anything
        else (spaced by the page delay); redirects keep the kind of the first URL.
        """
        if kind not in ("page", "image"):
            raise ValueError(f"kind must be 'page' or 'image', got {kind!r}")
        attempts = redirects = 0
        current = url
        while True:
            refusal = await self._refusal(current, is_redirect=current != url)
            if refusal is not None:
                return self._fail(url, current, attempts, *refusal)
            attempts += 1
            try:
                result = await self._attempt(current, max_bytes, kind)
            except Retry as retry:
                if attempts > self.policy.retries + redirects:
                    return self._fail(url, current, attempts, retry.reason,
                                      f"{retry.detail} (after {attempts} attempts)")
                self.counters.retries += 1
                await asyncio.sleep(self._backoff(attempts - redirects, retry.wait_s))
                continue
            if isinstance(result, str):
                # A redirect: followed, and checked against the policy again, like any URL.
                redirects += 1
                if redirects > self.policy.max_redirects:
                    return self._fail(url, current, attempts, "too_many_redirects",
                                      f"more than {self.policy.max_redirects} redirects")
                current = result
                continue
            if result.error is not None:
                self.counters.by_error[result.error] += 1
            return replace(result, url=url, final_url=current, attempts=attempts)

    def _fail(self, url: str, final: str, attempts: int, reason: str, detail: str) -> Fetched:
        self.counters.by_error[reason] += 1
        return Fetched(url, final, None, b"", None, attempts, reason, detail)

    async def _refusal(self, url: str, *, is_redirect: bool) -> tuple[str, str] | None:
        """Why ``url`` may not be fetched at all, or None."""
        decision = check_url(self.hosts, url)
        if decision.allowed:
            decision = await self._check_addresses(url)
        if not decision.allowed:
            reason = f"redirect_{decision.reason}" if is_redirect else str(decision.reason)
            return reason, decision.detail or reason
        if self.policy.obey_robots:
            return await self._robots.refusal(url)
        return None

    async def _check_addresses(self, url: str) -> HostDecision:
        """How the policy judges the addresses ``url``'s host resolves to now, the only ones
        a connection goes to; an IP literal is its own address, judged by ``check_url``."""
        netloc = urlsplit(url).netloc
        name = self._names.get(netloc)
        if name is None:  # once per host, as aiohttp will look it up (IDNA-encoded)
            host = URL(url).raw_host or ""
            try:
                ipaddress.ip_address(host)
            except ValueError:
                name = self._names[netloc] = host
            else:
                name = self._names[netloc] = ""  # an IP literal: no lookup to judge
        if not name:
            return HostDecision(True, None, None)
        return await self._resolver.check(name)

    async def _read_robots(self, origin: str) -> Rules | None:
        """``origin``'s rules (``crawl/robots.py``): as another client read them lately
        (kept with the host budget, so the workers and runs of a crawl ask the host once),
        or read now and kept for the others; None when the server could not answer.

        One client at a time reads them: the others wait for what it keeps, and look again
        themselves if it could not read them or its claim ran out."""
        while (kept := await self.budget.kept_robots(origin)) is None:
            if not await self.budget.claim_robots_read(origin):
                await asyncio.sleep(ROBOTS_READ_POLL_S)  # another client is reading them
                continue
            fetched = await self._fetch_robots(origin)
            if fetched is None:  # an outage is never kept: every client retries on its own
                await self.budget.end_robots_read(origin)
                return None
            await self.budget.keep_robots(origin, fetched)
            return rules_from(fetched.text)
        return rules_from(kept.text)

    async def _fetch_robots(self, origin: str) -> RobotsFile | None:
        """``origin``'s robots.txt with this client's retries: its text, no rules for a 4xx
        or a redirect, None when the server could not answer."""
        for attempt in range(1, self.policy.retries + 2):
            try:
                response = await self._attempt(origin + "/robots.txt", 512 * 1024)
            except Retry as retry:
                if attempt > self.policy.retries:
                    return None
                await asyncio.sleep(self._backoff(attempt, retry.wait_s))
                continue
            if isinstance(response, str):
                return RobotsFile(None)
            if response.error is not None:
                refused = bool(response.status) and 400 <= (response.status or 0) < 500
                return RobotsFile(None) if refused else None
            return RobotsFile(response.body.decode("utf-8", "replace"))
        return None

    async def _attempt(self, url: str, max_bytes: int, kind: FetchKind = "page") -> Fetched | str:
        """One request. Returns the result, or the next URL for a redirect; raises Retry.

        A photo first takes one of this client's slots of its host's photo budget, then, like
        a page, one of the host's request slots.
        """
        host = urlsplit(url).netloc
        if kind != "image":
            return await self._send(url, host, max_bytes, kind)
        async with self.budget.image_slot(host):
            return await self._send(url, host, max_bytes, kind)

    async def _send(self, url: str, host: str, max_bytes: int, kind: FetchKind) -> Fetched | str:
        assert self._session is not None, "use the Fetcher as an async context manager"
        slots = self._host_slots.setdefault(host, asyncio.Semaphore(self.policy.host_concurrency))
        async with slots:
            await self._wait_turn(host, kind)
            sent_at = self.budget.now()
            self.counters.requests += 1
            async with within_deadline(self.policy.deadline_s):
                with transport_errors_retried():
                    async with self._session.get(url, allow_redirects=False) as answer:
                        await self.budget.answered(host, answer.status, sent_at)
                        return await read_response(
                            url, answer, max_bytes, self.counters,
                            max_retry_after_s=self.policy.max_retry_after_s,
                            hold_off=lambda wait: self._windows.extend(host, time.time() + wait),
                            floor=self._floor)

    async def _wait_turn(self, host: str, kind: FetchKind) -> None:
        """Wait out the host's Retry-After window and, for a page, its page turn.

        A turn is the moment the host's budget gives this page, shared with every client, so
        pages of one host are sent at least the delay apart whoever sends them. A window that
        opens while the page waits for its turn (a 429 meanwhile) is waited out, then the
        page takes a new turn.
        """
        while True:
            await self._respect_retry_after(host)
            if kind != "page":
                return
            await self.budget.page_turn(host)
            if self._windows.end(host) <= time.time():
                return

    async def _respect_retry_after(self, host: str) -> None:
        """Wait until the host's Retry-After window is over.

        Checked again after every sleep: a 429 that arrives meanwhile (to a request already in
        flight, or to another client) extends the window, and waking at the old end would
        violate it.
        """
        while (wait := self._windows.end(host) - time.time()) > 0:
            await asyncio.sleep(wait)

    def _backoff(self, attempt: int, retry_after: float | None) -> float:
        """Full-jitter exponential backoff, never shorter than the server asked for."""
        ceiling = min(self.policy.backoff_cap_s, self.policy.backoff_base_s * 2 ** (attempt - 1))
        jitter = self._rng.uniform(0, ceiling)
        return max(jitter, retry_after or 0.0)
