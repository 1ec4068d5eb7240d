"""The media_cleanup job over real stores (disk, S3 server) and catalogs (SQLite, PostgreSQL).

Objects are written now; the job's clock (``FASHION_CLOCK``) is moved ahead instead of
sleeping, so "older than the grace period" is a setting of the test, not a wait.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from dagster import ExecuteInProcessResult, build_schedule_context
from sqlalchemy import Engine, text

from fashion_assets.catalog.derivatives import derivative_of, record_derivative
from fashion_assets.catalog.media import IMAGE_TABLES, referenced_keys
from fashion_assets.catalog.runway import add_brand
from fashion_assets.definitions import build_definitions
from fashion_assets.domain.cleanup import CleanupSummary
from fashion_assets.jobs.cleanup import JOB_NAME, OP_NAME
from fashion_assets.resources import catalog_engine, resources_from_env
from fashion_assets.storage import ObjectStore, object_key, open_store
from fashion_assets.storage.file import TEMP_PREFIX
from tests.catalog_db import query

# One photo per table that may reference it, plus the orphan and a young orphan.
REFERENCED = {table: f"photo kept by {table}".encode() for table in IMAGE_TABLES}
ORPHAN = b"photo of a purged draft"


def _env(home: Path, database_url: str, store_url: str, clock: datetime,
         **overrides: str) -> dict[str, str]:
    env = {"FASHION_HOME": str(home), "FASHION_DATABASE_URL": database_url,
           "FASHION_STORE_URL": store_url, "FASHION_CLOCK": clock.isoformat()}
    env.update(overrides)
    return env


def _run(env: dict[str, str], **config: Any) -> tuple[CleanupSummary, dict[str, Any]]:
    """Run the job as the code location defines it; its summary and output metadata."""
    job = build_definitions(env).resolve_job_def(JOB_NAME)
    result: ExecuteInProcessResult = job.execute_in_process(
        run_config={"ops": {OP_NAME: {"config": config}}})
    assert result.success
    [output] = [event for event in result.events_for_node(OP_NAME)
                if event.event_type_value == "STEP_OUTPUT"]
    metadata = {name: getattr(value, "value", value)
                for name, value in output.step_output_data.metadata.items()}
    return result.output_for_node(OP_NAME), metadata


def _listed(metadata: dict[str, Any]) -> list[dict[str, Any]]:
    """The rows of the run's table of keys removed (or to remove)."""
    return [dict(record.data) for record in metadata["keys"].records]


def _reference_in_every_table(engine: Engine) -> None:
    """Minimal parent rows, then one image row per table, each naming its own photo."""
    add_brand(engine, "chloe", "Chloé")
    with engine.begin() as conn:
        ids = {
            "brand_runway_draft_images": conn.execute(text(
                "INSERT INTO brand_runway_drafts (brand_slug, season_code)"
                " VALUES ('chloe', 'fall-2024-ready-to-wear') RETURNING id")).scalar_one(),
            "brand_runway_images": conn.execute(text(
                "INSERT INTO brand_runways (brand_slug, season_code)"
                " VALUES ('chloe', 'fall-2024-ready-to-wear') RETURNING id")).scalar_one(),
            "street_snap_draft_images": conn.execute(text(
                "INSERT INTO street_snap_drafts (city, year, month)"
                " VALUES ('paris', 2026, 3) RETURNING id")).scalar_one(),
            "street_snap_images": conn.execute(text(
                "INSERT INTO street_snaps (city, year, month)"
                " VALUES ('paris', 2026, 3) RETURNING id")).scalar_one(),
        }
        # An alternate belongs to a catalog entry, beside the photo the entry keeps.
        ids["brand_runway_image_alternates"] = ids["brand_runway_images"]
        ids["street_snap_image_alternates"] = ids["street_snap_images"]
        parent = {"brand_runway_draft_images": "draft_id", "brand_runway_images": "runway_id",
                  "brand_runway_image_alternates": "runway_id",
                  "street_snap_draft_images": "draft_id", "street_snap_images": "snap_id",
                  "street_snap_image_alternates": "snap_id"}
        for table, data in REFERENCED.items():
            if table.endswith("_alternates"):
                conn.execute(
                    text(f"INSERT INTO {table} ({parent[table]}, object_key, kept_key,"
                         " content_type, byte_size, distance) VALUES (:id, :key, 'kept',"
                         " 'image/jpeg', :size, 4)"),
                    {"id": ids[table], "key": object_key(data), "size": len(data)})
                continue
            extra = ", source_image_url" if table.endswith("draft_images") else ""
            conn.execute(
                text(f"INSERT INTO {table} ({parent[table]}, position, object_key,"
                     f" content_type, byte_size{extra}) VALUES (:id, 1, :key, 'image/jpeg',"
                     f" :size{', :url' if extra else ''})"),
                {"id": ids[table], "key": object_key(data), "size": len(data),
                 "url": "https://assets.example/p.jpg"})


@pytest.fixture
def setup(tmp_path: Path, database_url: str, store_url: str) -> tuple[ObjectStore, Engine]:
    """A store holding every referenced photo and one orphan, and a catalog that references
    exactly the former."""
    store = open_store(store_url, home=tmp_path)
    for data in (*REFERENCED.values(), ORPHAN):
        assert store.put(object_key(data), data, "image/jpeg")
    engine = catalog_engine(database_url)
    _reference_in_every_table(engine)
    return store, engine


def _later(**delta: float) -> datetime:
    return datetime.now(UTC) + timedelta(**delta)


def test_an_old_orphan_goes_and_every_referenced_object_stays(
        tmp_path: Path, database_url: str, store_url: str,
        setup: tuple[ObjectStore, Engine]) -> None:
    store, _ = setup

    summary, metadata = _run(_env(tmp_path, database_url, store_url, _later(days=2)))

    assert not store.exists(object_key(ORPHAN))
    for table, data in REFERENCED.items():
        assert store.get(object_key(data)) == data, table
    assert (summary.scanned, summary.orphans, summary.removed) == (len(REFERENCED) + 1, 1, 1)
    assert metadata["objects_removed"] == 1
    assert metadata["bytes_removed"] == len(ORPHAN)
    assert metadata["objects_scanned"] == len(REFERENCED) + 1 and metadata["dry_run"] is False
    assert _listed(metadata) == [{"key": object_key(ORPHAN), "bytes": len(ORPHAN)}]

    again, _ = _run(_env(tmp_path, database_url, store_url, _later(days=2)))
    assert (again.scanned, again.removed, again.bytes_removed) == (len(REFERENCED), 0, 0)


def test_a_young_orphan_stays(tmp_path: Path, database_url: str, store_url: str,
                              setup: tuple[ObjectStore, Engine]) -> None:
    store, _ = setup

    summary, metadata = _run(_env(tmp_path, database_url, store_url, _later(hours=1)))

    assert store.get(object_key(ORPHAN)) == ORPHAN
    assert (summary.orphans, metadata["objects_removed"], metadata["bytes_removed"]) == (0, 0, 0)


def test_the_grace_period_comes_from_the_setting_and_the_run_config(
        tmp_path: Path, database_url: str, store_url: str,
        setup: tuple[ObjectStore, Engine]) -> None:
    store, _ = setup
    env = _env(tmp_path, database_url, store_url, _later(hours=3),
               FASHION_CLEANUP_GRACE_HOURS="6")

    _run(env)
    assert store.exists(object_key(ORPHAN))  # 3 hours old, 6 hours of grace

    summary, _ = _run(env, grace_hours=2.0)
    assert not store.exists(object_key(ORPHAN))
    assert summary.bytes_removed == len(ORPHAN)


def test_a_dry_run_deletes_nothing_but_lists_the_orphan(
        tmp_path: Path, database_url: str, store_url: str,
        setup: tuple[ObjectStore, Engine]) -> None:
    store, _ = setup

    summary, metadata = _run(_env(tmp_path, database_url, store_url, _later(days=2)),
                             dry_run=True)

    assert store.get(object_key(ORPHAN)) == ORPHAN
    assert store.stats().objects == len(REFERENCED) + 1
    assert metadata["dry_run"] is True
    assert (metadata["orphans_found"], metadata["orphan_bytes"]) == (1, len(ORPHAN))
    assert (metadata["objects_removed"], metadata["bytes_removed"]) == (0, 0)
    assert summary.listed_keys == [(object_key(ORPHAN), len(ORPHAN))]
    assert _listed(metadata) == [{"key": object_key(ORPHAN), "bytes": len(ORPHAN)}]


def test_referenced_keys_asks_in_bounded_batches(database_url: str,
                                                 setup: tuple[ObjectStore, Engine]) -> None:
    _, engine = setup
    wanted = [object_key(data) for data in REFERENCED.values()]
    strangers = [f"{n:040x}" for n in range(1200)]

    found = referenced_keys(engine, [*strangers, *wanted, wanted[0]], batch_size=7)

    assert found == set(wanted)
    assert referenced_keys(engine, []) == set()


def test_stale_temp_files_of_the_file_store_go_and_fresh_ones_stay(
        tmp_path: Path, database_url: str) -> None:
    store_url = f"file://{tmp_path / 'objects'}"
    store = open_store(store_url, home=tmp_path)
    store.put(object_key(ORPHAN), ORPHAN, "image/jpeg")
    shard = tmp_path / "objects" / object_key(ORPHAN)[:2]
    clock = _later(days=2)
    stale, fresh = shard / f"{TEMP_PREFIX}killed", shard / f"{TEMP_PREFIX}in-flight"
    stale.write_bytes(b"half")  # written now: two days before the job's clock
    fresh.write_bytes(b"half")
    recent = (clock - timedelta(hours=1)).timestamp()
    os.utime(fresh, (recent, recent))

    dry, _ = _run(_env(tmp_path, database_url, store_url, clock), dry_run=True)
    assert dry.temp_files_removed == 0 and stale.exists()

    summary, metadata = _run(_env(tmp_path, database_url, store_url, clock))

    assert metadata["temp_files_removed"] == 1
    assert not stale.exists() and fresh.exists()
    assert summary.removed == 1  # the orphan went too; the temp files never counted as objects
    assert summary.scanned == 1


def test_the_schedule_runs_daily_for_real_at_the_configured_time(tmp_path: Path) -> None:
    defs = build_definitions({"FASHION_HOME": str(tmp_path)})
    schedule = defs.resolve_schedule_def("media_cleanup_schedule")
    assert schedule.cron_schedule == "0 4 * * *" and schedule.job_name == JOB_NAME
    assert schedule.execution_timezone == "UTC"

    env = {"FASHION_HOME": str(tmp_path), "FASHION_CLEANUP_CRON": "30 2 * * *"}
    custom = build_definitions(env)
    schedule = custom.resolve_schedule_def("media_cleanup_schedule")
    assert schedule.cron_schedule == "30 2 * * *"
    with build_schedule_context(resources=resources_from_env(env)) as context:
        [request] = schedule.evaluate_tick(context).run_requests or []
    assert request.run_config == {"ops": {OP_NAME: {"config": {"dry_run": False}}}}


@pytest.mark.parametrize("value", ["soon", "-1", "nan"])
def test_a_bad_grace_setting_fails_at_load_with_its_name(tmp_path: Path, value: str) -> None:
    with pytest.raises(ValueError, match="FASHION_CLEANUP_GRACE_HOURS"):
        build_definitions({"FASHION_HOME": str(tmp_path), "FASHION_CLEANUP_GRACE_HOURS": value})


def test_a_thumbnail_stays_with_its_photo_and_goes_with_it(
        tmp_path: Path, database_url: str, store_url: str,
        setup: tuple[ObjectStore, Engine]) -> None:
    """A derivative is no orphan while its photo is referenced; once the photo is one, both
    go (the photo in the first run, its thumbnail at the latest in the next), and their row
    with them."""
    store, engine = setup
    kept = object_key(REFERENCED["brand_runway_draft_images"])
    kept_thumb, lost_thumb = b"thumbnail of a kept photo", b"thumbnail of the orphan"
    for photo, thumb in ((kept, kept_thumb), (object_key(ORPHAN), lost_thumb)):
        store.put(object_key(thumb), thumb, "image/webp")
        record_derivative(engine, photo, "w320.webp", object_key(thumb), len(thumb))

    _run(_env(tmp_path, database_url, store_url, _later(days=2)))
    _run(_env(tmp_path, database_url, store_url, _later(days=2)))

    assert store.get(object_key(kept_thumb)) == kept_thumb
    assert derivative_of(engine, kept, "w320.webp") == object_key(kept_thumb)
    assert not store.exists(object_key(ORPHAN)) and not store.exists(object_key(lost_thumb))
    assert derivative_of(engine, object_key(ORPHAN), "w320.webp") is None


def test_the_hashes_of_a_removed_photo_go_with_it(
        tmp_path: Path, database_url: str, store_url: str,
        setup: tuple[ObjectStore, Engine]) -> None:
    _, engine = setup
    kept, orphan = object_key(REFERENCED["street_snap_images"]), object_key(ORPHAN)
    with engine.begin() as conn:
        for key in (kept, orphan):
            conn.execute(text("INSERT INTO photo_hashes (photo_key, phash, dhash)"
                              " VALUES (:k, :p, :d)"), {"k": key, "p": "0" * 16, "d": "f" * 16})

    _run(_env(tmp_path, database_url, store_url, _later(days=2)))

    assert query(database_url, "SELECT photo_key, phash, dhash FROM photo_hashes") == [
        (kept, "0" * 16, "f" * 16)]
