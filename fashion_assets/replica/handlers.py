"""The one path every request of every origin takes: count it, meet the transient faults and
the gate, take the route's reply, send it.

Kept apart from the routes (what each URL answers) and from the server (sockets and
threads) so that faults, counters and the gate apply alike to all four origins, in one
order: arrival judged against Retry-After, latency, gate, drop, hang, error, reply.
Everything here lives on the server's loop.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter
from collections.abc import Callable

from aiohttp import web

from fashion_assets.replica.build import ReplicaSite
from fashion_assets.replica.extra import ExtraSite
from fashion_assets.replica.faults import FaultPlan, Faults
from fashion_assets.replica.gate import Gate
from fashion_assets.replica.impression_routes import ImpressionRoutes
from fashion_assets.replica.impression_site import UPLOADS_PREFIX
from fashion_assets.replica.replies import Reply, cut, drop, stream
from fashion_assets.replica.stats import Counters, ReplicaStats
from fashion_assets.replica.vogue_routes import VogueRoutes


class Handlers:
    """Request handling for every origin, and the state it keeps between requests."""

    def __init__(self, site: ReplicaSite) -> None:
        self.vogue = VogueRoutes(site)
        self.impression = ImpressionRoutes(site)
        self.faults = Faults()
        self.counters = Counters()
        self.serving: Counter[str] = Counter()  # requests being served now, per origin
        self.gate = Gate()
        self.stopping = asyncio.Event()

    def set_faults(self, plan: FaultPlan) -> None:
        self.faults.set_plan(plan)

    def replace_site(self, site: ReplicaSite) -> None:
        self.vogue.replace_site(site)
        self.impression.replace_site(site)

    def reset(self) -> None:
        """Zero the counters and forget Retry-After windows, so each scenario starts clean."""
        self.counters = Counters(self.serving)
        self.faults.windows.clear()

    def stats(self) -> ReplicaStats:
        return self.counters.snapshot(held=self.gate.held)

    # -- origins -----------------------------------------------------------------------

    async def site_request(self, request: web.Request) -> web.StreamResponse:
        return await self._serve(request, "site", _kind(request.path, "page"), self.vogue.page,
                                 self.vogue.not_found)

    async def cdn_request(self, request: web.Request) -> web.StreamResponse:
        return await self._serve(request, "cdn", _kind(request.path, "image"), self.vogue.photo,
                                 self.vogue.not_found)

    async def impression_request(self, request: web.Request) -> web.StreamResponse:
        """theImpression's site: pages, robots, and the photos WordPress keeps as uploads."""
        path, routes = request.path, self.impression
        if path.startswith(UPLOADS_PREFIX):
            return await self._serve(request, "impression", "image", routes.upload,
                                     routes.not_found)
        return await self._serve(request, "impression", _kind(path, "page"), routes.page,
                                 routes.not_found)

    async def impression_cdn_request(self, request: web.Request) -> web.StreamResponse:
        routes = self.impression
        return await self._serve(request, "impression_cdn", _kind(request.path, "image"),
                                 routes.cdn_photo, routes.not_found)

    async def extra_request(self, request: web.Request, origin: str, site: ExtraSite,
                            origin_url: str) -> web.StreamResponse:
        """A further site's origin (``extra.py``), through the same faults and gate."""
        return await self._serve(request, origin, _kind(request.path, site.kind(request.path)),
                                 lambda r: site.reply(r.path, origin_url), b"Not Found")

    # -- faults and sending ---------------------------------------------------------------

    async def _serve(
        self,
        request: web.Request,
        origin: str,
        kind: str,
        reply_for: Callable[[web.Request], Reply],
        not_found: bytes,
    ) -> web.StreamResponse:
        """Count, apply the transient faults, then answer with ``reply_for``; ``not_found`` is
        the origin's 404 page, for soft 404s (pages only)."""
        counters, faults, plan = self.counters, self.faults, self.faults.plan
        counters.requests[kind] += 1
        counters.by_path[request.path] += 1
        counters.arrivals[(origin, kind)].append(asyncio.get_running_loop().time())
        self.serving[origin] += 1
        counters.peak_in_flight[origin] = max(counters.peak_in_flight[origin],
                                              self.serving[origin])
        try:
            faults.judge_arrival(origin, counters)
            if plan.latency_ms:
                await asyncio.sleep(plan.latency_ms / 1000)
            if kind in self.gate.kinds:
                await self.gate.wait()
            draws = faults.draw()
            if draws.drop < plan.drop:
                counters.dropped += 1
                return drop(request)
            if draws.hang < plan.timeout:
                await self._hang(plan.hang_s)
                if request.transport is None or request.transport.is_closing():
                    # The client gave up waiting: it reads no answer, so none is given (a 429
                    # would open a Retry-After window nobody was told about).
                    counters.dropped += 1
                    return drop(request)
            reply = faults.transient_reply(plan, draws, origin, kind, not_found)
            if reply is None and kind == "robots" and plan.robots_txt:
                reply = Reply(200, plan.robots_txt.encode(), "text/plain; charset=utf-8")
            if reply is None:
                reply = reply_for(request)
            counters.by_status[reply.status] += 1
            return await self._send(request, reply, counters, draws.truncate < plan.truncate)
        finally:
            self.serving[origin] -= 1

    async def _send(
        self, request: web.Request, reply: Reply, counters: Counters, truncate: bool
    ) -> web.StreamResponse:
        """Send ``reply`` as it asks (streamed, raw, cut) or cut because ``truncate`` drew so;
        ``counters`` are those of the request's arrival."""
        if reply.stream_size:
            return await stream(request, reply, self.stopping, self._sent)
        if reply.raw:
            counters.bytes_sent += len(reply.body)
            if request.transport is not None:
                request.transport.write(reply.body)
            return drop(request)
        if reply.cut or truncate:
            counters.truncated += 1
            return await cut(request, reply, self._sent)
        counters.bytes_sent += len(reply.body)
        headers = {**reply.headers, "Content-Type": reply.content_type}
        return web.Response(status=reply.status, body=reply.body, headers=headers)

    def _sent(self, size: int) -> None:
        """Count bytes a stream or cut wrote, into the counters of the moment (a reset while
        a huge body streams measures from there)."""
        self.counters.bytes_sent += size

    async def _hang(self, seconds: float) -> None:
        """Sleep, but wake early when the server stops, so shutdown never waits on a hang."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.stopping.wait(), seconds)


def _kind(path: str, otherwise: str) -> str:
    """What a request is, on every origin alike: its robots.txt, which a client reads before its
    first page or photo there (never held at the gate, never counted as a page or a photo), or
    what the origin serves otherwise ("page" or "image")."""
    return "robots" if path == "/robots.txt" else otherwise
