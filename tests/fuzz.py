"""What the fuzz tests share (issue 36): hostile values, requests sent byte for byte, the
check every answer must pass, and the count of what was generated.

The fuzz tests generate hostile values for every query parameter, form field, path segment
and cursor of the review page and the read API, and for the headers and page fields the
crawler reads: text of any Unicode (NUL and the other controls, reordering marks, another
script's digits), numbers past 64 bits and below zero, strings of 10,000 characters and
more, percent-escapes of bytes that are no UTF-8 (``%ff``, ``%ed%a0%80``), ``..`` and
``%2f`` in a path, empty and repeated parameters.

How many examples each test generates: ``FASHION_FUZZ_EXAMPLES`` (default ``CI_EXAMPLES``,
a couple of minutes for the whole fuzz suite on CI's two cores). The long run
(docs/reliability.md, "Fuzzing") sets it high. With ``FASHION_FUZZ_LOG`` set to a file,
each test appends one JSON line to it: the test, its examples, the requests it sent (or
pages and headers it had parsed) and its seconds, so a run's totals can be added up.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import time
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any, TypeVar
from urllib.parse import quote, urlsplit

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from sqlalchemy import Engine, text

from fashion_assets.domain.numbers import whole_number

CI_EXAMPLES = 40
EXAMPLES = whole_number(os.environ.get("FASHION_FUZZ_EXAMPLES", "") or str(CI_EXAMPLES),
                        low=1) or CI_EXAMPLES
LOG_ENV = "FASHION_FUZZ_LOG"

# What each fuzz test did, reset per test by ``fuzz_log``: examples and requests.
COUNTS: Counter[str] = Counter()

F = TypeVar("F", bound=Callable[..., Any])


def fuzzed(test: F) -> F:
    """Hypothesis settings of a fuzz test: ``EXAMPLES`` examples, no deadline (a request to a
    real server on a shared machine takes what it takes), no example database written into
    the checkout, and the nested ``@given`` function run inside a test that owns the servers
    (so no function-scoped fixture is reused across examples)."""
    return settings(max_examples=EXAMPLES, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.large_base_example])(test)


@pytest.fixture
def fuzz_log(request: pytest.FixtureRequest) -> Iterator[None]:
    """Counts one test's examples and requests; appends them to ``FASHION_FUZZ_LOG``."""
    COUNTS.clear()
    started = time.monotonic()
    yield
    path = os.environ.get(LOG_ENV)
    if path:
        line = {"test": request.node.nodeid, "examples": COUNTS["examples"],
                "requests": COUNTS["requests"], "seconds": round(time.monotonic() - started, 1),
                "outcomes": {k: v for k, v in sorted(COUNTS.items())
                             if k not in ("examples", "requests")}}
        with open(path, "a", encoding="utf-8") as log:
            log.write(json.dumps(line) + "\n")


def example_done() -> None:
    COUNTS["examples"] += 1


def outcome(name: str) -> None:
    """Count an outcome of a parse or a fetch (a reason code), for the log."""
    COUNTS[name] += 1


# -- hostile values ----------------------------------------------------------------------

DIGIT_LOOKALIKES = "\u00b2\u00b3\u00b9\u0663\u06f5\u07c3\u0967\uff13\U0001d7d8\u2460\u00bd"
SPECIAL = ("", " ", "0", "-1", "-0", "+5", "1.5", "1e3", "1_000", " 7 ", "0x10", "NaN",
           "Infinity", str(2 ** 63 - 1), str(2 ** 63), str(2 ** 64), "9" * 40, "9" * 41,
           "..", "../..", "/", "//", "\\", "%", "%%", "%2f", "%00", "&", "=", "?", "#", ";",
           "null", "true", "[]", "{}", "'", '"', "<script>alert(1)</script>", "\x00", "\x1b[2J",
           "\x7f", "\x85", "\u202e", "\ufeff", "\u200d", "\ufffd", "\U0001f600", "runway:1",
           "street:1", "runway:-1", f"runway:{2 ** 63}", "runway:\u0663", "approve", "any")
# Percent-escapes a decoder may choke on: bytes that are no UTF-8, an encoded surrogate, an
# overlong slash, a truncated escape, an encoded NUL, slash and dot.
RAW_ESCAPES = ("%ff", "%fe%ff", "%ed%a0%80", "%ed%bf%bf", "%c0%af", "%c0%80", "%e2%82",
               "%", "%z", "%zz", "%%", "%00", "%2f", "%2F", "%2e%2e", "%5c", "%0d%0a", "%20",
               "+", "..", ".", "/", "&", "=", ";")


def huge_text() -> st.SearchStrategy[str]:
    """10,000 to 30,000 characters: a piece of any text, repeated."""
    return st.builds(lambda piece, size: (piece * size)[:size],
                     st.text(min_size=1, max_size=4), st.integers(10_000, 30_000))


def numberish() -> st.SearchStrategy[str]:
    """What a number field may be sent: any integer (past 64 bits, negative), another
    script's digits, a float."""
    return st.one_of(st.integers(-(2 ** 80), 2 ** 80).map(str),
                     st.text(alphabet="0123456789" + DIGIT_LOOKALIKES, min_size=1, max_size=30),
                     st.floats(allow_nan=True, allow_infinity=True).map(str))


def hostile_text(*known: str) -> st.SearchStrategy[str]:
    """Any text a request may carry as a value: ``known`` values (a route's own words, so the
    handlers past the parsing are reached too) among every kind of hostile one."""
    hostile = st.one_of(st.text(), st.text(alphabet=st.characters(max_codepoint=0x9f)),
                        st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs"))),
                        st.sampled_from(SPECIAL), numberish(), huge_text())
    # Known words half the time: most hostile text holds a control character, refused at
    # the door; the known words get a request past it, to the handlers behind.
    return st.one_of(st.sampled_from(known), hostile) if known else hostile


def encoded(*known: str) -> st.SearchStrategy[str]:
    """A value as it appears in a URL or a form body: percent-encoded text, possibly mixed
    with raw escapes that decode to no UTF-8 or to nothing at all."""
    piece = st.one_of(hostile_text(*known).map(lambda text: quote(text, safe="")),
                      st.sampled_from(RAW_ESCAPES))
    return st.one_of(hostile_text(*known).map(lambda text: quote(text, safe="")),
                     st.lists(piece, min_size=1, max_size=6).map("".join))


def query_string(names: tuple[str, ...], values: tuple[str, ...] = ()
                 ) -> st.SearchStrategy[str]:
    """A query string or form body: the route's parameter ``names`` and others, each any
    number of times (repeated parameters), with encoded hostile values."""
    pair = st.tuples(st.one_of(st.sampled_from(names), encoded()) if names else encoded(),
                     encoded(*values))
    return st.lists(pair, max_size=6).map(
        lambda pairs: "&".join(f"{name}={value}" for name, value in pairs))


def path_segment(*known: str) -> st.SearchStrategy[str]:
    """One path segment, encoded: hostile text, ``..``, ``%2f``, invalid UTF-8 escapes."""
    return encoded(*known).filter(lambda segment: "/" not in segment and "?" not in segment
                                  and "#" not in segment)


# -- requests, byte for byte -------------------------------------------------------------

def send(base_url: str, method: str, target: bytes | str, headers: dict[str, str] | None = None,
         body: bytes = b"") -> tuple[int, bytes]:
    """One request sent as written (no client normalizes ``..`` or re-encodes an escape) on
    a connection of its own; the answer's status and body."""
    address = urlsplit(base_url)
    raw = target if isinstance(target, bytes) else target.encode("ascii")
    lines = [b"%s %s HTTP/1.1" % (method.encode(), raw),
             f"Host: {address.hostname}:{address.port}".encode(), b"Connection: close",
             b"Content-Length: %d" % len(body)]
    lines += [f"{name}: {value}".encode("latin-1") for name, value in (headers or {}).items()]
    COUNTS["requests"] += 1
    with socket.create_connection((address.hostname, address.port), timeout=60) as sock:
        sock.sendall(b"\r\n".join(lines) + b"\r\n\r\n" + body)
        response = http.client.HTTPResponse(sock, method=method)
        response.begin()
        return response.status, response.read()


def snapshot(engine: Engine, tables: tuple[str, ...]) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of ``tables``, in a stable order: equal before and after, nothing written."""
    with engine.connect() as conn:
        return {table: sorted((tuple(row) for row in conn.execute(
            text(f"SELECT * FROM {table}"))), key=repr) for table in tables}


def check_answer(status: int, body: bytes, what: str) -> None:
    """What every answer to a hostile request must be: no server error, no traceback."""
    COUNTS[f"HTTP {status}"] += 1
    shown = f"{what}: HTTP {status} {body[:600]!r}"
    assert status < 500, shown
    assert b"Traceback" not in body and b'File "' not in body, shown
