"""The replica's HTTP server: Vogue and theImpression, each a site and a CDN on loopback ports.

aiohttp serves all four origins from one background event loop because the Scrapy benchmark
needs a server that is never the bottleneck. A socket per origin lets tests treat each site
and CDN as a different host (allow-lists, per-host pacing). Every request of every origin
goes through one ``_Handlers._serve``, so faults, counters and the image gate apply alike.
Transient faults are drawn from a seeded ``random.Random`` with a fixed number of draws per
request, so a given request sequence meets the same faults every run. Counters, the
Retry-After bookkeeping (per origin) and the image gate live on the server's loop; the
thread-facing methods hop onto it and wait.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import json
import math
import random
import signal
import sys
import threading
from collections import Counter, defaultdict, deque
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields
from typing import Any, TypeVar
from urllib.parse import unquote

from aiohttp import web

from fashion_assets.replica import impression
from fashion_assets.replica.build import ReplicaSite, build_site
from fashion_assets.replica.images import HUGE_BODY_HEAD, HUGE_BODY_SIZE, photo_body, warm_photos
from fashion_assets.replica.pages import (
    original_url,
    render_designer,
    render_directory,
    render_landing,
    render_not_found,
    render_robots,
    render_season,
    render_show,
)
from fashion_assets.replica.site import ReplicaPhoto

_T = TypeVar("_T")
_HTML = "text/html; charset=utf-8"
_PHOTO_HEADERS = {"Cache-Control": "public, max-age=31536000, immutable"}
_REDIRECTS = {
    "redirect_offsite": "http://169.254.169.254/latest/meta-data/",
    "redirect_private": "http://10.0.0.1/x.jpg",
    "redirect_metadata_ipv6": "http://[::ffff:169.254.169.254]/latest/meta-data/",
    "redirect_decimal_loopback": "http://2130706433/x.jpg",
    "redirect_not_allowed": "http://example.com/x.jpg",
    "redirect_file_scheme": "file:///etc/passwd",
}
# How hostile show pages are encoded; every other page is UTF-8, as it declares.
_PAGE_ENCODINGS = {"cp1252_page": "cp1252"}
_HUGE_PAGE_HEAD = b"<!DOCTYPE html><html><head><title>Vogue</title></head><body>"
_STREAM_CHUNK = 256 * 1024
_CONTROL_PREFIX = "/__replica/"
_SHUTDOWN_TIMEOUT_S = 2.0
_STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)
_ARRIVALS_KEPT = 10_000  # arrival times remembered per origin and kind, the latest


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

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> FaultPlan:
        """Build from JSON, refusing unknown keys so a typo cannot silently disable a fault."""
        unknown = set(data) - {f.name for f in fields(cls)}
        if unknown:
            raise ValueError(f"unknown fault fields: {sorted(unknown)}")
        return cls(**data)


@dataclass(frozen=True)
class ReplicaStats:
    """A snapshot of the counters; ``by_status`` counts answered requests only (a dropped
    request has no status), ``held`` is how many image requests wait at the gate now,
    ``peak_in_flight`` the most requests each origin was serving at once (held ones included)
    since the last reset."""

    page_requests: int = 0
    image_requests: int = 0
    robots_requests: int = 0
    by_status: dict[int, int] = field(default_factory=dict)
    by_path: dict[str, int] = field(default_factory=dict)
    bytes_sent: int = 0
    dropped: int = 0
    truncated: int = 0
    retry_after_violations: int = 0
    in_flight_after_429: int = 0
    held: int = 0
    peak_in_flight: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ReplicaStats:
        """Read the control endpoint's JSON back (JSON turns status codes into strings)."""
        by_status = {int(status): count for status, count in data["by_status"].items()}
        return cls(**{**data, "by_status": by_status})


class _Counters:
    """Mutable counters, touched only on the server's loop.

    ``peak_in_flight`` starts at the requests each origin is serving when the counters are
    made (a reset mid-crawl measures from there); ``arrivals`` holds the loop time at which
    each request arrived, per (origin, kind), the latest ``_ARRIVALS_KEPT``.
    """

    def __init__(self, in_flight: Counter[str] | None = None) -> None:
        self.peak_in_flight: Counter[str] = Counter(
            {origin: n for origin, n in (in_flight or {}).items() if n > 0})
        self.arrivals: defaultdict[tuple[str, str], deque[float]] = defaultdict(
            lambda: deque(maxlen=_ARRIVALS_KEPT))
        self.requests: Counter[str] = Counter()
        self.by_status: Counter[int] = Counter()
        self.by_path: Counter[str] = Counter()
        self.bytes_sent = 0
        self.dropped = 0
        self.truncated = 0
        self.violations = 0
        self.in_flight = 0


class _Gate:
    """Blocks requests of ``kinds`` (images by default; "page" holds pages) beyond the first
    ``after`` until released. robots.txt is never held.

    ``held`` changes under a ``threading.Condition`` so test threads can wait for a crawl to
    reach the gate without sleeping.
    """

    def __init__(self) -> None:
        self.after: int | None = None
        self.passed = 0
        self.kinds: frozenset[str] = frozenset({"image"})
        self.open = asyncio.Event()
        self.open.set()
        self.held = 0
        self.changed = threading.Condition()

    def hold(self, after: int, kinds: frozenset[str] = frozenset({"image"})) -> None:
        """Hold the requests of ``kinds`` after the next ``after``; those held now stay."""
        self.after, self.passed, self.kinds = after, 0, kinds
        if self.open.is_set():
            self.open = asyncio.Event()

    def advance(self, after: int, kinds: frozenset[str] | None = None) -> None:
        """Let the requests held now go and hold again after ``after`` more, with no moment
        in between when the gate is open (a crawl held step by step)."""
        held = self.open
        self.open = asyncio.Event()
        self.after, self.passed = after, 0
        self.kinds = self.kinds if kinds is None else kinds
        held.set()

    def release(self) -> None:
        self.after = None
        self.open.set()

    async def wait(self) -> None:
        if self.after is None:
            return
        self.passed += 1
        if self.passed <= self.after:
            return
        self._count(+1)
        try:
            await self.open.wait()
        finally:
            self._count(-1)

    def _count(self, delta: int) -> None:
        with self.changed:
            self.held += delta
            self.changed.notify_all()


@dataclass
class _Reply:
    """What to answer, before transient faults decide how (or whether) it is sent."""

    status: int
    body: bytes = b""
    content_type: str = _HTML
    headers: dict[str, str] = field(default_factory=dict)
    cut: bool = False  # send half the body, then close (the "truncated" photo)
    raw: bool = False  # ``body`` is the whole HTTP response, sent as is, then close
    stream_size: int = 0  # stream this many bytes instead of ``body`` (the "huge" photo)
    stream_head: bytes = HUGE_BODY_HEAD  # what the streamed bytes open with
    declare_length: bool = True  # False: stream chunked, without Content-Length


class _Handlers:
    """Request handling for every origin; lives on the server's loop."""

    def __init__(self, site: ReplicaSite) -> None:
        self.site = site
        self.cdn_url = ""
        self.impression_url = ""
        self.impression_cdn_url = ""
        self.plan = FaultPlan()
        self.rng = random.Random(0)
        self.counters = _Counters()
        self.serving: Counter[str] = Counter()  # requests being served now, per origin
        # origin -> (loop time the last 429 was sent, loop time its Retry-After window ends)
        self.windows: dict[str, tuple[float, float]] = {}
        self.gate = _Gate()
        self.stopping = asyncio.Event()
        self.pages: dict[str, bytes] = {}
        self.not_found = render_not_found().encode()
        self.impression_pages: dict[str, bytes] = {}
        self.impression_not_found = impression.render_not_found().encode()

    # -- control -----------------------------------------------------------------------

    def set_faults(self, plan: FaultPlan) -> None:
        self.plan = plan
        self.rng = random.Random(plan.seed)

    def replace_site(self, site: ReplicaSite) -> None:
        """Answer from ``site`` from now on; pages rendered from the old one are forgotten,
        or a cached directory would keep hiding the brands the new site adds."""
        self.site = site
        self.pages.clear()
        self.impression_pages.clear()

    def reset(self) -> None:
        """Zero the counters and forget Retry-After windows, so each scenario starts clean."""
        self.counters = _Counters(self.serving)
        self.windows.clear()

    def stats(self) -> ReplicaStats:
        c = self.counters
        return ReplicaStats(
            page_requests=c.requests["page"],
            image_requests=c.requests["image"],
            robots_requests=c.requests["robots"],
            by_status=dict(c.by_status),
            by_path=dict(c.by_path),
            bytes_sent=c.bytes_sent,
            dropped=c.dropped,
            truncated=c.truncated,
            retry_after_violations=c.violations,
            in_flight_after_429=c.in_flight,
            held=self.gate.held,
            peak_in_flight=dict(c.peak_in_flight),
        )

    async def control(self, request: web.Request) -> web.Response:
        """``/__replica/*``: drive a replica running in another process; never counted."""
        action = request.path.removeprefix(_CONTROL_PREFIX)
        if action == "stats" and request.method == "GET":
            return web.json_response(self.stats().to_dict())
        if request.method != "POST":
            raise web.HTTPMethodNotAllowed(request.method, ["POST"])
        if action == "faults":
            try:
                self.set_faults(FaultPlan.from_dict(await request.json()))
            except (ValueError, TypeError) as error:
                raise web.HTTPBadRequest(text=str(error)) from error
        elif action == "reset":
            self.reset()
        elif action == "hold":
            try:
                self.gate.hold(int(request.query["after"]))
            except (KeyError, ValueError) as error:
                raise web.HTTPBadRequest(text="hold needs ?after=<int>") from error
        elif action == "release":
            self.gate.release()
        else:
            raise web.HTTPNotFound()
        return web.json_response({"ok": True})

    # -- origins -----------------------------------------------------------------------

    async def site_request(self, request: web.Request) -> web.StreamResponse:
        if request.path.startswith(_CONTROL_PREFIX):
            return await self.control(request)
        kind = "robots" if request.path == "/robots.txt" else "page"
        return await self._serve(request, "site", kind, self._page_reply)

    async def cdn_request(self, request: web.Request) -> web.StreamResponse:
        return await self._serve(request, "cdn", "image", self._photo_reply)

    async def impression_request(self, request: web.Request) -> web.StreamResponse:
        """theImpression's site: pages, robots, and the photos WordPress keeps as uploads."""
        path = request.path
        if path.startswith(impression.UPLOADS_PREFIX):
            return await self._serve(request, "impression", "image", self._upload_reply)
        kind = "robots" if path == "/robots.txt" else "page"
        return await self._serve(request, "impression", kind, self._impression_page_reply,
                                 not_found=self.impression_not_found)

    async def impression_cdn_request(self, request: web.Request) -> web.StreamResponse:
        return await self._serve(request, "impression_cdn", "image", self._impression_cdn_reply)

    def _page_reply(self, request: web.Request) -> _Reply:
        path = request.path
        if path == "/robots.txt":
            return _Reply(200, render_robots(self.site).encode(), "text/plain; charset=utf-8")
        show = self.site.show(path)
        fault = show.page_fault if show is not None else None
        if fault == "page_gone":
            return _Reply(404, self.not_found)
        if fault == "page_redirect_offsite":
            return _Reply(302, headers={"Location": "http://example.com" + path})
        if fault == "huge_page":
            return _Reply(200, stream_size=HUGE_BODY_SIZE, stream_head=_HUGE_PAGE_HEAD,
                          declare_length=False)
        body = self.pages.get(path)
        if body is None:
            html = self._render(path)
            if html is None:
                return _Reply(404, self.not_found)
            body = self.pages[path] = html.encode(_PAGE_ENCODINGS.get(fault or "", "utf-8"))
        if fault == "gzip_page":
            return _Reply(200, gzip.compress(body, mtime=0), headers={"Content-Encoding": "gzip"})
        return _Reply(200, body)

    def _render(self, path: str) -> str | None:
        if path == "/fashion-shows":
            return render_landing(self.site, self.cdn_url)
        if path == "/fashion-shows/designers":
            return render_directory(self.site)
        parts = path.split("/")
        if len(parts) == 3 and parts[1] == "fashion-shows" and parts[2]:
            return render_season(self.site, parts[2], self.cdn_url)
        if len(parts) != 4 or parts[1] != "fashion-shows":
            return None
        if parts[2] == "designer":
            brand = self.site.brand(parts[3])
            return None if brand is None else render_designer(brand, self.cdn_url)
        show = self.site.show(path)
        if show is None:
            return None
        return render_show(self.site, show, self.cdn_url)

    def _impression_page_reply(self, request: web.Request) -> _Reply:
        path = request.path
        if path == "/robots.txt":
            return _Reply(200, impression.render_robots().encode(), "text/plain; charset=utf-8")
        body = self.impression_pages.get(path)
        if body is None:
            html = impression.render_page(
                self.site.impression, path, self.impression_url, self.impression_cdn_url
            )
            if html is None:
                return _Reply(404, self.impression_not_found)
            body = self.impression_pages[path] = html.encode()
        return _Reply(200, body)

    def _upload_reply(self, request: web.Request) -> _Reply:
        """``/wp-content/uploads/YYYY/MM/<name>[-scaled|-WxH].jpg``: every size, same bytes."""
        photo = self.site.impression.upload(request.path)
        if photo is None:
            return _Reply(404, self.impression_not_found)
        return self._stored_photo_reply(request, photo, self.impression_not_found)

    def _impression_cdn_reply(self, request: web.Request) -> _Reply:
        """``/<photo_id>/<file name>[?w=<one of its widths>]``: every width, same bytes."""
        photo = self.site.impression.cdn_photo(request.path, request.query.getall("w", []))
        if photo is None:
            return _Reply(404, self.impression_not_found)
        return self._stored_photo_reply(request, photo, self.impression_not_found)

    def _photo_reply(self, request: web.Request) -> _Reply:
        photo = self._photo_at(request.raw_path)
        if photo is None:
            return _Reply(404, self.not_found)
        if photo.fault == "redirect_same_cdn" and "/master/pass/" not in request.raw_path:
            return _Reply(302, headers={"Location": original_url(self.cdn_url, photo)})
        return self._stored_photo_reply(request, photo, self.not_found)

    def _stored_photo_reply(
        self, request: web.Request, photo: ReplicaPhoto, not_found: bytes
    ) -> _Reply:
        """Answer for a photo found at the URL asked, bent by its permanent fault if it has one;
        shared by both sources, so a fault means the same on every photo origin."""
        fault = photo.fault
        if fault == "gone":
            return _Reply(404, not_found)
        if fault in _REDIRECTS:
            return _Reply(302, headers={"Location": _REDIRECTS[fault]})
        if fault == "redirect_loop":
            return _Reply(302, headers={"Location": request.raw_path})
        if fault == "redirect_no_location":
            return _Reply(302)
        headers = dict(_PHOTO_HEADERS)
        if fault in ("huge", "huge_chunked"):
            return _Reply(200, content_type="image/jpeg", headers=headers,
                          stream_size=HUGE_BODY_SIZE, declare_length=fault == "huge")
        body = photo_body(photo)
        if fault == "gzip_encoded":
            headers["Content-Encoding"] = "gzip"
            return _Reply(200, gzip.compress(body, mtime=0), "image/jpeg", headers)
        if fault == "wrong_content_type":
            return _Reply(200, body, _HTML, headers)
        if fault == "length_conflict":
            return _Reply(200, _conflicting_lengths(body), raw=True)
        # Every photo claims to be a JPEG, whatever it is: the real CDN lies, clients sniff.
        return _Reply(200, body, "image/jpeg", headers, cut=fault == "truncated")

    def _photo_at(self, raw_path: str) -> ReplicaPhoto | None:
        """Resolve ``/photos/<id>/master/<w_N,c_limit | pass>/<file>``; only listed widths.

        Read from the path as sent, the file name being everything after the size, decoded
        once on both sides: names holding encoded slashes, dots or NULs (the hostile path
        tricks) are then served at exactly the URL their page gives.
        """
        parts = raw_path.partition("?")[0].split("/", 5)
        if len(parts) != 6 or parts[1] != "photos" or parts[3] != "master":
            return None
        photo = self.site.photo(parts[2])
        if self.site.impression.photo(parts[2]) is not None:
            return None  # a theImpression photo: served by its own origins only
        if photo is None or unquote(parts[5]) != unquote(photo.file_name):
            return None
        size = unquote(parts[4])  # the comma arrives as "," or as "%2C"
        if size == "pass":
            return photo
        width, _, crop = size.partition(",")
        if crop != "c_limit" or not width.startswith("w_") or not width[2:].isdigit():
            return None
        return photo if int(width[2:]) in photo.widths else None

    # -- faults and sending ---------------------------------------------------------------

    async def _serve(
        self,
        request: web.Request,
        origin: str,
        kind: str,
        reply_for: Callable[[web.Request], _Reply],
        *,
        not_found: bytes | None = None,
    ) -> web.StreamResponse:
        """Count, apply the transient faults, then answer with ``reply_for``; ``not_found`` is
        the origin's 404 page, for soft 404s (default: Vogue's)."""
        counters, loop = self.counters, asyncio.get_running_loop()
        counters.requests[kind] += 1
        counters.by_path[request.path] += 1
        counters.arrivals[(origin, kind)].append(loop.time())
        self.serving[origin] += 1
        counters.peak_in_flight[origin] = max(counters.peak_in_flight[origin],
                                              self.serving[origin])
        try:
            return await self._answer(request, origin, kind, reply_for, not_found)
        finally:
            self.serving[origin] -= 1

    async def _answer(
        self,
        request: web.Request,
        origin: str,
        kind: str,
        reply_for: Callable[[web.Request], _Reply],
        not_found: bytes | None,
    ) -> web.StreamResponse:
        counters, plan, loop = self.counters, self.plan, asyncio.get_running_loop()
        sent_429, window_end = self.windows.get(origin, (0.0, 0.0))
        if loop.time() < window_end:
            if loop.time() < sent_429 + plan.in_flight_grace_s:
                counters.in_flight += 1
            else:
                counters.violations += 1
        if plan.latency_ms:
            await asyncio.sleep(plan.latency_ms / 1000)
        if kind in self.gate.kinds:
            await self.gate.wait()
        # Always draw the same number of values so one fault never shifts the others.
        drop, hang, throttle, error, status_pick, truncate, soft = (
            self.rng.random() for _ in range(7)
        )
        if drop < plan.drop:
            counters.dropped += 1
            return _drop(request)
        if hang < plan.timeout:
            await self._hang(plan.hang_s)
            if request.transport is None or request.transport.is_closing():
                # The client gave up waiting: it reads no answer, so none is given (a 429
                # would open a Retry-After window nobody was told about).
                counters.dropped += 1
                return _drop(request)
        if throttle < plan.rate_429:
            retry_after = max(1, math.ceil(plan.retry_after_s))
            window_end = max(self.windows.get(origin, (0.0, 0.0))[1], loop.time() + retry_after)
            self.windows[origin] = (loop.time(), window_end)
            reply = _Reply(429, b"Too Many Requests", headers={"Retry-After": str(retry_after)})
        elif error < plan.error_5xx:
            reply = _Reply((500, 502, 503)[int(status_pick * 3)], b"Server Error")
        elif soft < plan.soft_404 and kind == "page":
            reply = _Reply(404, self.not_found if not_found is None else not_found)
        elif soft < plan.error_403 and kind == "image":
            reply = _Reply(403, b"Forbidden")
        else:
            reply = reply_for(request)
        counters.by_status[reply.status] += 1
        if reply.stream_size:
            return await self._stream(request, reply)
        if reply.raw:
            counters.bytes_sent += len(reply.body)
            if request.transport is not None:
                request.transport.write(reply.body)
            return _drop(request)
        if reply.cut or truncate < plan.truncate:
            counters.truncated += 1
            return await self._cut(request, reply)
        counters.bytes_sent += len(reply.body)
        headers = {**reply.headers, "Content-Type": reply.content_type}
        return web.Response(status=reply.status, body=reply.body, headers=headers)

    async def _hang(self, seconds: float) -> None:
        """Sleep, but wake early when the server stops, so shutdown never waits on a hang."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.stopping.wait(), seconds)

    async def _cut(self, request: web.Request, reply: _Reply) -> web.StreamResponse:
        """Promise the whole body in Content-Length, send half, then hang up."""
        response = _stream_response(reply, len(reply.body))
        await response.prepare(request)
        half = reply.body[: len(reply.body) // 2]
        await response.write(half)
        self.counters.bytes_sent += len(half)
        return _drop(request, response)

    async def _stream(self, request: web.Request, reply: _Reply) -> web.StreamResponse:
        """Stream a huge body from one reused chunk; stop quietly when the client hangs up."""
        length = reply.stream_size if reply.declare_length else None
        response = _stream_response(reply, length)
        await response.prepare(request)
        if request.method == "HEAD":
            return response
        chunk = bytes(_STREAM_CHUNK)
        remaining = reply.stream_size
        first = reply.stream_head + chunk[len(reply.stream_head) :]
        try:
            while remaining and not self.stopping.is_set():
                piece = first if remaining == reply.stream_size else chunk
                piece = piece[:remaining]
                await response.write(piece)
                self.counters.bytes_sent += len(piece)
                remaining -= len(piece)
        except ConnectionError:  # the client reached its byte cap and hung up, as it should
            return _drop(request, response)
        if remaining:
            return _drop(request, response)
        await response.write_eof()
        return response


def _conflicting_lengths(body: bytes) -> bytes:
    """A response no HTTP server may send: two Content-Length headers, half and whole."""
    head = (
        "HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\n"
        f"Content-Length: {len(body) // 2}\r\nContent-Length: {len(body)}\r\n"
        "Connection: close\r\n\r\n"
    )
    return head.encode() + body


def _stream_response(reply: _Reply, length: int | None) -> web.StreamResponse:
    """A response to write by hand; without a length it is sent chunked."""
    response = web.StreamResponse(status=reply.status, headers=reply.headers)
    response.content_type = reply.content_type.split(";")[0]
    response.content_length = length
    return response


def _drop(request: web.Request, response: web.StreamResponse | None = None) -> web.StreamResponse:
    """Close the connection with nothing more sent; aiohttp then finds nothing to write to."""
    if request.transport is not None:
        request.transport.close()
    return response or web.Response()


class ReplicaServer:
    """A running replica: all four origins on one background loop, driven from any thread.

    ``base_url`` and ``cdn_url`` are Vogue's site and CDN, ``impression_url`` and
    ``impression_cdn_url`` theImpression's.
    """

    def __init__(
        self,
        site: ReplicaSite,
        host: str,
        port: int,
        cdn_port: int,
        impression_port: int = 0,
        impression_cdn_port: int = 0,
    ) -> None:
        self.site = site
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
        self._handlers: _Handlers | None = None
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
        handlers = _Handlers(self.site)
        self._handlers = handlers
        urls = []
        origins = (
            handlers.site_request,
            handlers.cdn_request,
            handlers.impression_request,
            handlers.impression_cdn_request,
        )
        for handler, port in zip(origins, self._ports, strict=True):
            app = web.Application()
            app.router.add_route("*", "/{tail:.*}", handler)
            runner = web.AppRunner(
                app, access_log=None, shutdown_timeout=_SHUTDOWN_TIMEOUT_S, handle_signals=False
            )
            await runner.setup()
            self._runners.append(runner)
            await web.TCPSite(runner, self._host, port).start()
            urls.append(f"http://{self._host}:{runner.addresses[0][1]}")
        self.base_url, self.cdn_url, self.impression_url, self.impression_cdn_url = urls
        handlers.cdn_url = self.cdn_url
        handlers.impression_url = self.impression_url
        handlers.impression_cdn_url = self.impression_cdn_url

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

    def _require_handlers(self) -> _Handlers:
        if self._handlers is None:
            raise RuntimeError("the replica server is not running")
        return self._handlers

    def _on_loop(self, action: Callable[[_Handlers], _T]) -> _T:
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
        return self._on_loop(_Handlers.stats)

    def reset_stats(self) -> None:
        self._on_loop(_Handlers.reset)

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
) -> ReplicaServer:
    """Start serving ``site`` (default: ``build_site()``); returns once every socket listens."""
    server = ReplicaServer(
        site or build_site(), host, port, cdn_port, impression_port, impression_cdn_port
    )
    server._start()
    return server


def serve_forever(
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    cdn_port: int = 0,
    impression_port: int = 0,
    impression_cdn_port: int = 0,
    brands: int = 3,
    shows: int = 4,
    photos: int = 12,
    seed: int = 0,
    hostile: bool = True,
    warm: bool = False,
    announce: Callable[[ReplicaServer], None] | None = None,
) -> None:
    """Serve a replica until SIGTERM or SIGINT, for a crawler or benchmark in another process.

    Prints ``{"base_url": ..., "cdn_url": ..., "impression_url": ...,
    "impression_cdn_url": ...}`` as one flushed JSON line once every socket listens, so the
    parent reads the ports instead of guessing them or sleeping; ``warm``
    encodes every photo before that line. Call it from
    the main thread (signal handlers can only be installed there).
    """
    site = build_site(
        brands=brands, shows_per_brand=shows, photos_per_show=photos, seed=seed, hostile=hostile
    )
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
