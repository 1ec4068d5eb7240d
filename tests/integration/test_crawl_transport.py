"""The crawl's HTTP/1.1 transport (``crawl/transport.py``) against real servers on loopback.

The HTTP client's behaviour (retries, caps, hostile answers) is tested through ``Fetcher`` in
test_http_client.py and test_hostile_input.py; this file checks what only the transport
decides: which connection an exchange goes on, where a body ends, and TLS.
"""

from __future__ import annotations

import asyncio
import ssl
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import httpx
import pytest
import trustme

from fashion_assets.crawl import transport as crawl_transport
from fashion_assets.crawl.http import ssl_context
from fashion_assets.crawl.resolver import CheckedResolver
from fashion_assets.crawl.targets import target_of
from fashion_assets.crawl.transport import BUFFER_LIMIT, Answer, CrawlTransport

# What the server does with one request on one connection: write an answer (or not), and
# return whether the connection stays open for the next request.
Reply = Callable[[asyncio.StreamWriter, int], Awaitable[bool]]


@dataclass
class Served:
    """What the server saw: the request heads it read, per connection."""

    port: int = 0
    connections: list[list[bytes]] = field(default_factory=list)


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
        finally:
            writer.close()

    listening = await asyncio.start_server(serve, "127.0.0.1", 0, ssl=tls)
    served.port = listening.sockets[0].getsockname()[1]
    try:
        yield served
    finally:
        listening.close()


def answer(body: bytes, *headers: bytes, keep_open: bool = True) -> Reply:
    async def reply(writer: asyncio.StreamWriter, count: int) -> bool:
        writer.write(b"HTTP/1.1 200 OK\r\n" + b"".join(h + b"\r\n" for h in headers)
                     + b"\r\n" + body)
        return keep_open
    return reply


def sized(body: bytes) -> Reply:
    return answer(body, b"Content-Length: %d" % len(body))


def transport(tls: ssl.SSLContext | None = None) -> CrawlTransport:
    return CrawlTransport(CheckedResolver(None, time.monotonic), tls or ssl_context())


@dataclass
class Got:
    """An answer and its body, read whole."""

    answer: Answer
    body: bytes

    @property
    def status(self) -> int:
        return self.answer.status


async def get(pool: CrawlTransport, url: str) -> Answer:
    return await pool.get(target_of(url), b"User-Agent: transport-test\r\n",
                          connect_timeout=5.0, read_timeout=5.0)


async def get_all(urls: list[str], tls: ssl.SSLContext | None = None) -> list[Got]:
    """GET each URL in turn through one transport, each body read whole."""
    pool = transport(tls)
    try:
        got = []
        for url in urls:
            answer = await get(pool, url)
            try:
                got.append(Got(answer, b"".join([chunk async for chunk in answer.body()])))
            finally:
                await answer.aclose()
        return got
    finally:
        await pool.aclose()


def test_answers_read_whole_leave_their_connection_to_the_next_request() -> None:
    async def run() -> tuple[list[Got], Served]:
        async with server(sized(b"look")) as served:
            return await get_all([f"http://127.0.0.1:{served.port}/{n}.jpg"
                                  for n in range(5)]), served

    responses, served = asyncio.run(run())

    assert [(r.status, r.body) for r in responses] == [(200, b"look")] * 5
    assert len(served.connections) == 1
    heads = served.connections[0]
    assert [h.split(b" ")[1] for h in heads] == [b"/%d.jpg" % n for n in range(5)]
    assert all(b"\r\nHost: 127.0.0.1:%d\r\n" % served.port in h for h in heads)
    assert all(b"\r\nUser-Agent: transport-test\r\n" in h for h in heads)


def test_a_request_the_server_drops_unanswered_on_a_kept_connection_goes_again_once() -> None:
    """A server may close an idle connection as the next request arrives on it (its
    keep-alive ran out): that request was not answered, so it goes on a new connection."""
    async def drop_the_second(writer: asyncio.StreamWriter, count: int) -> bool:
        if count == 2:
            return False  # read, never answered, connection closed
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        return True

    async def run() -> tuple[list[Got], Served]:
        async with server(drop_the_second) as served:
            base = f"http://127.0.0.1:{served.port}"
            return await get_all([f"{base}/a.jpg", f"{base}/b.jpg"]), served

    responses, served = asyncio.run(run())

    assert [r.body for r in responses] == [b"ok", b"ok"]
    assert [[h.split(b" ")[1] for h in c] for c in served.connections] == [
        [b"/a.jpg", b"/b.jpg"], [b"/b.jpg"]]


def test_a_request_dropped_on_a_new_connection_is_a_read_error_not_asked_again() -> None:
    async def never(writer: asyncio.StreamWriter, count: int) -> bool:
        return False

    async def run() -> Served:
        async with server(never) as served:
            with pytest.raises(httpx.ReadError, match="before the answer"):
                await get_all([f"http://127.0.0.1:{served.port}/a.jpg"])
            return served

    served = asyncio.run(run())

    assert len(served.connections) == 1


def test_a_body_without_length_ends_where_the_connection_does() -> None:
    body = b"x" * 70_000

    async def run() -> tuple[list[Got], Served]:
        async with server(answer(body, keep_open=False)) as served:
            base = f"http://127.0.0.1:{served.port}"
            return await get_all([f"{base}/a.jpg", f"{base}/b.jpg"]), served

    responses, served = asyncio.run(run())

    assert [r.body for r in responses] == [body, body]
    assert len(served.connections) == 2  # such a connection cannot serve another request


def test_a_body_cut_before_its_announced_length_is_a_read_error() -> None:
    async def run() -> None:
        async with server(answer(b"half", b"Content-Length: 8", keep_open=False)) as served:
            await get_all([f"http://127.0.0.1:{served.port}/a.jpg"])

    with pytest.raises(httpx.ReadError, match="in the body"):
        asyncio.run(run())


def test_a_body_larger_than_the_buffer_arrives_whole_in_order() -> None:
    """Reading pauses while ``BUFFER_LIMIT`` bytes wait unread and resumes as they are
    read: the bytes must come through unchanged."""
    body = bytes(range(256)) * (12 * BUFFER_LIMIT // 256)

    async def run() -> bytes:
        async with server(sized(body)) as served:
            pool = transport()
            answer = await get(pool, f"http://127.0.0.1:{served.port}/big")
            parts = []
            async for chunk in answer.body():
                parts.append(chunk)
                await asyncio.sleep(0)  # the reader is slower than the socket
            await answer.aclose()
            await pool.aclose()
            return b"".join(parts)

    assert asyncio.run(run()) == body


def test_a_chunked_body_and_an_empty_one_are_read_as_sent() -> None:
    chunked = answer(b"4\r\nlook\r\n3\r\n.jp\r\n1\r\ng\r\n0\r\n\r\n", b"Transfer-Encoding: chunked")

    async def no_content(writer: asyncio.StreamWriter, count: int) -> bool:
        writer.write(b"HTTP/1.1 204 No Content\r\n\r\n")
        return True

    async def run() -> list[Got]:
        async with server(chunked) as first, server(no_content) as second:
            return await get_all([f"http://127.0.0.1:{first.port}/a",
                                  f"http://127.0.0.1:{second.port}/b",
                                  f"http://127.0.0.1:{second.port}/c"])

    responses = asyncio.run(run())

    assert [(r.status, r.body) for r in responses] == [
        (200, b"look.jpg"), (204, b""), (204, b"")]


def test_a_malformed_answer_is_a_protocol_error() -> None:
    async def run() -> None:
        async with server(answer(b"", b"Content-Length: 3", b"Content-Length: 5")) as served:
            await get_all([f"http://127.0.0.1:{served.port}/a.jpg"])

    with pytest.raises(httpx.RemoteProtocolError, match="malformed response"):
        asyncio.run(run())


def test_tls_is_spoken_and_the_certificate_checked() -> None:
    """https goes over TLS with the context given; a certificate that context does not
    trust fails the connection (the process's own context trusts public CAs only)."""
    authority = trustme.CA()
    certificate = authority.issue_cert("localhost")
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    certificate.configure_cert(server_context)
    trusting = ssl.create_default_context()
    authority.configure_trust(trusting)

    async def run() -> tuple[list[Got], httpx.ConnectError]:
        async with server(sized(b"secure"), tls=server_context) as served:
            url = f"https://localhost:{served.port}/a.jpg"
            ok = await get_all([url, url], tls=trusting)
            with pytest.raises(httpx.ConnectError) as refused:
                await get_all([url])
            return ok, refused.value

    ok, refused = asyncio.run(run())

    assert [r.body for r in ok] == [b"secure", b"secure"]
    assert "CERTIFICATE_VERIFY_FAILED" in str(refused)


def test_a_port_nothing_listens_on_is_a_connect_error() -> None:
    async def run() -> None:
        async with server(sized(b"")) as served:
            port = served.port
        await get_all([f"http://127.0.0.1:{port}/a.jpg"])

    with pytest.raises(httpx.ConnectError, match="cannot connect"):
        asyncio.run(run())


def test_an_unread_body_that_filled_the_buffer_does_not_stall_the_next_answer(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """An error page is not read (``read_response`` needs its status only). If it arrived
    whole but filled the buffer, reading was paused: the kept connection must read again
    for the next answer. (A buffer of 8 bytes makes the 404's body fill it.)"""
    monkeypatch.setattr(crawl_transport, "BUFFER_LIMIT", 8)

    async def gone_then_ok(writer: asyncio.StreamWriter, count: int) -> bool:
        body = b"not here, nor anywhere" if count == 1 else b"ok"
        status = b"404 Not Found" if count == 1 else b"200 OK"
        writer.write(b"HTTP/1.1 %s\r\nContent-Length: %d\r\n\r\n%s" % (status, len(body), body))
        return True

    async def run() -> tuple[list[int], bytes, Served]:
        async with server(gone_then_ok) as served:
            pool = transport()
            base = f"http://127.0.0.1:{served.port}"
            gone = await get(pool, f"{base}/gone")
            await asyncio.sleep(0.2)  # the answer arrives whole, unread
            await gone.aclose()
            ok = await get(pool, f"{base}/next")
            body = b"".join([chunk async for chunk in ok.body()])
            await ok.aclose()
            await pool.aclose()
            return [gone.status, ok.status], body, served

    statuses, body, served = asyncio.run(run())

    assert (statuses, body) == ([404, 200], b"ok")
    assert len(served.connections) == 1


def test_an_interim_answer_before_the_real_one_is_skipped() -> None:
    async def early_hints(writer: asyncio.StreamWriter, count: int) -> bool:
        writer.write(b"HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n"
                     b"HTTP/1.1 200 OK\r\nContent-Length: 4\r\nX-Real: yes\r\n\r\nlook")
        return True

    async def run() -> list[Got]:
        async with server(early_hints) as served:
            return await get_all([f"http://127.0.0.1:{served.port}/a"] * 2)

    responses = asyncio.run(run())

    assert [(r.status, r.body, r.answer.header("x-real"), r.answer.header("link"))
            for r in responses] == [(200, b"look", "yes", None)] * 2
