"""The contract every object store honours, and the key scheme they share.

Photos are stored once, under the sha1 of their bytes, so the same image crawled from ten pages
costs one object. Stores are create-only: an object never changes after it is written, which is
what lets the catalog point at a key forever.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

_KEY = re.compile(r"[0-9a-f]{40}")


def object_key(data: bytes) -> str:
    """Name ``data`` by the sha1 of its bytes.

    sha1 is used for addressing, not for security, so it is flagged as such; that keeps it
    available on FIPS-restricted hosts.
    """
    return hashlib.sha1(data, usedforsecurity=False).hexdigest()


def is_object_key(key: str) -> bool:
    """Accept only 40 lowercase hex chars, so a key can never smuggle in a path or a second name."""
    return isinstance(key, str) and _KEY.fullmatch(key) is not None


def check_key(key: str) -> str:
    """Return ``key`` unchanged, or raise ``ValueError`` before it reaches a path or a request."""
    if not is_object_key(key):
        raise ValueError(f"not an object key (40 lowercase hex chars): {key!r}")
    return key


def check_content(key: str, data: bytes) -> str:
    """Return ``key`` if it names ``data``; a put under any other key is a bug, refused.

    Stores trust that a key's bytes never change (create-only, size-checked repair); this
    keeps that promise true.
    """
    if object_key(data) != check_key(key):
        raise ValueError(f"object key {key} is not the sha1 of the {len(data)} bytes given")
    return key


def object_path(key: str) -> str:
    """The key's place below a store root: ``<key[:2]>/<key>``.

    The two-char fan-out keeps any one directory (or listing page) to 1/256 of the store.
    """
    return f"{check_key(key)[:2]}/{key}"


def is_object_path(relative: str) -> bool:
    """True when ``relative`` (below a store root) is exactly where ``object_path`` puts a key.

    Stats use this so temp files and stray files never count as objects.
    """
    shard, _, key = relative.partition("/")
    return is_object_key(key) and shard == key[:2]


READ_CHUNK = 1024 * 1024
"""Bytes read at a time when an object is checked against its key: memory stays flat
whatever the object's size."""


def digest_chunks(chunks: Iterable[bytes]) -> Digest:
    """The size and sha1 of the bytes ``chunks`` yield, one chunk in memory at a time."""
    sha1 = hashlib.sha1(usedforsecurity=False)
    size = 0
    for chunk in chunks:
        sha1.update(chunk)
        size += len(chunk)
    return Digest(size, sha1.hexdigest())


def verified(key: str, data: bytes) -> bytes:
    """``data`` if it is ``key``'s bytes; a ``DamagedObject`` otherwise.

    Every read checks what it serves: the key is the sha1 of the bytes written, so bytes
    with another sha1 (a file truncated or overwritten behind the store's back) are never
    passed on as the photo. A few milliseconds for a photo of a few MB.
    """
    if object_key(data) != key:
        raise DamagedObject(key, len(data))
    return data


class DamagedObject(KeyError):
    """What is stored under a key is not the bytes the key names (truncated, overwritten).

    A ``KeyError``: every reader that answers "not found" for an absent object answers the
    same for a damaged one, and the store scrub (``jobs/store_scrub.py``) fetches it again.
    """

    def __init__(self, key: str, size: int) -> None:
        super().__init__(key)
        self.key = key
        self.size = size


@dataclass(frozen=True)
class Digest:
    """What an object's bytes are, read in full: their count and their sha1."""

    size: int
    sha1: str


class StoreError(OSError):
    """The store could not complete an operation (network, permissions, server error).

    Raised instead of each backend's own exceptions so that callers can tell a store outage
    (retry the show later) from a bug, without knowing which backend is configured.
    """


@dataclass(frozen=True)
class StoreStats:
    """How much a store holds: object count and their total size in bytes."""

    objects: int
    bytes: int


@dataclass(frozen=True)
class StoredObject:
    """One object as a listing sees it: enough to decide whether media cleanup may delete it.

    ``modified`` is timezone-aware UTC (file mtime, or S3 ``LastModified``), so it compares
    with the clock's ``now`` directly whichever backend produced it.
    """

    key: str
    size: int
    modified: datetime


class ObjectStore(Protocol):
    """A content-addressed, create-only object store (local folder or S3 prefix)."""

    url: str
    """Where the store lives, fit for logs and UIs: never contains credentials."""

    def put(self, key: str, data: bytes, content_type: str) -> bool:
        """Write ``data`` under ``key`` unless the key exists.

        Returns True if this call wrote the object, False if it already existed (then nothing
        is written). Raises ``ValueError`` for a key that fails ``is_object_key``.
        """
        ...

    async def put_async(self, key: str, data: bytes, content_type: str) -> bool:
        """``put`` from the crawl's event loop, never blocking it for long (a local disk
        writes on the loop: tens of microseconds, less than handing it to a thread; S3
        sends its request on the loop)."""
        ...

    def sync(self) -> None:
        """Make every object written so far durable.

        Called before the catalog commits rows that reference new objects, so a power cut
        never leaves a committed draft pointing at bytes that were still in a cache.
        """
        ...

    def exists(self, key: str) -> bool:
        """Whether ``key`` is stored."""
        ...

    def get(self, key: str) -> bytes:
        """The bytes stored under ``key``, checked against it; ``KeyError`` if absent,
        ``DamagedObject`` (a ``KeyError``) if they are not the key's bytes."""
        ...

    def digest(self, key: str) -> Digest:
        """The size and sha1 of what is stored under ``key``, read in chunks of
        ``READ_CHUNK`` (the store scrub); ``KeyError`` if absent."""
        ...

    def sizes(self, keys: Iterable[str]) -> dict[str, int]:
        """The stored size of each of ``keys`` that is stored (absent ones left out): the
        lookup ``missing`` makes anyway, so a truncated object is seen without reading it."""
        ...

    def stats(self) -> StoreStats:
        """Count every object in the store (a full listing: meant for reports, not hot paths)."""
        ...

    def missing(self, keys: Iterable[str]) -> set[str]:
        """Which of ``keys`` are absent; every key is validated before any lookup."""
        ...

    def iter_objects(self) -> Iterator[StoredObject]:
        """Every object, one at a time (a full listing, streamed so memory stays flat).

        Only names laid out as objects are yielded: temp files and stray files never are.
        """
        ...

    def delete(self, key: str) -> bool:
        """Remove ``key``; True if it was stored. Only media cleanup deletes: stores are
        create-only for everyone else, and the catalog must not reference the key."""
        ...

    def remove_stale_temp_files(self, older_than: datetime) -> int:
        """Remove half-written temp files last modified before ``older_than``; how many.

        A put killed between write and link leaves one behind; a store without temp files
        (S3) returns 0.
        """
        ...


class MissingBucketError(LookupError):
    """The configured bucket does not exist; the store never creates one behind your back."""
