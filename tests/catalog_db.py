"""Reading and making catalog databases in tests and benchmarks (plain SQL, real servers)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

# Every table of the catalog but the log, which a re-crawl appends its skips to.
DATA_TABLES = ("brands", "runway_shows", "runway_show_manifests", "runway_manifest_images",
               "brand_runway_drafts", "brand_runway_draft_images", "runway_missing_images",
               "brand_runways", "brand_runway_images")


@contextmanager
def fresh_postgres_database(admin_url: str, prefix: str = "fa_test") -> Iterator[str]:
    """A new, empty PostgreSQL database on the server of ``admin_url``, dropped afterwards."""
    admin = make_url(admin_url)
    name = f"{prefix}_{uuid.uuid4().hex[:16]}"
    engine = create_engine(admin, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield admin.set(database=name).render_as_string(hide_password=False)
    finally:
        with engine.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        engine.dispose()


def query(database_url: str, sql: str, **params: Any) -> list[tuple[Any, ...]]:
    engine = create_engine(database_url)
    try:
        with engine.connect() as conn:
            return [tuple(row) for row in conn.execute(text(sql), params)]
    finally:
        engine.dispose()


def snapshot(database_url: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every data table, in a stable order: equal snapshots, nothing written."""
    return {table: sorted(query(database_url, f"SELECT * FROM {table}"), key=repr)
            for table in DATA_TABLES}
