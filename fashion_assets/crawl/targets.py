"""Where a crawl's GET goes: a URL parsed once into a ``Target`` (``target_of``) for the
crawl's transport (``crawl/transport.py``). Plain URLs by a strict pattern, any other
(upper case, IPv6, non-ASCII, percent signs, dot segments) by httpx's URL parser, so both
give the origin, request target and Host header httpx itself would send
(``tests/unit/test_transport_target.py`` holds the pattern to httpx's answers).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import httpx

_DEFAULT_PORTS = {b"http": 80, b"https": 443}
# A URL whose every part httpx would send as written: lower-case scheme and host name,
# no userinfo, and a path and query of characters that need no percent-encoding (a bracket
# or a percent sign takes the slow path).
_PLAIN_URL = re.compile(r"(https?)://([a-z0-9][a-z0-9.-]*)(?::([1-9][0-9]{0,4}))?"
                        r"(/[A-Za-z0-9._~!$&'()*+,;=:@/-]*)?(\?[A-Za-z0-9._~!$&'()*+,;=:@/?-]*)?",
                        re.ASCII)

Origin = tuple[bytes, str, int]  # scheme, host, port


@dataclass(frozen=True, slots=True)
class Target:
    """Where a GET goes: its origin, the request target (path and query) and the value of
    its Host header."""

    origin: Origin
    path: bytes
    authority: bytes


def target_of(url: str) -> Target:
    """``url`` as httpx would send it; raises httpx's ``InvalidURL`` for a URL it refuses and
    ``UnsupportedProtocol`` for a scheme other than http and https."""
    plain = _PLAIN_URL.fullmatch(url)
    # Dot segments are removed by httpx, and a punycode label is a name httpx decodes.
    if plain is not None and "/." not in url and "xn--" not in plain[2]:
        scheme, host, port_text, path, query = plain.groups()
        raw_scheme = scheme.encode()
        default = _DEFAULT_PORTS[raw_scheme]
        port = int(port_text) if port_text else default
        if port <= 65535:
            authority = host if port == default else f"{host}:{port}"
            return Target((raw_scheme, host, port), ((path or "/") + (query or "")).encode(),
                          authority.encode())
    parsed = httpx.URL(url)
    raw_scheme = parsed.raw_scheme
    if raw_scheme not in _DEFAULT_PORTS:
        raise httpx.UnsupportedProtocol(f"unsupported URL scheme {parsed.scheme!r}")
    return Target((raw_scheme, parsed.host, parsed.port or _DEFAULT_PORTS[raw_scheme]),
                  parsed.raw_path, parsed.netloc)
