"""The review page's and the read API's reading of ``Host`` and of the proxies list
(``review_app/hosts.py``): held to ``urllib.parse``'s reading of a URL's authority, and to
Starlette's for the names it reads right."""

from __future__ import annotations

import ipaddress
import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fashion_assets.review_app.hosts import (
    answered_hosts,
    host_name,
    proxy_options,
    trusted_proxies,
    url_host,
)

labels = st.text(string.ascii_letters + string.digits + "-", min_size=1, max_size=20)
dns_names = st.lists(labels, min_size=1, max_size=4).map(".".join)
addresses = st.one_of(st.ip_addresses(v=4), st.ip_addresses(v=6)).map(str)
ports = st.integers(0, 65535)


def test_the_hosts_a_server_answers_to() -> None:
    assert answered_hosts("127.0.0.1", "") == ["127.0.0.1", "localhost", "::1"]
    assert answered_hosts("192.0.2.7", "") == ["192.0.2.7", "localhost", "127.0.0.1", "::1"]
    assert answered_hosts("[::1]", "") == ["::1", "localhost", "127.0.0.1"]
    assert answered_hosts("0.0.0.0", "") == ["localhost", "127.0.0.1", "::1"]
    assert answered_hosts("0.0.0.0", " Review.Example.com , ,10.0.0.5") == [
        "review.example.com", "10.0.0.5"]


def test_a_host_header_is_read_as_a_urls_authority() -> None:
    assert host_name("[::1]:8810") == "::1"  # Starlette read "["
    assert host_name("Review.Example.com:443") == "review.example.com"
    assert host_name("127.0.0.1") == "127.0.0.1"
    for bad in ("", "[::1", "::1", "a:b", "a/b", "a@b", "a b", "example.com:99999", ":80",
                "a?b", "a#b"):
        assert host_name(bad) is None, bad
    assert url_host("::1") == "[::1]" and url_host("[::1]") == "[::1]"
    assert url_host("example.com") == "example.com"


@given(st.one_of(dns_names, addresses), st.one_of(st.none(), ports))
def test_any_host_and_port_as_a_client_writes_them_are_read_back(host: str,
                                                                   port: int | None) -> None:
    header = url_host(host) + ("" if port is None else f":{port}")
    assert host_name(header) == host.lower()
    if ":" not in host:  # Starlette's reading, right where there is no IPv6 address
        assert host_name(header) == header.split(":")[0].lower()


@given(st.text())
def test_any_header_is_a_host_or_none_and_never_an_error(header: str) -> None:
    name = host_name(header)
    assert name is None or (name and name == name.lower() and "/" not in name)


def test_proxies_are_addresses_or_networks_and_none_by_default() -> None:
    assert trusted_proxies("") == [] and proxy_options([]) == {"proxy_headers": False}
    assert trusted_proxies(" 10.0.0.5, 10.0.0.0/24 ,::1") == ["10.0.0.5", "10.0.0.0/24", "::1"]
    assert proxy_options(["10.0.0.5"]) == {"proxy_headers": True,
                                           "forwarded_allow_ips": ["10.0.0.5"]}
    with pytest.raises(ValueError, match=r"'proxy\.example' is not an address or a network"):
        trusted_proxies("10.0.0.5,proxy.example")


@given(st.lists(st.one_of(addresses, st.ip_addresses().map(
    lambda a: str(ipaddress.ip_network(a)))), min_size=1, max_size=5))
def test_any_list_of_addresses_is_kept_as_written(entries: list[str]) -> None:
    assert trusted_proxies(" , ".join(entries)) == entries
