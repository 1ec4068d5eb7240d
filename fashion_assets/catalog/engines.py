"""The catalog engine of a process: one per database URL, migrated and seeded once.

Apart from ``fashion_assets.resources`` so that a command that only reads or plans (``crawl``
submitting runs, ``status``) opens the catalog without importing the crawler (its HTTP
client alone is a quarter of a second of every command's start).
"""

from __future__ import annotations

import threading

from sqlalchemy import Engine

from fashion_assets.catalog.db import create_catalog_engine
from fashion_assets.catalog.migrations import apply_migrations
from fashion_assets.catalog.names import seed_cities

_ENGINES: dict[str, Engine] = {}
_ENGINES_LOCK = threading.Lock()


def catalog_engine(database_url: str) -> Engine:
    """One migrated engine per database URL and process."""
    with _ENGINES_LOCK:
        engine = _ENGINES.get(database_url)
        if engine is None:
            engine = create_catalog_engine(database_url)
            apply_migrations(engine)
            seed_cities(engine)
            _ENGINES[database_url] = engine
        return engine
