"""A store that scrubs itself (issue 36, finding 6): objects truncated or overwritten behind
the store's back are found, by ``store_scrub_job`` reading a byte budget per tick and by the
lookups of the heal and the crawl, and fetched again from their source URLs or listed as
lost with the reason; meanwhile nothing damaged is served or promoted.

Real servers throughout, as in test_store_heal.py: the replica, the catalog on SQLite and
PostgreSQL, the file store and moto's S3 server over HTTP. Objects are damaged by writing
their name in the store directly, as a faulty disk or a careless hand would.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import httpx
import pytest
from dagster import DagsterInstance

from bench.store_scrub import damage
from fashion_assets.catalog_api import create_api
from fashion_assets.crawl import loop
from fashion_assets.crawl.base import CrawlLimits
from fashion_assets.crawl.http import Fetcher, HttpPolicy
from fashion_assets.crawl.store_heal import heal_lost
from fashion_assets.domain.hosts import HostPolicy
from fashion_assets.domain.store_heal import NO_SOURCE_URL, Healing, lost_object
from fashion_assets.domain.store_scrub import read_damage
from fashion_assets.replica import ReplicaServer, build_site, start_replica, with_changed_looks
from fashion_assets.resources import catalog_engine
from fashion_assets.storage import object_key, open_store
from tests.catalog_db import query
from tests.conftest import pipeline_env
from tests.integration.test_promotion import promote, set_status
from tests.integration.test_review_app import serve
from tests.integration.test_store_heal import (
    SITE,
    crawl,
    draft_photos_check,
    examples,
    photos_of,
    run_cli,
    store_of,
)
from tests.pipeline import scrub_store


@pytest.fixture
def own_replica() -> Iterator[ReplicaServer]:
    """A replica of two brands of 12 photos each, which a test may change."""
    with start_replica(build_site(brands=2, **{**SITE, "seed": 36})) as server:
        yield server


def garbage(size: int) -> bytes:
    """``size`` bytes that are no photo, for an object overwritten in place."""
    return (b"garbage!" * (size // 8 + 1))[:size]


def scrub_until_the_pass_ends(env: Mapping[str, str], budget: int) -> list[dict[str, Any]]:
    ticks: list[dict[str, Any]] = []
    while not ticks or not ticks[-1]["pass_complete"]:
        summary = scrub_store(DagsterInstance.ephemeral(), dict(env), budget=budget)
        assert summary["success"], summary
        ticks.append(summary)
        assert len(ticks) < 20, ticks
    return ticks


def test_the_scrub_heals_objects_truncated_or_overwritten_or_lists_them_with_the_reason(
        tmp_path: Path, database_url: str, store_url: str,
        own_replica: ReplicaServer) -> None:
    site = own_replica.site
    env = pipeline_env(tmp_path, database_url, store_url, own_replica)
    crawl(env, *(("brand", brand.slug) for brand in site.brands))
    store = store_of(env)
    photos = {**photos_of(site, site.brands[0].slug), **photos_of(site, site.brands[1].slug)}
    keys = sorted(photos)
    kept = {key: store.get(key) for key in keys}
    emptied, halved, overwritten, gone = keys[1], keys[8], keys[13], keys[20]
    damage(store, emptied, b"")
    damage(store, halved, kept[halved][:len(kept[halved]) // 2])
    for key in (overwritten, gone):
        damage(store, key, garbage(len(kept[key])))
    own_replica.replace_site(with_changed_looks(site, {photos[gone].photo_id:
                                                       {"fault": "gone"}}))
    total = sum(len(data) for data in kept.values())
    budget = total // 5

    ticks = scrub_until_the_pass_ends(env, budget)

    assert 3 <= len(ticks) <= 6
    assert sum(t["scrub_read_objects"] for t in ticks) == len(keys)
    largest = max(len(data) for data in kept.values())
    assert all(t["scrub_read_bytes"] < budget + largest for t in ticks)
    assert sum(t["scrub_damaged"] for t in ticks) == 4
    assert sum(t["heal_healed"] for t in ticks) == 3
    assert sum(t["heal_still_missing"] for t in ticks) == 1
    for key in (emptied, halved, overwritten):
        assert store.get(key) == kept[key], key
    # The one the source no longer has is removed from the store, never served, and listed
    # with the reason and the damage.
    assert store.missing(keys) == {gone}
    [(url, reason, detail)] = query(database_url, "SELECT url, reason, detail FROM"
                                                  " lost_objects WHERE object_key = :k",
                                    k=gone)
    assert reason == "not_found" and url
    assert detail.startswith("damaged in the store (wrong_sha1: ")
    # Nothing damaged is promoted: the blocking storage check names it.
    check = draft_photos_check(env, database_url)
    assert not check.passed
    assert [(r["object_key"], r["heal"]) for r in examples(check)] == [(gone, "not_found")]
    # The next pass walks every key again (the lost one is the heal's now) and finds
    # nothing more.
    again = scrub_until_the_pass_ends(env, total * 2)
    assert [(t["scrub_read_objects"], t["scrub_damaged"]) for t in again] == [(len(keys), 0)]


def test_a_crawl_fetches_again_the_photos_of_its_shows_that_the_store_holds_truncated(
        tmp_path: Path, database_url: str, store_url: str,
        own_replica: ReplicaServer) -> None:
    brand = own_replica.site.brands[0]
    env = pipeline_env(tmp_path, database_url, store_url, own_replica)
    crawl(env, ("brand", brand.slug))
    store = store_of(env)
    keys = sorted(photos_of(own_replica.site, brand.slug))
    kept = {key: store.get(key) for key in keys[:2]}
    damage(store, keys[0], b"")
    damage(store, keys[1], kept[keys[1]][:100])

    [run] = crawl(env, ("brand", brand.slug))

    assert (run["photos_lost"], run["photos_healed"]) == (2, 2)
    for key, data in kept.items():
        assert store.get(key) == data
    assert query(database_url, "SELECT count(*) FROM lost_objects") == [(0,)]


def test_the_api_answers_404_for_a_photo_overwritten_in_the_store(
        tmp_path: Path, database_url: str, own_replica: ReplicaServer) -> None:
    brand = own_replica.site.brands[0]
    store_url = f"file://{tmp_path / 'objects'}"
    env = pipeline_env(tmp_path, database_url, store_url, own_replica)
    crawl(env, ("brand", brand.slug))
    set_status(database_url, "brand_runway_drafts", "approved", "1 = 1")
    promote(env, DagsterInstance.ephemeral())
    store = store_of(env)
    whole, overwritten = sorted(photos_of(own_replica.site, brand.slug))[:2]
    damage(store, overwritten, garbage(len(store.get(overwritten))))

    with serve(create_api(catalog_engine(database_url), store)) as url, \
            httpx.Client(base_url=url) as client:
        served = client.get(f"/api/v1/photos/{whole}")
        refused = client.get(f"/api/v1/photos/{overwritten}")
        thumbnail = client.get(f"/api/v1/photos/{overwritten}/thumbnail")

    assert served.status_code == 200
    assert hashlib.sha1(served.content).hexdigest() == whole
    assert refused.status_code == 404, refused.content[:100]
    assert thumbnail.status_code == 404


def test_the_command_scrubs_a_tick_and_says_what_it_found(
        tmp_path: Path, database_url: str, own_replica: ReplicaServer,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``fashion-assets store scrub``: one tick through the command's deployment, its line
    and its figures as JSON."""
    brand = own_replica.site.brands[0]
    env = pipeline_env(tmp_path, database_url, f"file://{tmp_path / 'objects'}", own_replica)
    crawl(env, ("brand", brand.slug))
    store = store_of(env)
    keys = sorted(photos_of(own_replica.site, brand.slug))
    whole = store.get(keys[2])
    damage(store, keys[2], garbage(len(whole)))

    code, out = run_cli(env, monkeypatch, "store", "scrub")
    assert code == 0, out
    assert out.splitlines()[-1] == (
        f"{len(keys)} photos read ({sum(len(store.get(k)) for k in keys):,} bytes), 1 damaged,"
        " 1 fetched again, 0 listed as lost; the walk of the archive is complete and starts"
        " over")
    assert store.get(keys[2]) == whole
    code, out = run_cli(env, monkeypatch, "store", "scrub", "--json", "--budget", "1")
    assert code == 0, out
    summary = json.loads(out[out.index("{"):])
    assert (summary["scrub_read_objects"], summary["scrub_damaged"]) == (1, 0)


def test_an_object_stored_whole_again_after_the_scrub_found_it_damaged_is_not_removed(
        tmp_path: Path, store_url: str) -> None:
    """Between the scrub's read that found an object damaged and its removal, a concurrent
    heal (a crawl's, another tick's) may have stored the key's own bytes back: the removal
    reads the object again and leaves it whole, and one still damaged is still removed."""
    store = open_store(store_url, home=tmp_path)
    good, bad = b"photo healed meanwhile", b"photo still damaged"
    healed_key, damaged_key = object_key(good), object_key(bad)
    for data in (good, bad):
        store.put(object_key(data), data, "image/jpeg")
        damage(store, object_key(data), b"")
    found = []
    for key in (healed_key, damaged_key):
        digest = store.digest(key)
        found.append(read_damage(key, digest.size, digest.sha1))
    damage(store, healed_key, good)  # the concurrent heal, after the scrub's check
    lost = [lost_object(d.key, [], d.line()) for d in found if d is not None]
    assert [item.key for item in lost] == [healed_key, damaged_key]

    async def remove_and_fetch() -> list[Healing]:
        async with Fetcher(HttpPolicy(user_agent="fashion-assets-test", timeout_s=5.0),
                           HostPolicy(frozenset())) as fetcher:
            return await heal_lost(fetcher, store, lost, limits=CrawlLimits(infra_retry_s=1))

    outcomes = {outcome.key: outcome for outcome in loop.run(remove_and_fetch())}
    assert store.get(healed_key) == good
    assert (outcomes[healed_key].healed, outcomes[healed_key].damaged) == (True, True)
    assert not store.exists(damaged_key)
    assert outcomes[damaged_key].reason == NO_SOURCE_URL
