"""The replica's HTTP server: Vogue and theImpression, each a site and a CDN on loopback ports.

aiohttp serves all four origins from one background event loop because the Scrapy benchmark
needs a server that is never the bottleneck. A socket per origin lets tests treat each site
and CDN as a different host (allow-lists, per-host pacing). This module owns only the
sockets, the loop thread and how other threads drive it: what each URL answers is in
``vogue_routes`` and ``impression_routes``, and the path every request takes (counters,
faults, gate) in ``handlers``, which lives on the server's loop; the thread-facing methods
here hop onto it and wait.
"""

from __future__ import annotations

import asyncio
import functools
import json
import signal
import sys
import threading
from collections.abc import Awaitable, Callable, Mapping
from typing import TypeVar

from aiohttp import web

from fashion_assets.replica.build import ReplicaSite, build_site
from fashion_assets.replica.control import CONTROL_PREFIX, control
from fashion_assets.replica.extra import ExtraSite
from fashion_assets.replica.faults import FaultPlan
from fashion_assets.replica.handlers import Handlers
from fashion_assets.replica.images import warm_photos
from fashion_assets.replica.stats import ReplicaStats

_T = TypeVar("_T")
_SHUTDOWN_TIMEOUT_S = 2.0
_STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


class ReplicaServer:
    """A running replica: all four origins on one background loop, driven from any thread.

    ``base_url`` and ``cdn_url`` are Vogue's site and CDN, ``impression_url`` and
    ``impression_cdn_url`` theImpression's; ``origin_url`` names each origin, the further
    sites' (``extra_sites``, each on a port of its own) too.
    """

    def __init__(
        self,
        site: ReplicaSite,
        host: str,
        port: int,
        cdn_port: int,
        impression_port: int = 0,
        impression_cdn_port: int = 0,
        extra_sites: Mapping[str, ExtraSite] | None = None,
    ) -> None:
        self.site = site
        self.extra_sites = dict(extra_sites or {})
        self._urls: dict[str, str] = {}
        self.base_url = ""
        self.cdn_url = ""
        self.impression_url = ""
        self.impression_cdn_url = ""
        self._host = host
        self._ports = (port, cdn_port, impression_port, impression_cdn_port)
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._startup_error: BaseException | None = None
        self._runners: list[web.AppRunner] = []
        self._handlers: Handlers | None = None
        self._thread = threading.Thread(target=self._run, name="replica-server", daemon=True)

    def __enter__(self) -> ReplicaServer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # -- lifecycle -----------------------------------------------------------------------

    def _start(self) -> None:
        self._thread.start()
        self._ready.wait()
        if self._startup_error is not None:
            self._thread.join()
            raise self._startup_error

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_until_complete(self._listen())
        except BaseException as error:  # handed to the starting thread, which re-raises it
            self._startup_error = error
            self._loop.run_until_complete(self._close_runners())
            self._loop.close()
            self._ready.set()
            return
        self._ready.set()
        self._loop.run_forever()
        self._loop.close()

    async def _listen(self) -> None:
        handlers = Handlers(self.site)
        self._handlers = handlers

        async def site_request(request: web.Request) -> web.StreamResponse:
            """Vogue's site, with the control endpoint beside its pages."""
            if request.path.startswith(CONTROL_PREFIX):
                return await control(handlers, request)
            return await handlers.site_request(request)

        urls = []
        origins: tuple[Callable[[web.Request], Awaitable[web.StreamResponse]], ...] = (
            site_request,
            handlers.cdn_request,
            handlers.impression_request,
            handlers.impression_cdn_request,
        )
        names = ["site", "cdn", "impression", "impression_cdn"]
        ports = list(self._ports)
        for name, extra in self.extra_sites.items():
            origins += (functools.partial(self._extra_request, handlers, name, extra),)
            names.append(name)
            ports.append(0)
        for handler, port in zip(origins, ports, strict=True):
            app = web.Application()
            app.router.add_route("*", "/{tail:.*}", handler)
            runner = web.AppRunner(
                app, access_log=None, shutdown_timeout=_SHUTDOWN_TIMEOUT_S, handle_signals=False
            )
            await runner.setup()
            self._runners.append(runner)
            await web.TCPSite(runner, self._host, port).start()
            urls.append(f"http://{self._host}:{runner.addresses[0][1]}")
        self._urls = dict(zip(names, urls, strict=True))
        self.base_url, self.cdn_url, self.impression_url, self.impression_cdn_url = urls[:4]
        handlers.vogue.cdn_url = self.cdn_url
        handlers.impression.url = self.impression_url
        handlers.impression.cdn_url = self.impression_cdn_url

    async def _extra_request(self, handlers: Handlers, name: str, site: ExtraSite,
                             request: web.Request) -> web.StreamResponse:
        return await handlers.extra_request(request, name, site, self._urls[name])

    def origin_url(self, name: str) -> str:
        """The URL of origin ``name``: "site", "cdn" (Vogue's), "impression",
        "impression_cdn" (theImpression's), or a further site's name."""
        return self._urls[name]

    def stop(self) -> None:
        """Release held requests, end hangs, close every socket and join the loop thread."""
        if not self._thread.is_alive():
            return
        asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop).result()
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()

    async def _shutdown(self) -> None:
        handlers = self._require_handlers()
        handlers.stopping.set()
        handlers.gate.release()
        await self._close_runners()

    async def _close_runners(self) -> None:
        for runner in self._runners:
            await runner.cleanup()

    # -- driving -------------------------------------------------------------------------

    def _require_handlers(self) -> Handlers:
        if self._handlers is None:
            raise RuntimeError("the replica server is not running")
        return self._handlers

    def _on_loop(self, action: Callable[[Handlers], _T]) -> _T:
        """Run ``action`` on the server's loop and wait, so state never changes mid-request."""
        handlers = self._require_handlers()

        async def call() -> _T:
            return action(handlers)

        return asyncio.run_coroutine_threadsafe(call(), self._loop).result()

    def set_faults(self, plan: FaultPlan) -> None:
        self._on_loop(lambda handlers: handlers.set_faults(plan))

    def replace_site(self, site: ReplicaSite) -> None:
        """Serve ``site`` instead, on every origin, from the next request on.

        The site changes between two crawls as the real one does between two visits: a
        designer appears in the directory, a season opens. The swap happens on the server's
        loop, so no request sees half of each site; counters, faults and the image gate stay.
        """
        self._on_loop(lambda handlers: handlers.replace_site(site))
        self.site = site

    def stats(self) -> ReplicaStats:
        return self._on_loop(Handlers.stats)

    def reset_stats(self) -> None:
        self._on_loop(Handlers.reset)

    def hold_images(self, after: int) -> None:
        """Let the next ``after`` image requests through, then block the rest at the gate."""
        self._on_loop(lambda handlers: handlers.gate.hold(after))

    def release_images(self) -> None:
        self._on_loop(lambda handlers: handlers.gate.release())

    def hold_requests(self, after: int, kinds: tuple[str, ...]) -> None:
        """Let the next ``after`` requests of ``kinds`` ("page", "image") through, then
        block the rest at the gate; ``release_images`` opens it."""
        self._on_loop(lambda handlers: handlers.gate.hold(after, frozenset(kinds)))

    def advance_gate(self, after: int, kinds: tuple[str, ...] | None = None) -> None:
        """Let the requests held now go; hold again after ``after`` more (of ``kinds``)."""
        self._on_loop(lambda handlers: handlers.gate.advance(
            after, None if kinds is None else frozenset(kinds)))

    def held_count(self) -> int:
        return self._require_handlers().gate.held

    def serving(self, origin: str) -> int:
        """Requests ``origin`` ("site", "cdn", "impression", "impression_cdn") serves now."""
        return self._on_loop(lambda handlers: handlers.serving[origin])

    def arrivals(self, origin: str, kind: str) -> list[float]:
        """When the ``kind`` ("page", "image", "robots") requests to ``origin`` arrived since
        the last reset: the server loop's monotonic time, in arrival order."""
        return self._on_loop(lambda handlers: list(handlers.counters.arrivals[(origin, kind)]))

    def wait_held(self, count: int, timeout: float = 10.0) -> bool:
        """Block until at least ``count`` image requests wait at the gate; False on timeout."""
        gate = self._require_handlers().gate
        with gate.changed:
            return gate.changed.wait_for(lambda: gate.held >= count, timeout)


def origins(server: ReplicaServer) -> dict[str, str]:
    """The four origins of a running replica, by the names its JSON line gives them."""
    return {
        "base_url": server.base_url,
        "cdn_url": server.cdn_url,
        "impression_url": server.impression_url,
        "impression_cdn_url": server.impression_cdn_url,
    }


def start_replica(
    site: ReplicaSite | None = None,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    cdn_port: int = 0,
    impression_port: int = 0,
    impression_cdn_port: int = 0,
    extra_sites: Mapping[str, ExtraSite] | None = None,
) -> ReplicaServer:
    """Start serving ``site`` (default: ``build_site()``), and ``extra_sites`` beside it;
    returns once every socket listens."""
    server = ReplicaServer(
        site or build_site(), host, port, cdn_port, impression_port, impression_cdn_port,
        extra_sites,
    )
    server._start()
    return server


def serve_forever(
    site: ReplicaSite,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    cdn_port: int = 0,
    impression_port: int = 0,
    impression_cdn_port: int = 0,
    warm: bool = False,
    announce: Callable[[ReplicaServer], None] | None = None,
) -> None:
    """Serve ``site`` until SIGTERM or SIGINT, for a crawler or benchmark in another process.

    Prints ``{"base_url": ..., "cdn_url": ..., "impression_url": ...,
    "impression_cdn_url": ...}`` as one flushed JSON line once every socket listens, so the
    parent reads the ports instead of guessing them or sleeping; ``warm``
    encodes every photo before that line. Call it from
    the main thread (signal handlers can only be installed there).
    """
    if warm:
        warm_photos(site)
    stopped = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stopped.set()) for sig in _STOP_SIGNALS}
    try:
        with start_replica(site, host=host, port=port, cdn_port=cdn_port,
                           impression_port=impression_port,
                           impression_cdn_port=impression_cdn_port) as server:
            if announce is None:
                print(json.dumps(origins(server)))
            else:
                announce(server)
            sys.stdout.flush()
            stopped.wait()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
