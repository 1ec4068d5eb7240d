"""Decide whether the crawler may fetch a URL.

The HTTP client only talks to a source's own host and the image hosts configured for it, so
a scraped link or a redirect cannot steer it at a cloud metadata endpoint, a database on the
private network or the machine itself. Everything here is pure: the caller resolves DNS and
hands the addresses to `check_host_addresses`.

Host names are normalized the way httpx normalizes them (lowercase, IDNA 2008 through the
`idna` package) and numeric IPv4 spellings the way the C resolver reads them (`inet_aton`:
`127.1`, `0x7f.1`, `2130706433`), so the host this module checks is the host that gets
connected to. A URL that spells an allowed IPv4 address in such a legacy form is refused as
`invalid_address`: what it means is the resolver's guess, so no client should act on it.
"""

from __future__ import annotations

import functools
import ipaddress
import re
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import SplitResult, urlsplit

import idna

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_DEFAULT_PORTS = {"http": 80, "https": 443}
_HOST_LABEL = re.compile(r"[a-z0-9_-]{1,63}")
# Once userinfo is refused, the authority must be exactly host[:port]; urllib tolerates
# leftovers such as "[::1]evil.example" that other parsers read differently.
_HOST_AND_PORT = re.compile(r"(\[[^\[\]]*\]|[^\[\]:]*)(:[0-9]*)?")
_WHITESPACE_OR_CONTROL = re.compile(r"[\x00-\x20\x7f]")
_MAX_HOST_LENGTH = 253
# NAT64 gateways forward 64:ff9b::a.b.c.d to the IPv4 address a.b.c.d.
_NAT64_PREFIX = ipaddress.IPv6Network("64:ff9b::/96")


@dataclass(frozen=True)
class HostPolicy:
    """The normalized "host" or "host:port" entries a source may be fetched from.

    An entry without a port allows the scheme's default port only; an entry with a port allows
    exactly that port. IPv6 entries are bracketed ("[::1]:8801") so the port stays unambiguous.
    """

    allowed: frozenset[str]

    @classmethod
    def from_config(cls, base_url: str, image_hosts: Iterable[str]) -> HostPolicy:
        """Build the policy from a source's base URL and its configured image hosts.

        Entries may be "host", "host:port" or full URLs. A bad entry raises ValueError naming
        it, because a typo here would otherwise surface as every fetch being refused.
        """
        if isinstance(image_hosts, str):
            raise ValueError("image_hosts must be a collection of host entries, not one string")
        entries = [_url_entry(base_url, "base_url")]
        entries += [_image_host_entry(entry) for entry in image_hosts]
        return cls(frozenset(entries))


@dataclass(frozen=True)
class HostDecision:
    """The outcome of a check; `reason` is a stable code for refusal records."""

    allowed: bool
    reason: str | None
    detail: str | None


_ALLOW = HostDecision(True, None, None)

@dataclass(frozen=True)
class _Target:
    scheme: str
    host: str
    port: int | None
    ip: IPAddress | None
    # An IPv4 address not written as a dotted quad: 127.1, 2130706433, 0x7f.0.0.1, 127.0.0.1.
    legacy_ipv4: bool = False

    @property
    def effective_port(self) -> int:
        return self.port if self.port is not None else _DEFAULT_PORTS[self.scheme]


class _Refused(Exception):
    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


def check_url(policy: HostPolicy, url: str) -> HostDecision:
    """Allow `url` only if its scheme, credentials, host and port all pass the policy.

    Run it on every URL before fetching, redirect targets included.
    """
    try:
        parts = _split_url(url)
    except _Refused as refusal:
        return HostDecision(False, refusal.reason, refusal.detail)
    return _check_authority(policy, parts.scheme, parts.netloc)


@functools.lru_cache(maxsize=1024)
def _check_authority(policy: HostPolicy, scheme: str, netloc: str) -> HostDecision:
    """The decision for every URL of ``scheme://netloc``: all of it depends on these two
    (a crawl asks it tens of thousands of times for a handful of hosts, hence the cache)."""
    parts = SplitResult(scheme, netloc, "", "", "")
    try:
        target = _parse_authority(parts)
    except _Refused as refusal:
        return HostDecision(False, refusal.reason, refusal.detail)
    if _is_allowed(policy, target):
        if target.legacy_ipv4:
            return HostDecision(False, "invalid_address", f"{parts.hostname} is an IPv4 "
                                f"address not written as a dotted quad ({target.host})")
        return _ALLOW
    key = _entry_key(target.host, target.effective_port)
    if target.ip is not None and _is_internal(target.ip):
        return HostDecision(False, "private_address", f"{key} is an internal address")
    return HostDecision(False, "host_not_allowed", f"{key} is not an allowed host")


def check_host_addresses(host: str, addresses: Iterable[str]) -> HostDecision:
    """Judge the addresses the host of an allowed URL resolved to, before connecting to them.

    A name whose DNS points inside the network (DNS rebinding, a dangling record, a hostile
    redirect target) is refused; `localhost`, configured for a local fixture server, may only
    point at loopback. To crawl a local fixture server, configure its IP literal or the name
    `localhost` explicitly; an IP literal is its own address, judged by `check_url`. Raises
    ValueError when `addresses` is empty or holds something that is not an IP address: that
    is a bug in the caller, not in the URL.
    """
    parsed = [(address, _parse_address(address)) for address in addresses]
    if not parsed:
        raise ValueError(f"no resolved addresses given for {host!r}")
    try:
        name, ip = _normalize_host(host)
    except ValueError as exc:
        return HostDecision(False, "invalid_url", str(exc))
    if ip is not None:
        return _ALLOW
    for text, address in parsed:
        if name == "localhost":
            if not (_embedded_ipv4(address) or address).is_loopback:
                reason = "private_address" if _is_internal(address) else "host_not_allowed"
                return HostDecision(False, reason, f"localhost resolved to {text}, not a "
                                    "loopback address")
        elif _is_internal(address):
            detail = f"{name} resolved to the internal address {text}"
            return HostDecision(False, "private_address", detail)
    return _ALLOW


def _is_allowed(policy: HostPolicy, target: _Target) -> bool:
    port = target.effective_port
    if _entry_key(target.host, port) in policy.allowed:
        return True
    default_port = _DEFAULT_PORTS[target.scheme]
    return port == default_port and _entry_key(target.host, None) in policy.allowed


def _entry_key(host: str, port: int | None) -> str:
    bracketed = f"[{host}]" if ":" in host else host
    return bracketed if port is None else f"{bracketed}:{port}"


def _url_entry(url: str, label: str) -> str:
    """Entry for a full URL: its host, plus its port unless that is the scheme's default."""
    try:
        target = _parse_url(url)
    except _Refused as refusal:
        raise ValueError(f"{label} {url!r} is not usable: {refusal.detail}") from None
    port = None if target.effective_port == _DEFAULT_PORTS[target.scheme] else target.port
    return _entry_key(target.host, port)


def _image_host_entry(entry: str) -> str:
    text = entry.strip()
    if not text:
        raise ValueError("an image host entry is empty")
    if "://" in text:
        return _url_entry(text, "image host")
    if any(char in text for char in "/?#@"):
        raise ValueError(f"image host {entry!r} must be 'host', 'host:port' or a full URL")
    if text.count(":") > 1 and not text.startswith("["):
        text = f"[{text}]"  # a bare IPv6 address
    try:
        target = _parse_url(f"http://{text}")
    except _Refused as refusal:
        raise ValueError(f"image host {entry!r} is not usable: {refusal.detail}") from None
    return _entry_key(target.host, target.port)


def _parse_url(url: str) -> _Target:
    return _parse_authority(_split_url(url))


def _split_url(url: str) -> SplitResult:
    """Whitespace and control characters are refused rather than stripped: urllib silently
    drops some of them while other parsers keep them, and a guard must see the host the
    client sees."""
    if _WHITESPACE_OR_CONTROL.search(url):
        raise _Refused("invalid_url", "the URL contains whitespace or control characters")
    try:
        return urlsplit(url)
    except ValueError as exc:
        raise _Refused("invalid_url", f"the URL cannot be parsed: {exc}") from None


def _parse_authority(parts: SplitResult) -> _Target:
    """The parts of a URL's scheme and authority the policy looks at, refusing anything
    ambiguous."""
    try:
        port = parts.port
    except ValueError as exc:
        raise _Refused("invalid_url", f"the URL cannot be parsed: {exc}") from None
    if not parts.scheme:
        raise _Refused("invalid_url", "the URL is not absolute")
    if parts.scheme not in _DEFAULT_PORTS:
        raise _Refused("scheme", f"the scheme {parts.scheme!r} is not http or https")
    if "@" in parts.netloc:
        raise _Refused("userinfo", "the URL carries credentials (user@host)")
    if not parts.hostname:
        raise _Refused("invalid_url", "the URL has no host")
    if not _HOST_AND_PORT.fullmatch(parts.netloc):
        raise _Refused("invalid_url", "the URL's authority is not of the form host[:port]")
    if port == 0:
        raise _Refused("invalid_url", "port 0 cannot be connected to")
    try:
        host, ip = _normalize_host(parts.hostname)
    except ValueError as exc:
        raise _Refused("invalid_url", str(exc)) from None
    legacy_ipv4 = ip is not None and ":" not in parts.hostname and parts.hostname != host
    return _Target(parts.scheme, host, port, ip, legacy_ipv4)


def _normalize_host(raw: str) -> tuple[str, IPAddress | None]:
    """Return the canonical host and, for IP literals, the address it denotes.

    Raises ValueError for anything that is neither an IP literal nor a plain DNS name.
    """
    if ":" in raw:
        return _normalize_ipv6(raw)
    name = raw.removesuffix(".").lower()
    if not name.isascii():
        try:
            name = idna.encode(name).decode("ascii")
        except idna.IDNAError as exc:
            raise ValueError(f"the host {raw!r} is not a valid internationalized name") from exc
    labels = name.split(".")
    if len(name) > _MAX_HOST_LENGTH or not all(map(_HOST_LABEL.fullmatch, labels)):
        raise ValueError(f"the host {raw!r} is not a valid host name")
    ipv4 = _inet_aton(name)
    if ipv4 is not None:
        return str(ipv4), ipv4
    return name, None


def _normalize_ipv6(raw: str) -> tuple[str, IPAddress]:
    """Canonical IPv6 literal; IPv4-mapped forms collapse to the IPv4 address they reach."""
    if "%" in raw:
        raise ValueError(f"the IPv6 host {raw!r} carries a zone identifier")
    try:
        ipv6 = ipaddress.IPv6Address(raw)
    except ValueError as exc:
        raise ValueError(f"the host {raw!r} is not a valid IPv6 address") from exc
    address: IPAddress = ipv6.ipv4_mapped or ipv6
    return str(address), address


def _inet_aton(name: str) -> ipaddress.IPv4Address | None:
    """The IPv4 address the C resolver would read `name` as, if any.

    getaddrinfo accepts the same legacy forms as inet_aton, so `0x7f.1` never reaches DNS.
    """
    try:
        return ipaddress.IPv4Address(socket.inet_aton(name))
    except OSError:
        return None


def _parse_address(address: str) -> IPAddress:
    try:
        return ipaddress.ip_address(address)
    except ValueError as exc:
        raise ValueError(f"{address!r} is not an IP address") from exc


def _is_internal(address: IPAddress) -> bool:
    """True for addresses a crawler must never reach unless configured by IP.

    IPv6 wrappers around IPv4 (mapped, 6to4, NAT64) are judged by the IPv4 address they carry.
    `is_global` also excludes shared address space (100.64.0.0/10, where some clouds keep
    their metadata service), documentation and benchmark ranges.
    """
    address = _embedded_ipv4(address) or address
    return (
        address.is_loopback
        or address.is_private
        or address.is_link_local
        or address.is_multicast
        or address.is_reserved
        or address.is_unspecified
        or not address.is_global
        or (isinstance(address, ipaddress.IPv6Address) and address.is_site_local)
    )


def _embedded_ipv4(address: IPAddress) -> ipaddress.IPv4Address | None:
    if isinstance(address, ipaddress.IPv4Address):
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address in _NAT64_PREFIX:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None
