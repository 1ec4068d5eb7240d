"""End to end over the replica: the three runway assets, materialized through Dagster.

The catalog runs on SQLite and PostgreSQL, the store on disk and on the S3 API server; the
replica counts every request it receives, so "nothing fetched twice" is measured, not assumed.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from dagster import AssetKey, DagsterInstance

from fashion_assets.replica import HOSTILE_BRAND, ROBOTS_BLOCKED_BRAND, ReplicaServer, photo_bytes
from fashion_assets.replica.hostile import HOSTILE_CASES
from fashion_assets.settings import home_dir
from fashion_assets.storage import open_store
from tests.catalog_db import query, snapshot
from tests.conftest import normal_brands, pipeline_env
from tests.pipeline import crawl_brands


def test_crawl_drafts_every_show_once_and_a_recrawl_fetches_no_photo(
        tmp_path: Path, database_url: str, store_url: str, replica: ReplicaServer) -> None:
    env = pipeline_env(tmp_path, database_url, store_url, replica)
    brands = [b.slug for b in normal_brands(replica)]
    instance = DagsterInstance.ephemeral()

    first = crawl_brands(brands, instance, env)

    assert all(s["success"] for s in first), first
    drafts = query(database_url, "SELECT id, source, source_url, brand_slug, season_code, status"
                                 " FROM brand_runway_drafts ORDER BY id")
    expected_shows = [show for slug in brands for show in replica.site.brand(slug).shows]
    assert len(drafts) == len(expected_shows)
    assert {d[2] for d in drafts} == {f"https://www.vogue.com{s.path}" for s in expected_shows}
    assert {d[1] for d in drafts} == {"vogue"} and {d[5] for d in drafts} == {"pending"}
    store = open_store(env["FASHION_STORE_URL"], home=home_dir(env))
    for show in expected_shows:
        rows = query(database_url,
                     "SELECT i.position, i.object_key, i.content_type FROM"
                     " brand_runway_draft_images i JOIN brand_runway_drafts d"
                     " ON d.id = i.draft_id WHERE d.source_url = :url ORDER BY i.position",
                     url=f"https://www.vogue.com{show.path}")
        expected_keys = [hashlib.sha1(photo_bytes(replica.site, p.photo_id)).hexdigest()
                         for p in show.photos]
        assert [r[1] for r in rows] == expected_keys, show.path
        assert [r[0] for r in rows] == list(range(1, len(show.photos) + 1))
        assert not store.missing(expected_keys)
    distinct = {k for (k,) in query(database_url,
                                    "SELECT DISTINCT object_key FROM brand_runway_draft_images")}
    assert store.stats().objects == len(distinct)
    summary = {s["brand"]: s for s in first}
    assert sum(s["shows"]["created"] for s in first) == len(expected_shows)
    assert sum(s["images_stored"] for s in summary.values()) == sum(
        len(show.photos) for show in expected_shows)

    before = snapshot(database_url)
    log_before = query(database_url, "SELECT max(id) FROM ingest_log")[0][0]
    replica.reset_stats()

    second = crawl_brands(brands, instance, env)

    assert all(s["success"] for s in second)
    assert replica.stats().image_requests == 0
    assert snapshot(database_url) == before
    outcomes = query(database_url, "SELECT stage, outcome FROM ingest_log WHERE id > :id",
                     id=log_before)
    assert outcomes and set(outcomes) == {("ingest", "skipped_already_ingested")}
    assert sum(s["shows"]["skipped_already_ingested"] for s in second) == len(expected_shows)


def test_hostile_input_gets_a_recorded_outcome_and_the_run_goes_on(
        tmp_path: Path, database_url: str, replica: ReplicaServer) -> None:
    env = pipeline_env(tmp_path, database_url, f"file://{tmp_path / 'objects'}", replica)
    instance = DagsterInstance.ephemeral()

    [summary] = crawl_brands([HOSTILE_BRAND], instance, env)

    assert summary["success"], summary
    brand = replica.site.brand(HOSTILE_BRAND)
    by_fault = {}
    for show in brand.shows:
        for photo in show.photos:
            if photo.fault:
                by_fault[photo.fault] = (show, photo)
    missing = dict(query(database_url, "SELECT url, reason FROM runway_missing_images"))
    expected_reason = {
        "gone": "not_found", "html": "html", "empty": "empty", "truncated": "truncated",
        "bomb": "too_many_pixels", "huge": "too_large", "not_image": "not_an_image",
        "redirect_offsite": "redirect_private_address",
        "redirect_private": "redirect_private_address",
    }
    recorded = {}
    for fault in expected_reason:
        _show, photo = by_fault[fault]
        urls = [url for url in missing if photo.photo_id in url]
        assert urls, f"photo with fault {fault} not recorded as missing"
        recorded[fault] = missing[urls[0]]
    assert recorded == expected_reason
    # The good photos of the faulty show are drafted all the same, and so are the hostile ones
    # whose bytes are a fine photo (path tricks, a PNG sent as text/html, ...); every case is
    # checked in tests/integration/test_hostile_input.py.
    outcomes = {case.name: case.expected_outcome.record for case in HOSTILE_CASES}
    faulty_show = next(iter(by_fault.values()))[0]
    good = [p for p in faulty_show.photos if not p.fault or outcomes[p.fault] == "stored"]
    stored = query(database_url,
                   "SELECT count(*) FROM brand_runway_draft_images i JOIN brand_runway_drafts d"
                   " ON d.id = i.draft_id WHERE d.source_url = :url",
                   url=f"https://www.vogue.com{faulty_show.path}")
    assert stored == [(len(good),)]
    log = query(database_url, "SELECT source_url, stage, outcome, reason FROM ingest_log")
    by_show = {(url, stage): (outcome, reason) for url, stage, outcome, reason in log}
    # The drafts metadata gives the faulty show's draft a link to its review page, and its
    # reason (every missing photo's) whole, however long.
    faulty_url = f"https://www.vogue.com{faulty_show.path}"
    [(draft_id,)] = query(database_url, "SELECT id FROM brand_runway_drafts"
                                        " WHERE source_url = :url", url=faulty_url)
    event = instance.get_latest_materialization_event(AssetKey("runway_drafts"))
    assert event is not None and event.asset_materialization is not None
    [row] = [record.data for record in
             event.asset_materialization.metadata["shows_table"].records
             if record.data["draft"] == draft_id]
    assert row["review page"] == f"http://127.0.0.1:8810/drafts/runway:{draft_id}"
    assert row["reason"] == by_show[(faulty_url, "ingest")][1] and len(row["reason"]) > 200
    for show in brand.shows:
        url = f"https://www.vogue.com{show.path}"
        if outcomes.get(show.page_fault or "") == "manifest failed":
            outcome, reason = by_show[(url, "manifest")]
            assert outcome == "failed" and reason, show.page_fault
            assert by_show[(url, "ingest")][0] == "failed"
        else:
            assert by_show[(url, "ingest")][0] == "created", show.title[:80]
    video_only = [s for s in brand.shows if s.video_only]
    assert video_only
    for show in video_only:
        assert query(database_url, "SELECT expected_images FROM brand_runway_drafts"
                                   " WHERE source_url = :url",
                     url=f"https://www.vogue.com{show.path}") == [(0,)]
    titles = query(database_url, "SELECT max(length(title)) FROM brand_runway_drafts")
    assert titles[0][0] <= 500


def test_a_brand_disallowed_by_robots_fails_with_a_recorded_reason(
        tmp_path: Path, replica: ReplicaServer) -> None:
    database_url = f"sqlite:///{tmp_path / 'catalog.db'}"
    env = pipeline_env(tmp_path, database_url, f"file://{tmp_path / 'objects'}", replica)

    [summary] = crawl_brands([ROBOTS_BLOCKED_BRAND], DagsterInstance.ephemeral(), env)

    assert not summary["success"]
    assert "robots_disallowed" in summary["error"]
    [(stage, outcome, reason)] = query(database_url,
                                       "SELECT stage, outcome, reason FROM ingest_log")
    assert (stage, outcome) == ("listing", "failed")
    assert reason.startswith("robots_disallowed")


def test_photos_from_a_host_that_is_not_allowed_are_refused(
        tmp_path: Path, replica: ReplicaServer) -> None:
    database_url = f"sqlite:///{tmp_path / 'catalog.db'}"
    env = pipeline_env(tmp_path, database_url, f"file://{tmp_path / 'objects'}", replica,
                       FASHION_VOGUE_IMAGE_HOSTS="assets.vogue.com")
    brand = normal_brands(replica)[0].slug
    replica.reset_stats()

    [summary] = crawl_brands([brand], DagsterInstance.ephemeral(), env)

    assert summary["success"]
    assert replica.stats().image_requests == 0
    reasons = {r for (r,) in query(database_url, "SELECT reason FROM runway_missing_images")}
    # The replica's CDN is on loopback: not configured, so refused as a private address.
    assert reasons == {"private_address"}
    assert summary["images_stored"] == 0
