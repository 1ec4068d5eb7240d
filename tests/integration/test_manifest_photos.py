"""The photos of a show are fetched with its manifest, while the next show page waits for its
turn, and the drafts step of the same run writes the drafts without a download; over the
replica, SQLite and PostgreSQL, and a file store."""

from __future__ import annotations

import asyncio
import hashlib
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import unquote, urlsplit

from dagster import AssetKey, DagsterInstance

from fashion_assets.catalog import runway as catalog
from fashion_assets.crawl.runway import SHOWS_AHEAD_FACTOR, ManifestChunks
from fashion_assets.replica import (
    HOSTILE_BRAND,
    ReplicaServer,
    build_site,
    photo_bytes,
    start_replica,
)
from fashion_assets.resources import catalog_engine
from tests.catalog_db import query
from tests.conftest import pipeline_env, store_manifests
from tests.pipeline import crawl_brands


def _metadata(instance: DagsterInstance, asset: str) -> dict[str, object]:
    event = instance.get_latest_materialization_event(AssetKey(asset))
    assert event is not None and event.asset_materialization is not None
    return {k: v.value for k, v in event.asset_materialization.metadata.items()}


def test_a_crawl_fetches_each_photo_once_while_its_pages_wait_their_turn(
        tmp_path: Path, database_url: str) -> None:
    site = build_site(brands=1, shows_per_brand=6, photos_per_show=3, hostile=False, seed=8)
    [brand] = site.brands
    with start_replica(site) as server:
        env = pipeline_env(tmp_path, database_url, f"file://{tmp_path / 'objects'}", server,
                           FASHION_PAGE_DELAY="0.1")
        instance = DagsterInstance.ephemeral()

        [summary] = crawl_brands([brand.slug], instance, env)

        stats = server.stats()
        pages = server.arrivals("site", "page")
        photos_arrived = server.arrivals("cdn", "image")
    assert summary["success"], summary
    photo_paths = {unquote(urlsplit(url).path) for show in brand.shows for url in _photo_urls(
        database_url, show.path)}
    assert len(photo_paths) == sum(len(show.photos) for show in brand.shows) == 18
    assert all(stats.by_path[path] == 1 for path in photo_paths), stats.by_path
    # Photos went out between the show pages, not after the last one.
    assert min(photos_arrived) < max(pages)
    manifests = _metadata(instance, "runway_image_manifests")
    assert (manifests["photos_stored"], manifests["photos_missing"]) == (18, 0)
    # The drafts step took them as they were: every draft complete, with the photos' sha1.
    for show in brand.shows:
        keys = [k for (k,) in query(
            database_url, "SELECT i.object_key FROM brand_runway_draft_images i JOIN"
            " brand_runway_drafts d ON d.id = i.draft_id WHERE d.source_url = :url"
            " ORDER BY i.position", url=f"https://www.vogue.com{show.path}")]
        assert keys == [hashlib.sha1(photo_bytes(site, p.photo_id)).hexdigest()
                        for p in show.photos]
    assert query(database_url, "SELECT count(DISTINCT run_id), count(*), count(object_key)"
                               " FROM runway_manifest_photos") == [(1, 18, 18)]


def test_a_later_run_fetches_again_the_photos_an_earlier_run_fetched_with_the_manifests(
        tmp_path: Path, database_url: str) -> None:
    site = build_site(brands=1, shows_per_brand=2, photos_per_show=3, hostile=False, seed=9)
    [brand] = site.brands
    with start_replica(site) as server:
        env = pipeline_env(tmp_path, database_url, f"file://{tmp_path / 'objects'}", server)
        store_manifests(env, brand.slug)
        fetched_first = server.stats().by_path
        server.reset_stats()

        [summary] = crawl_brands([brand.slug], DagsterInstance.ephemeral(), env)

        again = server.stats()
    assert summary["success"], summary
    assert summary["shows"]["created"] == 2
    photo_paths = [path for path in fetched_first if path.startswith("/photos/")]
    assert len(photo_paths) == 6
    # The earlier run's photos are not taken: they are fetched again, once each.
    assert all(again.by_path.get(path) == 1 for path in photo_paths), again.by_path
    assert query(database_url, "SELECT count(*) FROM brand_runway_draft_images") == [(6,)]


def test_a_photo_that_failed_with_its_manifest_is_not_asked_again_in_that_run(
        tmp_path: Path, replica: ReplicaServer) -> None:
    """The hostile brand's faulty photos: a whole crawl asks the replica exactly what its
    listing and manifests steps alone ask, and records the same missing photos."""
    def env(name: str) -> dict[str, str]:
        return pipeline_env(tmp_path / name, f"sqlite:///{tmp_path / name}.db",
                            f"file://{tmp_path / name / 'objects'}", replica)

    replica.reset_stats()
    [summary] = crawl_brands([HOSTILE_BRAND], DagsterInstance.ephemeral(), env("crawl"))
    whole_crawl = replica.stats().by_path
    replica.reset_stats()
    store_manifests(env("manifests"), HOSTILE_BRAND)
    manifests_only = replica.stats().by_path

    assert summary["success"], summary
    assert whole_crawl == manifests_only
    missing = query(f"sqlite:///{tmp_path / 'crawl'}.db",
                    "SELECT url, reason FROM runway_missing_images")
    fetched_missing = query(f"sqlite:///{tmp_path / 'manifests'}.db",
                            "SELECT url, reason FROM runway_manifest_photos"
                            " WHERE object_key IS NULL")
    assert missing and sorted(missing) == sorted(fetched_missing)


def _photo_urls(database_url: str, show_path: str) -> list[str]:
    return [url for (url,) in query(
        database_url, "SELECT i.url FROM runway_manifest_images i JOIN runway_shows s"
        " ON s.id = i.show_id WHERE s.source_url = :url",
        url=f"https://www.vogue.com{show_path}")]


def test_with_photos_with_manifests_off_the_manifests_step_downloads_no_photo(
        tmp_path: Path) -> None:
    site = build_site(brands=1, shows_per_brand=2, photos_per_show=3, hostile=False, seed=10)
    [brand] = site.brands
    database_url = f"sqlite:///{tmp_path / 'catalog.db'}"
    with start_replica(site) as server:
        env = pipeline_env(tmp_path, database_url, f"file://{tmp_path / 'objects'}", server,
                           FASHION_PHOTOS_WITH_MANIFESTS="false")
        store_manifests(env, brand.slug)
        assert server.stats().image_requests == 0
        assert query(database_url, "SELECT count(*) FROM runway_show_manifests") == [(2,)]

        [summary] = crawl_brands([brand.slug], DagsterInstance.ephemeral(), env)

        photo_requests = {path: n for path, n in server.stats().by_path.items()
                          if path.startswith("/photos/")}
    assert summary["success"] and summary["shows"]["created"] == 2, summary
    assert len(photo_requests) == 6 and set(photo_requests.values()) == {1}
    assert query(database_url, "SELECT count(*) FROM runway_manifest_photos") == [(0,)]


def test_show_pages_wait_while_the_photos_of_the_shows_read_ahead_wait(
        tmp_path: Path, database_url: str) -> None:
    """Backpressure: with every photo held at the replica's gate, the manifests step reads
    ``SHOWS_AHEAD_FACTOR`` times the show concurrency of show pages, then asks for no more
    until their photos are stored; released, the crawl drafts every show."""
    site = build_site(brands=1, shows_per_brand=10, photos_per_show=3, hostile=False, seed=12)
    [brand] = site.brands
    show_paths = {show.path for show in brand.shows}
    read_ahead = SHOWS_AHEAD_FACTOR * 1  # FASHION_SHOW_CONCURRENCY=1

    def pages_read(server: ReplicaServer) -> int:
        return sum(n for path, n in server.stats().by_path.items() if path in show_paths)

    def watch(server: ReplicaServer) -> tuple[int, int]:
        try:
            # The shows read ahead, their photos waiting at the gate ...
            assert server.wait_held(1, timeout=30), "no photo requested"
            deadline = time.monotonic() + 30
            while pages_read(server) < read_ahead and time.monotonic() < deadline:
                time.sleep(0.02)  # polling interval of a real condition
            held_at = pages_read(server)
            # ... and no further page asked for while they wait (a bounded wait for a
            # request that must not come; without backpressure every page comes at once).
            deadline = time.monotonic() + 1.0
            while time.monotonic() < deadline and pages_read(server) == held_at:
                time.sleep(0.02)  # polling interval of a real condition
            return held_at, pages_read(server)
        finally:
            server.release_images()

    with start_replica(site) as server, ThreadPoolExecutor(1) as pool:
        env = pipeline_env(tmp_path, database_url, f"file://{tmp_path / 'objects'}", server,
                           FASHION_SHOW_CONCURRENCY="1")
        server.hold_images(after=0)
        pages = pool.submit(watch, server)
        [summary] = crawl_brands([brand.slug], DagsterInstance.ephemeral(), env)
        held_at, after_a_second = pages.result()

    assert (held_at, after_a_second) == (read_ahead, read_ahead)
    assert summary["success"] and summary["shows"]["created"] == 10, summary


def test_the_drafts_step_reads_manifests_a_chunk_of_shows_at_a_time(
        tmp_path: Path, database_url: str) -> None:
    """``ManifestChunks``: each show gets its own manifest and fetched photos; a chunk is
    read once while it is held; reading one drops those older than the one before it, and a
    dropped one is read again."""
    site = build_site(brands=1, shows_per_brand=5, photos_per_show=3, hostile=False, seed=13)
    [brand] = site.brands
    with start_replica(site) as server:
        env = pipeline_env(tmp_path, database_url, f"file://{tmp_path / 'objects'}", server)
        store_manifests(env, brand.slug)
    engine = catalog_engine(database_url)
    ids = [show_id for (show_id,) in query(database_url,
                                           "SELECT id FROM runway_shows ORDER BY id")]
    images = catalog.manifest_images(engine, ids)
    photos = catalog.manifest_photos(engine, ids)
    assert len(ids) == 5 and all(len(images[i]) == len(photos[i]) == 3 for i in ids)

    async def read_in(order: list[int]) -> tuple[list[object], int]:
        chunks = ManifestChunks(engine, ids, size=2)  # chunks: ids[0:2], ids[2:4], ids[4:]
        read = [await chunks.read(ids[n]) for n in order]
        return read, chunks.reads

    read, reads = asyncio.run(read_in([0, 1, 2, 3, 4]))
    assert read == [(images[i], photos[i]) for i in ids] and reads == 3
    # Chunk 0 is dropped once chunk 2 is read, and read again; chunk 1 is still held.
    read, reads = asyncio.run(read_in([0, 4, 0, 2, 1]))
    assert read == [(images[ids[n]], photos[ids[n]]) for n in (0, 4, 0, 2, 1)] and reads == 4
