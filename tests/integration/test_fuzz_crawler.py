"""Fuzzing the crawler's reading of answers (issue 36): the headers it reads (``Retry-After``,
``Content-Length``, ``Content-Type``, ``Location``, ``Content-Encoding``) and any other,
with values of any Unicode and any length, and any status, sent byte for byte by a real
HTTP server on loopback to the crawl's own client (``crawl/http.py: Fetcher`` on aiohttp's
client as ``crawl/session.py`` configures it, its answers judged by ``crawl/responses.py``).

Every fetch ends in a ``Fetched``: the body, or a reason code the crawl records before it
goes on; no exception escapes. The page fields are fuzzed in
``tests/unit/test_fuzz_parsers.py``. How many examples: ``tests/fuzz.py``.
"""

from __future__ import annotations

import asyncio
import random
import socketserver
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from fashion_assets.crawl.http import Fetched, Fetcher, HttpPolicy
from fashion_assets.crawl.windows import RetryAfterWindows
from fashion_assets.domain.hosts import HostPolicy
from tests.fuzz import COUNTS, example_done, fuzz_log, fuzzed, hostile_text, outcome

pytestmark = pytest.mark.usefixtures("fuzz_log")
__all__ = ["fuzz_log"]  # the fixture, imported for pytest to find

MAX_BYTES = 64 * 1024
HEADERS = ("Retry-After", "Content-Length", "Content-Type", "Location", "Content-Encoding",
           "Transfer-Encoding")
HEADER_WORDS = ("0", "5", "120", "\u00b2", "\u0663", "1_0", "+5", "-1", str(2 ** 64),
                "9" * 400, "Wed, 21 Oct 2015 07:28:00 GMT", "Fri, 31 Dec 9999 23:59:59 GMT",
                "image/jpeg", "text/html; charset=\u00ff", "gzip", "identity", "chunked",
                "/next", "//evil.example/x", "http://127.0.0.1:1/", "http://[::1", "javascript:",
                "%ff%ed%a0%80", "../../..")


class _Answers(socketserver.ThreadingTCPServer):
    """Answers every request with ``answer``, as given: status line, headers and body."""

    daemon_threads = True
    allow_reuse_address = True
    answer = b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"


class _Handler(socketserver.StreamRequestHandler):
    def handle(self) -> None:
        while self.rfile.readline() not in (b"\r\n", b"\n", b""):
            pass  # the request's head; a GET has no body
        assert isinstance(self.server, _Answers)
        self.wfile.write(self.server.answer)


@pytest.fixture
def server() -> Iterator[_Answers]:
    with _Answers(("127.0.0.1", 0), _Handler) as answers:
        thread = threading.Thread(target=answers.serve_forever, daemon=True)
        thread.start()
        yield answers
        answers.shutdown()
        thread.join(10)


def header_value() -> st.SearchStrategy[bytes]:
    """A header's value as sent: UTF-8 of any text, the same without its controls (which
    the response parser refuses whole, so the header readers behind it get the rest), or
    any bytes; never a line break, which would end the header rather than fill it."""
    text = hostile_text(*HEADER_WORDS)
    return st.one_of(text.map(lambda value: value.encode("utf-8", "surrogatepass")),
                     text.map(lambda value: "".join(c for c in value if c >= " " and c != "\x7f")
                              .encode("utf-8", "surrogatepass")),
                     st.binary(max_size=64)).map(
        lambda value: value.replace(b"\r", b"").replace(b"\n", b""))


@st.composite
def answer(draw: st.DrawFn) -> bytes:
    """A whole answer: a status (or a status line of anything), hostile headers, a body."""
    status = draw(st.sampled_from((200, 200, 200, 204, 301, 302, 303, 307, 308, 404, 410,
                                   429, 500, 503, 999)))
    line = f"HTTP/1.1 {status} X".encode()
    if draw(st.integers(0, 9)) == 0:
        line = draw(header_value())
    # A name of anything now and then: the response parser refuses most, as it should.
    names = draw(st.lists(st.sampled_from(HEADERS), max_size=5))
    if draw(st.integers(0, 4)) == 0:
        names.append(draw(header_value().filter(lambda name: b":" not in name)))
    headers = [name.encode() if isinstance(name, str) else name for name in names]
    body = draw(st.binary(max_size=2048))
    lines = [line, *(b"%s: %s" % (name, draw(header_value())) for name in headers)]
    if draw(st.booleans()):  # a length of its own, or whatever the fuzz set
        lines.append(b"Content-Length: %d" % len(body))
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


def test_every_header_and_status_ends_in_a_recorded_outcome(server: _Answers,
                                                            tmp_path: Path) -> None:
    base = f"http://127.0.0.1:{server.server_address[1]}"
    policy = HttpPolicy(user_agent="fashion-assets-fuzz", timeout_s=2.0, deadline_s=5.0,
                        min_rate_bps=0, retries=1, backoff_base_s=0.001, backoff_cap_s=0.01,
                        max_retry_after_s=0.2, obey_robots=False, page_delay_s=0.0,
                        max_redirects=3)
    hosts = HostPolicy.from_config(base, [])

    async def fetch(kind: str) -> Fetched:
        windows = RetryAfterWindows(tmp_path, policy.max_retry_after_s)
        async with Fetcher(policy, hosts, rng=random.Random(0), windows=windows) as fetcher:
            return await fetcher.fetch(f"{base}/look/1.jpg", max_bytes=MAX_BYTES,
                                       kind=kind)  # type: ignore[arg-type]

    @fuzzed
    @given(raw=answer(), kind=st.sampled_from(("page", "image")))
    @example(raw=b"HTTP/1.1 429 X\r\nRetry-After: \xc2\xb2\r\nContent-Length: 0\r\n\r\n",
             kind="page")
    @example(raw=b"HTTP/1.1 200 X\r\nContent-Length: " + b"9" * 5000 + b"\r\n\r\n", kind="image")
    # The fuzz's find: a Location that urljoin cannot read raised its ValueError.
    @example(raw=b"HTTP/1.1 301 X\r\nLocation: http://[::1\r\n\r\n", kind="page")
    def check(raw: bytes, kind: str) -> None:
        server.answer = raw
        before = COUNTS["requests"]
        fetched = asyncio.run(fetch(kind))
        COUNTS["requests"] = before + fetched.attempts
        assert isinstance(fetched, Fetched)
        assert fetched.ok or (isinstance(fetched.error, str) and fetched.error), fetched
        outcome(fetched.error or "fetched")
        example_done()

    check()
