"""Versioned SQL migrations from the packaged ``sql/`` folder, applied at start.

Each file ``NNNN_name.sql`` is applied once, in order, inside one transaction together with
its row in ``schema_migrations``; running again applies nothing. Two processes starting at
once serialize on a lock (an advisory lock on PostgreSQL, the write lock on SQLite), so the
loser sees the winner's rows and skips.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources

from sqlalchemy import Connection, Engine, text

from fashion_assets.catalog.db import is_postgres

MIGRATIONS_PACKAGE = "fashion_assets.sql"
_FILE_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")
# Any 64-bit number unique to this project, for pg_advisory_xact_lock.
_PG_LOCK_ID = 0x6661736869_6F6E

_AUTO_ID = {
    "sqlite": "INTEGER PRIMARY KEY AUTOINCREMENT",
    "postgresql": "BIGSERIAL PRIMARY KEY",
}


@dataclass(frozen=True)
class Migration:
    version: str
    name: str
    sql: str

    def render(self, dialect: str) -> list[str]:
        """The statements of this migration for ``dialect``, comments dropped."""
        body = re.sub(r"--[^\n]*", "", self.sql).replace("AUTO_ID", _AUTO_ID[dialect])
        return [stmt.strip() for stmt in body.split(";") if stmt.strip()]


def packaged_migrations() -> list[Migration]:
    """Every migration shipped with the package, in version order."""
    found = []
    for entry in resources.files(MIGRATIONS_PACKAGE).iterdir():
        match = _FILE_NAME.match(entry.name)
        if match:
            found.append(Migration(match.group(1), entry.name, entry.read_text("utf-8")))
    if not found:
        raise RuntimeError(f"no SQL migrations found in package {MIGRATIONS_PACKAGE}")
    return sorted(found, key=lambda m: m.version)


def apply_migrations(engine: Engine) -> list[str]:
    """Apply the pending migrations; return the names of those applied now."""
    applied_now = []
    with engine.begin() as conn:
        _lock(conn, engine)
        conn.execute(
            text(
                "CREATE TABLE IF NOT EXISTS schema_migrations ("
                " version TEXT PRIMARY KEY, name TEXT NOT NULL,"
                " applied_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP)"
            )
        )
        done = {row[0] for row in conn.execute(text("SELECT version FROM schema_migrations"))}
        for migration in packaged_migrations():
            if migration.version in done:
                continue
            for statement in migration.render(engine.dialect.name):
                conn.exec_driver_sql(statement)
            conn.execute(
                text("INSERT INTO schema_migrations (version, name) VALUES (:v, :n)"),
                {"v": migration.version, "n": migration.name},
            )
            applied_now.append(migration.name)
    return applied_now


def _lock(conn: Connection, engine: Engine) -> None:
    # SQLite's BEGIN IMMEDIATE already holds the write lock for this transaction.
    if is_postgres(engine):
        conn.execute(text("SELECT pg_advisory_xact_lock(:id)"), {"id": _PG_LOCK_ID})
