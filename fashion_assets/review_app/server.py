"""The review page's HTTP server: uvicorn, with deadlines for a request to arrive.

uvicorn closes an idle kept-alive connection (``timeout_keep_alive``) but gives a request
all the time in the world to arrive: a client that sends its head one byte a second holds
a connection for as long as it likes, and thirty such clients held thirty for a minute
(issue 17). Here each request must arrive in time: its head within ``head_timeout_s`` of
its first byte (or of the connection), its body within ``body_timeout_s`` of the head;
past that the connection is closed. How long the page takes to answer is the page's own
business, so the deadline ends once the request arrived whole.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Sequence
from typing import Any

from uvicorn.config import Config
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from fashion_assets.review_app.hosts import proxy_options, url_host

HEAD_TIMEOUT_S = 10.0
LISTEN_BACKLOG = 2048  # uvicorn's default
BODY_TIMEOUT_S = 30.0


class TimedHttpProtocol(HttpToolsProtocol):
    """uvicorn's HTTP/1.1 protocol (httptools) with the deadlines of the module's docstring.

    The deadlines come from the server's ``Config`` (``timed_config``), one timer per
    connection: armed when the connection opens and when a request starts to arrive, moved
    on when its head is complete, dropped when it is whole."""

    def __init__(self, config: Config, *args: Any, **kwargs: Any) -> None:
        super().__init__(config, *args, **kwargs)
        self._head_timeout_s = getattr(config, "head_timeout_s", HEAD_TIMEOUT_S)
        self._body_timeout_s = getattr(config, "body_timeout_s", BODY_TIMEOUT_S)
        self._deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm(self._head_timeout_s)  # a connection that never sends a byte is closed too

    def on_message_begin(self) -> None:
        # The first byte of a request, also one pipelined behind another in the same packet;
        # a connection's first request keeps the deadline its connection started.
        if self._deadline is None:
            self._arm(self._head_timeout_s)
        super().on_message_begin()

    def on_headers_complete(self) -> None:
        self._arm(self._body_timeout_s)
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        self._disarm()
        super().on_message_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self, seconds: float) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(seconds, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if not self.transport.is_closing():
            self.transport.close()


def timed_config(app: Any, *, head_timeout_s: float = HEAD_TIMEOUT_S,
                 body_timeout_s: float = BODY_TIMEOUT_S, proxies: Sequence[str] = (),
                 **options: Any) -> Config:
    """A uvicorn ``Config`` for ``app`` served by ``TimedHttpProtocol`` with these
    deadlines, believing proxy headers from ``proxies`` only (``hosts.proxy_options``);
    ``options`` are uvicorn's own (host, port, log_level, ...)."""
    config = Config(app, http=TimedHttpProtocol, **proxy_options(proxies), **options)
    config.head_timeout_s = head_timeout_s  # type: ignore[attr-defined]
    config.body_timeout_s = body_timeout_s  # type: ignore[attr-defined]
    return config


class ListenError(OSError):
    """The command cannot listen where it was told to (``listening_socket``)."""


def listening_socket(host: str, port: int) -> socket.socket:
    """The review page's socket, bound before the command prints or opens anything else: a
    port another program holds ends the command in one line (``cli/errors.py``) instead of
    uvicorn's log lines after the page's address was announced."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise ListenError(exc.errno, f"cannot listen on {url_host(host)}:{port}: "
                                     f"{exc.strerror}") from None
    sock.listen(LISTEN_BACKLOG)  # connections wait from now on, until uvicorn accepts them
    return sock
