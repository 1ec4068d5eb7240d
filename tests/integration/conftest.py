"""Fixtures the review page's tests share: a catalog with the brand the drafts name, and a
store on the parametrized backend (file or S3). A module that needs another catalog or
store defines its own fixture of the same name, which takes precedence."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Engine

from fashion_assets.catalog.runway import add_brand
from fashion_assets.resources import catalog_engine
from fashion_assets.storage import ObjectStore, open_store


@pytest.fixture
def engine(database_url: str) -> Engine:
    """The catalog at ``database_url``, with the brand ``chloe`` the drafts belong to."""
    engine = catalog_engine(database_url)
    add_brand(engine, "chloe", "Chloé")
    return engine


@pytest.fixture
def store(store_url: str, tmp_path: Path) -> ObjectStore:
    return open_store(store_url, home=tmp_path)
