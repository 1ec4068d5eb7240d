"""The catalog export: Parquet files in the object store that read back as the catalog.

Drafts from real crawls of the replica (both sources of a show, so looks are merged and
alternates recorded), promoted by the promotion job, which exports what changed; the
catalog on SQLite and PostgreSQL, the store on disk and on the S3 API server.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
from dagster import DagsterInstance
from sqlalchemy import text

from fashion_assets.catalog.export import read_export
from fashion_assets.catalog.media import referenced_keys
from fashion_assets.definitions import build_definitions
from fashion_assets.domain.export import ENTRY_COLUMNS, frame
from fashion_assets.replica import ReplicaServer
from fashion_assets.resources import catalog_engine
from fashion_assets.storage import open_store
from tests.catalog_db import query
from tests.conftest import normal_brands, pipeline_env
from tests.pipeline import crawl_partitions

PHOTOS = (
    "SELECT i.{fk}, i.position, i.object_key, NULL, i.source, i.source_image_url,"
    " i.content_type, i.width, i.height, i.byte_size, h.phash, h.dhash, NULL, h.created_at"
    " FROM {images} i LEFT JOIN photo_hashes h ON h.photo_key = i.object_key"
    " UNION ALL SELECT a.{fk}, NULL, a.object_key, a.kept_key, a.source, a.source_image_url,"
    " a.content_type, a.width, a.height, a.byte_size, h.phash, h.dhash, a.distance,"
    " h.created_at FROM {alternates} a LEFT JOIN photo_hashes h ON h.photo_key = a.object_key")
TABLES = {"runway": ("brand_runways", "brand_runway_images", "brand_runway_image_alternates",
                     "runway_id"),
          "street": ("street_snaps", "street_snap_images", "street_snap_image_alternates",
                     "snap_id")}


def promote_and_export(env: dict[str, str], instance: DagsterInstance,
                       **config: Any) -> dict[str, Any]:
    """The promotion job (promotion, then the export); the export's metadata."""
    job = build_definitions(env).resolve_job_def("promote_approved_drafts")
    run_config = {"ops": {"catalog_export": {"config": config}}} if config else None
    result = job.execute_in_process(instance=instance, run_config=run_config)
    assert result.success
    [materialization] = result.asset_materializations_for_node("catalog_export")
    return {k: v.value for k, v in materialization.metadata.items()}


def catalog_as_frames(database_url: str, kind: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The catalog's entries and photos of ``kind``, straight from its tables."""
    entries, images, alternates, fk = TABLES[kind]
    columns = [c for c in ENTRY_COLUMNS[kind] if c != "entry_id"]
    rows = query(database_url, f"SELECT id, {', '.join(columns)} FROM {entries} ORDER BY id")
    photos = query(database_url, PHOTOS.format(fk=fk, images=images, alternates=alternates))
    expected = (frame(kind, "entries", rows), frame(kind, "photos", photos))
    return (expected[0].sort_values("entry_id", ignore_index=True),
            expected[1].sort_values(["entry_id", "position", "object_key"], ignore_index=True,
                                    na_position="last"))


def assert_export_is_the_catalog(database_url: str, exported: dict[str, Any]) -> None:
    for kind in TABLES:
        for got, want in zip(exported[kind], catalog_as_frames(database_url, kind),
                             strict=True):
            pd.testing.assert_frame_equal(got.reset_index(drop=True), want)


def test_the_export_reads_back_as_the_catalog_and_writes_only_what_changed(
        tmp_path: Path, database_url: str, store_url: str, replica: ReplicaServer) -> None:
    env = pipeline_env(tmp_path, database_url, store_url, replica)
    instance = DagsterInstance.ephemeral()
    galleries = [a for s in replica.site.impression.seasons for a in s.articles if a.brand_slug]
    weeks = [w.slug for w in replica.site.impression.weeks][:1]
    runs = crawl_partitions([("brand", b.slug) for b in normal_brands(replica)]
                            + [("season", c) for c in sorted({a.season_code for a in galleries})]
                            + [("week", w) for w in weeks], instance, env)
    assert all(r["success"] for r in runs), runs
    engine = catalog_engine(database_url)
    store = open_store(env["FASHION_STORE_URL"], home=tmp_path)
    with engine.begin() as conn:
        for table in ("brand_runway_drafts", "street_snap_drafts"):
            conn.execute(text(f"UPDATE {table} SET status = 'approved'"))
    # One show of both sources waits: the next promotion changes one entry.
    later = galleries[0]
    with engine.begin() as conn:
        conn.execute(text("UPDATE brand_runway_drafts SET status = 'pending' WHERE"
                          " source = 'theimpression' AND brand_slug = :b AND season_code = :c"),
                     {"b": later.brand_slug, "c": later.season_code})

    first = promote_and_export(env, instance)

    assert first["files_written"] == 4 and not first["full_rebuild"]
    shows = query(database_url, "SELECT count(*) FROM brand_runways")[0][0]
    albums = query(database_url, "SELECT count(*) FROM street_snaps")[0][0]
    assert (first["runway_entries_rows"], first["street_entries_rows"]) == (shows, albums)
    assert shows and albums
    assert query(database_url, "SELECT count(*) FROM brand_runway_image_alternates")[0][0] > 0
    exported = read_export(engine, store)
    assert_export_is_the_catalog(database_url, exported)
    assert first["runway_photos_schema"].columns[2].name == "object_key"
    # The promotion job hashed every photo it promoted (the crawl hashes none).
    for kind in TABLES:
        assert exported[kind][1]["phash"].notna().all(), kind

    objects = store.stats().objects
    again = promote_and_export(env, instance)

    assert again["files_written"] == 0 and store.stats().objects == objects
    assert query(database_url, "SELECT count(*) FROM catalog_exports")[0][0] == 1

    with engine.begin() as conn:
        conn.execute(text("UPDATE brand_runway_drafts SET status = 'approved' WHERE"
                          " status = 'pending'"))
    changed = promote_and_export(env, instance)

    assert changed["files_written"] == 2 and changed["runway_entries_rows"] == 1
    assert_export_is_the_catalog(database_url, read_export(engine, store))

    keys = [first[f"{name}_object_key"] for name in
            ("runway_entries", "runway_photos", "street_entries", "street_photos")]
    assert referenced_keys(engine, keys) == set(keys)
    full = promote_and_export(env, instance, full_rebuild=True)

    assert full["files_written"] == 4 and full["runway_entries_rows"] == shows
    assert query(database_url, "SELECT count(*) FROM catalog_exports")[0][0] == 1
    assert_export_is_the_catalog(database_url, read_export(engine, store))
    current = {full[f"{name}_object_key"] for name in
               ("runway_entries", "runway_photos", "street_entries", "street_photos")}
    # The files of the exports the rebuild replaced are orphans now, for media cleanup.
    assert referenced_keys(engine, [*keys, *current]) == current
