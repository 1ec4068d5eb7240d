"""Coverage and repair over the replica: incomplete shows are re-fetched and repaired with only
the photos they lack, complete shows are not fetched at all, and the coverage sensor backs
off per show and gives up on photos that are gone, with a bounded number of runs.

The replica counts every request by path, so "exactly 8 downloads" and "not fetched" are
measured at the server; the catalog runs on SQLite and PostgreSQL, the Dagster instance on
PostgreSQL (``dagster_instance``).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from dagster import AssetKey, DagsterInstance, SensorResult, SkipReason, build_sensor_context
from sqlalchemy import text

from fashion_assets.catalog.coverage import coverage_report, retry_given_up
from fashion_assets.catalog.entities import RUNWAY
from fashion_assets.catalog.ingest_log import LogEntry
from fashion_assets.catalog.photos import ManifestImage
from fashion_assets.catalog.promotion import promote
from fashion_assets.catalog.runway import store_manifest
from fashion_assets.definitions import build_definitions
from fashion_assets.domain.coverage import CoverageRules
from fashion_assets.replica import (
    HOSTILE_BRAND,
    ReplicaServer,
    ReplicaStats,
    build_site,
    start_replica,
)
from fashion_assets.resources import catalog_engine, resources_from_env
from fashion_assets.settings import home_dir
from fashion_assets.storage import open_store
from tests.catalog_db import query
from tests.conftest import pipeline_env
from tests.pipeline import crawl_brands

PHOTOS = 40


@pytest.fixture(scope="module")
def big_replica() -> Iterator[ReplicaServer]:
    """Shows of about 40 photos, so 8 missing ones make a show incomplete (5 may be)."""
    server = start_replica(build_site(brands=1, shows_per_brand=3, photos_per_show=PHOTOS,
                                      hostile=False))
    yield server
    server.stop()


def photo_downloads(stats: ReplicaStats) -> int:
    """Photo requests the CDN served (its robots.txt is no download)."""
    return sum(n for path, n in stats.by_path.items() if path.startswith("/photos/"))


def source_url(path: str) -> str:
    return f"https://www.vogue.com{path}"


def test_a_show_missing_8_photos_is_repaired_with_8_downloads_and_complete_ones_not_fetched(
        tmp_path: Path, database_url: str, store_url: str, big_replica: ReplicaServer,
        dagster_instance: DagsterInstance) -> None:
    replica = big_replica
    env = pipeline_env(tmp_path, database_url, store_url, replica)
    brand = replica.site.brands[0]
    instance = dagster_instance
    [first] = crawl_brands([brand.slug], instance, env)
    assert first["success"] and first["shows"]["created"] == len(brand.shows), first
    engine = catalog_engine(database_url)
    with engine.begin() as conn:
        conn.execute(text("UPDATE brand_runway_drafts SET status = 'approved'"))
    assert promote(engine, RUNWAY).entries_created == len(brand.shows)

    broken, *complete = brand.shows
    photos = len(broken.photos)
    [(draft_id, entry_id)] = query(
        database_url, "SELECT d.id, e.id FROM brand_runway_drafts d JOIN brand_runways e"
        " ON e.brand_slug = d.brand_slug AND e.season_code = d.season_code"
        " WHERE d.source_url = :u", u=source_url(broken.path))
    keys = [k for (k,) in query(database_url, "SELECT object_key FROM brand_runway_draft_images"
                                " WHERE draft_id = :d ORDER BY position", d=draft_id)]
    gone = keys[5:13]
    store = open_store(env["FASHION_STORE_URL"], home=home_dir(env))
    with engine.begin() as conn:
        for key in gone:
            assert store.delete(key)
            conn.execute(text("DELETE FROM brand_runway_draft_images WHERE object_key = :k"),
                         {"k": key})
            conn.execute(text("DELETE FROM brand_runway_images WHERE object_key = :k"),
                         {"k": key})
    # The triggers keep the counts the coverage rule reads.
    assert query(database_url, "SELECT stored_images FROM brand_runway_drafts WHERE id = :d",
                 d=draft_id) == [(photos - 8,)]
    assert query(database_url, "SELECT stored_images, expected_images FROM brand_runways"
                 " WHERE id = :e", e=entry_id) == [(photos - 8, photos)]
    log_before = query(database_url, "SELECT max(id) FROM ingest_log")[0][0]
    replica.reset_stats()

    [second] = crawl_brands([brand.slug], instance, env)

    assert second["success"], second
    stats = replica.stats()
    assert photo_downloads(stats) == 8
    assert stats.by_path.get(broken.path) == 1
    assert all(show.path not in stats.by_path for show in complete)
    assert second["shows"]["repaired"] == 1 and second["images_stored"] == 8
    assert second["shows"]["skipped_already_ingested"] == len(complete)
    repaired = query(database_url, "SELECT stage, outcome, images_stored FROM ingest_log"
                     " WHERE id > :id AND source_url = :u ORDER BY id", id=log_before,
                     u=source_url(broken.path))
    assert repaired == [("manifest", "refetched", 0), ("ingest", "repaired", 8)]
    assert [k for (k,) in query(database_url, "SELECT object_key FROM brand_runway_draft_images"
                                " WHERE draft_id = :d ORDER BY position", d=draft_id)] == keys
    assert [k for (k,) in query(database_url, "SELECT object_key FROM brand_runway_images"
                                " WHERE runway_id = :e ORDER BY position", e=entry_id)] == keys
    assert not store.missing(keys)
    assert query(database_url, "SELECT stored_images FROM brand_runways WHERE id = :e",
                 e=entry_id) == [(photos,)]

    replica.reset_stats()
    [third] = crawl_brands([brand.slug], instance, env)
    assert third["success"] and photo_downloads(replica.stats()) == 0
    assert all(show.path not in replica.stats().by_path for show in brand.shows)


def test_photos_fetched_again_from_new_urls_leave_a_show_unrepaired(
        tmp_path: Path, database_url: str, replica: ReplicaServer,
        dagster_instance: DagsterInstance) -> None:
    """The demo's crawl, then ``replica serve`` and ``crawl --all``: the same site on other
    ports, so every photo URL of an incomplete show is new. Its photos are fetched again,
    but the draft gains none: the outcome is ``unrepaired``, not ``repaired``."""
    store_url = f"file://{tmp_path / 'objects'}"
    brand = replica.site.brands[0]
    show = brand.shows[0]
    [first] = crawl_brands([brand.slug], dagster_instance,
                           pipeline_env(tmp_path, database_url, store_url, replica))
    assert first["success"] and first["shows"]["created"] == len(brand.shows), first
    engine = catalog_engine(database_url)
    with engine.begin() as conn:  # the source now says the show has 20 photos: incomplete
        conn.execute(text("UPDATE runway_show_manifests SET expected_images = 20 WHERE show_id"
                          " = (SELECT id FROM runway_shows WHERE source_url = :u)"),
                     {"u": source_url(show.path)})
    photos_sql = ("SELECT i.position, i.object_key FROM brand_runway_draft_images i JOIN"
                  " brand_runway_drafts d ON d.id = i.draft_id WHERE d.source_url = :u"
                  " ORDER BY i.position")
    before = query(database_url, photos_sql, u=source_url(show.path))
    moved = start_replica(replica.site)  # the same site, on other ports
    try:
        [second] = crawl_brands([brand.slug], dagster_instance,
                                pipeline_env(tmp_path, database_url, store_url, moved))
        downloads = photo_downloads(moved.stats())
    finally:
        moved.stop()

    assert second["success"], second
    assert downloads == len(show.photos)  # every photo fetched again, from its new URL
    assert query(database_url, photos_sql, u=source_url(show.path)) == before
    assert second["shows"]["repaired"] == 0 and second["shows"]["unrepaired"] == 1, second
    [(outcome, stored)] = query(
        database_url, "SELECT outcome, images_stored FROM ingest_log WHERE stage = 'ingest'"
        " AND source_url = :u ORDER BY id DESC LIMIT 1", u=source_url(show.path))
    assert (outcome, stored) == ("unrepaired", len(show.photos))


def test_photos_deleted_from_the_entry_alone_come_back_without_a_download(
        tmp_path: Path, database_url: str, big_replica: ReplicaServer,
        dagster_instance: DagsterInstance) -> None:
    replica = big_replica
    env = pipeline_env(tmp_path, database_url, f"file://{tmp_path / 'objects'}", replica)
    brand = replica.site.brands[0]
    instance = dagster_instance
    crawl_brands([brand.slug], instance, env)
    engine = catalog_engine(database_url)
    with engine.begin() as conn:
        conn.execute(text("UPDATE brand_runway_drafts SET status = 'approved'"))
    promote(engine, RUNWAY)
    show = brand.shows[1]
    with engine.begin() as conn:
        conn.execute(text(
            "DELETE FROM brand_runway_images WHERE position > 20 AND runway_id = (SELECT id"
            " FROM brand_runways WHERE brand_slug = :b AND season_code = :c)"),
            {"b": brand.slug, "c": show.season_slug})
    replica.reset_stats()

    [summary] = crawl_brands([brand.slug], instance, env)

    assert summary["success"] and summary["shows"]["repaired"] == 1, summary
    assert photo_downloads(replica.stats()) == 0
    assert query(database_url, "SELECT stored_images FROM brand_runways WHERE brand_slug = :b"
                 " AND season_code = :c", b=brand.slug, c=show.season_slug
                 ) == [(len(show.photos),)]


def evaluate(env: dict[str, str], instance: DagsterInstance) -> SensorResult | SkipReason:
    with build_sensor_context(instance=instance, resources=resources_from_env(env)) as context:
        sensor = build_definitions(env).get_repository_def().get_sensor_def("coverage_sensor")
        return sensor(context)


def test_photos_gone_for_good_are_re_fetched_on_the_back_off_schedule_then_given_up(
        tmp_path: Path, database_url: str, replica: ReplicaServer,
        dagster_instance: DagsterInstance) -> None:
    start = datetime(2026, 12, 1, 8, 0, tzinfo=UTC)
    base = pipeline_env(tmp_path, database_url, f"file://{tmp_path / 'objects'}", replica,
                        FASHION_REPAIR_MAX_ATTEMPTS="3", FASHION_REPAIR_BACKOFF="3600",
                        FASHION_REPAIR_BACKOFF_CAP="14400")
    instance = dagster_instance
    [crawled] = crawl_brands([HOSTILE_BRAND], instance, base)
    assert crawled["success"], crawled
    brand = replica.site.brand(HOSTILE_BRAND)
    faulty = next(s for s in brand.shows if any(p.fault for p in s.photos))
    [(faulty_id,)] = query(database_url, "SELECT id FROM runway_shows WHERE source_url = :u",
                           u=source_url(faulty.path))
    good_paths = {urlsplit(u).path for (u,) in query(
        database_url, "SELECT i.source_image_url FROM brand_runway_draft_images i JOIN"
        " brand_runway_drafts d ON d.id = i.draft_id WHERE d.source_url = :u",
        u=source_url(faulty.path))}
    assert good_paths

    runs: list[tuple[timedelta, Any]] = []
    skips = []
    for tick in range(0, 12 * 2):  # every 30 minutes for 12 hours
        now = start + timedelta(minutes=30 * tick)
        env = {**base, "FASHION_CLOCK": now.isoformat()}
        result = evaluate(env, instance)
        if isinstance(result, SkipReason):
            skips.append((now - start, result.skip_message))
            continue
        defs = build_definitions(env)
        for request in result.run_requests:
            replica.reset_stats()
            run = defs.resolve_job_def(request.job_name).execute_in_process(
                instance=instance, partition_key=request.partition_key,
                run_config=request.run_config, tags=request.tags)
            assert run.success
            by_path = replica.stats().by_path
            assert faulty.path in by_path  # the incomplete show's page, fetched again
            assert not good_paths & set(by_path)  # and none of the photos it has
            runs.append((now - start, request))

    # One run per attempt (every incomplete show of the brand backs off together), on the
    # schedule 0 h, 1 h, 3 h; given up at the tick after the third back-off (3 h + 4 h).
    assert [t for t, _ in runs] == [timedelta(hours=h) for h in (0, 1, 3)]
    assert len({r.run_key for _, r in runs}) == 3
    assert {r.tags["fashion-assets/crawl"] for _, r in runs} == {"coverage"}
    assert {r.tags["fashion-assets/brand"] for _, r in runs} == {HOSTILE_BRAND}
    assert all(faulty_id in r.run_config["ops"]["runway_drafts"]["config"]["show_ids"]
               for _, r in runs)
    [(attempts, gave_up_at, reason)] = query(
        database_url, "SELECT attempts, gave_up_at, reason FROM coverage_repairs"
        " WHERE show_id = :i", i=faulty_id)
    assert attempts == 3 and gave_up_at is not None
    assert "not_found" in reason and "after 3 re-fetches" in reason
    assert skips[-1][1].startswith("no incomplete show is due") and "given up" in skips[-1][1]
    engine = catalog_engine(database_url)
    report = coverage_report(engine, CoverageRules(), start + timedelta(hours=12))
    assert report.given_up >= 1 and faulty_id in {g.show_id for g in report.given_up_shows}

    # A full crawl still re-fetches it, and its metadata says which shows were given up.
    replica.reset_stats()
    [full] = crawl_brands([HOSTILE_BRAND], instance, base)
    assert full["success"] and faulty.path in replica.stats().by_path
    event = instance.get_latest_materialization_event(AssetKey("runway_drafts"))
    assert event is not None and event.asset_materialization is not None
    metadata = event.asset_materialization.metadata
    assert metadata["given_up_shows"].value == report.given_up
    assert any("not_found" in record.data["reason"]
               for record in metadata["given_up_table"].records)

    # An editor can have the sensor try again, from a fresh back-off.
    assert retry_given_up(engine, brand_slug=HOSTILE_BRAND) == report.given_up
    again = evaluate({**base, "FASHION_CLOCK": (start + timedelta(hours=13)).isoformat()},
                     instance)
    assert isinstance(again, SensorResult) and len(again.run_requests) == 1


def test_repairs_wait_while_a_run_crawls_the_partition_and_are_charged_nothing(
        tmp_path: Path, database_url: str, replica: ReplicaServer,
        dagster_instance: DagsterInstance) -> None:
    """A crawl of the brand queued or running (alone, or in a batch's range) holds its
    incomplete shows back: no repair run beside it, no attempt recorded. Once it has ended,
    the next tick repairs them."""
    from dagster import DagsterRunStatus

    from fashion_assets.domain.batches import Batch
    from fashion_assets.jobs.crawl_schedule import JOB_NAME
    from fashion_assets.tags import batch_tags

    env = pipeline_env(tmp_path, database_url, f"file://{tmp_path / 'objects'}", replica)
    instance = dagster_instance
    others = [b.slug for b in replica.site.brands if b.slug != HOSTILE_BRAND]
    instance.add_dynamic_partitions("brands", others[:1])
    [crawled] = crawl_brands([HOSTILE_BRAND], instance, env)
    assert crawled["success"], crawled
    instance.add_dynamic_partitions("brands", others[1:])
    order = instance.get_dynamic_partitions("brands")
    assert HOSTILE_BRAND not in (order[0], order[-1])  # inside the batch's range
    job = build_definitions(env).resolve_job_def(JOB_NAME)
    queued = instance.create_run_for_job(job, status=DagsterRunStatus.NOT_STARTED,
                                         tags={"dagster/partition": HOSTILE_BRAND})
    batch = Batch(order[0], order[-1], len(order))
    running = instance.create_run_for_job(job, status=DagsterRunStatus.STARTED,
                                          tags=batch_tags(batch))

    for ended in (queued, running):
        result = evaluate(env, instance)
        assert isinstance(result, SkipReason), result
        assert "wait for the runs in progress" in (result.skip_message or "")
        assert query(database_url, "SELECT count(*) FROM coverage_repairs") == [(0,)]
        instance.report_run_failed(ended)

    result = evaluate(env, instance)
    assert isinstance(result, SensorResult), result
    assert [r.partition_key for r in result.run_requests] == [HOSTILE_BRAND]


def test_a_manifest_fetched_again_never_lowers_its_count_and_an_older_one_is_ignored(
        database_url: str) -> None:
    engine = catalog_engine(database_url)
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO brands (slug) VALUES ('chloe')"))
        conn.execute(text("INSERT INTO runway_shows (brand_slug, source, source_url,"
                          " source_path, season_code) VALUES ('chloe', 'vogue', 'u', '/p',"
                          " 'resort-2026')"))
        show_id = conn.execute(text("SELECT id FROM runway_shows")).scalar_one()
    log = LogEntry("run", "chloe", "vogue", "u", "manifest", "")
    t1 = datetime(2026, 12, 1, 8, 0, tzinfo=UTC)

    def images(n: int) -> list[ManifestImage]:
        return [ManifestImage(p, f"https://cdn.example/{p}.jpg", None) for p in range(1, n + 1)]

    def stored() -> tuple[int, int]:
        [(expected,)] = query(database_url, "SELECT expected_images FROM runway_show_manifests")
        [(listed,)] = query(database_url, "SELECT count(*) FROM runway_manifest_images")
        return expected, listed

    assert store_manifest(engine, show_id, 40, "t", images(40), log, observed_at=t1) == "fetched"
    assert stored() == (40, 40)
    later = t1 + timedelta(hours=1)
    assert store_manifest(engine, show_id, 38, "t", images(38), log,
                          observed_at=later) == "refetched"
    assert stored() == (40, 38)  # the page lost 2 photos: the count stays 40
    assert store_manifest(engine, show_id, 50, "t", images(50), log,
                          observed_at=t1 - timedelta(minutes=5)) == "kept"
    assert stored() == (40, 38)  # an observation older than the stored one changes nothing
    assert store_manifest(engine, show_id, 44, "t", images(44), log,
                          observed_at=later + timedelta(hours=1)) == "refetched"
    assert stored() == (44, 44)
    assert [o for (o,) in query(database_url, "SELECT outcome FROM ingest_log ORDER BY id")] == [
        "fetched", "refetched", "kept", "refetched"]
