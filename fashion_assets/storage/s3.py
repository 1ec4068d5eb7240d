"""Objects in an S3 bucket (AWS or any S3-compatible server), under an optional key prefix."""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any, NoReturn, TypeVar
from urllib.parse import quote

import aiohttp
from botocore.client import BaseClient
from botocore.exceptions import BotoCoreError, ClientError

from fashion_assets.storage import s3_client
from fashion_assets.storage.base import (
    READ_CHUNK,
    Digest,
    MissingBucketError,
    StoredObject,
    StoreError,
    StoreStats,
    check_content,
    check_key,
    digest_chunks,
    is_object_path,
    object_path,
    verified,
)

_T = TypeVar("_T")

_CREATE_LOST = frozenset({"PreconditionFailed", "ConditionalRequestConflict"})
"""412: the key exists. 409: another create-only write of the key was in flight and won."""
_LOOKUP_THREADS = 8
"""``missing`` HEADs keys in parallel but bounded: under the client's pool of 10 connections."""


class S3Store:
    """Objects at ``s3://<bucket>/<prefix>/<key[:2]>/<key>``, written create-only.

    Credentials and the endpoint come from boto3's usual chain (environment, profile, role;
    ``AWS_ENDPOINT_URL_S3`` for S3-compatible servers); ``endpoint_url`` overrides the latter.
    One store may be shared by threads: the client is built once, and boto3 clients are
    thread-safe.
    """

    def __init__(self, bucket: str, prefix: str = "", *, endpoint_url: str | None = None) -> None:
        self.bucket = bucket
        self.prefix = prefix.strip("/")
        self.url = f"s3://{bucket}/{self.prefix}" if self.prefix else f"s3://{bucket}"
        self._endpoint_url = endpoint_url
        self._lock = threading.Lock()
        self._client: BaseClient | None = None
        self._bucket_checked = False
        self._target: s3_client.PutTarget | None = None
        # The event loop's session for ``put_async``, with the generator that closes it.
        self._sessions: dict[asyncio.AbstractEventLoop,
                             tuple[aiohttp.ClientSession, AsyncIterator[None]]] = {}

    def put(self, key: str, data: bytes, content_type: str) -> bool:
        """Write ``data`` unless ``key`` exists, using ``If-None-Match: *`` so S3 itself decides.

        A check-then-write would race with other workers; the conditional put cannot.
        """
        name = self._name(check_content(key, data))
        try:
            self._s3().put_object(
                Bucket=self.bucket,
                Key=name,
                Body=data,
                ContentType=content_type,
                IfNoneMatch="*",
            )
        except ClientError as error:
            if _code(error) in _CREATE_LOST:
                return False
            self._reraise(error)
        except BotoCoreError as error:
            self._unanswered("put", error)
        return True

    async def put_async(self, key: str, data: bytes, content_type: str) -> bool:
        """``put`` from the event loop: the same create-only PUT, signed by botocore's signer
        with the credentials and region a client would use, sent with aiohttp to its endpoint
        (path-style: ``<endpoint>/<bucket>/<name>``).

        boto3's ``put_object`` spends more CPU per photo in its request pipeline, and needs
        a thread to wait in; this needs none (``bench/s3_put.py`` measures both, bench/run.py
        the crawl on an S3 API server). Nor does it keep a client
        (``s3_client.put_target``). Failures map as ``put``'s do: an existing key is False, a
        missing bucket ``MissingBucketError``, anything else ``StoreError``.
        """
        name = self._name(check_content(key, data))
        target = self._target or await asyncio.to_thread(self._resolve_target)
        if not self._bucket_checked:
            await self._check_bucket(target)
        url = f"{target.endpoint_url}/{self.bucket}/{quote(name)}"
        headers = target.signed("PUT", url, data,
                                {"Content-Type": content_type, "If-None-Match": "*"})
        status, body = await self._send("put", "PUT", url, data, headers)
        if status == 200:
            return True
        code = _error_code(body)
        if code in _CREATE_LOST or status == 412:
            return False
        if code == "NoSuchBucket":
            raise self._missing_bucket(target.endpoint_url)
        raise StoreError(f"S3 PutObject on {self.url} failed: {code or status}")

    def _resolve_target(self) -> s3_client.PutTarget:
        self._target = s3_client.put_target(self._endpoint_url)
        return self._target

    async def _check_bucket(self, target: s3_client.PutTarget) -> None:
        """``_require_bucket`` for the event loop: a signed HEAD of the bucket, once a store."""
        url = f"{target.endpoint_url}/{self.bucket}"
        status, _ = await self._send("bucket check", "HEAD", url, b"",
                                     target.signed("HEAD", url, b"", {}))
        if status == 404:
            raise self._missing_bucket(target.endpoint_url)
        if status != 200:
            raise StoreError(f"S3 HeadBucket on {self.url} failed: {status}")
        with self._lock:
            self._bucket_checked = True

    async def _send(self, operation: str, method: str, url: str, data: bytes,
                    headers: dict[str, str]) -> tuple[int, bytes]:
        """One request on this event loop's session: its status and body; no answer at all
        is a ``StoreError`` naming the operation."""
        try:
            async with (await self._session()).request(method, url, data=data or None,
                                                       headers=headers) as response:
                return response.status, await response.read()
        except (aiohttp.ClientError, TimeoutError) as error:
            raise StoreError(f"S3 {operation} on {self.url} failed: {type(error).__name__}"
                             ) from error

    def _missing_bucket(self, endpoint_url: str) -> MissingBucketError:
        return MissingBucketError(
            f"S3 bucket {self.bucket!r} does not exist at {endpoint_url}; create it first "
            "(the store never creates buckets itself)")

    async def _session(self) -> aiohttp.ClientSession:
        """This event loop's session, made on its first put. It is closed when the loop
        shuts down: its keeper is an async generator, and ``asyncio.Runner`` closes a loop's
        async generators before it closes the loop."""
        loop = asyncio.get_running_loop()
        held = self._sessions.get(loop)
        if held is None or held[0].closed:
            session = aiohttp.ClientSession(timeout=_PUT_TIMEOUT)
            keeper = _close_at_shutdown(session)
            await anext(keeper)
            for other in [other for other in self._sessions if other.is_closed()]:
                del self._sessions[other]
            held = self._sessions[loop] = (session, keeper)
        return held[0]

    def sync(self) -> None:
        """Nothing to do: S3 answers a PUT only once the object is durable."""

    def exists(self, key: str) -> bool:
        """Whether ``key`` is stored (one HEAD request)."""
        return self._size(key) is not None

    def _size(self, key: str) -> int | None:
        """The object's size from a HEAD request; None when it is absent."""
        name = self._name(key)
        try:
            answer = self._s3().head_object(Bucket=self.bucket, Key=name)
        except ClientError as error:
            if _status(error) == 404:
                return None
            self._reraise(error)
        except BotoCoreError as error:
            self._unanswered("lookup", error)
        return int(answer["ContentLength"])

    def get(self, key: str) -> bytes:
        """The bytes stored under ``key``, checked against it (``verified``); ``KeyError``
        if absent, ``DamagedObject`` if they are not the key's bytes."""
        return verified(key, self._body(key, lambda body: body.read()))

    def digest(self, key: str) -> Digest:
        """Size and sha1 of the object, its body streamed ``READ_CHUNK`` bytes at a time."""
        return self._body(key, lambda body: digest_chunks(body.iter_chunks(READ_CHUNK)))

    def _body(self, key: str, read: Callable[[Any], _T]) -> _T:
        """``read`` applied to the object's streamed body; ``KeyError`` if absent."""
        name = self._name(key)
        try:
            body = self._s3().get_object(Bucket=self.bucket, Key=name)["Body"]
            try:
                return read(body)
            finally:
                body.close()
        except ClientError as error:
            if _code(error) in {"NoSuchKey", "404"}:
                raise KeyError(key) from None
            self._reraise(error)
        except BotoCoreError as error:
            self._unanswered("get", error)

    def stats(self) -> StoreStats:
        """Count objects and bytes by listing the prefix, page by page."""
        objects = size = 0
        for item in self.iter_objects():
            objects += 1
            size += item.size
        return StoreStats(objects, size)

    def iter_objects(self) -> Iterator[StoredObject]:
        """Every object under the prefix, from ``list_objects_v2`` one page (1,000) at a time.

        Names not laid out as objects (anything else sharing the prefix) are skipped.
        """
        start = f"{self.prefix}/" if self.prefix else ""
        paginator = self._s3().get_paginator("list_objects_v2")
        try:
            for page in paginator.paginate(Bucket=self.bucket, Prefix=start):
                for item in page.get("Contents", []):
                    relative = item["Key"].removeprefix(start)
                    if is_object_path(relative):
                        yield StoredObject(relative.partition("/")[2], item["Size"],
                                           item["LastModified"].astimezone(UTC))
        except ClientError as error:
            self._reraise(error)
        except BotoCoreError as error:
            self._unanswered("listing", error)

    def delete(self, key: str) -> bool:
        """Delete ``key``; True if it was stored.

        S3's DELETE answers 204 whether or not the key existed, so a HEAD first tells the two
        apart; the count of removed bytes in cleanup reports depends on it.
        """
        if not self.exists(key):
            return False
        try:
            self._s3().delete_object(Bucket=self.bucket, Key=self._name(key))
        except ClientError as error:
            self._reraise(error)
        except BotoCoreError as error:
            self._unanswered("delete", error)
        return True

    def remove_stale_temp_files(self, older_than: datetime) -> int:
        """Nothing to do: an S3 put is atomic and leaves no temp object behind."""
        return 0

    def missing(self, keys: Iterable[str]) -> set[str]:
        """Which of ``keys`` are absent: one HEAD per key, a few at a time.

        Listing a shard instead would read every object in it, which grows with the store;
        HEADs grow only with the question.
        """
        wanted = {check_key(key) for key in keys}
        return wanted - self.sizes(wanted).keys()

    def sizes(self, keys: Iterable[str]) -> dict[str, int]:
        """The size of each of ``keys`` that is stored: the HEADs of ``missing``."""
        wanted = list({check_key(key) for key in keys})
        if not wanted:
            return {}
        with ThreadPoolExecutor(max_workers=min(_LOOKUP_THREADS, len(wanted))) as pool:
            found = pool.map(self._size, wanted)
            return {key: size for key, size in zip(wanted, found, strict=True)
                    if size is not None}

    def ensure_bucket(self) -> None:
        """Create the bucket if it is missing (tests and the demo; production buckets are
        provisioned deliberately, with their own region, policy and lifecycle)."""
        client = self._connect(check_bucket=False)
        region = client.meta.region_name
        options: dict[str, Any] = {}
        if region and region != "us-east-1":
            options["CreateBucketConfiguration"] = {"LocationConstraint": region}
        try:
            client.create_bucket(Bucket=self.bucket, **options)
        except ClientError as error:
            if _code(error) != "BucketAlreadyOwnedByYou":
                raise
        with self._lock:
            self._bucket_checked = True

    def _name(self, key: str) -> str:
        """The S3 key for an object key (validated, so no path tricks reach the request)."""
        relative = object_path(key)
        return f"{self.prefix}/{relative}" if self.prefix else relative

    def _s3(self) -> BaseClient:
        return self._connect(check_bucket=True)

    def _connect(self, *, check_bucket: bool) -> BaseClient:
        """Build the client on first use and make sure the bucket exists, until a check passed.

        The check matters because a HEAD on a missing bucket is a bare 404, the same answer as a
        missing key: without it ``exists`` and ``missing`` would quietly report "not stored".
        It runs outside the lock: while S3 does not answer, each caller waits out its own
        check (botocore's retries) instead of every check before it, one after another.
        """
        with self._lock:
            if self._client is None:
                self._client = s3_client.client(self._endpoint_url)
            client, checked = self._client, self._bucket_checked or not check_bucket
        if not checked:
            self._require_bucket(client)
            with self._lock:
                self._bucket_checked = True
        return client

    def _require_bucket(self, client: BaseClient) -> None:
        try:
            client.head_bucket(Bucket=self.bucket)
        except ClientError as error:
            self._reraise(error)
        except BotoCoreError as error:
            self._unanswered("bucket check", error)

    def _reraise(self, error: ClientError) -> NoReturn:
        """Turn "no such bucket" into an error that names it; re-raise anything else as is."""
        if _code(error) == "NoSuchBucket" or (
            _status(error) == 404 and error.operation_name == "HeadBucket"
        ):
            endpoint = self._client.meta.endpoint_url if self._client else "the default endpoint"
            raise self._missing_bucket(endpoint) from error
        raise StoreError(
            f"S3 {error.operation_name} on {self.url} failed: {_code(error) or _status(error)}"
        ) from error

    def _unanswered(self, operation: str, error: BotoCoreError) -> NoReturn:
        """A request S3 never answered (endpoint down, connection dropped, timeout) is a
        store outage like any other: ``StoreError``, whichever of botocore's errors it was."""
        raise StoreError(f"S3 {operation} on {self.url} failed: {type(error).__name__}"
                         ) from error


_PUT_TIMEOUT = aiohttp.ClientTimeout(total=60)
_ERROR_CODE = re.compile(rb"<Code>([^<]{1,100})</Code>")


async def _close_at_shutdown(session: aiohttp.ClientSession) -> AsyncIterator[None]:
    try:
        yield
    finally:
        await session.close()


def _error_code(body: bytes) -> str:
    """The ``<Code>`` of an S3 error document, or "" when the answer has none."""
    found = _ERROR_CODE.search(body)
    return found.group(1).decode("ascii", "replace") if found else ""


def _code(error: ClientError) -> str:
    return str(error.response.get("Error", {}).get("Code", ""))


def _status(error: ClientError) -> int | None:
    return error.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
