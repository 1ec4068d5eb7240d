"""What one HTTP exchange comes to: a result, a redirect to follow, or a retry.

``Fetcher`` (``crawl/http.py``) sends the request through aiohttp (``crawl/session.py``), which
parses the answer; this module judges it: the status
(redirect, a status worth another attempt with its ``Retry-After``, a refusal), the body
within its size cap and above the minimum transfer rate (its bytes counted in the client's
``FetchCounters``), the exchange within its deadline, and the transport errors that a later
attempt may get past. Failures become a ``Fetched`` with a stable reason code or a
``Retry``, never an exception of the HTTP stack.
"""

from __future__ import annotations

import asyncio
import email.utils
import time
from collections import defaultdict
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from urllib.parse import urljoin

import aiohttp

from fashion_assets.crawl.resolver import AddressRefused
from fashion_assets.domain.hosts import HostDecision
from fashion_assets.domain.numbers import delay_seconds, whole_number

RETRYABLE_STATUS = frozenset({429, 500, 502, 503, 504})


@dataclass(frozen=True)
class Fetched:
    """The outcome of one logical fetch (retries and redirects included)."""

    url: str
    final_url: str
    status: int | None
    body: bytes
    content_type: str | None
    attempts: int
    error: str | None = None
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass
class FetchCounters:
    """What this client sent and received, for metadata and benchmarks."""

    requests: int = 0
    bytes_received: int = 0
    retries: int = 0
    by_error: dict[str, int] = field(default_factory=lambda: defaultdict(int))


class Retry(Exception):
    """An attempt failed in a way another attempt may fix."""

    def __init__(self, reason: str, detail: str, wait_s: float | None = None) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail
        self.wait_s = wait_s


@asynccontextmanager
async def within_deadline(deadline_s: float) -> AsyncIterator[None]:
    """Cut an exchange (connecting, headers and body together) at ``deadline_s`` with a
    ``Retry`` like a timeout's: a host that drips bytes keeps every read within the read
    timeout, and would hold the attempt for as long as it likes."""
    deadline = asyncio.timeout(deadline_s)
    try:
        async with deadline:
            yield
    except TimeoutError:
        if not deadline.expired():
            raise
        raise Retry("timeout", f"no whole answer within the deadline of {deadline_s:g} s"
                    ) from None


@contextmanager
def transport_errors_retried() -> Iterator[None]:
    """Turn the transport's failures (timeouts, broken connections, unparseable answers)
    into a ``Retry``: each may go away on the next attempt. A connection the resolver
    refused (the name's answer, looked up again, failed the host policy) carries the
    refusal's reason, which the next attempt's host check then gives for good."""
    try:
        yield
    except aiohttp.ClientError as exc:
        refused = _refusal_behind(exc)
        if refused is not None:
            raise Retry(str(refused.reason), str(refused.detail)) from None
        if isinstance(exc, TimeoutError):  # aiohttp's connect and read timeouts are both
            raise Retry("timeout", f"timed out: {type(exc).__name__}") from None
        if isinstance(exc, aiohttp.ClientResponseError):
            # A response aiohttp's parser rejects (a bad status line, conflicting lengths, a
            # head past its caps): a broken exchange like a dropped connection, retried.
            lines = str(exc.message).strip().splitlines()
            raise Retry("bad_response", f"malformed response: {lines[0][:200] if lines else ''}"
                        ) from None
        raise Retry("connection", f"connection failed: {type(exc).__name__}") from None


def _refusal_behind(exc: BaseException) -> HostDecision | None:
    """The resolver's refusal that caused ``exc`` (aiohttp's connector wraps it), if any."""
    cause = exc.__cause__
    while cause is not None:
        if isinstance(cause, AddressRefused):
            return cause.decision
        cause = cause.__cause__
    return None


@dataclass(frozen=True)
class RateFloor:
    """The slowest body accepted: ``min_bps`` bytes per second over every ``window_s``
    seconds (0: any rate)."""

    min_bps: float
    window_s: float


async def read_response(url: str, response: aiohttp.ClientResponse, max_bytes: int,
                        counters: FetchCounters, *, max_retry_after_s: float,
                        hold_off: Callable[[float], None], floor: RateFloor) -> Fetched | str:
    """The result of ``response``, or the next URL for a redirect; raises ``Retry``.

    A retryable status with an acceptable ``Retry-After`` hands ``hold_off`` the seconds the
    host asked for before the retry is raised; the bytes of a body read to its end count in
    ``counters``; a body slower than ``floor`` is cut like a timeout.
    """
    status = response.status
    if 300 <= status < 400 and status != 304:
        location = response.headers.get("Location")
        if not location:
            return Fetched(url, url, status, b"", None, 1, "bad_redirect",
                           f"HTTP {status} without a Location header")
        try:
            return urljoin(url, location)
        except ValueError:  # no URL ("http://[::1"): urljoin raised out of the fetch
            return Fetched(url, url, status, b"", None, 1, "bad_redirect",
                           f"HTTP {status} to a Location that is no URL: {location[:200]!r}")
    if status in RETRYABLE_STATUS:
        wait = retry_after_s(response.headers.get("Retry-After"))
        if wait is not None:
            if wait > max_retry_after_s:
                return Fetched(url, url, status, b"", None, 1, "retry_after_too_long",
                               f"HTTP {status} asked to wait {wait:.0f}s")
            hold_off(wait)
        raise Retry(f"http_{status}", f"HTTP {status}", wait)
    if status >= 400:
        reason = "not_found" if status in (404, 410) else f"http_{status}"
        return Fetched(url, url, status, b"", None, 1, reason, f"HTTP {status}")
    return await _read_body(url, response, max_bytes, counters, floor)


async def _read_body(url: str, response: aiohttp.ClientResponse, max_bytes: int,
                     counters: FetchCounters, floor: RateFloor) -> Fetched:
    """The body of a successful answer, whole and within ``max_bytes``; raises ``Retry`` when
    the connection breaks before the announced length arrived, or when a window of
    ``floor.window_s`` brought fewer bytes than its minimum rate (a drip that the read
    timeout, which only needs a byte now and then, never cuts)."""
    status = response.status
    encoding = response.headers.get("Content-Encoding", "").strip().lower()
    if encoding not in ("", "identity"):
        # Only identity is asked for; a compressed body would read as a page without
        # state or a photo that is no image, and decompressing it would need a cap of its
        # own against bombs. Refused, it is recorded for what it is.
        return Fetched(url, url, status, b"", None, 1, "unexpected_encoding",
                       f"body sent with Content-Encoding {encoding!r}, identity was asked")
    declared = whole_number(response.headers.get("Content-Length", "").strip())
    if declared is not None and declared > max_bytes:
        return Fetched(url, url, status, b"", None, 1, "too_large",
                       f"body of {declared} bytes exceeds the cap of {max_bytes}")
    chunks = []
    size = 0
    window_start, window_size = time.monotonic(), 0
    try:
        async for chunk in response.content.iter_any():
            size += len(chunk)
            if size > max_bytes:
                return Fetched(url, url, status, b"", None, 1, "too_large",
                               f"body exceeds the cap of {max_bytes} bytes")
            chunks.append(chunk)
            if (elapsed := time.monotonic() - window_start) >= floor.window_s:
                rate = (size - window_size) / elapsed
                if rate < floor.min_bps:
                    raise Retry("timeout", f"body arriving at {rate:.0f} bytes/s, under the "
                                f"minimum of {floor.min_bps:g} bytes/s")
                window_start, window_size = window_start + elapsed, size
    except aiohttp.ClientError as exc:
        # The headers arrived, the body did not: the connection broke (or went quiet past
        # the read timeout) mid-body.
        raise Retry("truncated", f"body cut after {size} bytes: {type(exc).__name__}"
                    ) from None
    counters.bytes_received += size
    if declared is not None and size != declared:
        raise Retry("truncated", f"body of {size} bytes, {declared} announced")
    return Fetched(url, url, status, b"".join(chunks), response.headers.get("Content-Type"), 1)


def retry_after_s(value: str | None) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    if (seconds := delay_seconds(value)) is not None:
        return seconds
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())
