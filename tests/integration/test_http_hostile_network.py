"""The HTTP client against a hostile network: DNS rebinding, dripped answers, addresses the
connector will not connect to. Each against a real server on loopback; the name service is
the one thing replaced, since what it answers is what is under test."""

from __future__ import annotations

import asyncio
import itertools
import random
import socket
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import pytest
from aiohttp import web
from aiohttp.abc import AbstractResolver, ResolveResult

from fashion_assets.crawl.http import Fetched, Fetcher, HttpPolicy
from fashion_assets.crawl.resolver import ADDRESS_TTL_S, AddressRefused, CheckedResolver
from fashion_assets.crawl.session import MAX_FIELD_BYTES, MAX_HEADER_LINES
from fashion_assets.crawl.windows import RetryAfterWindows
from fashion_assets.domain.hosts import HostPolicy
from fashion_assets.domain.ingest import TRANSIENT_REASONS, is_transient

# A hang anywhere (a drip nobody cuts) fails the test here.
pytestmark = pytest.mark.timeout(60)

MAX = 1024 * 1024
STATUS_LINE = b"HTTP/1.1 200 OK\r\n"
HEAD = STATUS_LINE + b"Content-Type: text/plain\r\nContent-Length: 600\r\n\r\n"
ANSWER = HEAD + b"x" * 600
# The dripping server's pace: one byte per interval, so the whole answer takes over 30 s.
DRIP_S = 0.05
DEADLINE_S = 1.0


def client(hosts: HostPolicy, *, resolver: AbstractResolver | None = None,
           clock: Callable[[], float] = time.monotonic, **changes: object) -> Fetcher:
    base = {"user_agent": "fashion-assets-test", "timeout_s": 2.0, "retries": 0,
            "backoff_base_s": 0.01, "backoff_cap_s": 0.05, "obey_robots": False,
            "page_delay_s": 0.0}
    return Fetcher(HttpPolicy(**{**base, **changes}),  # type: ignore[arg-type]
                   hosts, rng=random.Random(1), windows=RetryAfterWindows(None, 60),
                   clock=clock, resolver=resolver)


@dataclass
class Site:
    """What a test server was asked for, in order."""

    port: int = 0
    paths: list[str] = field(default_factory=list)


@asynccontextmanager
async def site(address: str) -> AsyncIterator[Site]:
    """A real HTTP server on ``address`` answering "ok" to every path and closing each
    connection, so that every request opens a new one (and needs the name's addresses)."""
    served = Site()

    async def answer(request: web.Request) -> web.Response:
        served.paths.append(request.path)
        response = web.Response(body=b"ok")
        response.force_close()
        return response

    app = web.Application()
    app.router.add_get("/{tail:.*}", answer)
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, address, 0).start()
    served.port = runner.addresses[0][1]
    try:
        yield served
    finally:
        await runner.cleanup()


@asynccontextmanager
async def dripping(fast: int) -> AsyncIterator[tuple[int, list[int]]]:
    """A real HTTP server on loopback sending the first ``fast`` bytes of ``ANSWER`` at once
    and the rest one byte per ``DRIP_S``; yields its port and the bytes sent per connection."""
    sent: list[int] = []

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        connection = len(sent)
        sent.append(fast)
        writer.write(ANSWER[:fast])
        try:
            for offset in range(fast, len(ANSWER)):
                await asyncio.sleep(DRIP_S)  # the server's pace, not a synchronisation
                writer.write(ANSWER[offset:offset + 1])
                await writer.drain()
                sent[connection] += 1
        except ConnectionError:
            return  # the client cut the exchange
        finally:
            writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1], sent
    finally:
        server.close()
        await server.wait_closed()


class Rebinding(AbstractResolver):
    """A name service answering ``first`` to the first lookup and ``then`` to every later
    one: a name rebound to another address once it was checked."""

    def __init__(self, first: str, then: str) -> None:
        self.first, self.then = first, then
        self.lookups = 0

    async def resolve(self, host: str, port: int = 0,
                      family: socket.AddressFamily = socket.AF_INET) -> list[ResolveResult]:
        self.lookups += 1
        address = self.first if self.lookups == 1 else self.then
        return [ResolveResult(hostname=host, host=address, port=port, family=socket.AF_INET,
                              proto=0, flags=socket.AI_NUMERICHOST)]

    async def close(self) -> None:
        return None


def test_every_connection_goes_to_the_addresses_the_host_policy_checked() -> None:
    """``localhost`` answers 127.0.0.2 (where the server listens) when it is checked and
    10.0.0.1 to any later lookup. Five requests, each on a connection of its own, all reach
    the server: no connection looked the name up again. Once the answer aged out, the name
    is looked up and judged again, and its new address is refused before any connection."""
    names = Rebinding("127.0.0.2", "10.0.0.1")
    skew = [0.0]  # the client's clock, moved past the answer's TTL instead of waiting for it

    async def run() -> tuple[list[Fetched], Fetched, list[str]]:
        async with site("127.0.0.2") as served:
            url = f"http://localhost:{served.port}/look.jpg"
            allowed = HostPolicy.from_config(f"http://localhost:{served.port}", [])
            async with client(allowed, resolver=names,
                              clock=lambda: time.monotonic() + skew[0]) as fetcher:
                checked = [await fetcher.fetch(url, max_bytes=MAX) for _ in range(5)]
                skew[0] += ADDRESS_TTL_S
                rebound = await fetcher.fetch(url, max_bytes=MAX)
            return checked, rebound, served.paths

    checked, rebound, paths = asyncio.run(run())

    assert [(r.error, r.body) for r in checked] == [(None, b"ok")] * 5
    assert paths == ["/look.jpg"] * 5
    assert (rebound.error, rebound.attempts) == ("private_address", 0)
    assert "10.0.0.1" in rebound.detail
    assert names.lookups == 2


def test_a_connection_after_the_answer_aged_out_goes_nowhere_until_the_new_one_passes() -> None:
    """What the connector asks when it opens a connection: the checked addresses (on the port it
    connects to) while the answer is fresh; after its TTL, a fresh answer that failed the
    policy refuses the connection itself."""
    now = [0.0]
    resolver = CheckedResolver(Rebinding("127.0.0.2", "10.0.0.1"), lambda: now[0])

    async def run() -> list[ResolveResult]:
        fresh = await resolver.resolve("localhost", 8080, socket.AF_UNSPEC)
        fresh += await resolver.resolve("localhost", 8081, socket.AF_INET)
        now[0] += ADDRESS_TTL_S
        with pytest.raises(AddressRefused, match=r"10\.0\.0\.1"):
            await resolver.resolve("localhost", 8080, socket.AF_UNSPEC)
        return fresh

    fresh = asyncio.run(run())

    assert [(r["host"], r["port"]) for r in fresh] == [("127.0.0.2", 8080), ("127.0.0.2", 8081)]


def fetch_dripped(fast: int, **changes: object) -> tuple[Fetched, float, list[int]]:
    """Fetch from ``dripping(fast)`` with one retry: the result, the seconds it took and the
    bytes the server sent on each connection."""
    async def run() -> tuple[Fetched, float, list[int]]:
        async with dripping(fast) as (port, sent):
            allowed = HostPolicy.from_config(f"http://127.0.0.1:{port}", [])
            async with client(allowed, retries=1, **changes) as fetcher:
                started = time.monotonic()
                result = await fetcher.fetch(f"http://127.0.0.1:{port}/look.jpg", max_bytes=MAX)
                return result, time.monotonic() - started, sent

    return asyncio.run(run())


@pytest.mark.parametrize("fast", [len(STATUS_LINE), len(HEAD)], ids=["headers", "body"])
def test_an_answer_dripped_byte_by_byte_is_cut_at_the_deadline_and_retried(fast: int) -> None:
    """Every read gets a byte well within the read timeout, so only the deadline ends it."""
    result, elapsed, sent = fetch_dripped(fast, deadline_s=DEADLINE_S, min_rate_bps=0.0)

    assert (result.error, result.attempts) == ("timeout", 2)
    assert f"deadline of {DEADLINE_S:g} s" in result.detail
    assert len(sent) == 2 and max(sent) < len(ANSWER) / 2
    assert 2 * DEADLINE_S <= elapsed < 2 * DEADLINE_S + 5


def test_a_body_slower_than_the_minimum_rate_is_cut_like_a_timeout_and_retried() -> None:
    """20 bytes a second against a floor of 1,000 over every 0.5 s (the read timeout): cut
    after the first window, long before the deadline."""
    result, elapsed, sent = fetch_dripped(len(HEAD), timeout_s=0.5, deadline_s=60.0,
                                          min_rate_bps=1000.0)

    assert (result.error, result.attempts) == ("timeout", 2)
    assert "under the minimum of 1000 bytes/s" in result.detail
    assert len(sent) == 2 and max(sent) < len(ANSWER) / 2
    assert 2 * 0.5 <= elapsed < 5


def test_ipv4_addresses_not_written_as_dotted_quads_are_invalid_addresses() -> None:
    """These spellings of the allowed 127.0.0.1 are the resolver's guess: refused before
    any request (robots.txt included), as a failure that is not an outage."""
    async def run() -> tuple[list[Fetched], Fetched, list[str]]:
        async with site("127.0.0.1") as served:
            allowed = HostPolicy.from_config(f"http://127.0.0.1:{served.port}", [])
            async with client(allowed, obey_robots=True) as fetcher:
                refused = [await fetcher.fetch(f"http://{host}:{served.port}/look.jpg",
                                               max_bytes=MAX, kind="image")
                           for host in ("2130706433", "127.1", "127.0.0.1.")]
                dotted = await fetcher.fetch(f"http://127.0.0.1:{served.port}/look.jpg",
                                             max_bytes=MAX, kind="image")
            return refused, dotted, served.paths

    refused, dotted, paths = asyncio.run(run())

    assert [(r.error, r.attempts) for r in refused] == [("invalid_address", 0)] * 3
    assert all("dotted quad" in r.detail for r in refused)
    assert dotted.ok
    assert paths == ["/robots.txt", "/look.jpg"]
    assert "invalid_address" not in TRANSIENT_REASONS and not is_transient("invalid_address")


def endless_head() -> Iterator[bytes]:
    """A head that never ends: a header line after another, forever."""
    yield STATUS_LINE
    for n in itertools.count():
        yield b"".join(b"X-Line-%d: %s\r\n" % (n * 100 + i, b"v" * 50) for i in range(100))


def finished(head: bytes) -> Callable[[], Iterator[bytes]]:
    return lambda: iter([head[i:i + 65_536] for i in range(0, len(head), 65_536)])


@pytest.mark.parametrize("head", [
    finished(STATUS_LINE + b"X-Big: " + b"a" * 2_000_000 + b"\r\nContent-Length: 2\r\n\r\nok"),
    finished(STATUS_LINE + b"".join(b"X-%d: v\r\n" % i for i in range(100_000))
             + b"Content-Length: 2\r\n\r\nok"),
    finished(STATUS_LINE + b"".join(b"X-%d: v\r\n" % i for i in range(101))
             + b"Content-Length: 2\r\n\r\nok"),
    endless_head], ids=["2-MB-header", "100000-headers", "101-headers", "endless"])
def test_a_response_head_past_its_caps_is_a_recorded_failure_of_that_url(
        head: Callable[[], Iterator[bytes]]) -> None:
    """Issue 36: a 2 MB head or 100,000 header lines were read whole, and an endless head
    reached 92 MiB before the read timeout cut it. aiohttp's parser, as the crawl's session
    configures it, stops at a line of 8190 bytes or 100 lines: a ``bad_response`` saying
    which, the next URL fetched as usual."""
    sent: list[int] = []

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        request = await reader.readuntil(b"\r\n\r\n")
        written = 0
        try:
            if b"/fine" in request:
                writer.write(HEAD.replace(b"600", b"2") + b"ok")
            else:
                for chunk in head():
                    writer.write(chunk)
                    written += len(chunk)
                    await writer.drain()
            await writer.drain()
        except ConnectionError:
            pass
        finally:
            sent.append(written)
            writer.close()

    async def run() -> tuple[Fetched, Fetched]:
        listening = await asyncio.start_server(serve, "127.0.0.1", 0)
        port = listening.sockets[0].getsockname()[1]
        allowed = HostPolicy.from_config(f"http://127.0.0.1:{port}", [])
        try:
            async with client(allowed, timeout_s=30.0) as fetcher:
                return (await fetcher.fetch(f"http://127.0.0.1:{port}/look.jpg", max_bytes=MAX),
                        await fetcher.fetch(f"http://127.0.0.1:{port}/fine", max_bytes=MAX))
        finally:
            listening.close()

    capped, fine = asyncio.run(run())
    assert capped.error == "bad_response", (capped.error, capped.detail)
    assert (f"more than {MAX_FIELD_BYTES} bytes" in capped.detail
            or "Too many headers" in capped.detail), capped.detail
    assert fine.error is None and fine.body == b"ok"
    # Cut where the caps are (MAX_HEADER_LINES lines of MAX_FIELD_BYTES at most), not after
    # tens of MiB: what the server wrote is that and the sockets' buffers.
    assert max(sent) < MAX_HEADER_LINES * MAX_FIELD_BYTES + 8 * 2**20, sent
