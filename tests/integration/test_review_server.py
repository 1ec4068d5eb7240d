"""The review page's server closes connections whose request does not arrive in time
(``review_app/server.py``), through real sockets against uvicorn on loopback.

Thirty clients that drip a request's head byte by byte held thirty connections for a minute
(issue 17): now each is closed at the head deadline, while a request sent whole is answered
all along. The same holds for a body that stops coming, for a second request pipelined
behind a whole one, and for a connection that never sends a byte.
"""

from __future__ import annotations

import http.client
import socket
import time
from collections.abc import Iterator

import pytest
from sqlalchemy import Engine

from fashion_assets.review_app import create_app
from fashion_assets.review_app.server import timed_config
from fashion_assets.storage import ObjectStore
from tests.integration.test_review_app import serve

DEADLINE_S = 1.0
SLOW_CLIENTS = 30
# How long past the deadline a connection may stay open (a loaded CI machine's slack).
SLACK_S = 5.0


@pytest.fixture
def site(engine: Engine, store: ObjectStore) -> Iterator[tuple[str, int]]:
    """The open review page (no editor accounts: loopback only) with 1 s deadlines."""
    app = create_app(engine, store)
    # uvicorn's own idle timeout far beyond the deadlines: only they may close a connection.
    with serve(app, timed_config, head_timeout_s=DEADLINE_S, body_timeout_s=DEADLINE_S,
               timeout_keep_alive=600) as url:
        host, port = url.removeprefix("http://").split(":")
        yield host, int(port)


def connect(address: tuple[str, int]) -> socket.socket:
    sock = socket.create_connection(address, timeout=DEADLINE_S + SLACK_S)
    return sock


def closed_by_server(sock: socket.socket) -> float:
    """Seconds until the server closes ``sock`` (reading until EOF, any answer included);
    fails on a timeout."""
    started = time.monotonic()
    while True:
        try:
            data = sock.recv(65536)
        except TimeoutError:
            pytest.fail(f"the server kept the connection open {DEADLINE_S + SLACK_S} s")
        if not data:
            return time.monotonic() - started


def answered(address: tuple[str, int]) -> bytes:
    with connect(address) as sock:
        sock.sendall(b"GET /static/style.css HTTP/1.1\r\nHost: localhost\r\n"
                     b"Connection: close\r\n\r\n")
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def test_slow_heads_are_cut_at_the_deadline_and_others_still_answered(
        site: tuple[str, int]) -> None:
    slow = [connect(site) for _ in range(SLOW_CLIENTS)]
    try:
        for sock in slow:
            sock.sendall(b"GET / HTTP/1.1\r\nHo")  # and then nothing more
        assert answered(site).startswith(b"HTTP/1.1 200")
        waited = [closed_by_server(sock) for sock in slow]
    finally:
        for sock in slow:
            sock.close()
    assert max(waited) < DEADLINE_S + SLACK_S
    assert answered(site).startswith(b"HTTP/1.1 200")


def test_a_head_dripped_byte_by_byte_is_cut_even_while_bytes_keep_coming(
        site: tuple[str, int]) -> None:
    head = b"GET / HTTP/1.1\r\nHost: localhost\r\nX-Padding: " + b"x" * 400
    with connect(site) as sock:
        started = time.monotonic()
        with pytest.raises((BrokenPipeError, ConnectionResetError)):
            for byte in head:
                sock.sendall(bytes([byte]))
                time.sleep(0.05)  # the drip itself: one byte every 50 ms, never a whole head
        assert time.monotonic() - started < DEADLINE_S + SLACK_S


@pytest.mark.parametrize("sent", [
    # a body that stops coming
    b"POST /logout HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n"
    b"Content-Type: application/x-www-form-urlencoded\r\n\r\ncsrf=1",
    b"",  # a connection that never sends a byte
    # a second request pipelined behind a whole one, and left unfinished
    b"GET /static/style.css HTTP/1.1\r\nHost: localhost\r\n\r\n"
    b"GET /static/style.css HTTP/1.1\r\nHo",
], ids=["body", "silent", "pipelined"])
def test_a_request_that_stops_arriving_is_cut(site: tuple[str, int], sent: bytes) -> None:
    with connect(site) as sock:
        sock.sendall(sent)
        assert closed_by_server(sock) < DEADLINE_S + SLACK_S


def test_a_second_request_on_a_kept_connection_has_its_own_deadline(
        site: tuple[str, int]) -> None:
    with connect(site) as sock:
        sock.sendall(b"GET /static/style.css HTTP/1.1\r\nHost: localhost\r\n\r\n")
        assert sock.recv(65536).startswith(b"HTTP/1.1 200")
        sock.sendall(b"GET /static/style.css HTTP/1.1\r\nHo")  # then nothing more
        assert closed_by_server(sock) < DEADLINE_S + SLACK_S


def test_a_kept_connection_serves_request_after_request_within_the_deadlines(
        site: tuple[str, int]) -> None:
    connection = http.client.HTTPConnection(*site, timeout=DEADLINE_S + SLACK_S)
    try:
        for _ in range(3):
            connection.request("GET", "/static/style.css")
            response = connection.getresponse()
            assert response.status == 200 and response.read()
        assert connection.sock is not None  # one connection all along
    finally:
        connection.close()
