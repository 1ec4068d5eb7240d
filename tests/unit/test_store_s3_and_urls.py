"""Object stores, on S3 and by URL: what the S3 backend does of its own (its layout under a
prefix, a put from the event loop, a bucket that is gone, a server that is down) and which
store ``open_store`` makes of each URL. The contract both backends share is test_storage.py.

S3 means a real moto_server over HTTP on loopback, so requests, conditional writes and error
parsing all go through boto3 exactly as they would against AWS.
"""

from __future__ import annotations

from pathlib import Path

import boto3
import pytest

from fashion_assets.crawl import loop
from fashion_assets.storage import (
    FileStore,
    MissingBucketError,
    ObjectStore,
    S3Store,
    StoreError,
    StoreStats,
    object_key,
    open_store,
    s3_client,
)
from tests.s3server import S3Server, start_moto_server
from tests.unit.conftest import OTHER, PHOTO, PREFIX, bucket_name, s3_store

# --- S3 store ---------------------------------------------------------------------------------


def test_s3_layout_prefix_and_content_type(s3_server: S3Server) -> None:
    store = s3_store(s3_server)
    key = object_key(PHOTO)
    store.put(key, PHOTO, "image/jpeg")
    client = boto3.client("s3", endpoint_url=s3_server.endpoint_url)
    listing = client.list_objects_v2(Bucket=store.bucket)
    name = f"{PREFIX}/{key[:2]}/{key}"
    assert [item["Key"] for item in listing["Contents"]] == [name]
    assert client.head_object(Bucket=store.bucket, Key=name)["ContentType"] == "image/jpeg"
    assert store.url == f"s3://{store.bucket}/{PREFIX}"


def test_a_put_from_the_event_loop_is_the_same_create_only_put(store: ObjectStore) -> None:
    """``put_async`` (S3: signed and sent with aiohttp, not boto3) stores the bytes where
    ``put`` would, with their content type; a second put of the key writes nothing."""
    key = object_key(PHOTO)

    async def twice() -> tuple[bool, bool]:
        return (await store.put_async(key, PHOTO, "image/jpeg"),
                await store.put_async(key, PHOTO, "image/jpeg"))

    assert loop.run(twice()) == (True, False)
    assert loop.run(twice()) == (False, False)  # a new event loop: a new session
    assert store.get(key) == PHOTO
    assert store.put(key, PHOTO, "image/jpeg") is False
    with pytest.raises(ValueError):
        loop.run(store.put_async(key, OTHER, "image/jpeg"))  # not these bytes' key
    if isinstance(store, S3Store):
        client = boto3.client("s3", endpoint_url=store._endpoint_url)
        head = client.head_object(Bucket=store.bucket, Key=f"{PREFIX}/{key[:2]}/{key}")
        assert (head["ContentType"], head["ContentLength"]) == ("image/jpeg", len(PHOTO))


def test_a_put_from_the_event_loop_names_a_bucket_that_is_gone(s3_server: S3Server) -> None:
    store = s3_store(s3_server)
    loop.run(store.put_async(object_key(PHOTO), PHOTO, "image/jpeg"))  # the bucket checked
    client = boto3.client("s3", endpoint_url=s3_server.endpoint_url)
    client.delete_object(Bucket=store.bucket, Key=f"{PREFIX}/{object_key(PHOTO)[:2]}/"
                                                  f"{object_key(PHOTO)}")
    client.delete_bucket(Bucket=store.bucket)

    with pytest.raises(MissingBucketError, match=store.bucket):
        loop.run(store.put_async(object_key(OTHER), OTHER, "image/png"))


def test_a_put_from_the_event_loop_keeps_no_client(s3_server: S3Server) -> None:
    """A crawl's run process only puts from the event loop: it signs and sends with what a
    client resolved (endpoint, region, credentials) and keeps no client, whose S3 model is
    15 MB of its heap; a bucket it never saw is checked first and named when missing."""
    endpoint = s3_server.endpoint_url.replace("127.0.0.1", "localhost")  # no shared client yet
    store = S3Store(bucket_name(), PREFIX, endpoint_url=endpoint)
    with pytest.raises(MissingBucketError, match=store.bucket):
        loop.run(store.put_async(object_key(PHOTO), PHOTO, "image/jpeg"))
    boto3.client("s3", endpoint_url=endpoint).create_bucket(Bucket=store.bucket)

    assert loop.run(store.put_async(object_key(PHOTO), PHOTO, "image/jpeg")) is True

    assert store._client is None
    assert [key for key in s3_client._CLIENTS if key[0] == endpoint] == []
    assert store.get(object_key(PHOTO)) == PHOTO  # boto3's calls build the shared client


def test_a_put_from_the_event_loop_to_a_server_that_is_down_is_a_store_error() -> None:
    with start_moto_server() as server:
        store = s3_store(server)
    # The server is gone: no answer at all, the outage a crawl retries, then fails on.
    with pytest.raises(StoreError, match="S3 put on s3://"):
        loop.run(store.put_async(object_key(PHOTO), PHOTO, "image/jpeg"))


def test_s3_stats_cover_only_this_prefix(s3_server: S3Server) -> None:
    store = s3_store(s3_server)
    neighbour = S3Store(store.bucket, "photos/other", endpoint_url=s3_server.endpoint_url)
    neighbour.put(object_key(OTHER), OTHER, "image/png")
    store.put(object_key(PHOTO), PHOTO, "image/jpeg")
    assert store.stats() == StoreStats(1, len(PHOTO))


def test_s3_missing_bucket_is_a_clear_error(s3_server: S3Server) -> None:
    bucket = bucket_name()
    store = S3Store(bucket, endpoint_url=s3_server.endpoint_url)
    key = object_key(PHOTO)
    for call in (
        lambda: store.put(key, PHOTO, "image/jpeg"),
        lambda: store.exists(key),
        lambda: store.missing([key]),
        store.stats,
    ):
        with pytest.raises(MissingBucketError, match=bucket):
            call()
    store.ensure_bucket()
    assert store.put(key, PHOTO, "image/jpeg") is True


def test_open_store_s3_takes_the_endpoint_from_the_environment(
    s3_server: S3Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_ENDPOINT_URL_S3", s3_server.endpoint_url)
    store = open_store(f"s3://{bucket_name()}/env", home=Path("/unused"))
    assert isinstance(store, S3Store)
    store.ensure_bucket()
    assert store.put(object_key(PHOTO), PHOTO, "image/jpeg") is True


# --- open_store -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "relative_root"),
    [
        ("", "objects"),
        ("file://", "objects"),
        ("file://relative/dir", "relative/dir"),
        ("file://with%20space", "with space"),
    ],
)
def test_open_store_file_urls_under_home(tmp_path: Path, url: str, relative_root: str) -> None:
    store = open_store(url, home=tmp_path)
    assert isinstance(store, FileStore)
    assert store.root == tmp_path / relative_root


def test_open_store_file_absolute_path(tmp_path: Path) -> None:
    store = open_store(f"file://{tmp_path}/elsewhere", home=Path("/unused"))
    assert isinstance(store, FileStore)
    assert store.root == tmp_path / "elsewhere"
    assert store.url == (tmp_path / "elsewhere").as_uri()


@pytest.mark.parametrize(
    ("url", "bucket", "prefix", "display"),
    [
        ("s3://my-bucket", "my-bucket", "", "s3://my-bucket"),
        ("s3://my-bucket/", "my-bucket", "", "s3://my-bucket"),
        ("s3://my.bucket/some/prefix/", "my.bucket", "some/prefix", "s3://my.bucket/some/prefix"),
    ],
)
def test_open_store_s3_urls(url: str, bucket: str, prefix: str, display: str) -> None:
    store = open_store(url, home=Path("/unused"))
    assert isinstance(store, S3Store)
    assert (store.bucket, store.prefix, store.url) == (bucket, prefix, display)


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("/plain/path", "no scheme"),
        ("http://example.com/x", "unknown scheme 'http'"),
        ("gs://bucket", "unknown scheme 'gs'"),
        ("s3://", "names no bucket"),
        ("s3:///prefix", "names no bucket"),
        ("s3://ab", "not a valid S3 bucket name"),
        ("s3://My_Bucket", "not a valid S3 bucket name"),
        ("s3://bucket/a//b", "empty, '.' or '..' segment"),
        ("s3://bucket/a/../b", "empty, '.' or '..' segment"),
    ],
)
def test_open_store_rejects_bad_urls(url: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        open_store(url, home=Path("/unused"))


def test_open_store_never_echoes_credentials_in_urls() -> None:
    with pytest.raises(ValueError, match="must not contain credentials") as error:
        open_store("s3://AKIAEXAMPLE:s3cr3t@bucket/prefix", home=Path("/unused"))
    assert "s3cr3t" not in str(error.value)
