"""``target_of`` sends what httpx would send; header lines cannot break a request head.

The crawl's transport parses plain URLs with its own pattern and leaves the rest to httpx's
URL parser (``crawl/transport.py``). For every URL here, plain or not, the origin, request
target and Host header must be the ones httpx's own request for that URL carries; the
random URLs are built from the characters that decide which parser runs.
"""

from __future__ import annotations

import random

import httpx
import pytest

from fashion_assets.crawl.http import header_lines
from fashion_assets.crawl.targets import Target, target_of

DEFAULT_PORTS = {"http": 80, "https": 443}


def httpx_target(url: str) -> Target:
    request = httpx.Request("GET", url)
    scheme = request.url.scheme
    return Target((scheme.encode(), request.url.host,
                   request.url.port or DEFAULT_PORTS[scheme]),
                  request.url.raw_path, request.headers["host"].encode())


CHOSEN = [
    "http://127.0.0.1:8001/photos/look-12.jpg?w=1280&h=1920",
    "https://assets.vogue.com/photos/5f/master/w_1280,c_limit/00001-fall-2024.jpg",
    "http://cdn.example:80/a", "https://cdn.example:443/a", "https://cdn.example:80/a",
    "http://cdn.example:0080/a", "http://cdn.example:8080", "http://cdn.example",
    "http://cdn.example/?q", "http://cdn.example/a#look", "http://cdn.example/a?b#c",
    "HTTP://CDN.Example/A.JPG", "http://cdn.example/a/../b/./c", "http://cdn.example/.well-known",
    "http://cdn.example/%7Elook/%zz", "http://cdn.example/caf\u00e9.jpg",
    "http://cdn.example/a b", "http://bücher.example/look.jpg", "http://[::1]:8001/a",
    "http://cdn.example/a|b^c`d{e}", "http://cdn.example/a?x=[1]", "http://cdn.example./a",
    "http://127.1/a", "http://2130706433/a",
]


@pytest.mark.parametrize("url", CHOSEN)
def test_a_url_goes_where_httpx_would_send_it(url: str) -> None:
    assert target_of(url) == httpx_target(url)


def test_random_urls_go_where_httpx_would_send_them() -> None:
    rng = random.Random(1729)
    hosts = ["cdn.example", "CDN.example", "127.0.0.1", "a-b.c9", "[::1]", "xn--bcher-kva.ex"]
    pieces = ["a", "Z", "9", "/", ".", "..", "-", "_", "~", "%20", "%", "?", "&", "=", "#",
              ",", ";", ":", "@", "!", "$", "'", "(", "*", "+", "é", " ", "[", "|", "\\"]
    checked = 0
    for _ in range(3000):
        port = rng.choice(["", ":80", ":443", ":8001", ":0", ":99999"])
        path = "".join(rng.choice(pieces) for _ in range(rng.randrange(0, 12)))
        url = f"{rng.choice(['http', 'https'])}://{rng.choice(hosts)}{port}/{path}"
        try:
            expected = httpx_target(url)
        except httpx.InvalidURL:
            with pytest.raises(httpx.InvalidURL):
                target_of(url)
            continue
        assert target_of(url) == expected, url
        checked += 1
    assert checked > 2000


def test_a_scheme_other_than_http_is_refused() -> None:
    with pytest.raises(httpx.UnsupportedProtocol):
        target_of("ftp://cdn.example/a.jpg")


def test_header_lines_are_written_as_a_request_head_wants_them() -> None:
    assert header_lines({"User-Agent": "fashion-assets/1 (+https://x)", "Accept": "*/*"}) == (
        b"User-Agent: fashion-assets/1 (+https://x)\r\nAccept: */*\r\n")


@pytest.mark.parametrize("name, value", [
    ("User-Agent", "fa\r\nX-Injected: yes"), ("User-Agent", "fa\nX: y"), ("X:Y", "z"),
    ("", "z"), ("User-Agent", "f\u2603"), ("User-Agent", "nul\0"),
])
def test_a_header_that_would_break_the_head_is_refused(name: str, value: str) -> None:
    with pytest.raises(ValueError, match="header"):
        header_lines({name: value})
