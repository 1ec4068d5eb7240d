"""Transient faults: the plan a test or benchmark sets, the seeded draws that apply it, and
the Retry-After windows its 429s open.

Kept apart from the routes because these faults strike any request of any origin, whatever
it asks for, while a photo's or page's permanent fault belongs to the route. Faults are
drawn from a seeded ``random.Random`` with a fixed number of draws per request, so a given
request sequence meets the same faults every run. Everything here lives on the server's loop.
"""

from __future__ import annotations

import asyncio
import math
import random
from dataclasses import dataclass, fields
from typing import Any, NamedTuple

from fashion_assets.replica.replies import Reply
from fashion_assets.replica.stats import Counters


@dataclass
class FaultPlan:
    """Transient faults, each an independent per-request probability.

    ``soft_404`` (pages only) and ``error_403`` (photos only) copy how the real site
    throttles: a 404 that looks like a wrong slug, and a CDN 403.
    """

    latency_ms: float = 0.0
    error_5xx: float = 0.0
    rate_429: float = 0.0
    retry_after_s: float = 1.0
    # The 429's Retry-After header as sent, when set: a value a client may not read ("²",
    # a date in the wrong format); the window is ``retry_after_s`` either way.
    retry_after_header: str = ""
    drop: float = 0.0
    timeout: float = 0.0
    hang_s: float = 30.0
    truncate: float = 0.0
    soft_404: float = 0.0
    error_403: float = 0.0
    seed: int = 0
    # Not a fault but how Retry-After is judged: a request that arrives this soon after a 429
    # was sent was already in flight (the client could not have read the 429 yet), so it is
    # counted apart (``in_flight_after_429``), not as a violation.
    in_flight_grace_s: float = 0.25
    # Not a fault either: what every origin answers for /robots.txt when set (the CDN's too,
    # which has none of its own: a 404), in place of the site's own rules, so that a test or
    # a benchmark can serve the rules it holds a client to (RFC 9309's wildcards and all).
    robots_txt: str = ""

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> FaultPlan:
        """Build from JSON, refusing unknown keys so a typo cannot silently disable a fault."""
        unknown = set(data) - {f.name for f in fields(cls)}
        if unknown:
            raise ValueError(f"unknown fault fields: {sorted(unknown)}")
        return cls(**data)


class Draws(NamedTuple):
    """One request's draws, one per fault, each compared with its probability in the plan."""

    drop: float
    hang: float
    throttle: float
    error: float
    status_pick: float  # which 5xx an error is
    truncate: float
    soft: float  # the soft 404 of a page, the 403 of a photo


class Faults:
    """The plan in force, its seeded draws and the Retry-After window each origin is in."""

    def __init__(self) -> None:
        self.plan = FaultPlan()
        self.rng = random.Random(0)
        # origin -> (loop time the last 429 was sent, loop time its Retry-After window ends)
        self.windows: dict[str, tuple[float, float]] = {}

    def set_plan(self, plan: FaultPlan) -> None:
        self.plan = plan
        self.rng = random.Random(plan.seed)

    def judge_arrival(self, origin: str, counters: Counters) -> None:
        """Count a request that arrives inside ``origin``'s Retry-After window, as a violation
        or (within the grace) as one already in flight when the 429 went out."""
        now = asyncio.get_running_loop().time()
        sent_429, window_end = self.windows.get(origin, (0.0, 0.0))
        if now < window_end:
            if now < sent_429 + self.plan.in_flight_grace_s:
                counters.in_flight += 1
            else:
                counters.violations += 1

    def draw(self) -> Draws:
        """Always draw the same number of values so one fault never shifts the others."""
        return Draws(*(self.rng.random() for _ in Draws._fields))

    def transient_reply(
        self, plan: FaultPlan, draws: Draws, origin: str, kind: str, not_found: bytes
    ) -> Reply | None:
        """The error ``draws`` meet under ``plan`` (the plan in force when the request
        arrived), or None to answer as asked; ``not_found`` is the origin's 404 page."""
        if draws.throttle < plan.rate_429:
            loop = asyncio.get_running_loop()
            retry_after = max(1, math.ceil(plan.retry_after_s))
            window_end = max(self.windows.get(origin, (0.0, 0.0))[1], loop.time() + retry_after)
            self.windows[origin] = (loop.time(), window_end)
            return Reply(429, b"Too Many Requests",
                         headers={"Retry-After": plan.retry_after_header or str(retry_after)})
        if draws.error < plan.error_5xx:
            return Reply((500, 502, 503)[int(draws.status_pick * 3)], b"Server Error")
        if draws.soft < plan.soft_404 and kind == "page":
            return Reply(404, not_found)
        if draws.soft < plan.error_403 and kind == "image":
            return Reply(403, b"Forbidden")
        return None
