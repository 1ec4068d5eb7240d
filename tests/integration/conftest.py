"""Fixtures the review page's tests share: a catalog with the brand the drafts name, a store
on the parametrized backend (file or S3), and the page served on them. A module that needs
another defines its own fixture of the same name, which takes precedence."""

from __future__ import annotations

from collections.abc import Iterator
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


@pytest.fixture
def site(engine: Engine, store: ObjectStore) -> Iterator[str]:
    """The review page with one editor account (test_review_app.py: EDITOR), on loopback."""
    from tests.integration.test_review_app import review_app, serve

    with serve(review_app(engine, store)) as url:
        yield url
