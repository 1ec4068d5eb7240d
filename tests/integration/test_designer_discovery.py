"""Designer discovery against the replica over HTTP, the catalog on SQLite and PostgreSQL
and a Dagster instance on PostgreSQL: a designer that appears in Vogue's directory after a
first crawl becomes a brand partition and is crawled by the next scheduled crawl, with
nobody typing its name; the allow and deny lists are honoured; a new designer whose name
spells a registered brand waits for an editor instead of becoming a second brand."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from dagster import DagsterInstance, SkipReason, build_schedule_context
from dagster._utils.schedules import cron_string_iterator
from sqlalchemy import event

from fashion_assets.catalog.discovery import register_designers
from fashion_assets.catalog.runway import add_brand
from fashion_assets.crawl.discovery import DiscoveryError, read_designer_listings
from fashion_assets.crawl.galleries import source_site
from fashion_assets.crawl.http import Fetcher, HttpPolicy
from fashion_assets.definitions import build_definitions
from fashion_assets.domain.hosts import HostPolicy
from fashion_assets.launch.partitions import register_brands
from fashion_assets.replica import ReplicaServer, build_site, start_replica
from fashion_assets.replica.site import HOSTILE_BRAND, ROBOTS_BLOCKED_BRAND
from fashion_assets.resources import catalog_engine, resources_from_env
from fashion_assets.sources.registry import VOGUE
from fashion_assets.tags import BRAND_TAG
from tests.catalog_db import query
from tests.conftest import pipeline_env
from tests.pipeline import crawl_partitions, discover_designers

SITE = {"shows_per_brand": 2, "photos_per_show": 3, "seed": 5}
MONDAY = datetime(2026, 12, 7, 2, 0, tzinfo=UTC)
# The replica's two brands of bad input stay out, by the deny list.
DENY_BAD_INPUT = f"{HOSTILE_BRAND},{ROBOTS_BLOCKED_BRAND}"


@pytest.fixture
def own_replica() -> Iterator[ReplicaServer]:
    """A replica of this test's own: discovery tests change the site it serves."""
    server = start_replica(build_site(brands=2, **SITE))
    yield server
    server.stop()


def scheduled_crawl(env: dict[str, str], instance: DagsterInstance) -> list[dict]:
    """What full_crawl_schedule's Monday tick asks for, run as the daemon would run it."""
    schedule = build_definitions(env).resolve_schedule_def("full_crawl_schedule")
    with build_schedule_context(instance=instance, resources=resources_from_env(env),
                                scheduled_execution_time=MONDAY) as context:
        requests = schedule(context)
    assert not isinstance(requests, SkipReason), requests.skip_message
    batches = [("brand", request.tags[BRAND_TAG].removeprefix("batch:"))
               for request in requests]
    return crawl_partitions(batches, instance, env)


def drafted_brands(database_url: str) -> set[str]:
    return {slug for (slug,) in query(database_url,
                                      "SELECT DISTINCT brand_slug FROM brand_runway_drafts")}


def test_a_designer_new_in_the_directory_is_crawled_by_the_next_scheduled_crawl(
        tmp_path: Path, database_url: str, own_replica: ReplicaServer,
        dagster_instance: DagsterInstance) -> None:
    env = pipeline_env(tmp_path, database_url, f"file://{tmp_path / 'objects'}", own_replica,
                       FASHION_DISCOVERY_DENY=DENY_BAD_INPUT)
    first = [brand.slug for brand in own_replica.site.brands[:2]]

    found = discover_designers(dagster_instance, env)
    assert found["success"], found
    assert (found["new_designers"], found["out_of_scope"], found["known"]) == (2, 2, 0)
    assert [s["success"] for s in scheduled_crawl(env, dagster_instance)] == [True]
    assert drafted_brands(database_url) == set(first)

    # A new house shows for the first time: the directory and its season list it.
    own_replica.replace_site(build_site(brands=3, **SITE))
    newcomer = own_replica.site.brands[2]
    assert newcomer.slug not in first

    found = discover_designers(dagster_instance, env)
    assert found["success"], found
    assert (found["new_designers"], found["known"]) == (1, 2)
    assert [(r["designer"], r["slug"]) for r in found["new_table"]] == [
        (newcomer.name, newcomer.slug)]
    assert newcomer.slug in dagster_instance.get_dynamic_partitions("brands")
    assert all(s["success"] for s in scheduled_crawl(env, dagster_instance))

    assert drafted_brands(database_url) == {*first, newcomer.slug}
    drafts = query(database_url, "SELECT count(*) FROM brand_runway_drafts WHERE brand_slug = :b",
                   b=newcomer.slug)
    assert drafts == [(len(newcomer.shows),)]
    [(name,)] = query(database_url, "SELECT display_name FROM brands WHERE slug = :s",
                      s=newcomer.slug)
    assert name == newcomer.name
    # A third look finds nothing new and registers nothing twice.
    again = discover_designers(dagster_instance, env)
    assert (again["new_designers"], again["known"]) == (0, 3)


def test_the_allow_list_narrows_discovery_and_the_deny_list_wins(
        tmp_path: Path, database_url: str, replica: ReplicaServer,
        dagster_instance: DagsterInstance) -> None:
    brands = [brand.slug for brand in replica.site.brands]
    kept = brands[0]
    env = pipeline_env(tmp_path, database_url, f"file://{tmp_path / 'objects'}", replica,
                       FASHION_DISCOVERY_ALLOW=f"{kept},{HOSTILE_BRAND[:4]}*",
                       FASHION_DISCOVERY_DENY=HOSTILE_BRAND)

    found = discover_designers(dagster_instance, env)

    assert found["success"], found
    registered = {slug for (slug,) in query(database_url, "SELECT slug FROM brands")}
    assert registered == {kept}
    assert set(dagster_instance.get_dynamic_partitions("brands")) == {kept}
    assert found["out_of_scope"] == len(brands) - 1
    assert HOSTILE_BRAND in {row["slug"] for row in found["out_of_scope_table"]}


def test_a_new_designer_spelling_a_registered_brand_waits_for_an_editor(
        tmp_path: Path, database_url: str, replica: ReplicaServer,
        dagster_instance: DagsterInstance) -> None:
    env = pipeline_env(tmp_path, database_url, f"file://{tmp_path / 'objects'}", replica,
                       FASHION_DISCOVERY_DENY=DENY_BAD_INPUT)
    listed = replica.site.brands[0]
    # The house is registered under another slug, with the name Vogue prints for it.
    register_brands([("house-of-old", listed.name)], dagster_instance, env)

    found = discover_designers(dagster_instance, env)

    assert found["success"], found
    assert found["held_for_editor"] == 1
    registered = {slug for (slug,) in query(database_url, "SELECT slug FROM brands")}
    assert listed.slug not in registered
    [(name, status, candidates, url)] = query(
        database_url, "SELECT name, status, candidates, example_url FROM pending_names"
                      " WHERE kind = 'brand'")
    assert (name, status) == (listed.name, "pending")
    assert "house-of-old" in candidates and url.endswith(f"/designer/{listed.slug}")
    # The next look changes nothing: the name waits once.
    assert discover_designers(dagster_instance, env)["held_for_editor"] == 1
    assert query(database_url, "SELECT count(*) FROM pending_names")[0][0] == 1


def test_a_first_discovery_registers_its_designers_with_one_insert(database_url: str) -> None:
    """Some 1,900 designers on the real site: one statement, not one transaction each. A
    brand registered meanwhile keeps its row and gains the name only if it had none."""
    engine = catalog_engine(database_url)
    add_brand(engine, "chloe")
    add_brand(engine, "dior", "Christian Dior")
    houses = [(f"House {n}", f"house-{n}") for n in range(1900)]
    statements: list[str] = []

    def count(conn: object, cursor: object, statement: str, *args: object) -> None:
        statements.append(statement)

    event.listen(engine, "before_cursor_execute", count)
    try:
        new = register_designers(engine, [("Chloé", "chloe"), *houses, ("Dior", "dior")])
    finally:
        event.remove(engine, "before_cursor_execute", count)

    assert new == [slug for _, slug in houses]
    assert sum(s.startswith("INSERT INTO brands") for s in statements) == 1
    names = dict(query(database_url, "SELECT slug, display_name FROM brands"))
    assert len(names) == 1902 and names["house-1899"] == "House 1899"
    assert (names["chloe"], names["dior"]) == ("Chloé", "Christian Dior")


def test_a_finished_discovery_counts_as_many_pages_as_it_read(
        tmp_path: Path, database_url: str, replica: ReplicaServer,
        dagster_instance: DagsterInstance) -> None:
    """The progress row plans the most pages there may be; the landing page names fewer
    seasons than asked for here, and the finished row counts the pages really read."""
    env = pipeline_env(tmp_path, database_url, f"file://{tmp_path / 'objects'}", replica,
                       FASHION_DISCOVERY_DENY=DENY_BAD_INPUT, FASHION_DISCOVERY_SEASONS="9")

    found = discover_designers(dagster_instance, env)

    assert found["success"], found
    read = len(found["pages_table"])
    assert read < 2 + 9
    [row] = query(database_url, "SELECT shows_done, shows_total, unit, status FROM"
                                " crawl_progress WHERE run_id = :r", r=found["run_id"])
    assert row == (read, read, "pages", "finished")


def listings_of(base_url: str, replica: ReplicaServer, seasons: int):
    site = source_site(VOGUE, base_url, ())
    policy = HttpPolicy(user_agent="fashion-assets-test", timeout_s=5, retries=0,
                        page_delay_s=0)

    async def run():
        async with Fetcher(policy, HostPolicy.from_config(replica.base_url, [])) as fetcher:
            return await read_designer_listings(fetcher, site, seasons=seasons,
                                                max_page_bytes=10_000_000)
    return asyncio.run(run())


def test_discovery_reads_the_directory_the_landing_page_and_its_seasons(
        replica: ReplicaServer) -> None:
    listings = listings_of(replica.base_url, replica, seasons=2)

    paths = [page.path for page in listings.pages]
    assert paths[:2] == ["/fashion-shows/designers", "/fashion-shows"]
    assert len(paths) == 4 and all(p.startswith("/fashion-shows/") for p in paths[2:])
    assert not listings.failed
    assert {slug for _, slug in listings.designers} == {b.slug for b in replica.site.brands}
    assert [page.path for page in listings_of(replica.base_url, replica, 0).pages] == paths[:2]


def test_a_source_without_listing_pages_fails_discovery_clearly(replica: ReplicaServer) -> None:
    with pytest.raises(DiscoveryError) as error:
        listings_of(replica.base_url + "/nowhere", replica, seasons=2)

    assert "neither the designers directory nor the runway landing page" in str(error.value)
    assert "not_found" in str(error.value) and not error.value.transient


def test_discovery_is_scheduled_before_the_full_crawl_and_its_cron_is_a_setting() -> None:
    def first_tick(definitions, name: str) -> datetime:
        schedule = definitions.resolve_schedule_def(name)
        start = datetime(2026, 12, 1, tzinfo=UTC).timestamp()
        return next(cron_string_iterator(start, schedule.cron_schedule, "UTC"))

    defaults = build_definitions({})
    assert (first_tick(defaults, "designer_discovery_schedule")
            < first_tick(defaults, "full_crawl_schedule"))
    moved = build_definitions({"FASHION_DISCOVERY_CRON": "15 0 * * 0"})
    assert moved.resolve_schedule_def("designer_discovery_schedule").cron_schedule == "15 0 * * 0"
    assert moved.resolve_job_def("designer_discovery").tags[BRAND_TAG] == "discovery"
