"""Content-addressed photo storage: pick a store from one URL setting.

``open_store`` is the only place that knows the URL forms, so the rest of the pipeline depends on
``ObjectStore`` alone and moving from disk to S3 is a configuration change. The S3 store, and
boto3 with it (a fifth of a second to import), is imported only when it is used.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from fashion_assets.storage.base import (
    DamagedObject,
    Digest,
    MissingBucketError,
    ObjectStore,
    StoreError,
    StoreStats,
    is_object_key,
    object_key,
)
from fashion_assets.storage.file import FileStore

if TYPE_CHECKING:
    from fashion_assets.storage.s3 import S3Store

__all__ = [
    "DamagedObject",
    "Digest",
    "FileStore",
    "MissingBucketError",
    "ObjectStore",
    "S3Store",
    "StoreError",
    "StoreStats",
    "StoreURLError",
    "is_object_key",
    "object_key",
    "open_store",
]

class StoreURLError(ValueError):
    """A store URL ``open_store`` cannot read (a user's setting: its text is the one line,
    said with FASHION_STORE_URL by ``cli/errors.py``, and a run fails on it unretried)."""


_BUCKET = re.compile(r"[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")
_FORMS = "'' or 'file://' (default), 'file:///abs/path', 'file://rel/path', 's3://bucket[/prefix]'"


def __getattr__(name: str) -> Any:
    if name == "S3Store":
        from fashion_assets.storage.s3 import S3Store

        return S3Store
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def open_store(url: str, *, home: Path) -> ObjectStore:
    """Open the store that ``url`` names.

    ``""`` and ``"file://"`` mean ``home / "objects"``; a relative ``file://`` path is taken
    from ``home`` too, so the answer doesn't depend on the working directory of whichever
    process (webserver, daemon, CLI) opens the store. S3 settings other than bucket and prefix
    come from boto3's environment (``AWS_ENDPOINT_URL_S3``, credentials, region).
    """
    if not url:
        return FileStore(home / "objects")
    scheme, separator, rest = url.partition("://")
    if not separator:
        raise StoreURLError(f"store URL {url!r} has no scheme; expected one of: {_FORMS}")
    if "@" in rest:
        # Don't echo it: the part before '@' would be credentials.
        raise StoreURLError(
            "store URL must not contain credentials ('user@'); S3 credentials come from the "
            "AWS environment or profile"
        )
    match scheme.lower():
        case "file":
            path = unquote(rest)
            # An absolute path replaces ``home`` when joined; a relative one lands under it.
            return FileStore(home / path if path else home / "objects")
        case "s3":
            return _s3_store(url, rest)
        case _:
            raise StoreURLError(
                f"store URL {url!r} has unknown scheme {scheme!r}; expected {_FORMS}")


def _s3_store(url: str, rest: str) -> S3Store:
    bucket, _, prefix = rest.partition("/")
    if not bucket:
        raise StoreURLError(f"store URL {url!r} names no bucket; expected 's3://bucket[/prefix]'")
    if not _BUCKET.fullmatch(bucket):
        raise StoreURLError(
            f"store URL {url!r}: {bucket!r} is not a valid S3 bucket name "
            "(3-63 chars: lowercase letters, digits, '.', '-')"
        )
    prefix = prefix.strip("/")
    if prefix and any(part in {"", ".", ".."} for part in prefix.split("/")):
        raise StoreURLError(f"store URL {url!r}: the prefix has an empty, '.' or '..' segment")
    from fashion_assets.storage.s3 import S3Store

    return S3Store(bucket, prefix)



def answering_store(url: str, *, home: Path) -> ObjectStore:
    """``open_store``'s store, its S3 bucket checked now (``MissingBucketError``,
    ``StoreError``: no credentials, an endpoint that is down), for a server about to answer
    from it: each request would otherwise fail on it, long after the server said it was up.
    A file store's missing folder is an empty store."""
    store = open_store(url, home=home)
    if not isinstance(store, FileStore):
        store.exists(object_key(b""))  # the bucket check an S3 store makes on first use
    return store


def writable_store(url: str, *, home: Path) -> ObjectStore:
    """``answering_store``'s store, its folder made for a file store (``FolderError`` naming
    the variable to change when it cannot be), for a command about to start runs that write
    to it: in the run, each step and its retries would fail on it."""
    from fashion_assets.folders import writable_folder

    store = answering_store(url, home=home)
    if isinstance(store, FileStore):
        writable_folder(store.root, "FASHION_STORE_URL", mode=0o700)  # as put makes it
    return store
