"""A client's side of the per-host politeness budget (``HostBudget``).

The budget of a host (pages spaced by the page delay, photo downloads in flight within the
host's cap, the cap halved by a 429 or 503 and restored step by step) is shared by every
client: kept in a *budget store*, the catalog database (``catalog/host_budget.py``) for a
crawl, so that its worker processes, the runs side by side and other machines together stay
within it. A client alone (a test, a tool) may keep it in memory (``MemoryBudgetStore``).

For each host the client keeps a ``Limiter`` whose limit is its lease on the host's photo
slots (``domain/host_budget.py``), renewed by a task of its own every ``renew_s`` seconds
while it downloads, at once when downloads wait for a slot it does not hold, and given back
when the client closes. Page turns are taken from the store one by one. Each origin's
robots.txt is kept there too, so one client's reading serves the others, and read by one
client at a time (a claim), so clients that start together ask the host once. The store's calls
are short transactions run off the event loop; a store that keeps failing is an outage of
our own (``crawl/infra.py``), never the source's.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from fashion_assets.crawl.infra import InfrastructureError, with_retries
from fashion_assets.crawl.limits import ImageSlots, Limiter
from fashion_assets.crawl.robots import ROBOTS_MAX_AGE_S, ROBOTS_READ_CLAIM_S, RobotsFile
from fashion_assets.domain.host_budget import Grant, Lease, grant
from fashion_assets.domain.politeness import (
    HostPace,
    PaceRules,
    after_answer,
    is_throttle,
    page_turn,
)
from fashion_assets.domain.politeness import start as start_pace

# How late past its turn a page may still be sent. A sender later than this gives its turn
# up and takes the next free one, so pages of different clients are never much less than
# the page delay apart; small enough to keep that promise, large enough that an event loop
# busy with downloads rarely loses a turn.
PAGE_TURN_SLACK_S = 0.05
# While downloads wait for slots the lease does not give, it is renewed this often: other
# clients hand slots back as their downloads finish and record it at their next renewal.
WAITING_RENEW_S = 0.1


class BudgetStore(Protocol):
    """Where the budget of every host is kept (see ``catalog/host_budget.py``)."""

    def take_page_turn(self, host: str, now: float, delay_s: float, cap: int) -> float: ...

    def renew_lease(self, host: str, holder: str, wanted: int, in_flight: int, now: float,
                    ttl_s: float, rules: PaceRules) -> tuple[Grant, int]: ...

    def record_answer(self, host: str, status: int, sent_at: float, now: float,
                      rules: PaceRules) -> int: ...

    def release(self, holder: str) -> None: ...

    def kept_robots(self, origin: str, since: float) -> RobotsFile | None: ...

    def claim_robots_read(self, origin: str, holder: str, now: float, claim_s: float
                          ) -> bool: ...

    def end_robots_read(self, origin: str, holder: str) -> None: ...

    def keep_robots(self, origin: str, robots: RobotsFile, now: float) -> None: ...


@dataclass
class _Host:
    next_page_at: float
    pace: HostPace
    leases: dict[str, tuple[Lease, float]] = field(default_factory=dict)


class MemoryBudgetStore:
    """The budget kept in this process only: right for a client alone (a test, a tool)."""

    def __init__(self) -> None:
        self._hosts: dict[str, _Host] = {}
        self._robots: dict[str, tuple[RobotsFile, float]] = {}
        self._readers: dict[str, tuple[str, float]] = {}
        self._lock = threading.Lock()

    def _host(self, host: str, now: float, rules: PaceRules) -> _Host:
        state = self._hosts.get(host)
        if state is None:
            state = self._hosts[host] = _Host(0.0, start_pace(rules, now))
        return state

    def take_page_turn(self, host: str, now: float, delay_s: float, cap: int) -> float:
        with self._lock:
            state = self._host(host, now, PaceRules(image_cap=cap))
            send_at, state.next_page_at = page_turn(state.next_page_at, now, delay_s)
            return send_at

    def renew_lease(self, host: str, holder: str, wanted: int, in_flight: int, now: float,
                    ttl_s: float, rules: PaceRules) -> tuple[Grant, int]:
        with self._lock:
            state = self._host(host, now, rules)
            cap = min(rules.image_cap, state.pace.image_limit)
            others = {name: lease for name, (lease, until) in state.leases.items()
                      if name != holder and until > now}
            given = grant(cap, holder, wanted, in_flight, others)
            state.leases = {name: (lease, until) for name, (lease, until)
                            in state.leases.items() if until > now}
            state.leases[holder] = (Lease(wanted, given.held), now + ttl_s)
            return given, cap

    def record_answer(self, host: str, status: int, sent_at: float, now: float,
                      rules: PaceRules) -> int:
        with self._lock:
            state = self._host(host, now, rules)
            state.pace = after_answer(state.pace, status, now, sent_at=sent_at)
            return min(rules.image_cap, state.pace.image_limit)

    def release(self, holder: str) -> None:
        with self._lock:
            for state in self._hosts.values():
                state.leases.pop(holder, None)
            self._readers = {origin: claim for origin, claim in self._readers.items()
                             if claim[0] != holder}

    def claim_robots_read(self, origin: str, holder: str, now: float, claim_s: float) -> bool:
        with self._lock:
            reader, until = self._readers.get(origin, (holder, 0.0))
            if reader != holder and until > now:
                return False
            self._readers[origin] = (holder, now + claim_s)
            return True

    def end_robots_read(self, origin: str, holder: str) -> None:
        with self._lock:
            if self._readers.get(origin, ("", 0.0))[0] == holder:
                del self._readers[origin]

    def kept_robots(self, origin: str, since: float) -> RobotsFile | None:
        with self._lock:
            robots, read_at = self._robots.get(origin, (None, 0.0))
            return robots if read_at >= since else None

    def keep_robots(self, origin: str, robots: RobotsFile, now: float) -> None:
        with self._lock:
            self._robots[origin] = (robots, now)


class HostBudget:
    """This client's share of every host's budget; use as ``async with HostBudget(...)``.

    ``clock`` is Unix seconds (shared with other processes and machines). ``infra_retry_s``
    bounds how long a failing store is retried before the crawl stops on it.
    """

    def __init__(self, store: BudgetStore, rules: PaceRules, *, renew_s: float = 1.0,
                 ttl_s: float = 10.0, infra_retry_s: float = 60.0,
                 clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.rules = rules
        self.holder = uuid.uuid4().hex
        self._renew_s = renew_s
        self._ttl_s = ttl_s
        self._infra_retry_s = infra_retry_s
        self._clock = clock
        self._limiters: dict[str, Limiter] = {}
        self._caps: dict[str, int] = {}
        self._page_sent: dict[str, float] = {}
        self._peaks: dict[str, int] = {}
        self._wake: dict[str, asyncio.Event] = {}
        self._renewals: dict[str, asyncio.Task[None]] = {}

    async def __aenter__(self) -> HostBudget:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        renewals, self._renewals = list(self._renewals.values()), {}
        for task in renewals:
            task.cancel()
        await asyncio.gather(*renewals, return_exceptions=True)
        if renewals:
            await self._call("giving back the photo slots", self.store.release, self.holder)

    async def page_turn(self, host: str) -> None:
        """Wait for this page's turn at ``host``, then record it as sent.

        The store hands out turns the delay apart to every client. A page that wakes late
        (a busy event loop) would leave less than the delay before the next turn: more than
        ``PAGE_TURN_SLACK_S`` late, it takes a new turn. This client also keeps its own pages
        the delay apart from the moment each was really sent (checked and recorded with no
        await between): across clients the turns hold the pace (less the slack), within a
        client the delay holds exactly.
        """
        delay = self.rules.page_delay_s
        if delay <= 0:
            return
        turn = await self._take_turn(host, delay)
        while True:
            last = self._page_sent.get(host)
            ready_at = turn if last is None else max(turn, last + delay)
            if (wait := ready_at - self._clock()) > 0:
                await asyncio.sleep(wait)
            elif self._clock() - turn > PAGE_TURN_SLACK_S:
                # Too late for this turn: the next one, another client's perhaps, could go
                # out less than the delay after this page. Take a new one.
                turn = await self._take_turn(host, delay)
            else:
                break
        self._page_sent[host] = self._clock()

    async def _take_turn(self, host: str, delay: float) -> float:
        return await self._call(f"taking a page turn of {host}", self.store.take_page_turn,
                                host, self._clock(), delay, self.rules.image_cap)

    @contextlib.asynccontextmanager
    async def image_slot(self, host: str) -> AsyncIterator[None]:
        """Hold one of this client's photo slots of ``host`` while the body runs."""
        limiter = self._limiter(host)
        if limiter.active >= limiter.limit:
            self._wake[host].set()  # wants more than the lease gives: renew now
        async with limiter:
            self._peaks[host] = max(self._peaks[host], limiter.active + limiter.waiting)
            yield

    async def answered(self, host: str, status: int, sent_at: float) -> None:
        """Tell the budget how ``host`` answered a request sent at ``sent_at`` (``clock``).

        Only answers that can change the cap reach the store: a throttle, or a success while
        the cap is below the configured one. The usual answer costs nothing.
        """
        cap = self._caps.get(host, self.rules.image_cap)
        if not is_throttle(status) and not (status < 500 and cap < self.rules.image_cap):
            return
        before = self._caps.get(host, self.rules.image_cap)
        cap = self._caps[host] = await self._call(
            f"recording how {host} answered", self.store.record_answer, host, status, sent_at,
            self._clock(), self.rules)
        limiter = self._limiters.get(host)
        if limiter is not None and cap != before:
            if limiter.limit > cap:
                limiter.resize(cap)  # a cut holds at once
            await self._renew(host, limiter)  # a step back up, as this client's lease allows

    async def kept_robots(self, origin: str) -> RobotsFile | None:
        """``origin``'s robots.txt as a client read it within ``ROBOTS_MAX_AGE_S``, or None."""
        return await self._call(f"reading the kept robots.txt of {origin}",
                                self.store.kept_robots, origin,
                                self._clock() - ROBOTS_MAX_AGE_S)

    async def claim_robots_read(self, origin: str) -> bool:
        """Whether this client is the one to read ``origin``'s robots.txt now (no other
        client is reading it); its claim holds ``ROBOTS_READ_CLAIM_S`` at most."""
        return await self._call(f"claiming the read of the robots.txt of {origin}",
                                self.store.claim_robots_read, origin, self.holder,
                                self._clock(), ROBOTS_READ_CLAIM_S)

    async def end_robots_read(self, origin: str) -> None:
        """This client could not read ``origin``'s robots.txt: another may try at once."""
        await self._call(f"giving up the read of the robots.txt of {origin}",
                         self.store.end_robots_read, origin, self.holder)

    async def keep_robots(self, origin: str, robots: RobotsFile) -> None:
        """Keep ``origin``'s robots.txt, just read, for every other client."""
        await self._call(f"keeping the robots.txt of {origin}", self.store.keep_robots, origin,
                         robots, self._clock())

    def slots(self, host: str) -> ImageSlots:
        """The photo downloads of ``host``: this client's limit, in flight, waiting."""
        limiter = self._limiters.get(host)
        if limiter is None:
            return ImageSlots(self._caps.get(host, self.rules.image_cap), 0, 0)
        return ImageSlots(limiter.limit, limiter.active, limiter.waiting)

    def now(self) -> float:
        """The budget's clock: Unix seconds, shared with the other clients."""
        return self._clock()

    def _limiter(self, host: str) -> Limiter:
        limiter = self._limiters.get(host)
        if limiter is None:
            limiter = self._limiters[host] = Limiter(0)  # nothing until the first renewal
            self._peaks[host] = 0
            self._wake[host] = asyncio.Event()
            self._renewals[host] = asyncio.create_task(self._keep_lease(host, limiter))
        return limiter

    async def _keep_lease(self, host: str, limiter: Limiter) -> None:
        """Renew the lease on ``host``'s photo slots for as long as the client lives.

        A store that keeps failing fails the downloads waiting for a slot, and every later
        one, with the ``InfrastructureError``: none goes ahead outside the budget.
        """
        wake = self._wake[host]
        while True:
            wake.clear()  # before reading the demand: a later wish wakes the next round
            try:
                wanted, given = await self._renew(host, limiter)
            except InfrastructureError as exc:
                limiter.fail(exc)
                return
            if limiter.waiting and given.limit < given.share:
                await asyncio.sleep(WAITING_RENEW_S)  # others give our due back as they finish
                continue
            timeout = None if wanted == 0 else self._renew_s  # idle: wait for a download
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(wake.wait(), timeout)

    async def _renew(self, host: str, limiter: Limiter) -> tuple[int, Grant]:
        """Renew this client's lease on ``host``'s photo slots; the limiter follows it.
        Returns what was wanted (the most in flight and waiting since the last renewal) and
        the grant."""
        wanted = max(self._peaks[host], limiter.active + limiter.waiting)
        self._peaks[host] = limiter.active + limiter.waiting
        given, self._caps[host] = await self._call(
            f"renewing the photo slots of {host}", self.store.renew_lease, host, self.holder,
            wanted, limiter.active, self._clock(), self._ttl_s, self.rules)
        limiter.resize(given.limit)
        return wanted, given

    async def _call(self, what: str, function: Callable[..., Any], *args: Any) -> Any:
        return await with_retries(what, self._infra_retry_s, function, *args)
