"""Objects damaged behind the store's back (issue 36, finding 6): every read checks the bytes
against their key, the scrub's read streams them, lookups give the stored size, and the file
store writes owner-only and never serves what is not a regular file it wrote (a symbolic
link, a second name of a file: a hard link), writing the object again over it instead.

Real backends, as in test_storage.py: a folder, and moto's S3 server over HTTP.
"""

from __future__ import annotations

import hashlib
import os
import stat
import uuid
from pathlib import Path

import pytest

from fashion_assets.storage import DamagedObject, FileStore, ObjectStore, S3Store, s3_client
from fashion_assets.storage.base import READ_CHUNK, object_key, object_path
from tests.s3server import S3Server

PHOTO = b"\xff\xd8\xff\xe0 a photo" * 1000
KEY = object_key(PHOTO)


@pytest.fixture(params=["file", "s3"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> ObjectStore:
    if request.param == "file":
        return FileStore(tmp_path / "objects")
    server: S3Server = request.getfixturevalue("s3_server")
    s3 = S3Store(f"test-{uuid.uuid4().hex[:12]}", "photos", endpoint_url=server.endpoint_url)
    s3.ensure_bucket()
    return s3


def overwrite(store: ObjectStore, key: str, data: bytes) -> None:
    """Write ``data`` under ``key`` without the store (in place, or an unconditional PUT)."""
    if isinstance(store, FileStore):
        (store.root / object_path(key)).write_bytes(data)
        return
    assert isinstance(store, S3Store)
    client = s3_client.client(store._endpoint_url)
    client.put_object(Bucket=store.bucket, Key=f"{store.prefix}/{object_path(key)}", Body=data)


@pytest.mark.parametrize("damaged", [b"", PHOTO[:10], b"x" * len(PHOTO)])
def test_damaged_bytes_are_never_read_as_the_object(store: ObjectStore, damaged: bytes) -> None:
    store.put(KEY, PHOTO, "image/jpeg")
    overwrite(store, KEY, damaged)

    with pytest.raises(DamagedObject) as raised:
        store.get(KEY)

    assert isinstance(raised.value, KeyError) and raised.value.size == len(damaged)
    digest = store.digest(KEY)
    assert (digest.size, digest.sha1) == (len(damaged), hashlib.sha1(damaged).hexdigest())
    assert store.sizes([KEY]) == {KEY: len(damaged)}


def test_the_scrubs_read_and_the_lookup_give_a_whole_objects_size_and_sha1(
        store: ObjectStore) -> None:
    big = os.urandom(READ_CHUNK * 2 + 5)
    store.put(object_key(big), big, "image/jpeg")
    absent = object_key(b"absent")

    assert store.digest(object_key(big)).sha1 == object_key(big)
    assert store.sizes([object_key(big), absent]) == {object_key(big): len(big)}
    with pytest.raises(KeyError):
        store.digest(absent)


def test_the_file_store_writes_objects_its_owner_alone_can_read(tmp_path: Path) -> None:
    previous = os.umask(0o022)
    try:
        FileStore(tmp_path / "objects").put(KEY, PHOTO, "image/jpeg")
    finally:
        os.umask(previous)
    path = tmp_path / "objects" / object_path(KEY)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE((tmp_path / "objects").stat().st_mode) == 0o700


def test_a_hard_link_planted_under_a_key_is_not_served_and_the_heal_writes_over_it(
        tmp_path: Path) -> None:
    """A second name of a file (planted in the store, or outside it) could be changed
    through that other name at any time: it is not the store's object."""
    store = FileStore(tmp_path / "objects")
    store.put(KEY, PHOTO, "image/jpeg")
    outside = tmp_path / "outside.jpg"
    path = tmp_path / "objects" / object_path(KEY)
    path.unlink()
    outside.write_bytes(PHOTO)
    os.link(outside, path)

    with pytest.raises(KeyError):
        store.get(KEY)
    assert not store.exists(KEY) and store.missing([KEY]) == {KEY}
    with pytest.raises(KeyError):
        store.digest(KEY)

    assert store.put(KEY, PHOTO, "image/jpeg") is True
    assert store.get(KEY) == PHOTO and path.stat().st_nlink == 1
    assert outside.stat().st_nlink == 1


def test_a_symbolic_link_planted_under_a_key_is_replaced_by_the_heal_never_followed(
        tmp_path: Path) -> None:
    store = FileStore(tmp_path / "objects")
    store.put(KEY, PHOTO, "image/jpeg")
    target = tmp_path / "catalog.db"
    target.write_bytes(PHOTO)
    path = tmp_path / "objects" / object_path(KEY)
    path.unlink()
    path.symlink_to(target)
    assert store.missing([KEY]) == {KEY}

    assert store.put(KEY, PHOTO, "image/jpeg") is True

    assert not path.is_symlink() and store.get(KEY) == PHOTO
    assert target.read_bytes() == PHOTO
