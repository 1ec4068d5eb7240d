"""What a client says about where it is and whom it asks: believed only where checked.

Two things a request carries that its client chooses. Its ``Host`` header: the review page
and the read API answer only the names on their list (``AllowedHosts``), so a DNS name an
attacker points at this machine reads nothing, and the API's photo URLs, built from the
request's address, name a host the operator listed. And its proxy headers
(``X-Forwarded-For``, ``X-Forwarded-Proto``): uvicorn believes them by default from
loopback, so 25 wrong sign-ins from 127.0.0.1, each with a new ``X-Forwarded-For``, counted
against 25 addresses and locked none out (issue 36). They are believed only from the
addresses ``FASHION_TRUSTED_PROXIES`` names, none by default (``proxy_options``).

Starlette's ``TrustedHostMiddleware`` reads a host as what comes before the first colon,
so ``[::1]:8810`` is ``[`` and a page served on IPv6 loopback answered every request 400;
here the header is read as a URL's authority by ``urllib.parse``.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send

_NOT_IN_AUTHORITY = frozenset("/?#@\\ \t")


def host_name(header: str) -> str | None:
    """The host a ``Host`` header names, lowercased and without brackets or port
    (``[::1]:8810`` is ``::1``); None when the header is not a host and an optional port."""
    if not header or _NOT_IN_AUTHORITY.intersection(header):
        return None
    try:
        parts = urlsplit(f"//{header}")
        _ = parts.port  # a port that is not one raises
    except ValueError:
        return None
    return (parts.hostname or "").lower() or None  # urllib keeps an IPv6 zone's case


def url_host(host: str) -> str:
    """``host`` as a URL writes it: an IPv6 address in brackets (``http://[::1]:8810/``)."""
    bare = host.strip("[]")
    return f"[{bare}]" if ":" in bare else bare


def allowed_names(names: Sequence[str]) -> frozenset[str]:
    """The list an operator wrote (``FASHION_REVIEW_HOSTS``...), as ``host_name`` reads
    hosts: lowercased, an IPv6 address without its brackets."""
    return frozenset(name.strip().strip("[]").lower() for name in names if name.strip())


class AllowedHosts:
    """ASGI middleware: a request whose ``Host`` is not on the list gets 400 before
    anything is read for it."""

    def __init__(self, app: ASGIApp, allowed: Sequence[str]) -> None:
        self.app, self.allowed = app, allowed_names(allowed)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket") and host_name(
                Headers(scope=scope).get("host", "")) not in self.allowed:
            await PlainTextResponse("Invalid host header", 400)(scope, receive, send)
            return
        await self.app(scope, receive, send)


def answered_hosts(bind: str, configured: str) -> list[str]:
    """The host names a server answers to: the operator's list (``FASHION_REVIEW_HOSTS``,
    ``FASHION_API_HOSTS``), else the address it listens on and this machine's own names (a
    wildcard address names no host)."""
    names = [name.strip().lower() for name in configured.split(",") if name.strip()]
    if names:
        return names
    own = ["localhost", "127.0.0.1", "::1"]
    if bind in ("0.0.0.0", "::", ""):
        return own
    return list(dict.fromkeys([bind.strip("[]").lower(), *own]))


def trusted_proxies(configured: str) -> list[str]:
    """``FASHION_TRUSTED_PROXIES``: addresses or networks, comma-separated, none by default;
    an entry that is neither raises ValueError naming it (uvicorn would take it for a
    socket's name and trust nothing, silently)."""
    entries = [entry.strip() for entry in configured.split(",") if entry.strip()]
    for entry in entries:
        try:
            ipaddress.ip_network(entry, strict=False)
        except ValueError:
            raise ValueError(f"FASHION_TRUSTED_PROXIES: {entry!r} is not an address or a "
                             "network (10.0.0.5, 10.0.0.0/24)") from None
    return entries


def proxy_options(proxies: Sequence[str]) -> dict[str, Any]:
    """uvicorn's options for ``proxies``: proxy headers believed from those addresses only,
    and not at all when there are none (uvicorn's default believes loopback)."""
    if not proxies:
        return {"proxy_headers": False}
    return {"proxy_headers": True, "forwarded_allow_ips": list(proxies)}
