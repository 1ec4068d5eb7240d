"""Two crawls of the replica's ``hostile-house`` brand through Dagster, and what they left
behind read once (catalog rows, stored objects, the event log, the replica's requests): the
data test_hostile_input.py checks every case of the hostile table against.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dagster import AssetKey, DagsterInstance
from sqlalchemy import create_engine, text

from fashion_assets.replica import (
    HOSTILE_BRAND,
    ReplicaBrand,
    ReplicaServer,
)
from tests.catalog_db import snapshot
from tests.conftest import pipeline_env
from tests.pipeline import crawl_brands


@dataclass(frozen=True)
class Crawl:
    """What two crawls of the hostile brand left behind, read once for every case."""

    replica: ReplicaServer
    home: Path
    first: dict[str, Any]
    second: dict[str, Any]
    skip_notes: list[str]
    skipped_entries: int
    log: list[tuple[str, str, str, str, str]]  # run id, source URL, stage, outcome, reason
    shows: dict[str, str]  # source URL -> title
    manifests: dict[str, tuple[str, int]]  # source URL -> page title, expected images
    captions: dict[str, list[str | None]]  # source URL -> captions in position order
    drafts: dict[str, tuple[str, str, int, str, int]]  # URL -> title, season, year, type, expected
    images: dict[tuple[str, int], tuple[str, str, str]]  # (URL, position) -> key, type, URL
    missing: dict[tuple[str, int], str]  # (URL, position) -> reason
    tables: dict[str, list[tuple[Any, ...]]]  # after the first crawl
    tables_again: dict[str, list[tuple[Any, ...]]]  # after the second crawl
    objects: dict[str, tuple[int, int, int]]  # key -> inode, size, mtime, after the first crawl
    objects_again: dict[str, tuple[int, int, int]]
    requested: frozenset[str]  # every path the replica was asked for

    @property
    def brand(self) -> ReplicaBrand:
        brand = self.replica.site.brand(HOSTILE_BRAND)
        assert brand is not None
        return brand

    @property
    def objects_dir(self) -> Path:
        return self.home / "objects"

    def log_of(self, url: str, stage: str, run: str = "") -> list[tuple[str, str]]:
        """(outcome, reason) of the log rows of one show and stage, of one run or both."""
        return [(outcome, reason) for run_id, source_url, row_stage, outcome, reason in self.log
                if source_url == url and row_stage == stage and run in ("", run_id)]


def crawl_twice(home: Path, database_url: str, replica: ReplicaServer) -> Crawl:
    env = pipeline_env(home, database_url, f"file://{home / 'objects'}", replica)
    instance = DagsterInstance.ephemeral()
    [first] = crawl_brands([HOSTILE_BRAND], instance, env)
    tables, objects = snapshot(database_url), stored_objects(home / "objects")
    [second] = crawl_brands([HOSTILE_BRAND], instance, env)
    listing = instance.get_latest_materialization_event(AssetKey("runway_show_listings"))
    assert listing is not None and listing.asset_materialization is not None
    engine = create_engine(database_url)
    try:
        with engine.connect() as conn:
            def rows(sql: str) -> list[tuple[Any, ...]]:
                return [tuple(row) for row in conn.execute(text(sql))]

            captions: dict[str, list[str | None]] = {}
            for url, caption in rows("SELECT s.source_url, i.caption FROM runway_manifest_images i"
                                     " JOIN runway_shows s ON s.id = i.show_id"
                                     " ORDER BY s.source_url, i.position"):
                captions.setdefault(url, []).append(caption)
            return Crawl(
                replica=replica,
                home=home,
                first=first,
                second=second,
                skip_notes=[entry.user_message for entry in instance.all_logs(first["run_id"])
                            if "skipped listing entry" in entry.user_message],
                skipped_entries=listing.asset_materialization.metadata["skipped_entries"].value,
                log=rows("SELECT run_id, source_url, stage, outcome, reason FROM ingest_log"
                         " ORDER BY id"),
                shows=dict(rows("SELECT source_url, title FROM runway_shows")),
                manifests={url: (title, expected) for url, title, expected in rows(
                    "SELECT s.source_url, m.page_title, m.expected_images FROM"
                    " runway_show_manifests m JOIN runway_shows s ON s.id = m.show_id")},
                captions=captions,
                drafts={url: rest for url, *rest in rows(
                    "SELECT source_url, title, season, year, collection_type, expected_images"
                    " FROM brand_runway_drafts")},
                images={(url, position): rest for url, position, *rest in rows(
                    "SELECT d.source_url, i.position, i.object_key, i.content_type,"
                    " i.source_image_url FROM brand_runway_draft_images i"
                    " JOIN brand_runway_drafts d ON d.id = i.draft_id")},
                missing={(url, position): reason for url, position, reason in rows(
                    "SELECT s.source_url, m.position, m.reason FROM runway_missing_images m"
                    " JOIN runway_shows s ON s.id = m.show_id")},
                tables=tables,
                tables_again=snapshot(database_url),
                objects=objects,
                objects_again=stored_objects(home / "objects"),
                requested=frozenset(replica.stats().by_path),
            )
    finally:
        engine.dispose()


def stored_objects(root: Path) -> dict[str, tuple[int, int, int]]:
    """Every file of the store by name, with what a rewrite would change."""
    return {path.name: (path.stat().st_ino, path.stat().st_size, path.stat().st_mtime_ns)
            for path in root.rglob("*") if path.is_file()}
