"""Promotion over crawled drafts: one entry per entity key, the union of approved drafts'
photos (any source, each once, Vogue first), a no-op the second time, and its sensor.

Drafts come from real crawls of the replica; the catalog runs on SQLite and PostgreSQL.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dagster import (
    DagsterInstance,
    DagsterRun,
    DagsterRunStatus,
    RunRequest,
    SkipReason,
    build_sensor_context,
)
from sqlalchemy import text

from fashion_assets.catalog.entities import RUNWAY, STREET, EntityTables
from fashion_assets.definitions import build_definitions
from fashion_assets.domain.looks import DEFAULT_LOOK_RULES, LookPhoto, merge_looks
from fashion_assets.domain.perceptual_hash import PerceptualHash
from fashion_assets.domain.promotion import DraftForPromotion, DraftPhoto, merge_photos
from fashion_assets.replica import ReplicaServer, build_site, start_replica
from fashion_assets.resources import CatalogResource, catalog_engine
from fashion_assets.sensors.approved_drafts import approved_drafts_sensor
from fashion_assets.status import catalog_status
from fashion_assets.tags import PROMOTION_TAG
from tests.catalog_db import query, snapshot
from tests.conftest import normal_brands, pipeline_env
from tests.pipeline import crawl_partitions


def promote(env: dict[str, str], instance: DagsterInstance) -> dict[str, Any]:
    job = build_definitions(env).resolve_job_def("promote_approved_drafts")
    result = job.execute_in_process(instance=instance)
    assert result.success
    [materialization] = result.asset_materializations_for_node("catalog_entries")
    return {k: v.value for k, v in materialization.metadata.items()}


def set_status(database_url: str, table: str, status: str, where: str, **params: Any) -> None:
    engine = catalog_engine(database_url)
    with engine.begin() as conn:
        conn.execute(text(f"UPDATE {table} SET status = :st, updated_at = CURRENT_TIMESTAMP"
                          f" WHERE {where}"), {"st": status, **params})


def expected_photos(database_url: str, tables: EntityTables, key: tuple[Any, ...]
                    ) -> list[str]:
    """The rules' answer from the drafts of one entity key: their photos merged
    (domain/promotion.py), then their looks (domain/looks.py)."""
    where = " AND ".join(f"d.{c} = :k{n}" for n, c in enumerate(tables.key))
    params = {f"k{n}": v for n, v in enumerate(key)}
    drafts = query(database_url, f"SELECT d.id, d.source, d.status, d.is_deleted FROM"
                                 f" {tables.drafts} d WHERE {where}", **params)
    built, looks = [], {}
    for draft_id, source, status, deleted in drafts:
        photos = query(database_url, f"SELECT i.position, i.object_key, i.width, i.height,"
                                     f" h.phash, h.dhash FROM {tables.draft_images} i LEFT JOIN"
                                     " photo_hashes h ON h.photo_key = i.object_key"
                                     " WHERE draft_id = :d", d=draft_id)
        built.append(DraftForPromotion(draft_id, source, "approved" if status == "promoted"
                                       else status, bool(deleted),
                                       tuple(DraftPhoto(p[0], p[1]) for p in photos)))
        looks.update({(draft_id, k): LookPhoto(k, source, w, h, PerceptualHash(ph, dh))
                      for _, k, w, h, ph, dh in photos})
    merged = [looks[(p.draft_id, p.object_key)] for p in merge_photos(built)]
    return list(merge_looks(merged, DEFAULT_LOOK_RULES).kept)


def entry_photos(database_url: str, tables: EntityTables, key: tuple[Any, ...]) -> list[str]:
    where = " AND ".join(f"c.{c} = :k{n}" for n, c in enumerate(tables.key))
    return [k for (k,) in query(
        database_url, f"SELECT i.object_key FROM {tables.catalog_images} i JOIN {tables.catalog}"
                      f" c ON c.id = i.{tables.catalog_image_fk} WHERE {where}"
                      " ORDER BY i.position", **{f"k{n}": v for n, v in enumerate(key)})]


def test_both_sources_of_a_show_merge_a_rejected_sibling_stays_out_and_twice_is_a_no_op(
        tmp_path: Path, database_url: str, replica: ReplicaServer) -> None:
    env = pipeline_env(tmp_path, database_url, f"file://{tmp_path / 'objects'}", replica)
    instance = DagsterInstance.ephemeral()
    galleries = [a for s in replica.site.impression.seasons for a in s.articles if a.brand_slug]
    crawl_partitions([("brand", b.slug) for b in normal_brands(replica)]
                     + [("season", c) for c in sorted({a.season_code for a in galleries})],
                     instance, env)
    merged, rejected = galleries[0], galleries[1]
    set_status(database_url, "brand_runway_drafts", "approved",
               "brand_slug = :b AND season_code IN (:c1, :c2)", b=merged.brand_slug,
               c1=merged.season_code, c2=rejected.season_code)
    set_status(database_url, "brand_runway_drafts", "rejected",
               "source = 'theimpression' AND source_url LIKE :u", u=f"%{rejected.path}")

    first = promote(env, instance)

    keys = [(merged.brand_slug, merged.season_code), (rejected.brand_slug, rejected.season_code)]
    assert (first["runway_entries_created"], first["runway_drafts_promoted"]) == (2, 3)
    for key in keys:
        photos = entry_photos(database_url, RUNWAY, key)
        assert photos == expected_photos(database_url, RUNWAY, key) and photos, key
        assert len(photos) == len(set(photos))
    vogue_only = query(database_url, "SELECT DISTINCT i.source FROM brand_runway_images i JOIN"
                                     " brand_runways c ON c.id = i.runway_id WHERE"
                                     " c.season_code = :c", c=rejected.season_code)
    assert vogue_only == [("vogue",)]
    # Vogue's looks first, each shown by Vogue's photo or by theImpression's larger one of
    # the same look (Vogue's then its alternate); then theImpression's other looks.
    shown = query(database_url, "SELECT i.source, (SELECT min(a.source) FROM"
                  " brand_runway_image_alternates a WHERE a.runway_id = i.runway_id AND"
                  " a.kept_key = i.object_key) FROM brand_runway_images i JOIN brand_runways c"
                  " ON c.id = i.runway_id WHERE c.season_code = :c ORDER BY i.position",
                  c=merged.season_code)
    vogue_looks = len(query(database_url, "SELECT i.object_key FROM brand_runway_draft_images i"
                            " JOIN brand_runway_drafts d ON d.id = i.draft_id WHERE d.source ="
                            " 'vogue' AND d.season_code = :c AND d.brand_slug = :b",
                            c=merged.season_code, b=merged.brand_slug))
    assert all("vogue" in look for look in shown[:vogue_looks]), shown
    assert shown[vogue_looks:] and set(shown[vogue_looks:]) == {("theimpression", None)}, shown
    assert ("theimpression", "vogue") in shown[:vogue_looks], "no look merged"
    # The preview links each entry's first photo and its lead draft (Vogue's) through the
    # review page.
    first_key = entry_photos(database_url, RUNWAY, keys[0])[0]
    [(lead,)] = query(database_url, "SELECT id FROM brand_runway_drafts WHERE brand_slug = :b"
                                    " AND season_code = :c AND source = 'vogue'",
                      b=merged.brand_slug, c=merged.season_code)
    preview = {(r.data["brand"], r.data["season code"]): r.data
               for r in first["runway_preview"].records}
    assert set(preview) == set(keys)
    assert preview[keys[0]]["first photo"] == f"http://127.0.0.1:8810/photos/{first_key}"
    assert preview[keys[0]]["thumbnail"] == f"http://127.0.0.1:8810/thumbs/{first_key}"
    assert preview[keys[0]]["lead draft"] == lead
    assert preview[keys[0]]["review page"] == f"http://127.0.0.1:8810/drafts/runway:{lead}"
    assert first["runway_photos_added"] == sum(
        len(entry_photos(database_url, RUNWAY, k)) for k in keys)
    assert query(database_url, "SELECT count(*) FROM brand_runway_drafts WHERE status ="
                               " 'approved'") == [(0,)]

    report = catalog_status(catalog_engine(database_url), env["FASHION_STORE_URL"], tmp_path)
    assert report["catalog"] == {"shows": 2, "show_photos": first["runway_photos_added"],
                                 "street_albums": 0, "street_photos": 0}

    before = snapshot(database_url)
    again = promote(env, instance)

    assert snapshot(database_url) == before
    assert (again["runway_entries_created"], again["runway_entries_updated"],
            again["runway_drafts_promoted"], again["runway_photos_added"]) == (0, 0, 0, 0)


def test_two_street_albums_of_one_city_in_two_months_stay_apart(
        tmp_path: Path, database_url: str) -> None:
    servers = [start_replica(build_site(brands=0, photos_per_show=4, hostile=False,
                                        articles_per_week=n)) for n in (1, 2)]
    instance = DagsterInstance.ephemeral()
    try:
        for server, clock in zip(servers, ("2026-02-10T10:00:00", "2026-08-20T10:00:00"),
                                 strict=True):
            env = pipeline_env(tmp_path, database_url, f"file://{tmp_path / 'objects'}",
                               server, FASHION_CLOCK=clock)
            crawl_partitions([("week", "copenhagen-fashion-week")], instance, env)
    finally:
        for server in servers:
            server.stop()
    set_status(database_url, "street_snap_drafts", "approved", "city = 'copenhagen'")

    result = promote(env, instance)

    assert result["street_entries_created"] == 2
    albums = query(database_url, "SELECT city, year, month FROM street_snaps ORDER BY month")
    assert albums == [("copenhagen", 2026, 2), ("copenhagen", 2026, 8)]
    for album in albums:
        photos = entry_photos(database_url, STREET, album)
        assert photos == expected_photos(database_url, STREET, album) and len(photos) == 4
    february, august = (set(entry_photos(database_url, STREET, a)) for a in albums)
    assert not february & august


def test_the_sensor_launches_once_per_backlog_and_again_after_a_new_approval(
        tmp_path: Path, database_url: str, replica: ReplicaServer) -> None:
    env = pipeline_env(tmp_path, database_url, f"file://{tmp_path / 'objects'}", replica)
    instance = DagsterInstance.ephemeral()
    brand = normal_brands(replica)[0]
    crawl_partitions([("brand", brand.slug)], instance, env)
    catalog = CatalogResource(database_url=database_url)

    def tick() -> RunRequest | SkipReason:
        with build_sensor_context(instance=instance, resources={"catalog": catalog}) as ctx:
            return approved_drafts_sensor(ctx)

    assert isinstance(tick(), SkipReason)
    first_show, second_show = brand.shows[0], brand.shows[1]
    set_status(database_url, "brand_runway_drafts", "approved", "season_code = :c",
               c=first_show.season_slug)
    request = tick()
    assert isinstance(request, RunRequest) and request.run_key == tick().run_key

    promote(env, instance)
    assert isinstance(tick(), SkipReason)
    set_status(database_url, "brand_runway_drafts", "approved", "season_code = :c",
               c=second_show.season_slug)
    later = tick()

    assert isinstance(later, RunRequest) and later.run_key != request.run_key

    # A promotion run in progress (a command's `review promote`, say): the tick leaves the
    # drafts to it, where a run of its own behind it would promote nothing.
    instance.add_run(DagsterRun(job_name="promote_approved_drafts",
                                status=DagsterRunStatus.STARTED,
                                tags={PROMOTION_TAG: "promotion"}))
    waiting = tick()
    assert isinstance(waiting, SkipReason) and "promotion run is queued" in str(
        waiting.skip_message)
