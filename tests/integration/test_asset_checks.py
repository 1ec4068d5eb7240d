"""The catalog's asset checks, each shown both ways: passing on a clean crawled and promoted
catalog, failing with the offending rows named once a violation is planted (the guarding
index or constraint dropped in that test database first). Blocking checks stop promotion.
"""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from dagster import DagsterInstance
from sqlalchemy import text
from sqlalchemy.engine import make_url

from fashion_assets.definitions import build_definitions
from fashion_assets.replica import ReplicaServer
from fashion_assets.resources import catalog_engine
from fashion_assets.settings import home_dir
from fashion_assets.storage import open_store
from tests.catalog_db import query
from tests.conftest import normal_brands, pipeline_env
from tests.pipeline import crawl_partitions

CHECKS = {"drafts_source_key_unique", "draft_photos_stored", "catalog_entity_key_unique",
          "catalog_photos_from_own_drafts", "catalog_photos_stored"}


def promote(env: dict[str, str]) -> tuple[Any, dict[str, Any]]:
    job = build_definitions(env).resolve_job_def("promote_approved_drafts")
    result = job.execute_in_process(instance=DagsterInstance.ephemeral(), raise_on_error=False)
    evaluations = {e.check_name: e for e in result.get_asset_check_evaluations()}
    return result, evaluations


def examples(check: Any) -> list[dict[str, Any]]:
    """The rows of a check's ``examples`` table."""
    return [dict(record.data) for record in check.metadata["examples"].records]


def execute(database_url: str, sql: str, **params: Any) -> None:
    with catalog_engine(database_url).begin() as conn:
        conn.execute(text(sql), params)


@pytest.fixture
def promoted(tmp_path: Path, database_url: str, store_url: str,
             replica: ReplicaServer) -> dict[str, str]:
    """One brand from both sources, crawled, approved and promoted: a clean catalog."""
    env = pipeline_env(tmp_path, database_url, store_url, replica)
    brand = normal_brands(replica)[0]
    seasons = {a.season_code for s in replica.site.impression.seasons for a in s.articles
               if a.brand_slug == brand.slug}
    runs = crawl_partitions([("brand", brand.slug), *(("season", c) for c in seasons)],
                            DagsterInstance.ephemeral(), env)
    assert all(r["success"] for r in runs)
    execute(database_url, "UPDATE brand_runway_drafts SET status = 'approved'")
    return env


def test_a_clean_catalog_passes_every_check(promoted: dict[str, str],
                                            database_url: str) -> None:
    result, evaluations = promote(promoted)

    assert result.success and set(evaluations) == CHECKS
    assert all(e.passed for e in evaluations.values()), evaluations
    assert evaluations["catalog_photos_stored"].metadata["checked"].value == query(
        database_url, "SELECT count(DISTINCT object_key) FROM brand_runway_images")[0][0] > 0


def test_a_duplicate_source_key_fails_its_blocking_check_and_stops_promotion(
        promoted: dict[str, str], database_url: str) -> None:
    execute(database_url, "DROP INDEX uq_brand_runway_drafts_source")
    [(url,)] = query(database_url, "SELECT min(source_url) FROM brand_runway_drafts")
    execute(database_url,
            "INSERT INTO brand_runway_drafts (source, source_url, brand_slug, season_code)"
            " SELECT source, source_url, brand_slug, season_code FROM brand_runway_drafts"
            " WHERE source_url = :u", u=url)

    result, evaluations = promote(promoted)

    check = evaluations["drafts_source_key_unique"]
    assert not check.passed and check.metadata["violations"].value == 1
    assert [row["source_url"] for row in examples(check)] == [url]
    assert not result.success
    assert not result.asset_materializations_for_node("catalog_entries")
    assert query(database_url, "SELECT count(*) FROM brand_runways") == [(0,)]


def test_a_draft_photo_missing_from_the_store_fails_its_blocking_check(
        promoted: dict[str, str], database_url: str) -> None:
    assert promote(promoted)[0].success
    [(key,)] = query(database_url, "SELECT min(object_key) FROM brand_runway_draft_images")
    store = open_store(promoted["FASHION_STORE_URL"], home=home_dir(promoted))
    assert store.delete(key)

    result, evaluations = promote(promoted)

    check = evaluations["draft_photos_stored"]
    assert not check.passed and check.metadata["violations"].value == 1
    assert [row["object_key"] for row in examples(check)] == [key]
    assert not result.success and "catalog_photos_stored" not in evaluations


def test_a_catalog_photo_missing_from_the_store_fails_the_catalog_storage_check(
        promoted: dict[str, str], database_url: str) -> None:
    assert promote(promoted)[0].success
    absent = hashlib.sha1(b"never stored").hexdigest()
    [(entry,)] = query(database_url, "SELECT min(id) FROM brand_runways")
    execute(database_url, "INSERT INTO brand_runway_images (runway_id, position, object_key,"
                          " content_type, byte_size) VALUES (:r, 9999, :k, 'image/jpeg', 1)",
            r=entry, k=absent)

    _, evaluations = promote(promoted)

    check = evaluations["catalog_photos_stored"]
    assert not check.passed and check.metadata["violations"].value == 1
    assert [row["object_key"] for row in examples(check)] == [absent]
    assert evaluations["draft_photos_stored"].passed
    assert not evaluations["catalog_photos_from_own_drafts"].passed


def test_two_entries_with_one_entity_key_fail_the_uniqueness_check(
        promoted: dict[str, str], database_url: str) -> None:
    assert promote(promoted)[0].success
    drop_entity_key_constraint(database_url)
    [(brand, code)] = query(database_url, "SELECT brand_slug, season_code FROM brand_runways"
                                          " ORDER BY id LIMIT 1")
    execute(database_url, "INSERT INTO brand_runways (id, brand_slug, season_code, created_at,"
                          " updated_at) VALUES (999999, :b, :c, CURRENT_TIMESTAMP,"
                          " CURRENT_TIMESTAMP)", b=brand, c=code)

    _, evaluations = promote(promoted)

    check = evaluations["catalog_entity_key_unique"]
    assert not check.passed and check.metadata["violations"].value == 1
    assert [row["season_code"] for row in examples(check)] == [code]
    assert evaluations["drafts_source_key_unique"].passed


def test_a_photo_of_another_show_in_an_entry_fails_the_mixing_check(
        promoted: dict[str, str], database_url: str) -> None:
    assert promote(promoted)[0].success
    first, second = query(database_url, "SELECT id, season_code FROM brand_runways"
                                         " ORDER BY id LIMIT 2")
    [(stray,)] = query(database_url, "SELECT min(object_key) FROM brand_runway_images"
                                     " WHERE runway_id = :r", r=second[0])
    execute(database_url, "INSERT INTO brand_runway_images (runway_id, position, object_key,"
                          " content_type, byte_size) VALUES (:r, 9999, :k, 'image/jpeg', 1)",
            r=first[0], k=stray)

    _, evaluations = promote(promoted)

    check = evaluations["catalog_photos_from_own_drafts"]
    assert not check.passed and check.metadata["violations"].value == 1
    [row] = examples(check)
    assert (row["object_key"], row["season_code"]) == (stray, first[1])


def drop_entity_key_constraint(database_url: str) -> None:
    """Drop ``UNIQUE (brand_slug, season_code)``: PostgreSQL by name; SQLite, which cannot
    drop a table constraint, by rebuilding the table without it."""
    url = make_url(database_url)
    if url.get_backend_name() == "sqlite":
        conn = sqlite3.connect(url.database)
        conn.execute("PRAGMA foreign_keys=OFF")
        # The photo-count triggers name brand_runways: let the rename leave them be.
        conn.execute("PRAGMA legacy_alter_table=ON")
        conn.executescript("CREATE TABLE loose AS SELECT * FROM brand_runways;"
                           " DROP TABLE brand_runways; ALTER TABLE loose RENAME TO brand_runways;")
        conn.close()
        return
    [(name,)] = query(database_url, "SELECT conname FROM pg_constraint WHERE conrelid ="
                                    " 'brand_runways'::regclass AND contype = 'u'")
    execute(database_url, f'ALTER TABLE brand_runways DROP CONSTRAINT "{name}"')
