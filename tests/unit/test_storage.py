"""Object stores, on disk and on S3: the same contract, checked against real backends (what
the S3 backend does of its own, and ``open_store``, are test_store_s3_and_urls.py).

S3 means a real moto_server over HTTP on loopback, so requests, conditional writes and error
parsing all go through boto3 exactly as they would against AWS.
"""

from __future__ import annotations

import os
import resource
import signal
import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path

import boto3
import pytest

from fashion_assets.storage import (
    FileStore,
    ObjectStore,
    S3Store,
    StoreStats,
    is_object_key,
    object_key,
)
from fashion_assets.storage.base import StoredObject
from fashion_assets.storage.file import TEMP_PREFIX, _place
from tests.s3server import S3Server
from tests.unit.conftest import OTHER, PHOTO, PREFIX, s3_store

# --- keys -------------------------------------------------------------------------------------


def test_object_key_is_sha1_hex() -> None:
    assert object_key(b"") == "da39a3ee5e6b4b0d3255bfef95601890afd80709"
    assert is_object_key(object_key(PHOTO))


BAD_KEYS = [
    "../x",
    object_key(PHOTO).upper(),
    "abc123",
    f"{object_key(PHOTO)[:2]}/{object_key(PHOTO)[3:]}",
    f"{object_key(PHOTO)}\n",
    "",
]


@pytest.mark.parametrize("key", BAD_KEYS)
def test_invalid_keys_are_rejected_before_any_io(store: ObjectStore, key: str) -> None:
    assert not is_object_key(key)
    with pytest.raises(ValueError, match="not an object key"):
        store.put(key, PHOTO, "image/jpeg")
    with pytest.raises(ValueError):
        store.exists(key)
    with pytest.raises(ValueError):
        store.get(key)
    with pytest.raises(ValueError):
        store.missing([object_key(PHOTO), key])
    assert store.stats() == StoreStats(0, 0)


# --- the contract, on both stores -------------------------------------------------------------


def test_put_is_create_only(store: ObjectStore) -> None:
    key = object_key(PHOTO)
    assert store.put(key, PHOTO, "image/jpeg") is True
    assert store.put(key, PHOTO, "image/jpeg") is False
    assert store.get(key) == PHOTO
    store.sync()


def test_a_key_that_does_not_name_its_bytes_is_refused(store: ObjectStore) -> None:
    with pytest.raises(ValueError, match="not the sha1"):
        store.put(object_key(PHOTO), OTHER, "image/png")
    assert not store.exists(object_key(PHOTO))


def test_a_file_left_short_by_a_power_cut_is_replaced(tmp_path: Path) -> None:
    store = FileStore(tmp_path / "objects")
    key = object_key(PHOTO)
    damaged = tmp_path / "objects" / key[:2] / key
    damaged.parent.mkdir(parents=True)
    damaged.write_bytes(PHOTO[:3])

    assert store.put(key, PHOTO, "image/jpeg") is True
    assert store.get(key) == PHOTO


def test_finding_a_stored_photo_again_refreshes_its_time(tmp_path: Path) -> None:
    """Media cleanup keeps orphans younger than its grace period: a photo an ingest has just
    found again must look young, or it could be removed before its draft commits."""
    store = FileStore(tmp_path / "objects")
    key = object_key(PHOTO)
    store.put(key, PHOTO, "image/jpeg")
    path = tmp_path / "objects" / key[:2] / key
    os.utime(path, (0, 0))

    assert store.put(key, PHOTO, "image/jpeg") is False
    assert path.stat().st_mtime > 10**9


def test_exists_get_and_missing(store: ObjectStore) -> None:
    stored, absent = object_key(PHOTO), object_key(OTHER)
    store.put(stored, PHOTO, "image/jpeg")
    assert store.exists(stored)
    assert not store.exists(absent)
    with pytest.raises(KeyError):
        store.get(absent)
    assert store.missing([stored, absent, absent]) == {absent}
    assert store.missing(iter([stored])) == set()
    assert store.missing([]) == set()


def test_stats_counts_objects_and_bytes(store: ObjectStore) -> None:
    assert store.stats() == StoreStats(0, 0)
    for data in (PHOTO, OTHER, PHOTO):
        store.put(object_key(data), data, "image/jpeg")
    assert store.stats() == StoreStats(objects=2, bytes=len(PHOTO) + len(OTHER))


def test_concurrent_puts_of_one_key_have_one_winner(store: ObjectStore) -> None:
    key = object_key(PHOTO)
    start = threading.Barrier(8)

    def put() -> bool:
        start.wait()
        return store.put(key, PHOTO, "image/jpeg")

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda _: put(), range(8)))
    assert results.count(True) == 1
    assert store.get(key) == PHOTO
    assert store.stats() == StoreStats(1, len(PHOTO))


def _race_for_one_key(store: ObjectStore, data: bytes) -> tuple[list[bool], bool]:
    """Eight puts of ``data`` at once and a reader of its key: the puts' answers, and whether
    the reader ever lost sight of the object after seeing it."""
    key = object_key(data)
    start = threading.Barrier(9)
    placed = threading.Event()

    def read() -> bool:
        start.wait()
        seen = lapsed = False
        while not placed.is_set() or not seen:
            now = store.exists(key)
            lapsed = lapsed or (seen and not now)
            seen = seen or now
        return lapsed

    def put() -> bool:
        start.wait()
        return store.put(key, data, "image/jpeg")

    with ThreadPoolExecutor(max_workers=9) as pool:
        reader = pool.submit(read)
        results = list(pool.map(lambda _: put(), range(8)))
        placed.set()
        return results, reader.result()


def test_racing_file_puts_never_see_a_half_placed_object(tmp_path: Path) -> None:
    """Round after round, writers of one new key and a reader: one winner, and once the
    object is seen it stays seen (no moment where a put's placing looks like a plant)."""
    store = FileStore(tmp_path / "objects")
    for round_ in range(40):
        data = PHOTO + round_.to_bytes(2, "big")
        results, lapsed = _race_for_one_key(store, data)
        assert results.count(True) == 1, round_
        assert not lapsed, round_
        key = object_key(data)
        assert os.stat(tmp_path / "objects" / key[:2] / key).st_nlink == 1
    assert store.stats().objects == 40


@pytest.mark.parametrize("renameat2", [True, False], ids=["renameat2", "link"])
def test_placing_an_object_never_replaces_a_taken_name(tmp_path: Path, renameat2: bool) -> None:
    taken, free = tmp_path / "taken", tmp_path / "free"
    taken.write_bytes(b"first")
    temp = tmp_path / f"{TEMP_PREFIX}x"
    temp.write_bytes(b"second")
    with pytest.raises(FileExistsError):
        _place(temp, taken, renameat2=renameat2)
    assert taken.read_bytes() == b"first"
    _place(temp, free, renameat2=renameat2)
    assert free.read_bytes() == b"second"
    assert temp.exists() is not renameat2  # the link leaves the temp name for put to unlink


def test_url_names_the_store_without_secrets(store: ObjectStore) -> None:
    assert store.url.startswith(("file:///", "s3://test-"))
    assert "testing" not in store.url


# --- file store -------------------------------------------------------------------------------


def test_file_layout_fans_out_by_key_prefix(tmp_path: Path) -> None:
    store = FileStore(tmp_path / "objects")
    assert not store.root.exists()  # created lazily, on the first write
    key = object_key(PHOTO)
    store.put(key, PHOTO, "image/jpeg")
    shard = tmp_path / "objects" / key[:2]
    assert [path.name for path in shard.iterdir()] == [key]  # no temp file left behind
    assert (shard / key).read_bytes() == PHOTO


def test_file_stats_ignore_temp_and_stray_files(tmp_path: Path) -> None:
    store = FileStore(tmp_path)
    key = object_key(PHOTO)
    store.put(key, PHOTO, "image/jpeg")
    (tmp_path / key[:2] / f"{TEMP_PREFIX}crashed").write_bytes(b"half a photo")
    (tmp_path / "README").write_text("not an object")
    (tmp_path / "zz").mkdir()
    (tmp_path / "zz" / key).write_bytes(PHOTO)  # a real key, but in the wrong shard
    assert store.stats() == StoreStats(1, len(PHOTO))


def test_failed_file_write_leaves_nothing_behind(tmp_path: Path) -> None:
    store = FileStore(tmp_path)
    data = b"x" * 100_000
    key = object_key(data)
    # A real write failure: the process may not write files over 10 kB (EFBIG).
    previous = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (10_000, hard))
    try:
        with pytest.raises(OSError):
            store.put(key, data, "image/jpeg")
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, previous)
    assert list((tmp_path / key[:2]).iterdir()) == []
    assert not store.exists(key)


# --- listing and deleting, for media cleanup --------------------------------------------------


def _listing(store: ObjectStore) -> dict[str, StoredObject]:
    return {item.key: item for item in store.iter_objects()}


def test_iter_objects_lists_every_object_with_size_and_utc_time(store: ObjectStore) -> None:
    assert list(store.iter_objects()) == []
    before = datetime.now(UTC) - timedelta(seconds=2)  # S3 times have whole seconds
    for data in (PHOTO, OTHER):
        store.put(object_key(data), data, "image/jpeg")
    after = datetime.now(UTC) + timedelta(seconds=2)

    listing = _listing(store)

    assert {key: item.size for key, item in listing.items()} == {
        object_key(PHOTO): len(PHOTO), object_key(OTHER): len(OTHER)}
    for item in listing.values():
        assert item.modified.utcoffset() == timedelta(0)
        assert before <= item.modified <= after


def test_delete_removes_an_object_once(store: ObjectStore) -> None:
    gone, kept = object_key(PHOTO), object_key(OTHER)
    store.put(gone, PHOTO, "image/jpeg")
    store.put(kept, OTHER, "image/png")

    assert store.delete(gone) is True
    assert store.delete(gone) is False
    assert not store.exists(gone)
    assert store.get(kept) == OTHER
    assert set(_listing(store)) == {kept}
    assert store.stats() == StoreStats(1, len(OTHER))


@pytest.mark.parametrize("key", BAD_KEYS)
def test_delete_rejects_invalid_keys(store: ObjectStore, key: str) -> None:
    with pytest.raises(ValueError):
        store.delete(key)


def test_s3_has_no_temp_files_to_remove(s3_server: S3Server) -> None:
    store = s3_store(s3_server)
    store.put(object_key(PHOTO), PHOTO, "image/jpeg")
    assert store.remove_stale_temp_files(datetime.now(UTC) + timedelta(days=1)) == 0
    assert store.exists(object_key(PHOTO))


def test_s3_iter_objects_covers_only_this_prefix(s3_server: S3Server) -> None:
    store = s3_store(s3_server)
    neighbour = S3Store(store.bucket, "photos/other", endpoint_url=s3_server.endpoint_url)
    neighbour.put(object_key(OTHER), OTHER, "image/png")
    store.put(object_key(PHOTO), PHOTO, "image/jpeg")
    client = boto3.client("s3", endpoint_url=s3_server.endpoint_url)
    client.put_object(Bucket=store.bucket, Key=f"{PREFIX}/notes.txt", Body=b"stray")

    assert set(_listing(store)) == {object_key(PHOTO)}


def test_file_iter_objects_skips_temp_and_stray_files(tmp_path: Path) -> None:
    store = FileStore(tmp_path)
    key = object_key(PHOTO)
    store.put(key, PHOTO, "image/jpeg")
    (tmp_path / key[:2] / f"{TEMP_PREFIX}crashed").write_bytes(b"half a photo")
    (tmp_path / "README").write_text("not an object")
    (tmp_path / "zz").mkdir()
    (tmp_path / "zz" / key).write_bytes(PHOTO)  # a real key, but in the wrong shard

    assert list(_listing(store)) == [key]


def test_file_store_removes_only_stale_temp_files(tmp_path: Path) -> None:
    store = FileStore(tmp_path)
    key = object_key(PHOTO)
    store.put(key, PHOTO, "image/jpeg")
    shard = tmp_path / key[:2]
    now = datetime.now(UTC)
    old = now - timedelta(hours=30)
    stale = [shard / f"{TEMP_PREFIX}killed-{n}" for n in range(2)]
    fresh = shard / f"{TEMP_PREFIX}in-flight"
    for path in (*stale, fresh):
        path.write_bytes(b"half a photo")
    for path in (*stale, shard / key):
        os.utime(path, (old.timestamp(), old.timestamp()))

    assert store.remove_stale_temp_files(now - timedelta(hours=24)) == 2

    assert sorted(path.name for path in shard.iterdir()) == sorted([key, fresh.name])
    assert store.remove_stale_temp_files(now - timedelta(hours=24)) == 0
    assert FileStore(tmp_path / "never-written").remove_stale_temp_files(now) == 0


def test_a_file_store_never_reads_what_was_planted_under_a_key(tmp_path: Path) -> None:
    """The store writes regular files in real folders: a symbolic link under a key's name
    (to a secret outside the store), a FIFO, or a key's folder linked elsewhere is not its
    object and is never followed or read (issue 17: /photos served /etc/passwd)."""
    store = FileStore(tmp_path / "objects")
    secret = tmp_path / "catalog.db"
    secret.write_bytes(b"not a photo")
    good = object_key(b"a photo")
    store.put(good, b"a photo", "image/jpeg")
    linked, fifo, elsewhere = (object_key(b"linked"), object_key(b"fifo"),
                               object_key(b"elsewhere"))
    for key in (linked, fifo):
        (tmp_path / "objects" / key[:2]).mkdir(exist_ok=True)
    (tmp_path / "objects" / linked[:2] / linked).symlink_to(secret)
    os.mkfifo(tmp_path / "objects" / fifo[:2] / fifo)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / elsewhere).write_bytes(b"not a photo either")
    if not (tmp_path / "objects" / elsewhere[:2]).exists():
        (tmp_path / "objects" / elsewhere[:2]).symlink_to(outside)

        with pytest.raises(KeyError):
            store.get(elsewhere)
    for key in (linked, fifo):
        with pytest.raises(KeyError):
            store.get(key)
    assert store.get(good) == b"a photo"
