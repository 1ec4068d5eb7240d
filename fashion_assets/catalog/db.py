"""Engines for the catalog database: SQLite by default, PostgreSQL in production.

Both dialects get the same behaviour where it matters to the crawl: foreign keys are
enforced, and concurrent writers wait for each other instead of failing. SQLite needs help
for the latter: WAL mode, a busy timeout, and ``BEGIN IMMEDIATE`` so that a transaction takes
the write lock when it starts rather than failing when it first writes.
"""

from __future__ import annotations

import os
import sqlite3
import time
from contextlib import suppress
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from fashion_assets.folders import writable_folder

SQLITE_BUSY_TIMEOUT_MS = 60_000


class CatalogURLError(ValueError):
    """A catalog database URL the catalog cannot use (a user's setting, said in one line)."""


def redact_url(url: str) -> str:
    """The URL with its password masked and its control characters escaped (a newline
    would split the one line that names it), safe for logs and metadata."""
    try:
        shown = make_url(url).render_as_string(hide_password=True)
    except Exception:
        return "<unparseable database URL>"
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in shown)


def create_catalog_engine(url: str) -> Engine:
    """Create an engine for ``url`` (``sqlite:///...`` or ``postgresql+psycopg2://...``)."""
    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError):  # ValueError: a port that is not a number
        raise CatalogURLError(f"{redact_url(url)} is not a database URL: write it as "
                              "sqlite:///PATH or postgresql+psycopg2://USER@HOST/DB") from None
    if parsed.get_backend_name() == "sqlite":
        return _sqlite_engine(url, parsed.database)
    if parsed.get_backend_name() == "postgresql":
        if parsed.get_driver_name() != "psycopg2":
            raise CatalogURLError(
                "the catalog speaks to PostgreSQL through psycopg2: "
                f"write the URL as postgresql+psycopg2://..., not {redact_url(url)}"
            )
        # A server that never answers (a firewall dropping packets) fails a command in
        # seconds, not minutes; the URL's own connect_timeout wins.
        timeout = {} if "connect_timeout" in parsed.query else {"connect_timeout": 10}
        return create_engine(url, pool_pre_ping=True, pool_size=5, max_overflow=10,
                             connect_args=timeout)
    raise CatalogURLError(
        f"unsupported catalog database URL {redact_url(url)}: use sqlite or postgresql"
    )


def _sqlite_engine(url: str, database: str | None) -> Engine:
    if database and database != ":memory:":
        writable_folder(Path(database).parent, "FASHION_DATABASE_URL")
        _create_owner_only(Path(database))
    engine = create_engine(url, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000})

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]
        # Let SQLAlchemy, not pysqlite, decide when transactions begin (see "begin" below).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        _enable_wal(cursor)
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection) -> None:  # type: ignore[no-untyped-def]
        connection.exec_driver_sql("BEGIN IMMEDIATE")

    return engine


def _create_owner_only(path: Path) -> None:
    """Create the catalog file readable by its owner alone, whatever the umask, if it does
    not exist yet: it holds the editors' password hashes and session tokens' hashes. SQLite
    gives its WAL and shared-memory files the database file's mode. An existing file keeps
    the mode its owner gave it; a file that cannot be made is left to SQLite, whose error
    the commands say in one line (``cli/errors.py``)."""
    with suppress(OSError):  # FileExistsError, or a folder the user may not write
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))


def _enable_wal(cursor: sqlite3.Cursor) -> None:
    """Switch a database to WAL mode, once; concurrent first connections may have to wait.

    The switch needs an exclusive lock and SQLite does not run its busy handler for it, so
    connections opening a new database at the same moment get "database is locked" at once:
    retry, within the busy timeout, until the winner has switched.
    """
    deadline = time.monotonic() + SQLITE_BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            if cursor.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def is_postgres(engine: Engine) -> bool:
    return engine.dialect.name == "postgresql"


def utc_naive_now() -> datetime:
    """Now, as the catalog keeps timestamps: UTC without a zone."""
    return datetime.now(UTC).replace(tzinfo=None)


def utc_naive(value: datetime | str) -> datetime:
    """A timestamp as the catalog keeps it: UTC without a zone (SQLite hands back text)."""
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    if value.tzinfo is not None:
        value = value.astimezone(UTC).replace(tzinfo=None)
    return value
