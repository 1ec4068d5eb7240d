"""The crawl's connections: aiohttp's client, configured for a guarded crawl.

Why aiohttp: a crawl is tens of thousands of small GETs on a few kept-alive connections, and
on a two-core machine its CPU per request is its speed. aiohttp's client (its C parser,
llhttp) costs about what the project's own httptools transport did, where a plain httpx
client costs several times more (``python -m bench.fetch_cpu``, docs/performance.md). The
configuration here is the crawl's protocol policy, each setting where aiohttp allows it:

- connections only to the addresses ``CheckedResolver`` judged (``crawl/resolver.py``):
  aiohttp's own name cache is off, so every new connection asks the resolver, which keeps
  each judged answer for its TTL; an IP literal is its own address;
- a pool of idle connections kept ``KEEPALIVE_S`` at most, without a limit of its own: the
  client's per-host slots (``crawl/http.py``) bound what is in flight;
- connect and read timeouts; the deadline of the whole exchange and the minimum transfer
  rate are the caller's (``crawl/responses.py``);
- an answer's head within ``MAX_HEADER_LINES`` lines of ``MAX_FIELD_BYTES`` each (an
  endless head reached 92 MiB before the read timeout cut it, issue 36);
- no cookies, no redirects followed (the caller checks each target against the host
  policy), no decompression (identity is asked; ``crawl/responses.py`` refuses the rest),
  no proxy from the environment.
"""

from __future__ import annotations

import ssl

import aiohttp
from aiohttp.abc import AbstractResolver

KEEPALIVE_S = 5.0  # an idle connection older than this is closed, not reused
MAX_HEADER_LINES = 100  # http.client's own limit (_MAXHEADERS)
MAX_FIELD_BYTES = 8190  # a header line (name and value) or the status line: aiohttp's default
READ_BUFFER = 256 * 1024  # unread body bytes at which reading pauses


def request_headers(user_agent: str) -> dict[str, str]:
    """The headers every request carries; a User-Agent that would break the request head (a
    line break, a NUL, a character outside Latin-1) is a ValueError."""
    if any(c in user_agent for c in "\r\n\0"):
        raise ValueError(f"the User-Agent {user_agent!r} cannot be sent")
    try:
        user_agent.encode("latin-1")
    except UnicodeEncodeError:
        raise ValueError(f"the User-Agent {user_agent!r} is not Latin-1") from None
    return {"User-Agent": user_agent, "Accept-Encoding": "identity", "Accept": "*/*"}


def crawl_session(resolver: AbstractResolver, tls: ssl.SSLContext,
                  *, user_agent: str, timeout_s: float) -> aiohttp.ClientSession:
    """A session for one client's crawl (see the module's docstring); ``tls`` is the SSL
    context for https. Create it inside the event loop that uses it; close it after."""
    connector = aiohttp.TCPConnector(
        resolver=resolver, use_dns_cache=False, ssl=tls, limit=0, limit_per_host=0,
        keepalive_timeout=KEEPALIVE_S)
    return aiohttp.ClientSession(
        connector=connector, headers=request_headers(user_agent),
        cookie_jar=aiohttp.DummyCookieJar(), auto_decompress=False, trust_env=False,
        timeout=aiohttp.ClientTimeout(total=None, connect=timeout_s, sock_connect=timeout_s,
                                      sock_read=timeout_s),
        read_bufsize=READ_BUFFER, max_line_size=MAX_FIELD_BYTES,
        max_field_size=MAX_FIELD_BYTES, max_headers=MAX_HEADER_LINES)
