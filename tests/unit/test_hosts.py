"""Unit tests for fashion_assets.domain.hosts: which URLs the crawler may fetch."""

from __future__ import annotations

import pytest

from fashion_assets.domain.hosts import (
    HostDecision,
    HostPolicy,
    check_host_addresses,
    check_url,
)

POLICY = HostPolicy.from_config(
    "https://www.vogue.com/fashion-shows",
    [
        "assets.vogue.com",
        "img.example.net:8443",
        "https://cdn.example.org:443/photos/",
        "http://127.0.0.1:8801",
        "[::1]:8802",
        "10.0.0.7",
        "bücher.example",
        "localhost:8803",
    ],
)

ALLOW = HostDecision(True, None, None)


# --- from_config ---------------------------------------------------------------------------


def test_from_config_normalizes_every_entry() -> None:
    assert POLICY.allowed == frozenset(
        {
            "www.vogue.com",
            "assets.vogue.com",
            "img.example.net:8443",
            "cdn.example.org",
            "127.0.0.1:8801",
            "[::1]:8802",
            "10.0.0.7",
            "xn--bcher-kva.example",
            "localhost:8803",
        }
    )


@pytest.mark.parametrize(
    ("base_url", "entry", "expected"),
    [
        ("https://WWW.Vogue.COM./", "Assets.Vogue.com.", {"www.vogue.com", "assets.vogue.com"}),
        (
            "http://shop.example:80/",
            "http://img.example:8080/x",
            {"shop.example", "img.example:8080"},
        ),
        ("https://shop.example:8443", "img.example:443", {"shop.example:8443", "img.example:443"}),
        ("https://shop.example", "  img.example  ", {"shop.example", "img.example"}),
        ("https://shop.example", "::1", {"shop.example", "[::1]"}),
        ("https://shop.example", "[::FFFF:127.0.0.1]:9", {"shop.example", "127.0.0.1:9"}),
        ("https://shop.example", "0x7f.1:8801", {"shop.example", "127.0.0.1:8801"}),
        ("https://shop.example", "BÜCHER.example", {"shop.example", "xn--bcher-kva.example"}),
    ],
)
def test_from_config_entry_forms(base_url: str, entry: str, expected: set[str]) -> None:
    assert HostPolicy.from_config(base_url, [entry]).allowed == frozenset(expected)


@pytest.mark.parametrize(
    ("base_url", "image_hosts", "message"),
    [
        ("www.vogue.com", [], "base_url"),
        ("ftp://www.vogue.com", [], "base_url"),
        ("https://user:pw@www.vogue.com", [], "base_url"),
        ("https://", [], "base_url"),
        ("https://www.vogue.com", [""], "empty"),
        ("https://www.vogue.com", ["   "], "empty"),
        ("https://www.vogue.com", ["assets.vogue.com/photos"], "assets.vogue.com/photos"),
        ("https://www.vogue.com", ["user@assets.vogue.com"], "user@assets.vogue.com"),
        ("https://www.vogue.com", ["assets.vogue.com:http"], "assets.vogue.com:http"),
        ("https://www.vogue.com", ["assets vogue com"], "assets vogue com"),
        ("https://www.vogue.com", ["file:///srv/images"], "file:///srv/images"),
        ("https://www.vogue.com", ["[::1"], "[::1"),
        ("https://www.vogue.com", "assets.vogue.com", "one string"),
    ],
)
def test_from_config_rejects_bad_entries(
    base_url: str, image_hosts: list[str], message: str
) -> None:
    with pytest.raises(ValueError, match=message.replace("[", r"\[")):
        HostPolicy.from_config(base_url, image_hosts)


# --- check_url -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "https://www.vogue.com/fashion-shows/spring-2025",
        "http://www.vogue.com/",
        "https://www.vogue.com:443/x",
        "HTTPS://WWW.VOGUE.COM/X",
        "https://www.vogue.com./x",
        "https://assets.vogue.com/photos/abc.jpg?w=1200#top",
        "https://img.example.net:8443/a.jpg",
        "http://img.example.net:8443/a.jpg",
        "https://cdn.example.org/photos/1.jpg",
        "http://127.0.0.1:8801/fixtures/look.jpg",
        "http://[::ffff:127.0.0.1]:8801/",
        "http://[::1]:8802/",
        "http://[0:0:0:0:0:0:0:1]:8802/",
        "http://10.0.0.7/",
        "https://10.0.0.7/",
        "https://bücher.example/",
        "https://xn--bcher-kva.example/",
        "http://localhost:8803/",
    ],
)
def test_allowed_urls(url: str) -> None:
    assert check_url(POLICY, url) == ALLOW


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        # Not on the list.
        ("https://evil.example/a.jpg", "host_not_allowed"),
        ("https://vogue.com/", "host_not_allowed"),
        ("https://www.vogue.com.evil.example/", "host_not_allowed"),
        ("https://evil.example/?next=https://www.vogue.com/", "host_not_allowed"),
        ("https://www.vogue.com:8443/", "host_not_allowed"),
        ("https://img.example.net/a.jpg", "host_not_allowed"),
        ("https://img.example.net:8444/a.jpg", "host_not_allowed"),
        ("http://cdn.example.org:8080/", "host_not_allowed"),
        ("https://8.8.8.8/", "host_not_allowed"),
        ("https://bucher.example/", "host_not_allowed"),
        ("http://localhost/", "host_not_allowed"),
        # Redirect targets into the network: IP literals that are not configured.
        ("http://169.254.169.254/latest/meta-data/iam/", "private_address"),
        ("http://0xa9fea9fe/latest/meta-data/", "private_address"),
        ("http://2852039166/latest/meta-data/", "private_address"),
        ("http://[::ffff:169.254.169.254]/", "private_address"),
        ("http://[fd00:ec2::254]/latest/meta-data/", "private_address"),
        ("http://100.100.100.200/latest/meta-data/", "private_address"),
        ("http://127.0.0.1/", "private_address"),
        ("http://127.0.0.1:8802/", "private_address"),
        ("http://127.0.0.2:8801/", "private_address"),
        ("http://0.0.0.0:8801/", "private_address"),
        ("http://0:8801/", "private_address"),
        ("http://[::]:8801/", "private_address"),
        ("http://[::1]:8801/", "private_address"),
        ("http://[::1]/", "private_address"),
        ("http://10.0.0.8/", "private_address"),
        ("http://10.0.0.7:8080/", "private_address"),
        ("http://192.168.1.1/", "private_address"),
        ("http://[fe80::1]/", "private_address"),
        ("http://224.0.0.1/", "private_address"),
        # Schemes.
        ("file:///etc/passwd", "scheme"),
        ("ftp://www.vogue.com/a.jpg", "scheme"),
        ("javascript:alert(document.cookie)", "scheme"),
        ("data:image/png;base64,iVBORw0KGgo=", "scheme"),
        ("gopher://127.0.0.1:6379/_INFO", "scheme"),
        ("ws://www.vogue.com/", "scheme"),
        # Credentials and the classic "@" confusion.
        ("https://user:pass@www.vogue.com/", "userinfo"),
        ("https://user@www.vogue.com/", "userinfo"),
        ("https://@www.vogue.com/", "userinfo"),
        ("https://www.vogue.com@evil.example/", "userinfo"),
        ("https://www.vogue.com:443@169.254.169.254/", "userinfo"),
        ("http://www.vogue.com\\@169.254.169.254/", "userinfo"),
        # Garbage and parser tricks.
        ("", "invalid_url"),
        ("not a url", "invalid_url"),
        ("www.vogue.com/a.jpg", "invalid_url"),
        ("//www.vogue.com/a.jpg", "invalid_url"),
        ("/fashion-shows", "invalid_url"),
        ("http://", "invalid_url"),
        ("https:///www.vogue.com/", "invalid_url"),
        ("https://www.vogue.com:99999/", "invalid_url"),
        ("https://www.vogue.com:0/", "invalid_url"),
        ("https://www.vogue.com:-1/", "invalid_url"),
        ("https://www.vogue.com:８０/", "invalid_url"),
        ("https://www.vogue.com:https/", "invalid_url"),
        ("https://www.vo\tgue.com/", "invalid_url"),
        ("https://www.vogue.com/\n", "invalid_url"),
        (" https://www.vogue.com/", "invalid_url"),
        ("https://%77ww.vogue.com/", "invalid_url"),
        ("https://www.vogue.com%2f@evil.example/", "userinfo"),
        ("https://www.vogue.com%00.evil.example/", "invalid_url"),
        ("https://www..vogue.com/", "invalid_url"),
        ("https://www.vogue.com../", "invalid_url"),
        ("https://[::1/", "invalid_url"),
        ("https://[127.0.0.1]/", "invalid_url"),
        ("https://[fe80::1%25eth0]/", "invalid_url"),
        ("https://[::1]evil.example/", "invalid_url"),
        ("https://" + "a" * 64 + ".vogue.com/", "invalid_url"),
    ],
)
def test_refused_urls(url: str, reason: str) -> None:
    decision = check_url(POLICY, url)

    assert (decision.allowed, decision.reason) == (False, reason)
    assert decision.detail


@pytest.mark.parametrize(
    "url",
    [
        "http://127.1:8801/",
        "http://0x7f.1:8801/",
        "http://2130706433:8801/",
        "http://0177.0.0.1:8801/",
        "http://127.0.0.1.:8801/",
    ],
)
def test_an_allowed_address_not_written_as_a_dotted_quad_is_an_invalid_address(
    url: str,
) -> None:
    """The C resolver reads these as 127.0.0.1, but the HTTP client will not connect to them."""
    decision = check_url(POLICY, url)

    assert (decision.allowed, decision.reason) == (False, "invalid_address")
    assert decision.detail and "127.0.0.1" in decision.detail


# --- check_host_addresses --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("host", "addresses"),
    [
        ("assets.vogue.com", ["151.101.2.10"]),
        ("assets.vogue.com", ["151.101.2.10", "2a04:4e42::645"]),
        ("www.vogue.com", ["2a04:4e42:600::645"]),
        ("localhost", ["127.0.0.1", "::1"]),
        ("LOCALHOST.", ["127.0.0.2", "::ffff:127.0.0.1"]),
        ("127.0.0.1", ["127.0.0.1"]),
        ("::1", ["::1"]),
    ],
)
def test_resolved_public_or_configured_addresses_are_allowed(
    host: str, addresses: list[str]
) -> None:
    assert check_host_addresses(host, addresses) == ALLOW


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",
        "127.53.0.1",
        "10.1.2.3",
        "172.16.0.1",
        "192.168.0.10",
        "169.254.169.254",
        "100.100.100.200",
        "0.0.0.0",
        "224.0.0.251",
        "240.0.0.1",
        "255.255.255.255",
        "::1",
        "::",
        "fe80::1",
        "fe80::1%eth0",
        "fd00:ec2::254",
        "fec0::1",
        "ff02::1",
        "::ffff:127.0.0.1",
        "::ffff:169.254.169.254",
        "::ffff:10.0.0.1",
        "2002:a9fe:a9fe::1",
        "64:ff9b::a9fe:a9fe",
    ],
)
def test_names_resolving_inside_the_network_are_refused(address: str) -> None:
    decision = check_host_addresses("assets.vogue.com", ["151.101.2.10", address])

    assert (decision.allowed, decision.reason) == (False, "private_address")
    assert decision.detail and address.split("%")[0] in decision.detail


@pytest.mark.parametrize("addresses", [[], ["assets.vogue.com"], ["999.1.1.1"]])
def test_unusable_address_lists_are_caller_bugs(addresses: list[str]) -> None:
    with pytest.raises(ValueError):
        check_host_addresses("assets.vogue.com", addresses)


def test_only_localhost_may_resolve_to_loopback() -> None:
    decision = check_host_addresses("fixtures.test", ["127.0.0.1"])

    assert (decision.allowed, decision.reason) == (False, "private_address")


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("10.0.0.1", "private_address"),
        ("::ffff:10.0.0.1", "private_address"),
        ("169.254.169.254", "private_address"),
        ("151.101.2.10", "host_not_allowed"),
    ],
)
def test_localhost_may_resolve_to_loopback_only(address: str, reason: str) -> None:
    """A name server that answers `localhost` with another address is rebinding it."""
    decision = check_host_addresses("localhost", ["127.0.0.1", address])

    assert (decision.allowed, decision.reason) == (False, reason)
    assert decision.detail and address in decision.detail
