"""robots.txt read as RFC 9309 reads it, against the replica serving the rules (its fault
plan's ``robots_txt``, on every origin): the ``*`` and ``$`` wildcards, and the longest match
deciding between Allow and Disallow whatever their order in the file. The standard library's
parser, which the client used before Protego, failed each of these: a wildcard was a literal
character to it, and the first rule listed the one that counted.

No real vogue.com robots.txt is kept in ../shared/ (real_pages/ holds pages only), so the
rules here are of the shapes real sites write (a document type anchored with ``$``, a path
segment matched with ``*``, a section shut with one page of it opened again)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from dagster import DagsterInstance

from fashion_assets.crawl.http import Fetched, Fetcher, HttpPolicy
from fashion_assets.domain.hosts import HostPolicy
from fashion_assets.replica import FaultPlan, ReplicaServer
from tests.catalog_db import query
from tests.conftest import normal_brands, pipeline_env
from tests.pipeline import crawl_brands

MAX = 5 * 1024 * 1024


@pytest.fixture
def serve_rules(replica: ReplicaServer) -> Iterator[None]:
    """The replica's own robots.txt and counters again after the test."""
    replica.reset_stats()
    yield
    replica.set_faults(FaultPlan())
    replica.reset_stats()


def fetch_all(replica: ReplicaServer, rules: str, urls: list[str]) -> list[Fetched]:
    """Fetch ``urls`` one after the other through one client, every origin serving ``rules``
    as its robots.txt."""
    replica.set_faults(FaultPlan(robots_txt=rules))
    hosts = HostPolicy.from_config(replica.base_url, [replica.cdn_url.split("://", 1)[1]])
    policy = HttpPolicy(user_agent="fashion-assets-test", timeout_s=2.0, retries=1,
                        backoff_base_s=0.01, backoff_cap_s=0.05, page_delay_s=0)

    async def run() -> list[Fetched]:
        async with Fetcher(policy, hosts, rng=random.Random(1)) as fetcher:
            return [await fetcher.fetch(url, max_bytes=MAX) for url in urls]
    return asyncio.run(run())


def test_a_dollar_anchors_a_rule_at_the_urls_end_and_a_star_matches_any_run(
        replica: ReplicaServer, serve_rules: None) -> None:
    base = replica.base_url
    rules = "User-agent: *\nDisallow: /*.pdf$\nDisallow: /*/print/*?page=\n"
    urls = [f"{base}/press/look.pdf",  # refused: ends in .pdf
            f"{base}/press/2024/look.pdf",  # refused: "*" spans several segments
            f"{base}/press/look.pdf?download=1",  # asked for: the URL ends in its query
            f"{base}/press/look.pdf.html",  # asked for: ".pdf" is not its end
            f"{base}/fashion-shows/print/x?page=2",  # refused: both stars matched
            f"{base}/fashion-shows/print/x"]  # asked for: no query

    results = fetch_all(replica, rules, urls)

    assert [r.error for r in results] == ["robots_disallowed", "robots_disallowed",
                                          "not_found", "not_found", "robots_disallowed",
                                          "not_found"]
    assert "disallows" in results[0].detail
    # The refused URLs were never requested; "/press/look.pdf" once, for its query.
    assert replica.stats().by_path == {"/robots.txt": 1, "/press/look.pdf": 1,
                                       "/press/look.pdf.html": 1, "/fashion-shows/print/x": 1}


def test_the_longest_matching_rule_decides_whatever_the_order_of_the_lines(
        replica: ReplicaServer, serve_rules: None) -> None:
    base = replica.base_url
    slug, other = (b.slug for b in normal_brands(replica)[:2])
    show = normal_brands(replica)[0].shows[0].path
    # The shorter rule first each time: a first-match reader decides both the other way.
    rules = ("User-agent: *\n"
             "Disallow: /fashion-shows/designer/\n"
             f"Allow: /fashion-shows/designer/{slug}$\n"
             "Allow: /fashion-shows/\n"
             f"Disallow: {show}\n")
    urls = [f"{base}/fashion-shows/designer/{slug}",  # the Allow is longer: fetched
            f"{base}/fashion-shows/designer/{other}",  # only the Disallow matches
            f"{base}/fashion-shows/designer/{slug}/more",  # "$": the Allow does not match
            f"{base}{show}",  # the Disallow is longer than "Allow: /fashion-shows/"
            f"{base}/fashion-shows/designers"]  # only the Allow matches

    results = fetch_all(replica, rules, urls)

    assert [r.error for r in results] == [None, "robots_disallowed", "robots_disallowed",
                                          "robots_disallowed", None]
    assert replica.stats().by_path == {"/robots.txt": 1, f"/fashion-shows/designer/{slug}": 1,
                                       "/fashion-shows/designers": 1}


def test_rules_for_another_agent_or_an_empty_disallow_keep_nothing_out(
        replica: ReplicaServer, serve_rules: None) -> None:
    base = replica.base_url
    rules = "User-agent: googlebot\nDisallow: /\n\nUser-agent: *\nDisallow:\n"

    results = fetch_all(replica, rules, [f"{base}/fashion-shows/designers"])

    assert [r.error for r in results] == [None]


def test_a_crawl_skips_what_the_rules_refuse_records_why_and_fetches_the_rest(
        tmp_path: Path, replica: ReplicaServer, serve_rules: None) -> None:
    brand = normal_brands(replica)[0]
    refused = brand.shows[0].photos[2]
    # Every origin serves these, the CDN included: its photo paths end in the file's name.
    replica.set_faults(FaultPlan(robots_txt=(
        "User-agent: *\n"
        "Disallow: /fashion-shows/designer/\n"
        f"Allow: /fashion-shows/designer/{brand.slug}$\n"
        f"Disallow: /photos/*/{refused.file_name}$\n")))
    database_url = f"sqlite:///{tmp_path / 'catalog.db'}"
    env = pipeline_env(tmp_path, database_url, f"file://{tmp_path / 'objects'}", replica)

    [summary] = crawl_brands([brand.slug], DagsterInstance.ephemeral(), env)

    assert summary["success"], summary
    photos = [p for show in brand.shows for p in show.photos]
    assert summary["images_stored"] == len(photos) - 1
    [(url, reason)] = query(database_url, "SELECT url, reason FROM runway_missing_images")
    assert reason == "robots_disallowed"
    assert urlsplit(url).path.endswith(f"/{refused.file_name}") and refused.photo_id in url
    requested = replica.stats().by_path
    assert not [path for path in requested if refused.photo_id in path]
    assert all(any(p.photo_id in path for path in requested) for p in photos if p != refused)
    assert requested[f"/fashion-shows/designer/{brand.slug}"] == 1
