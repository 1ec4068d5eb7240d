"""theImpression end to end over the replica: its runway galleries as a second source of
Vogue's shows, street-style albums keyed by the crawl's month, and names that wait.

Runs through Dagster on SQLite and PostgreSQL, with photos on disk and on the S3 API server.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest
from dagster import AssetCheckKey, AssetKey, DagsterInstance, materialize

from bench.reliability import FAULT_CLIENT_ENV, FAULTS
from fashion_assets.assets.runway import runway_assets
from fashion_assets.catalog import progress
from fashion_assets.catalog.names import approve_name, list_pending, merge_name
from fashion_assets.replica import (
    HOSTILE_BRAND,
    ReplicaPhoto,
    ReplicaServer,
    ReplicaSite,
    build_site,
    photo_bytes,
    start_replica,
)
from fashion_assets.resources import catalog_engine, resources_from_env
from fashion_assets.sources.registry import VOGUE
from tests.catalog_db import query, snapshot
from tests.conftest import normal_brands, pipeline_env
from tests.pipeline import crawl_partitions

PUBLIC = "https://theimpression.com"


def _keys(site: ReplicaSite, photos: Iterable[ReplicaPhoto]) -> list[str]:
    return [hashlib.sha1(photo_bytes(site, p.photo_id)).hexdigest() for p in photos]


def _draft_keys(database_url: str, table: str, source_url: str) -> list[str]:
    images = "brand_runway_draft_images" if table == "brand_runway_drafts" else (
        "street_snap_draft_images")
    return [k for (k,) in query(
        database_url, f"SELECT i.object_key FROM {images} i JOIN {table} d ON d.id = i.draft_id"
                      " WHERE d.source_url = :u ORDER BY i.position", u=source_url)]


def test_one_show_is_drafted_from_both_sources_under_one_entity_key(
        tmp_path: Path, database_url: str, store_url: str, replica: ReplicaServer) -> None:
    env = pipeline_env(tmp_path, database_url, store_url, replica)
    brands = normal_brands(replica)
    galleries = [a for season in replica.site.impression.seasons for a in season.articles
                 if a.brand_slug is not None]
    seasons = sorted({a.season_code for a in galleries})
    instance = DagsterInstance.ephemeral()

    runs = crawl_partitions([("brand", b.slug) for b in brands]
                            + [("season", code) for code in seasons], instance, env)

    assert all(r["success"] for r in runs), runs
    for gallery in galleries:
        url = PUBLIC + gallery.path
        vogue_url = f"https://www.vogue.com/fashion-shows/{gallery.season_code}/{gallery.brand_slug}"
        rows = query(database_url, "SELECT source, source_url FROM brand_runway_drafts"
                                   " WHERE brand_slug = :b AND season_code = :c ORDER BY source",
                     b=gallery.brand_slug, c=gallery.season_code)
        assert rows == [("theimpression", url), ("vogue", vogue_url)], gallery.slug
        assert _draft_keys(database_url, "brand_runway_drafts", url) == _keys(
            replica.site, gallery.photos)
    # Designers spelled another way (upper case, no accents) resolved through normalization,
    # and each new spelling was recorded once, as an alias of the brand Vogue lists.
    variants = {(a.designer, a.brand_slug) for a in galleries
                if a.designer != replica.site.brand(a.brand_slug).name}
    assert variants
    aliases = query(database_url, "SELECT alias, entity_slug, origin FROM name_aliases"
                                  " WHERE kind = 'brand' AND origin = 'normalization'")
    assert sorted((a, e) for a, e, _ in aliases) == sorted(variants)

    before = snapshot(database_url)
    replica.reset_stats()
    again = crawl_partitions([("season", code) for code in seasons], instance, env)

    assert all(r["success"] for r in again)
    assert replica.stats().image_requests == 0 and snapshot(database_url) == before
    assert query(database_url, "SELECT count(*) FROM name_aliases WHERE origin ="
                               " 'normalization'") == [(len(variants),)]


def test_an_unknown_designer_waits_and_is_drafted_once_approved(
        tmp_path: Path, database_url: str, replica: ReplicaServer) -> None:
    env = pipeline_env(tmp_path, database_url, f"file://{tmp_path / 'objects'}", replica)
    [unknown] = [a for s in replica.site.impression.seasons for a in s.articles
                 if a.brand_slug is None]
    instance = DagsterInstance.ephemeral()
    engine = catalog_engine(database_url)
    crawl_partitions([("brand", b.slug) for b in normal_brands(replica)], instance, env)
    replica.reset_stats()

    [first] = crawl_partitions([("season", unknown.season_code)], instance, env)

    assert first["success"]
    [pending] = list_pending(engine)
    assert (pending.kind, pending.name, pending.waiting) == ("brand", unknown.designer, 1)
    assert query(database_url, "SELECT count(*) FROM brand_runway_drafts WHERE source_url = :u",
                 u=PUBLIC + unknown.path) == [(0,)]
    assert query(database_url, "SELECT outcome FROM ingest_log WHERE source_url = :u",
                 u=PUBLIC + unknown.path) == [("waiting_for_name",)]
    assert not any(unknown.photos[0].photo_id in path for path in replica.stats().by_path)
    assert query(database_url, "SELECT count(*) FROM brands WHERE slug = 'maison-inconnue'"
                 ) == [(0,)]

    release = approve_name(engine, pending.id, editor="test")
    [second] = crawl_partitions([("season", unknown.season_code)], instance, env)

    assert release.entity_slug == "maison-inconnue" and release.articles_released == 1
    assert second["success"] and second["shows"]["created"] == 1
    assert query(database_url, "SELECT brand_slug, season_code FROM brand_runway_drafts"
                               " WHERE source_url = :u", u=PUBLIC + unknown.path) == [
        ("maison-inconnue", unknown.season_code)]
    assert _draft_keys(database_url, "brand_runway_drafts", PUBLIC + unknown.path) == _keys(
        replica.site, unknown.photos)


@pytest.fixture
def growing_replicas() -> Iterator[tuple[ReplicaServer, ReplicaServer]]:
    """The same site twice, the second with one more article per fashion week."""
    servers = [start_replica(build_site(brands=0, photos_per_show=6, hostile=False,
                                        articles_per_week=count)) for count in (1, 2)]
    yield servers[0], servers[1]
    for server in servers:
        server.stop()


def test_street_albums_are_keyed_by_crawl_month_and_a_recrawl_skips_by_source_key(
        tmp_path: Path, database_url: str, store_url: str,
        growing_replicas: tuple[ReplicaServer, ReplicaServer]) -> None:
    february, march = growing_replicas
    week = march.site.impression.week("copenhagen-fashion-week")
    old, new = week.articles[-1], week.articles[0]  # listings are newest first
    assert february.site.impression.week(week.slug).articles == (old,)
    instance = DagsterInstance.ephemeral()

    [first] = crawl_partitions([("week", week.slug)], instance, pipeline_env(
        tmp_path, database_url, store_url, february, FASHION_CLOCK="2026-02-27T23:59:59"))
    [second] = crawl_partitions([("week", week.slug)], instance, pipeline_env(
        tmp_path, database_url, store_url, march, FASHION_CLOCK="2026-03-02T08:00:00+00:00"))

    assert first["success"] and second["success"]
    assert (first["shows"]["created"], second["shows"]["created"],
            second["shows"]["skipped_already_ingested"]) == (1, 1, 1)
    drafts = query(database_url, "SELECT source_url, city, year, month FROM street_snap_drafts"
                                 " ORDER BY id")
    assert drafts == [(PUBLIC + old.path, "copenhagen", 2026, 2),
                      (PUBLIC + new.path, "copenhagen", 2026, 3)]
    assert _draft_keys(database_url, "street_snap_drafts", PUBLIC + new.path) == _keys(
        march.site, new.photos)
    log = query(database_url, "SELECT source_url, outcome FROM ingest_log WHERE stage = 'ingest'"
                              " ORDER BY id")
    assert log == [(PUBLIC + old.path, "created"), (PUBLIC + old.path, "skipped_already_ingested"),
                   (PUBLIC + new.path, "created")]
    # The week's health, evaluated by each drafts step on its partition: two articles,
    # both drafted, none failed.
    [latest, _] = instance.event_log_storage.get_asset_check_execution_history(
        AssetCheckKey(AssetKey("street_snap_drafts"), "partition_health"), limit=5)
    evaluation = latest.event.dagster_event.event_specific_data
    assert (evaluation.partition, evaluation.passed) == (week.slug, True)
    assert evaluation.description == (
        "0 of 2 articles failed, 0 given up, 0 photos missing, 2 drafted")
    # Both steps of a week's run wrote its progress row; the drafts step, its last, ended it.
    row = progress.get(catalog_engine(database_url), second["run_id"])
    assert row is not None
    assert (row.step, row.kind, row.unit, row.shows_done, row.status) == (
        "drafts", "street_snap_drafts", "articles", 2, "finished")


def test_an_unknown_city_is_held_as_pending_and_released_by_a_merge(
        tmp_path: Path, database_url: str, replica: ReplicaServer) -> None:
    env = pipeline_env(tmp_path, database_url, f"file://{tmp_path / 'objects'}", replica,
                       FASHION_CLOCK="2026-09-14T12:00:00")
    week = replica.site.impression.week("stockholm-fashion-week")
    instance = DagsterInstance.ephemeral()
    engine = catalog_engine(database_url)

    [held] = crawl_partitions([("week", week.slug)], instance, env)

    assert held["success"] and held["shows"]["created"] == 0
    [pending] = list_pending(engine)
    assert (pending.kind, pending.name, pending.waiting) == ("city", "Stokholm",
                                                             len(week.articles))
    assert query(database_url, "SELECT count(*) FROM street_style_articles") == [(0,)]

    release = merge_name(engine, pending.id, "stockholm", editor="test")
    [drafted] = crawl_partitions([("week", week.slug)], instance, env)

    assert release.partitions == (("street", week.slug),)
    assert drafted["shows"]["created"] == len(week.articles)
    assert query(database_url, "SELECT DISTINCT city, year, month FROM street_snap_drafts") == [
        ("stockholm", 2026, 9)]
    assert query(database_url, "SELECT alias, entity_slug FROM name_aliases WHERE alias ="
                               " 'Stokholm'") == [("Stokholm", "stockholm")]


def test_a_city_spelled_without_its_accent_is_recorded_once_as_an_alias(
        tmp_path: Path, database_url: str, replica: ReplicaServer) -> None:
    env = pipeline_env(tmp_path, database_url, f"file://{tmp_path / 'objects'}", replica)
    week = replica.site.impression.week("sao-paulo-fashion-week")
    instance = DagsterInstance.ephemeral()

    runs = [crawl_partitions([("week", week.slug)], instance, env)[0] for _ in range(2)]

    assert all(r["success"] for r in runs)
    assert runs[0]["shows"]["created"] == len(week.articles)
    assert query(database_url, "SELECT alias, entity_slug, origin FROM name_aliases"
                               " WHERE kind = 'city' AND entity_slug = 'sao-paulo'"
                               " AND origin <> 'seed'") == [
        ("Sao Paulo", "sao-paulo", "normalization")]
    assert {c for (c,) in query(database_url, "SELECT city FROM street_snap_drafts")} == {
        "sao-paulo"}


def test_bad_photos_of_a_street_album_are_recorded_and_the_rest_is_drafted(
        tmp_path: Path, database_url: str, store_url: str, replica: ReplicaServer) -> None:
    env = pipeline_env(tmp_path, database_url, store_url, replica)
    week = replica.site.impression.week("copenhagen-fashion-week")
    [hostile] = [a for a in week.articles if any(p.fault for p in a.photos)]

    [run] = crawl_partitions([("week", week.slug)], DagsterInstance.ephemeral(), env)

    assert run["success"] and run["shows"]["created"] == len(week.articles)
    good = [p for p in hostile.photos if not p.fault]
    assert _draft_keys(database_url, "street_snap_drafts", PUBLIC + hostile.path) == _keys(
        replica.site, good)
    recorded = dict(query(database_url, "SELECT m.position, m.reason FROM street_missing_images m"
                                        " JOIN street_style_articles a ON a.id = m.article_id"))
    by_fault = {p.fault: recorded[position]
                for position, p in enumerate(hostile.photos, start=1) if p.fault}
    assert by_fault == {"gone": "not_found", "html": "html", "empty": "empty",
                        "not_image": "not_an_image", "truncated": "truncated"}
    [(reason,)] = query(database_url, "SELECT reason FROM ingest_log WHERE source_url = :u",
                        u=PUBLIC + hostile.path)
    assert reason.startswith("missing: ") and "not_found" in reason


def test_the_city_prefixes_of_vogue_titles_resolve_to_canonical_cities(
        tmp_path: Path, database_url: str) -> None:
    with start_replica(build_site(brands=0, photos_per_show=2)) as server:
        env = pipeline_env(tmp_path, database_url, f"file://{tmp_path / 'objects'}", server)
        instance = DagsterInstance.ephemeral()
        instance.add_dynamic_partitions("brands", [HOSTILE_BRAND])
        listings = runway_assets(VOGUE).assets[0]
        result = materialize([listings], resources=resources_from_env(env),
                             partition_key=HOSTILE_BRAND, instance=instance)

    assert result.success
    cities = set(query(database_url, "SELECT city_name, city, city_pending_id FROM runway_shows"
                                     " WHERE city_name IS NOT NULL"))
    assert {("Tokyo", "tokyo", None), ("São Paolo", "sao-paulo", None)} <= cities
    assert query(database_url, "SELECT count(*) FROM pending_names") == [(0,)]


def test_theimpression_under_transient_faults_drafts_what_a_fault_free_crawl_drafts(
        tmp_path: Path, database_url: str) -> None:
    site = build_site(brands=1, shows_per_brand=1, photos_per_show=6, hostile=False, seed=5,
                      articles_per_week=2)
    [gallery] = [a for s in site.impression.seasons for a in s.articles if a.brand_slug]
    targets = [("brand", gallery.brand_slug), ("season", gallery.season_code),
               ("week", "copenhagen-fashion-week"), ("week", "paris-fashion-week")]
    with start_replica(site) as server:
        server.set_faults(FAULTS)
        env = pipeline_env(tmp_path, database_url, f"file://{tmp_path / 'objects'}", server,
                           **FAULT_CLIENT_ENV)
        runs = crawl_partitions(targets, DagsterInstance.ephemeral(), env)
        stats = server.stats()

    assert all(r["success"] for r in runs), runs
    assert stats.retry_after_violations == 0 and stats.dropped and stats.by_status.get(429)
    albums = [a for slug in ("copenhagen-fashion-week", "paris-fashion-week")
              for a in site.impression.week(slug).articles]
    for article in albums:
        assert _draft_keys(database_url, "street_snap_drafts", PUBLIC + article.path) == _keys(
            site, article.photos), article.slug
    assert _draft_keys(database_url, "brand_runway_drafts", PUBLIC + gallery.path) == _keys(
        site, gallery.photos)


def test_a_season_or_a_week_theimpression_does_not_have_fails(
        tmp_path: Path, replica: ReplicaServer) -> None:
    database_url = f"sqlite:///{tmp_path / 'catalog.db'}"
    env = pipeline_env(tmp_path, database_url, f"file://{tmp_path / 'objects'}", replica)

    season, week = crawl_partitions([("season", "spring-1990-couture"),
                                     ("week", "atlantis-fashion-week")],
                                    DagsterInstance.ephemeral(), env)

    assert not season["success"] and "not_found" in season["error"]
    assert not week["success"] and "not_found" in week["error"]
    assert query(database_url, "SELECT partition_key, stage, outcome FROM ingest_log"
                               " ORDER BY id") == [
        ("spring-1990-couture", "listing", "failed"),
        ("atlantis-fashion-week", "listing", "failed")]


def test_a_run_over_a_range_of_seasons_or_weeks_crawls_each_and_goes_on_past_a_bad_one(
        tmp_path: Path, database_url: str, replica: ReplicaServer) -> None:
    """As a backfill's batch (the assets' backfill policy) runs them: one run per range,
    each partition listed and drafted, with a health evaluation each; a week whose listing
    fails (it does not exist) is recorded as failed while the others go on."""
    from dagster import DagsterEventType

    from fashion_assets.definitions import build_definitions
    from fashion_assets.sources.registry import RUNWAY_PARTITION_NAMES, THEIMPRESSION

    env = pipeline_env(tmp_path, database_url, f"file://{tmp_path / 'objects'}", replica)
    instance = DagsterInstance.ephemeral()
    assert all(r["success"] for r in crawl_partitions(
        [("brand", b.slug) for b in normal_brands(replica)], instance, env))
    seasons = sorted({a.season_code for s in replica.site.impression.seasons
                      for a in s.articles if a.brand_slug is not None})[:2]
    weeks = [w.slug for w in replica.site.impression.weeks][:2]
    assert len(seasons) == 2 and len(weeks) == 2
    assert THEIMPRESSION.runway_names is not None
    # (partitions, job, the range's keys in order, its listing asset, failed listings)
    crawls = {"season": (RUNWAY_PARTITION_NAMES["season"], THEIMPRESSION.runway_names.crawl_job,
                         seasons, THEIMPRESSION.runway_names.listings, 0),
              "week": ("fashion_weeks", "street_style_crawl",
                       [weeks[0], "nowhere-fashion-week", weeks[1]], "street_style_listings",
                       1)}
    defs = build_definitions(env)
    for kind, (partitions, job, keys, listing, failed) in crawls.items():
        instance.add_dynamic_partitions(partitions, keys)
        result = defs.resolve_job_def(job).execute_in_process(
            instance=instance, raise_on_error=False,
            tags={"dagster/asset_partition_range_start": keys[0],
                  "dagster/asset_partition_range_end": keys[-1]})
        assert result.success, kind
        if kind == "season":
            result_of_seasons = result
        # One materialization per partition of the range, each with the step's metadata.
        listed = result.asset_materializations_for_node(listing)
        assert len(listed) == len(keys)
        assert listed[0].metadata[f"{kind}s"].value == len(keys)
        assert listed[0].metadata[f"failed_{kind}s"].value == failed
        # Each partition's materialization lists its own entries only (report.py:
        # partition_table), every entry of the run once.
        table_key, column = ("shows_table", "season") if kind == "season" else (
            "articles_table", "week")
        rows = [(m.partition, record.data[column]) for m in listed
                for record in m.metadata[table_key].records]
        assert rows and all(partition == own for partition, own in rows)
        assert len(rows) == listed[0].metadata["shows" if kind == "season" else "articles"].value
        evaluations = [e.event_specific_data for e in result.all_events
                       if e.event_type == DagsterEventType.ASSET_CHECK_EVALUATION]
        assert sorted(e.partition for e in evaluations) == sorted(keys)
    season_drafts = THEIMPRESSION.runway_names.drafts
    drafted = result_of_seasons.asset_materializations_for_node(season_drafts)
    rows = [(m.partition, record.data["season code"]) for m in drafted
            for record in m.metadata["shows_table"].records]
    assert sorted(m.partition for m in drafted) == sorted(seasons)
    assert rows and all(partition == own for partition, own in rows)
    drafted_seasons = {c for (c,) in query(
        database_url, "SELECT DISTINCT season_code FROM brand_runway_drafts"
                      " WHERE source = 'theimpression'")}
    assert drafted_seasons == set(seasons)
    assert {w for (w,) in query(database_url, "SELECT DISTINCT a.week_slug FROM"
                                " street_style_articles a JOIN street_snap_drafts d"
                                " ON d.source_url = a.source_url")} == set(weeks)
