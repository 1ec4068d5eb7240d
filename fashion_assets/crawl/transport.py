"""The crawl's HTTP/1.1 client transport: asyncio protocols and httptools' parser.

Why its own: a crawl is tens of thousands of small GETs on a few kept-alive connections,
and on a two-core machine its CPU per request is its speed. Through httpx-aiohttp, each
request became an aiohttp request too (its own URL, headers, response and stream objects,
translated back to httpx's): a photo fetched through ``Fetcher`` cost 0.29-0.31 ms of CPU,
0.17-0.19 ms with this transport under httpx, and less again since ``Fetcher`` hands it a
parsed ``Target`` and reads a plain ``Answer`` instead of building httpx's request and
response objects for each photo (docs/performance.md has the profiles;
``bench/fetch_cpu.py`` measures the client today). It does only what the crawl needs:

- GET, HTTP/1.1 over TCP or TLS, with the caller's header lines;
- a URL parsed once into a ``Target`` (``crawl/targets.py``);
- a pool of idle connections per origin, each kept ``KEEPALIVE_S`` at most; a connection is
  put back only once its answer arrived whole and the server keeps it alive;
- connections only to the addresses ``CheckedResolver`` judged (``crawl/resolver.py``); an IP
  literal is its own address;
- connect and read timeouts; the deadline of the whole exchange and the minimum transfer
  rate are the caller's (``crawl/responses.py``);
- an answer's head of ``MAX_HEAD_BYTES`` and ``MAX_HEADER_LINES`` at most (an endless head
  reached 92 MiB before the read timeout cut it, issue 36);
- a body read as it arrives, reading paused while ``BUFFER_LIMIT`` bytes wait unread.

Failures are httpx's exceptions, so the caller's mapping holds: ``ConnectError`` and
``ConnectTimeout`` (a refused address is the ``__cause__``), ``ReadTimeout``, ``ReadError``
(the connection broke), ``RemoteProtocolError`` (an answer the parser rejects, or a head
past the caps), ``UnsupportedProtocol`` (a scheme other than http and https).
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import ssl
import time
from collections import deque
from collections.abc import AsyncIterator
from typing import cast

import httptools
import httpx

from fashion_assets.crawl.resolver import CheckedResolver
from fashion_assets.crawl.targets import Origin, Target

KEEPALIVE_S = 5.0  # an idle connection older than this is closed, not reused
IDLE_PER_ORIGIN = 64  # idle connections kept per origin; more are closed
BUFFER_LIMIT = 256 * 1024  # unread body bytes at which reading pauses
MAX_HEAD_BYTES = 64 * 1024  # an answer's status line and headers, as servers cap requests'
MAX_HEADER_LINES = 100  # http.client's own limit (_MAXHEADERS)


class _Connection(asyncio.Protocol):
    """One HTTP/1.1 connection: one exchange at a time, its answer parsed as it arrives."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self._parser = httptools.HttpResponseParser(self)
        self._headers: list[tuple[bytes, bytes]] = []
        self._status = 0
        self._chunks: deque[bytes] = deque()
        self._buffered = 0
        self._paused = False
        self._headers_done = False
        self._head_refused = ""  # why the answer's head is past the caps
        self._interim = False
        self._keep_alive = False
        self._complete = False
        self._error: httpx.TransportError | None = None
        self._waiter: asyncio.Future[None] | None = None
        self.closed = False
        self.idle_since = 0.0
        self.received = 0  # bytes of the current exchange's answer so far

    # -- asyncio.Protocol ------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is no subclass

    def data_received(self, data: bytes) -> None:
        self.received += len(data)
        if self._complete or self._error is not None:
            # Bytes after the end of the answer (or of a broken one): nothing can be trusted
            # on this connection any more.
            self._fail(httpx.RemoteProtocolError("data after the end of the response"))
            return
        try:
            self._parser.feed_data(data)
        except httptools.HttpParserError as exc:
            self._fail(httpx.RemoteProtocolError(f"malformed response: {exc}"))
            return
        if not self._headers_done and self.received > MAX_HEAD_BYTES:
            self._head_refused = f"over {MAX_HEAD_BYTES // 1024} KiB"
        if self._head_refused:
            self._fail(httpx.RemoteProtocolError(f"response head {self._head_refused}"))

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if self._complete or self._error is not None:
            self._wake()
            return
        if self._headers_done and self._until_close():
            self.on_message_complete()  # a body delimited by the end of the connection
            return
        detail = "before the answer" if not self._headers_done else "in the body"
        self._error = httpx.ReadError(f"connection closed {detail}: {exc or 'EOF'}")
        self._wake()

    def pause_writing(self) -> None:  # a GET's few bytes never fill the send buffer
        pass

    def resume_writing(self) -> None:
        pass

    # -- httptools callbacks -----------------------------------------------------------------

    def on_header(self, name: bytes, value: bytes) -> None:
        if len(self._headers) < MAX_HEADER_LINES:
            self._headers.append((name, value))
        else:  # kept no further; the connection fails once this data is parsed
            self._head_refused = f"of more than {MAX_HEADER_LINES} header lines"

    def on_headers_complete(self) -> None:
        status = self._parser.get_status_code()
        if 100 <= status < 200:  # an interim answer (103 Early Hints): the real one follows
            self._interim = True
            self._headers = []
            return
        self._status = status
        self._keep_alive = self._parser.should_keep_alive()  # the parser forgets it later
        self._headers_done = True
        self._wake()

    def on_body(self, body: bytes) -> None:
        self._chunks.append(body)
        self._buffered += len(body)
        if self._buffered >= BUFFER_LIMIT and not self._paused and self.transport is not None:
            self._paused = True
            self.transport.pause_reading()
        self._wake()

    def on_message_complete(self) -> None:
        if self._interim:
            self._interim = False
            return
        self._complete = True
        self._wake()

    # -- the exchange ------------------------------------------------------------------------

    async def send(self, request: bytes, timeout: float | None) -> tuple[int, list]:
        """Send ``request``; the status and headers of the answer."""
        assert self.transport is not None
        self._headers, self._status, self._headers_done = [], 0, False
        self._complete, self._error, self._head_refused = False, None, ""
        self._chunks.clear()
        self._buffered = self.received = 0
        if self._paused:  # the last answer's unread body filled the buffer; it is dropped
            self._paused = False
            self.transport.resume_reading()
        self.transport.write(request)
        while not self._headers_done:
            await self._wait(timeout, "the answer's headers")
        return self._status, self._headers

    async def body(self, timeout: float | None) -> AsyncIterator[bytes]:
        """The body's chunks as they arrive, to its end."""
        while True:
            if self._chunks:
                chunk = self._chunks.popleft()
                self._buffered -= len(chunk)
                if self._paused and self._buffered < BUFFER_LIMIT // 2:
                    self._paused = False
                    assert self.transport is not None
                    self.transport.resume_reading()
                yield chunk
            elif self._complete:
                return
            else:
                await self._wait(timeout, "the body")

    def reusable(self) -> bool:
        """Whether the last answer arrived whole on a connection kept alive (what of it
        was not read, an error page's body, is dropped with the next exchange)."""
        return self._complete and self._error is None and not self.closed and self._keep_alive

    def close(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.close()

    async def _wait(self, timeout: float | None, what: str) -> None:
        if self._error is not None:
            raise self._error
        if self.closed and not self._complete:
            raise httpx.ReadError(f"connection closed while waiting for {what}")
        waiter = self._waiter = asyncio.get_running_loop().create_future()
        try:
            async with asyncio.timeout(timeout):
                await waiter
        except TimeoutError:
            self.close()
            raise httpx.ReadTimeout(f"no data for {timeout:g} s while waiting for {what}"
                                    ) from None
        finally:
            self._waiter = None
        if self._error is not None:
            raise self._error

    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    def _fail(self, error: httpx.TransportError) -> None:
        self._error = error
        self.close()
        self._wake()

    def _until_close(self) -> bool:
        """Whether the answer's body ends where the connection does (no length, not
        chunked, a status that has a body)."""
        if self._status in (204, 304) or 100 <= self._status < 200:
            return False
        names = {name.lower() for name, _ in self._headers}
        return b"content-length" not in names and b"transfer-encoding" not in names


class Answer:
    """An answer's status and headers, and its body to read (``body``) or to drop
    (``aclose``, always called): the connection goes back to the pool when the answer
    arrived whole, else it is closed."""

    __slots__ = ("_conn", "_origin", "_pool", "_released", "_timeout", "headers", "status")

    def __init__(self, status: int, headers: list[tuple[bytes, bytes]], pool: CrawlTransport,
                 origin: Origin, conn: _Connection, timeout: float | None) -> None:
        self.status, self.headers = status, headers
        self._pool, self._origin, self._conn, self._timeout = pool, origin, conn, timeout
        self._released = False

    def header(self, name: str) -> str | None:
        """The value of header ``name`` (any case), repeated values joined by ", " as httpx
        does; None when absent. Values are UTF-8, or Latin-1 where they are not."""
        wanted = name.lower().encode()
        values = [value for key, value in self.headers if key.lower() == wanted]
        if not values:
            return None
        joined = b", ".join(values)
        try:
            return joined.decode()
        except UnicodeDecodeError:
            return joined.decode("latin-1")

    async def body(self) -> AsyncIterator[bytes]:
        """The body's chunks as they arrive, to its end."""
        async for chunk in self._conn.body(self._timeout):
            yield chunk

    async def aclose(self) -> None:
        if not self._released:
            self._released = True
            self._pool.release(self._origin, self._conn)


class CrawlTransport:
    """The crawl's connections (see the module's docstring). ``resolver`` gives the
    addresses a connection may go to; ``ssl_context`` is used for https."""

    def __init__(self, resolver: CheckedResolver, ssl_context: ssl.SSLContext) -> None:
        self._resolver = resolver
        self._ssl = ssl_context
        self._idle: dict[Origin, list[_Connection]] = {}
        self._open: set[_Connection] = set()

    async def get(self, target: Target, header_lines: bytes, *, connect_timeout: float | None,
                  read_timeout: float | None) -> Answer:
        """GET ``target`` with ``header_lines`` (each ``Name: value\\r\\n``) after its Host
        header; the answer once its headers arrived."""
        origin = target.origin
        head = b"".join((b"GET ", target.path, b" HTTP/1.1\r\nHost: ", target.authority,
                         b"\r\n", header_lines, b"\r\n"))
        conn = self._idle_connection(origin)
        if conn is not None:
            try:
                status, headers = await conn.send(head, read_timeout)
            except httpx.ReadError:
                self._forget(conn)
                if conn.received:
                    raise
                # The server had closed the idle connection: nothing of this request was
                # answered, so it goes once more, on a new connection.
                conn = None
            except BaseException:
                self._forget(conn)
                raise
        if conn is None:
            conn = await self._connect(origin, connect_timeout)
            try:
                status, headers = await conn.send(head, read_timeout)
            except BaseException:
                self._forget(conn)
                raise
        return Answer(status, headers, self, origin, conn, read_timeout)

    def release(self, origin: Origin, conn: _Connection) -> None:
        """Take ``conn`` back after its answer: idle for the next request, or closed."""
        idle = self._idle.setdefault(origin, [])
        if conn.reusable() and len(idle) < IDLE_PER_ORIGIN:
            conn.idle_since = time.monotonic()
            idle.append(conn)
        else:
            self._forget(conn)

    async def aclose(self) -> None:
        for conn in list(self._open):
            conn.close()
        self._open.clear()
        self._idle.clear()

    def _idle_connection(self, origin: Origin) -> _Connection | None:
        idle = self._idle.get(origin)
        now = time.monotonic()
        while idle:
            conn = idle.pop()
            if not conn.closed and now - conn.idle_since < KEEPALIVE_S:
                return conn
            self._forget(conn)
        return None

    def _forget(self, conn: _Connection) -> None:
        conn.close()
        self._open.discard(conn)

    async def _connect(self, origin: Origin, timeout: float | None) -> _Connection:
        scheme, host, port = origin
        loop = asyncio.get_running_loop()
        tls = {"ssl": self._ssl, "server_hostname": host} if scheme == b"https" else {}
        try:
            async with asyncio.timeout(timeout):
                addresses = await self._addresses(host, port)
                error: OSError | None = None
                for family, address in addresses:
                    try:
                        _, conn = await loop.create_connection(
                            _Connection, address, port, family=family, **tls)
                    except OSError as exc:  # the next address may answer
                        error = exc
                        continue
                    self._open.add(conn)
                    return conn
                assert error is not None
                raise error
        except TimeoutError:
            raise httpx.ConnectTimeout(f"no connection to {host}:{port} within {timeout:g} s"
                                       ) from None
        except OSError as exc:
            raise httpx.ConnectError(f"cannot connect to {host}:{port}: {exc}") from exc

    async def _addresses(self, host: str, port: int) -> list[tuple[int, str]]:
        """Where a connection to ``host`` may go: an IP literal itself, a name's checked
        addresses (raises ``AddressRefused``, an OSError, when its answer was refused)."""
        try:
            ip = ipaddress.ip_address(host)
        except ValueError:
            results = await self._resolver.resolve(host, port, socket.AF_UNSPEC)
            return [(result["family"], result["host"]) for result in results]
        return [(socket.AF_INET6 if ip.version == 6 else socket.AF_INET, host)]

