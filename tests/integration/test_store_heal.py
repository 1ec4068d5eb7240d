"""A store that heals (issue 16): objects the store lost are fetched again from the source
URLs their photo rows record, by ``store_heal_job`` a batch per tick and by a crawl for the
shows it touches; what cannot be fetched is listed with the reason.

Real servers throughout: the replica (its own, as tests here change photos on it), the
catalog on SQLite and PostgreSQL, the file store and moto's S3 server over HTTP. Objects are
lost by deleting them from the store, as an S3 server restarted in memory loses them.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest
from click.testing import CliRunner
from dagster import DagsterInstance
from sqlalchemy import create_engine, text

from fashion_assets.cli import main
from fashion_assets.definitions import build_definitions
from fashion_assets.replica import (
    ReplicaServer,
    ReplicaSite,
    build_site,
    photo_bytes,
    start_replica,
    with_changed_looks,
)
from fashion_assets.replica.site import ReplicaPhoto
from fashion_assets.replica.vogue_frame import original_url
from fashion_assets.settings import home_dir
from fashion_assets.storage import ObjectStore, open_store
from tests.catalog_db import fresh_postgres_database, query
from tests.conftest import PG_ENV, pipeline_env
from tests.pipeline import crawl_partitions, heal_store

SITE = {"shows_per_brand": 3, "photos_per_show": 4, "hostile": False, "seed": 16}
PHOTOS_PER_BRAND = 12
WEEK = "paris-fashion-week"


@pytest.fixture
def own_replica() -> Iterator[ReplicaServer]:
    """A replica of two brands that a test may change: the session's is shared."""
    with start_replica(build_site(brands=2, **SITE)) as server:
        yield server


@pytest.fixture
def pg_url() -> Iterator[str]:
    """The catalog on PostgreSQL only, for the tests whose SQL the others cover on both."""
    with fresh_postgres_database(os.environ[PG_ENV]) as url:
        yield url


def crawl(env: Mapping[str, str], *targets: tuple[str, str]) -> list[dict[str, Any]]:
    summaries = crawl_partitions(list(targets), DagsterInstance.ephemeral(), dict(env))
    assert all(s["success"] for s in summaries), summaries
    return summaries


def tick(env: Mapping[str, str], batch: int | None = None) -> dict[str, Any]:
    """One run of store_heal_job as the schedule launches it; its output metadata."""
    summary = heal_store(DagsterInstance.ephemeral(), dict(env), batch=batch)
    assert summary["success"], summary
    return summary


def counts(summary: Mapping[str, Any]) -> tuple[int, int, int, int]:
    return (summary["heal_checked"], summary["heal_missing"], summary["heal_healed"],
            summary["heal_still_missing"])


def store_of(env: Mapping[str, str]) -> ObjectStore:
    return open_store(env["FASHION_STORE_URL"], home=home_dir(env))


def photos_of(site: ReplicaSite, brand_slug: str) -> dict[str, ReplicaPhoto]:
    """The looks of a brand's shows by object key (what its drafts reference)."""
    brand = site.brand(brand_slug)
    assert brand is not None
    return {hashlib.sha1(photo_bytes(site, p.photo_id)).hexdigest(): p
            for show in brand.shows for p in show.photos}


def draft_urls(database_url: str, keys: list[str]) -> dict[str, str]:
    rows = query(database_url, "SELECT object_key, source_image_url FROM"
                               " brand_runway_draft_images")
    return {key: url for key, url in rows if key in keys}


def lose(store: ObjectStore, keys: list[str]) -> dict[str, bytes]:
    """Delete ``keys`` from the store; their bytes as they were."""
    kept = {key: store.get(key) for key in keys}
    assert all(store.delete(key) for key in keys)
    assert store.missing(keys) == set(keys)
    return kept


def path_of(url: str) -> str:
    """The path the replica counts a request of ``url`` under (decoded)."""
    return unquote(urlsplit(url).path)


def requests_for(server: ReplicaServer, url: str) -> int:
    return server.stats().by_path.get(path_of(url), 0)


def photo_requests(server: ReplicaServer) -> dict[str, int]:
    """Requests by path since the last reset, robots.txt left out."""
    return {path: n for path, n in server.stats().by_path.items() if path != "/robots.txt"}


def plant_catalog_photo(database_url: str, brand_slug: str, key: str, size: int,
                        url: str) -> None:
    engine = create_engine(database_url)
    try:
        with engine.begin() as conn:
            entry = conn.execute(text(
                "INSERT INTO brand_runways (brand_slug, season_code, created_at, updated_at)"
                " VALUES (:b, 'resort-2020', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"
                " RETURNING id"), {"b": brand_slug}).scalar_one()
            conn.execute(text(
                "INSERT INTO brand_runway_images (runway_id, position, object_key, content_type,"
                " byte_size, source, source_image_url) VALUES (:r, 1, :k, 'image/jpeg', :n,"
                " 'vogue', :u)"), {"r": entry, "k": key, "n": size, "u": url})
    finally:
        engine.dispose()


@pytest.fixture
def cli_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The command's Dagster instance (no telemetry: these machines have no internet)."""
    home = tmp_path / "dagster"
    home.mkdir()
    (home / "dagster.yaml").write_text("telemetry:\n  enabled: false\n")
    monkeypatch.setenv("DAGSTER_HOME", str(home))
    return home


def run_cli(env: Mapping[str, str], monkeypatch: pytest.MonkeyPatch,
            *args: str) -> tuple[int, str]:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.output


def draft_photos_check(env: Mapping[str, str], database_url: str) -> Any:
    """The draft_photos_stored evaluation of a promotion of every draft."""
    engine = create_engine(database_url)
    with engine.begin() as conn:
        conn.execute(text("UPDATE brand_runway_drafts SET status = 'approved'"))
    engine.dispose()
    job = build_definitions(dict(env)).resolve_job_def("promote_approved_drafts")
    result = job.execute_in_process(instance=DagsterInstance.ephemeral(), raise_on_error=False)
    return {e.check_name: e for e in result.get_asset_check_evaluations()}[
        "draft_photos_stored"]


def examples(check: Any) -> list[dict[str, Any]]:
    return [dict(record.data) for record in check.metadata["examples"].records]


def test_the_job_fetches_lost_draft_and_catalog_photos_again_byte_for_byte(
        tmp_path: Path, database_url: str, store_url: str,
        own_replica: ReplicaServer) -> None:
    site = own_replica.site
    brand = site.brands[0]
    env = pipeline_env(tmp_path, database_url, store_url, own_replica)
    crawl(env, ("brand", brand.slug))
    store = store_of(env)
    keys = sorted(photos_of(site, brand.slug))
    # A catalog photo no draft holds (a look of the brand not crawled), never stored: only
    # its catalog row records its source URL.
    other = site.brands[1].shows[0].photos[0]
    other_bytes = photo_bytes(site, other.photo_id)
    other_key = hashlib.sha1(other_bytes).hexdigest()
    plant_catalog_photo(database_url, brand.slug, other_key, len(other_bytes),
                        original_url(own_replica.cdn_url, other))
    lost = keys[::2]
    urls = [*draft_urls(database_url, lost).values(),
            original_url(own_replica.cdn_url, other)]
    kept = lose(store, lost)
    own_replica.reset_stats()

    summary = tick(env)

    assert counts(summary) == (PHOTOS_PER_BRAND + 1, len(lost) + 1, len(lost) + 1, 0)
    assert summary["pass_complete"] is True and summary["passes_completed"] == 1
    for key, data in kept.items():
        assert store.get(key) == data, key
    assert store.get(other_key) == other_bytes
    assert not store.missing([*keys, other_key])
    # The lost photos only, each once (and the CDN's robots.txt).
    assert photo_requests(own_replica) == {path_of(url): 1 for url in urls}
    assert query(database_url, "SELECT count(*) FROM lost_objects") == [(0,)]


def test_a_photo_gone_or_changed_at_the_source_is_listed_with_its_reason_once_per_pass(
        tmp_path: Path, pg_url: str, store_url: str, own_replica: ReplicaServer,
        cli_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = own_replica.site
    brand = site.brands[0]
    env = pipeline_env(tmp_path, pg_url, store_url, own_replica)
    crawl(env, ("brand", brand.slug))
    store = store_of(env)
    photos = photos_of(site, brand.slug)
    gone, changed, healable = sorted(photos)[3:6]
    urls = draft_urls(pg_url, [gone, changed, healable])
    lose(store, [gone, changed, healable])
    other = "png" if photos[changed].format != "png" else "jpeg"
    own_replica.replace_site(with_changed_looks(site, {photos[gone].photo_id: {"fault": "gone"},
                                                photos[changed].photo_id: {"format": other}}))

    first = tick(env)

    assert counts(first) == (PHOTOS_PER_BRAND, 3, 1, 2)
    assert first["heal_still_missing_by_reason"] == [
        {"reason": "changed_at_source", "objects": 1}, {"reason": "not_found", "objects": 1}]
    recorded = query(pg_url, "SELECT object_key, url, reason FROM lost_objects ORDER BY reason")
    assert recorded == [(changed, urls[changed], "changed_at_source"),
                        (gone, urls[gone], "not_found")]
    assert store.missing([gone, changed, healable]) == {gone, changed}
    # The image the source serves now is stored under no key: only the photos it had.
    assert store.stats().objects == PHOTOS_PER_BRAND - 2

    # The command lists them; its heal is the next tick, which tries each once more and
    # ends (a new pass, the cursor having wrapped), leaving the same list.
    code, out = run_cli(env, monkeypatch, "store", "missing")
    assert code == 0, out
    assert out.startswith("2 lost photos could not be fetched again: 1 changed_at_source, "
                          "1 not_found\n")
    assert f"{gone}\tnot_found\t{urls[gone]}\t" in out
    assert f"{changed}\tchanged_at_source\t{urls[changed]}\t" in out
    before = requests_for(own_replica, urls[gone])
    started = time.monotonic()
    code, out = run_cli(env, monkeypatch, "store", "heal", "--json")
    assert code == 0, out
    second = json.loads(out[out.index("{"):])
    assert time.monotonic() - started < 60
    assert counts(second) == (PHOTOS_PER_BRAND, 2, 0, 2)
    assert second["passes_completed"] == 2
    assert requests_for(own_replica, urls[gone]) == before + 1
    code, out = run_cli(env, monkeypatch, "store", "missing", "--json")
    listed = json.loads(out)
    assert listed["missing"] == 2 and listed["walk"]["passes_completed"] == 2
    assert {(o["object_key"], o["reason"]) for o in listed["objects"]} == {
        (gone, "not_found"), (changed, "changed_at_source")}

    # The blocking storage check names them with what the heal recorded, and where to look.
    check = draft_photos_check(env, pg_url)
    assert not check.passed and check.metadata["violations"].value == 2
    assert {(r["object_key"], r["heal"]) for r in examples(check)} == {
        (gone, "not_found"), (changed, "changed_at_source")}
    assert "fashion-assets store missing" in check.metadata["heal"].value


def test_a_batch_smaller_than_the_lost_photos_heals_them_over_several_ticks(
        tmp_path: Path, database_url: str, own_replica: ReplicaServer) -> None:
    site = own_replica.site
    brand = site.brands[0]
    env = pipeline_env(tmp_path, database_url, f"file://{tmp_path / 'objects'}", own_replica)
    crawl(env, ("brand", brand.slug))
    store = store_of(env)
    keys = sorted(photos_of(site, brand.slug))
    lost = keys[:8]
    kept = lose(store, lost)

    ticks = [tick(env, batch=5) for _ in range(3)]

    assert [t["heal_checked"] for t in ticks] == [5, 5, 2]
    assert [t["pass_complete"] for t in ticks] == [False, False, True]
    assert [t["heal_healed"] for t in ticks] == [5, 3, 0]
    assert [t["walk_upto"] for t in ticks] == [keys[4], keys[9], "(last key)"]
    assert all(t["heal_still_missing"] == 0 for t in ticks)
    for key, data in kept.items():
        assert store.get(key) == data, key
    # The next tick starts a new pass from the first key.
    again = tick(env, batch=5)
    assert (again["walk_after"], again["walk_upto"], counts(again)) == (
        "(first key)", keys[4], (5, 0, 0, 0))


def test_a_crawl_heals_the_photos_of_the_shows_and_articles_it_touches_only(
        tmp_path: Path, pg_url: str, store_url: str, own_replica: ReplicaServer) -> None:
    site = own_replica.site
    touched, untouched = site.brands[:2]
    env = pipeline_env(tmp_path, pg_url, store_url, own_replica)
    crawl(env, ("brand", touched.slug), ("brand", untouched.slug), ("week", WEEK))
    store = store_of(env)
    lost_touched = sorted(photos_of(site, touched.slug))[:3]
    lost_untouched = sorted(photos_of(site, untouched.slug))[:2]
    week_keys = sorted(k for (k,) in query(pg_url, "SELECT object_key FROM"
                                                   " street_snap_draft_images"))
    lost_week = week_keys[:2]
    urls = draft_urls(pg_url, lost_touched).values()
    kept = lose(store, [*lost_touched, *lost_untouched, *lost_week])
    own_replica.reset_stats()

    [brand_run] = crawl(env, ("brand", touched.slug))

    assert brand_run["shows"]["skipped_already_ingested"] == len(touched.shows)
    assert (brand_run["photos_lost"], brand_run["photos_healed"]) == (3, 3)
    assert {path: n for path, n in photo_requests(own_replica).items()
            if path.startswith("/photos/")} == {path_of(url): 1 for url in urls}
    assert store.missing([*lost_touched, *lost_untouched]) == set(lost_untouched)
    for key in lost_touched:
        assert store.get(key) == kept[key]

    [week_run] = crawl(env, ("week", WEEK))

    assert week_run["shows"]["skipped_already_ingested"] == len(site.impression.week(
        WEEK).articles)
    assert (week_run["photos_lost"], week_run["photos_healed"]) == (2, 2)
    for key in lost_week:
        assert store.get(key) == kept[key]
    assert query(pg_url, "SELECT count(*) FROM lost_objects") == [(0,)]
