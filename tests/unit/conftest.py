"""The unit tests' object stores: an empty one of each backend for every test that takes
``store`` (test_storage.py, test_store_s3_and_urls.py), and the photos they store.

S3 means a real moto_server over HTTP on loopback (``s3_server``, tests/conftest.py).
"""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from fashion_assets.storage import FileStore, ObjectStore, S3Store
from tests.s3server import S3Server

PHOTO = b"\xff\xd8\xff\xe0 a photo"
OTHER = b"\x89PNG another photo, longer"
PREFIX = "photos/raw"


def bucket_name() -> str:
    return f"test-{uuid.uuid4().hex[:12]}"


def s3_store(server: S3Server) -> S3Store:
    store = S3Store(bucket_name(), PREFIX, endpoint_url=server.endpoint_url)
    store.ensure_bucket()
    return store


@pytest.fixture(params=["file", "s3"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> ObjectStore:
    """Each test gets an empty store: a fresh folder, or a fresh bucket on the shared server."""
    if request.param == "file":
        return FileStore(tmp_path / "objects")
    return s3_store(request.getfixturevalue("s3_server"))
