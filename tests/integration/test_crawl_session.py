"""The crawl's aiohttp session (``crawl/session.py``) against raw servers on loopback.

The session's configuration is the crawl's protocol policy: which connection an exchange
goes on, where a body ends, what a request carries (no cookies, identity only), that
redirects are left to the caller's host check, that bodies are not decompressed, and TLS.
aiohttp decides these as configured, so each is checked against a server that records the
request heads it read per connection: through ``Fetcher`` where the outcome is the client's
(a ``Fetched`` and its reason code), through ``crawl_session`` where it is the session's.
Retries, caps and hostile answers otherwise: test_http_client.py, test_hostile_input.py,
test_http_hostile_network.py.
"""

from __future__ import annotations

import asyncio
import gzip
import random
import ssl
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import aiohttp
import pytest
import trustme

from fashion_assets.crawl.http import Fetched, Fetcher, HttpPolicy, ssl_context
from fashion_assets.crawl.resolver import CheckedResolver
from fashion_assets.crawl.session import READ_BUFFER, crawl_session
from fashion_assets.crawl.windows import RetryAfterWindows
from fashion_assets.domain.hosts import HostPolicy

# A hang anywhere (an answer nobody ends) fails the test here.
pytestmark = pytest.mark.timeout(60)

USER_AGENT = "fashion-assets-session-test"
MAX = 64 * 1024 * 1024

# What the server does with one request on one connection: write an answer (or not), and
# return whether the connection stays open for the next request.
Reply = Callable[[asyncio.StreamWriter, int], Awaitable[bool]]


@dataclass
class Served:
    """What the server saw: the request heads it read, per connection."""

    port: int = 0
    connections: list[list[bytes]] = field(default_factory=list)

    def paths(self) -> list[list[bytes]]:
        return [[head.split(b" ")[1] for head in heads] for heads in self.connections]


@asynccontextmanager
async def server(reply: Reply, tls: ssl.SSLContext | None = None) -> AsyncIterator[Served]:
    """A raw HTTP server on 127.0.0.1 answering every request with ``reply``; its second
    argument counts the requests the server read so far, all connections together."""
    served = Served()

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        heads: list[bytes] = []
        served.connections.append(heads)
        try:
            while True:
                try:
                    heads.append(await reader.readuntil(b"\r\n\r\n"))
                except asyncio.IncompleteReadError:
                    return  # the client closed the connection
                if not await reply(writer, sum(map(len, served.connections))):
                    return
                await writer.drain()
        except ConnectionError:
            return  # the client closed the connection mid-answer
        finally:
            writer.close()

    listening = await asyncio.start_server(serve, "127.0.0.1", 0, ssl=tls)
    served.port = listening.sockets[0].getsockname()[1]
    try:
        yield served
    finally:
        listening.close()


def answer(body: bytes, *headers: bytes, keep_open: bool = True,
           status: bytes = b"200 OK") -> Reply:
    async def reply(writer: asyncio.StreamWriter, count: int) -> bool:
        writer.write(b"HTTP/1.1 " + status + b"\r\n" + b"".join(h + b"\r\n" for h in headers)
                     + b"\r\n" + body)
        return keep_open
    return reply


def sized(body: bytes, *headers: bytes, status: bytes = b"200 OK") -> Reply:
    return answer(body, b"Content-Length: %d" % len(body), *headers, status=status)


def client(port: int, scheme: str = "http", **changes: object) -> Fetcher:
    """A Fetcher allowed ``scheme``://127.0.0.1:``port`` (localhost for https), without
    robots.txt, page delay or retries of its own unless ``changes`` say otherwise."""
    policy = {"user_agent": USER_AGENT, "timeout_s": 5.0, "retries": 0,
              "obey_robots": False, "page_delay_s": 0.0, **changes}
    host = "localhost" if scheme == "https" else "127.0.0.1"
    return Fetcher(HttpPolicy(**policy),  # type: ignore[arg-type]
                   HostPolicy.from_config(f"{scheme}://{host}:{port}", []),
                   rng=random.Random(1), windows=RetryAfterWindows(None, 60))


async def fetch_all(port: int, paths: list[str], **changes: object) -> list[Fetched]:
    """GET each path of 127.0.0.1:``port`` in turn through one Fetcher."""
    async with client(port, **changes) as fetcher:
        return [await fetcher.fetch(f"http://127.0.0.1:{port}{path}", max_bytes=MAX)
                for path in paths]


def fetched_from(reply: Reply, paths: list[str], **changes: object
                 ) -> tuple[list[Fetched], Served]:
    """What a Fetcher got for ``paths`` from a server answering with ``reply``, and what the
    server saw."""
    async def run() -> tuple[list[Fetched], Served]:
        async with server(reply) as served:
            return await fetch_all(served.port, paths, **changes), served

    return asyncio.run(run())


@asynccontextmanager
async def session(tls: ssl.SSLContext | None = None) -> AsyncIterator[aiohttp.ClientSession]:
    """The crawl's session as ``Fetcher`` builds it, with ``tls`` for https."""
    opened = crawl_session(CheckedResolver(None, time.monotonic), tls or ssl_context(),
                           user_agent=USER_AGENT, timeout_s=5.0)
    try:
        yield opened
    finally:
        await opened.close()


def test_answers_read_whole_leave_their_connection_to_the_next_request() -> None:
    results, served = fetched_from(sized(b"look"), [f"/{n}.jpg" for n in range(3)])

    assert [(r.error, r.status, r.body) for r in results] == [(None, 200, b"look")] * 3
    assert served.paths() == [[b"/0.jpg", b"/1.jpg", b"/2.jpg"]]
    assert all(b"\r\nHost: 127.0.0.1:%d\r\n" % served.port in h
               for h in served.connections[0])


def test_a_request_the_server_drops_unanswered_on_a_kept_connection_goes_again_once() -> None:
    """A server may close an idle connection as the next request arrives on it (its
    keep-alive ran out): that request was not answered, so aiohttp sends it again on a new
    connection (a GET is idempotent), within the Fetcher's one attempt."""
    async def drop_the_second(writer: asyncio.StreamWriter, count: int) -> bool:
        if count == 2:
            return False  # read, never answered, connection closed
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        return True

    results, served = fetched_from(drop_the_second, ["/a.jpg", "/b.jpg"])

    assert [(r.error, r.body, r.attempts) for r in results] == [(None, b"ok", 1)] * 2
    assert served.paths() == [[b"/a.jpg", b"/b.jpg"], [b"/b.jpg"]]


def test_a_body_without_length_ends_where_the_connection_does() -> None:
    body = b"x" * 70_000

    results, served = fetched_from(answer(body, keep_open=False), ["/a.jpg", "/b.jpg"])

    assert [(r.error, r.body) for r in results] == [(None, body)] * 2
    assert served.paths() == [[b"/a.jpg"], [b"/b.jpg"]]


def test_a_body_cut_before_its_announced_length_is_truncated() -> None:
    results, served = fetched_from(answer(b"half", b"Content-Length: 8", keep_open=False),
                                   ["/a.jpg"])

    assert [(r.error, r.status, r.body, r.attempts) for r in results] == [
        ("truncated", None, b"", 1)]
    assert results[0].detail.startswith("body cut after 4 bytes")
    assert served.paths() == [[b"/a.jpg"]]


def test_a_body_larger_than_the_buffer_arrives_whole_in_order() -> None:
    """Reading pauses while ``READ_BUFFER`` bytes wait unread and resumes as they are
    read: the bytes must come through unchanged."""
    body = bytes(range(256)) * (12 * READ_BUFFER // 256)

    async def run() -> tuple[bytes, Served]:
        async with server(sized(body)) as served, session() as crawl:
            async with crawl.get(f"http://127.0.0.1:{served.port}/big") as response:
                parts = []
                async for chunk in response.content.iter_chunked(4096):
                    parts.append(chunk)
                    await asyncio.sleep(0)  # the reader is slower than the socket
            return b"".join(parts), served

    got, served = asyncio.run(run())

    assert len(got) == len(body) and got == body
    assert served.paths() == [[b"/big"]]


def test_a_chunked_body_and_an_empty_one_are_read_as_sent() -> None:
    async def chunked_then_empty(writer: asyncio.StreamWriter, count: int) -> bool:
        if count == 1:
            writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                         b"4\r\nlook\r\n3\r\n.jp\r\n1\r\ng\r\n0\r\n\r\n")
        else:
            writer.write(b"HTTP/1.1 204 No Content\r\n\r\n")
        return True

    results, served = fetched_from(chunked_then_empty, ["/a", "/b", "/c"])

    assert [(r.error, r.status, r.body) for r in results] == [
        (None, 200, b"look.jpg"), (None, 204, b""), (None, 204, b"")]
    assert served.paths() == [[b"/a", b"/b", b"/c"]]  # each end found, the connection kept


def test_a_malformed_answer_is_a_bad_response() -> None:
    results, served = fetched_from(answer(b"look", keep_open=False, status=b"\x00garbage"),
                                   ["/a.jpg"])

    assert [(r.error, r.attempts) for r in results] == [("bad_response", 1)]
    assert results[0].detail.startswith("malformed response: Bad status line")
    assert served.paths() == [[b"/a.jpg"]]


def test_tls_is_spoken_and_the_certificate_checked() -> None:
    """https goes over TLS with the session's context; a certificate that context does not
    trust fails the connection, recorded as such (the process's own context, the one
    ``Fetcher`` uses, trusts public CAs only)."""
    authority = trustme.CA()
    certificate = authority.issue_cert("localhost")
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    certificate.configure_cert(server_context)
    trusting = ssl.create_default_context()
    authority.configure_trust(trusting)

    async def run() -> tuple[list[tuple[int, bytes]], Fetched, Served]:
        async with server(sized(b"secure"), tls=server_context) as served:
            url = f"https://localhost:{served.port}/a.jpg"
            async with session(trusting) as crawl:
                ok = []
                for _ in range(2):
                    async with crawl.get(url) as response:
                        ok.append((response.status, await response.read()))
            async with client(served.port, scheme="https") as fetcher:
                refused = await fetcher.fetch(url, max_bytes=MAX)
            return ok, refused, served

    ok, refused, served = asyncio.run(run())

    assert ok == [(200, b"secure")] * 2
    assert served.paths() == [[b"/a.jpg", b"/a.jpg"]]  # the refused handshake sent nothing
    assert (refused.error, refused.status, refused.attempts) == ("connection", None, 1)
    assert "Certificate" in refused.detail


def test_a_port_nothing_listens_on_is_a_connection_error() -> None:
    async def run() -> list[Fetched]:
        async with server(sized(b"")) as served:
            port = served.port
        return await fetch_all(port, ["/a.jpg"])

    results = asyncio.run(run())

    assert [(r.error, r.status, r.attempts) for r in results] == [("connection", None, 1)]


def test_an_unread_body_that_filled_the_buffer_does_not_stall_the_next_answer() -> None:
    """An error page is not read (``read_response`` needs its status only). A body larger
    than the buffer has not arrived when the answer is released: its connection is closed,
    not handed to the next request, which goes on a new one and is answered."""
    gone = b"not here, " * (1024 * 1024)

    async def gone_then_ok(writer: asyncio.StreamWriter, count: int) -> bool:
        reply = sized(gone, status=b"404 Not Found") if count == 1 else sized(b"ok")
        return await reply(writer, count)

    results, served = fetched_from(gone_then_ok, ["/gone", "/next"])

    assert [(r.error, r.status, r.body) for r in results] == [
        ("not_found", 404, b""), (None, 200, b"ok")]
    assert served.paths() == [[b"/gone"], [b"/next"]]


def test_an_interim_answer_before_the_real_one_is_skipped() -> None:
    early_hints = answer(b"HTTP/1.1 200 OK\r\nContent-Length: 4\r\nContent-Type: image/jpeg"
                         b"\r\n\r\nlook", b"Content-Type: text/x-interim",
                         status=b"103 Early Hints")

    results, served = fetched_from(early_hints, ["/a", "/b"])

    assert [(r.error, r.status, r.body, r.content_type) for r in results] == [
        (None, 200, b"look", "image/jpeg")] * 2
    assert served.paths() == [[b"/a", b"/b"]]


def test_a_request_carries_no_cookie_asks_for_identity_and_leaves_redirects_to_fetcher(
) -> None:
    """The session sends the User-Agent and ``Accept-Encoding: identity``, keeps no cookie a
    server sets, and follows no redirect: ``Fetcher`` follows one after its host check, and
    refuses one to a host the policy does not allow before any request reaches it."""
    async def run() -> tuple[list[Fetched], Served, Served]:
        async with server(sized(b"elsewhere")) as other:
            away = f"http://localhost:{other.port}/x"  # reachable, not allowed

            async def cookie_and_redirects(writer: asyncio.StreamWriter, count: int) -> bool:
                location = {1: b"/next", 3: away.encode()}.get(count)
                reply = (sized(b"", b"Location: " + location, b"Set-Cookie: s=%d" % count,
                               status=b"302 Found") if location
                         else sized(b"look", b"Set-Cookie: t=%d; Path=/" % count))
                return await reply(writer, count)

            async with server(cookie_and_redirects) as served:
                results = await fetch_all(served.port, ["/start", "/away"])
            return results, served, other

    results, served, other = asyncio.run(run())

    assert (results[0].error, results[0].body, results[0].attempts) == (None, b"look", 2)
    assert results[0].final_url == f"http://127.0.0.1:{served.port}/next"
    assert (results[1].error, results[1].attempts) == ("redirect_host_not_allowed", 1)
    assert other.connections == []
    assert served.paths() == [[b"/start", b"/next", b"/away"]]
    for head in served.connections[0]:
        lines = head.lower().split(b"\r\n")
        assert b"user-agent: " + USER_AGENT.encode() in lines
        assert b"accept-encoding: identity" in lines
        assert not any(line.startswith(b"cookie:") for line in lines), head


def test_a_compressed_body_is_not_decompressed_and_is_an_unexpected_encoding() -> None:
    packed = gzip.compress(b"look" * 100)
    gzipped = sized(packed, b"Content-Encoding: gzip")

    async def run() -> tuple[bytes, list[Fetched], Served]:
        async with server(gzipped) as served:
            async with session() as crawl, crawl.get(
                    f"http://127.0.0.1:{served.port}/raw") as response:
                raw = await response.read()
            return raw, await fetch_all(served.port, ["/a.jpg"]), served

    raw, results, served = asyncio.run(run())

    assert raw == packed  # the session hands the bytes over as sent
    assert [(r.error, r.status, r.body) for r in results] == [
        ("unexpected_encoding", 200, b"")]
    assert "'gzip'" in results[0].detail
    assert served.paths() == [[b"/raw"], [b"/a.jpg"]]
