"""The polite, guarded HTTP client every crawl goes through.

Every request passes the host policy first (the source's base host and its image hosts, and
nothing else: redirect targets included), then robots.txt (``crawl/robots.py``), then the
host's pace (``domain/politeness.py``: photos within a per-host cap that a 429 or 503 halves,
pages spaced apart), a per-host concurrency limit (``crawl/limits.py``) and any
``Retry-After`` window the host gave us (``crawl/windows.py``). Connections go only to the
addresses the host policy judged (``crawl/resolver.py``), and each exchange has a deadline.
Answers are judged by ``crawl/responses.py``: failures come back as a ``Fetched`` with a
stable reason code instead of an exception, so a crawl records them and goes on.

httpx is the API (requests, responses, errors, transports); its aiohttp transport is used
because httpx's default async transport is the bottleneck on this workload (about 4x slower,
see docs/architecture.md).
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
from urllib.robotparser import RobotFileParser

import aiohttp
import httpx
from aiohttp.abc import AbstractResolver
from httpx_aiohttp import AiohttpTransport

from fashion_assets.crawl.limits import ImageSlots, Limiter
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
from fashion_assets.crawl.robots import RobotsRules, rules_from
from fashion_assets.crawl.windows import RetryAfterWindows, machine_windows_dir
from fashion_assets.domain.hosts import HostDecision, HostPolicy, check_url
from fashion_assets.domain.politeness import HostPace, PaceRules, after_answer, page_sent, page_wait
from fashion_assets.domain.politeness import start as start_pace

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
def _ssl_context() -> ssl.SSLContext:
    """One TLS context per process: building one loads the CA bundle (tens of ms)."""
    return httpx.create_ssl_context()


class Fetcher:
    """An async HTTP client bound to one host policy. Use as ``async with Fetcher(...)``.

    ``windows`` defaults to the Retry-After windows shared on this machine. The pace of each
    host (``domain/politeness.py``) is this client's own, read on ``clock`` (monotonic
    seconds): a photo limiter per host whose limit follows the rule, and the time of the last
    page request. ``resolver`` is the name service (the system's when None); the client
    connects only to the addresses of its answers that passed the host policy.
    """

    def __init__(
        self, policy: HttpPolicy, hosts: HostPolicy, *, rng: random.Random | None = None,
        windows: RetryAfterWindows | None = None, clock: Callable[[], float] = time.monotonic,
        resolver: AbstractResolver | None = None,
    ) -> None:
        self.policy = policy
        self.hosts = hosts
        self.counters = FetchCounters()
        self._rng = rng or random.Random()
        self._clock = clock
        self._pace_rules = policy.pace_rules()
        self._paces: dict[str, HostPace] = {}
        self._image_slots: dict[str, Limiter] = {}
        self._host_slots: dict[str, asyncio.Semaphore] = {}
        self._windows = windows or RetryAfterWindows(machine_windows_dir(),
                                                     policy.max_retry_after_s)
        self._robots = RobotsRules(policy.user_agent, self._read_robots, clock)
        self._resolver = CheckedResolver(resolver, clock)
        self._transport: AiohttpTransport | None = None
        self._headers = httpx.Headers({"User-Agent": policy.user_agent,
                                       "Accept-Encoding": "identity"})
        self._timeout = httpx.Timeout(policy.timeout_s).as_dict()
        self._floor = RateFloor(policy.min_rate_bps, policy.timeout_s)

    async def __aenter__(self) -> Fetcher:
        self._transport = AiohttpTransport(verify=_ssl_context(), trust_env=False,
                                           client=self._session)
        return self

    def _session(self) -> aiohttp.ClientSession:
        """The transport's aiohttp session, made at its first request: its connector looks
        names up through the checked resolver only, with no DNS cache of its own."""
        connector = aiohttp.TCPConnector(limit=256, keepalive_timeout=5.0, ssl=_ssl_context(),
                                         resolver=self._resolver, use_dns_cache=False)
        return aiohttp.ClientSession(connector=connector)

    async def __aexit__(self, *exc_info: object) -> None:
        if self._transport is not None:
            await self._transport.aclose()
            self._transport = None

    def pace(self, host: str) -> HostPace:
        """The pace of ``host`` (``host[:port]``, as in the URL) as this client keeps it."""
        pace = self._paces.get(host)
        if pace is None:
            pace = self._paces[host] = start_pace(self._pace_rules, self._clock())
        return pace

    def image_slots(self, host: str) -> ImageSlots:
        """The photo downloads of ``host`` (``host[:port]``): limit, in flight, waiting."""
        limiter = self._image_slots.get(host)
        if limiter is None:
            return ImageSlots(self.pace(host).image_limit, 0, 0)
        return ImageSlots(limiter.limit, limiter.active, limiter.waiting)

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
        host = httpx.URL(url).host  # as the transport will see it (IDNA-encoded)
        try:
            ipaddress.ip_address(host)
        except ValueError:
            return await self._resolver.check(host)
        return HostDecision(True, None, None)

    async def _read_robots(self, origin: str) -> RobotFileParser | None:
        """``origin``'s robots.txt with this client's retries: its rules, no rules for a 4xx
        or a redirect, None when the server could not answer (``crawl/robots.py``)."""
        for attempt in range(1, self.policy.retries + 2):
            try:
                response = await self._attempt(origin + "/robots.txt", 512 * 1024)
            except Retry as retry:
                if attempt > self.policy.retries:
                    return None
                await asyncio.sleep(self._backoff(attempt, retry.wait_s))
                continue
            if isinstance(response, str):
                return rules_from(None)
            if response.error is not None:
                refused = bool(response.status) and 400 <= (response.status or 0) < 500
                return rules_from(None) if refused else None
            return rules_from(response.body)
        return None

    async def _attempt(self, url: str, max_bytes: int, kind: FetchKind = "page") -> Fetched | str:
        """One request. Returns the result, or the next URL for a redirect; raises Retry.

        A photo first takes one of its host's photo slots (the cap the pace allows now), then,
        like a page, one of the host's request slots.
        """
        host = urlsplit(url).netloc
        if kind != "image":
            return await self._send(url, host, max_bytes, kind)
        limiter = self._image_slots.get(host)
        if limiter is None:
            limiter = self._image_slots[host] = Limiter(self.pace(host).image_limit)
        async with limiter:
            return await self._send(url, host, max_bytes, kind)

    async def _send(self, url: str, host: str, max_bytes: int, kind: FetchKind) -> Fetched | str:
        assert self._transport is not None, "use the Fetcher as an async context manager"
        slots = self._host_slots.setdefault(host, asyncio.Semaphore(self.policy.host_concurrency))
        async with slots:
            await self._wait_turn(host, kind)
            sent_at = self._clock()
            self.counters.requests += 1
            # Straight to the transport: the client layer's cookie jar, auth and redirect
            # handling cost a fifth of a crawl's CPU, and this client needs none of them.
            request = httpx.Request("GET", url, headers=self._headers,
                                    extensions={"timeout": self._timeout})
            async with within_deadline(self.policy.deadline_s):
                with transport_errors_retried():
                    response = await self._transport.handle_async_request(request)
                    try:
                        self._paced(host, response.status_code, sent_at)
                        return await read_response(
                            url, response, max_bytes, self.counters,
                            max_retry_after_s=self.policy.max_retry_after_s,
                            hold_off=lambda wait: self._windows.extend(host, time.time() + wait),
                            floor=self._floor)
                    finally:
                        await response.aclose()

    async def _wait_turn(self, host: str, kind: FetchKind) -> None:
        """Wait out the host's Retry-After window and, for a page, the page delay.

        The window is checked again after the page delay's sleep (a 429 may arrive meanwhile);
        the page's send time is recorded with no await between check and record, so two
        pages of one host are never sent less than the delay apart.
        """
        while True:
            await self._respect_retry_after(host)
            if kind != "page":
                return
            wait = page_wait(self.pace(host), self._clock())
            if wait <= 0:
                self._paces[host] = page_sent(self.pace(host), self._clock())
                return
            await asyncio.sleep(wait)

    def _paced(self, host: str, status: int, sent_at: float) -> None:
        """Tell the host's pace how it answered; its photo limiter follows the new limit."""
        pace = self.pace(host)
        paced = after_answer(pace, status, self._clock(), sent_at=sent_at)
        if paced is pace:
            return
        self._paces[host] = paced
        limiter = self._image_slots.get(host)
        if limiter is not None and paced.image_limit != limiter.limit:
            limiter.resize(paced.image_limit)

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
