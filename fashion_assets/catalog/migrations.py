"""Versioned SQL migrations from the packaged ``sql/`` folder, applied at start.

Each version ``NNNN`` is applied once, in order, inside one transaction together with its row
in ``schema_migrations``; running again applies nothing. A version is a portable file
``NNNN_name.sql`` (statements end with ``;``), and may add files for one dialect,
``NNNN_name.postgresql.sql`` and ``NNNN_name.sqlite.sql``, applied after the portable part on
that dialect only: for what the two spell too differently to share, such as triggers. Their
bodies hold ``;`` of their own, so their statements are separated by a line holding only
``/`` instead, and their comments are left to the database. Two processes starting at
once serialize on a lock (an advisory lock on PostgreSQL, the write lock on SQLite), so the
loser sees the winner's rows and skips.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources

from sqlalchemy import Connection, Engine, text

from fashion_assets.catalog.db import is_postgres

MIGRATIONS_PACKAGE = "fashion_assets.sql"
_FILE_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)(?:\.(postgresql|sqlite))?\.sql$")
_DIALECT_SEPARATOR = re.compile(r"^[ \t]*/[ \t]*$", re.MULTILINE)
# Any 64-bit number unique to this project, for pg_advisory_xact_lock.
_PG_LOCK_ID = 0x6661736869_6F6E

_AUTO_ID = {
    "sqlite": "INTEGER PRIMARY KEY AUTOINCREMENT",
    "postgresql": "BIGSERIAL PRIMARY KEY",
}


@dataclass(frozen=True)
class Migration:
    version: str
    name: str  # the portable file's name
    sql: str
    dialect_sql: Mapping[str, str] = field(default_factory=dict)  # dialect -> its own part

    def render(self, dialect: str) -> list[str]:
        """The statements of this migration for ``dialect``: the portable part, comments
        dropped, then the dialect's own part, if any."""
        body = re.sub(r"--[^\n]*", "", self.sql).replace("AUTO_ID", _AUTO_ID[dialect])
        statements = [stmt.strip() for stmt in body.split(";") if stmt.strip()]
        own = self.dialect_sql.get(dialect, "")
        return statements + [s.strip() for s in _DIALECT_SEPARATOR.split(own) if s.strip()]


def packaged_migrations() -> list[Migration]:
    """Every migration shipped with the package, in version order."""
    portable: dict[str, tuple[str, str]] = {}
    own: dict[str, dict[str, str]] = {}
    for entry in resources.files(MIGRATIONS_PACKAGE).iterdir():
        match = _FILE_NAME.match(entry.name)
        if not match:
            continue
        version, dialect = match.group(1), match.group(3)
        if dialect:
            own.setdefault(version, {})[dialect] = entry.read_text("utf-8")
        elif version in portable:
            raise RuntimeError(f"two migrations numbered {version}: {entry.name}, "
                               f"{portable[version][0]}")
        else:
            portable[version] = (entry.name, entry.read_text("utf-8"))
    if not portable:
        raise RuntimeError(f"no SQL migrations found in package {MIGRATIONS_PACKAGE}")
    if orphans := sorted(set(own) - set(portable)):
        raise RuntimeError(f"dialect migrations without a portable file: {orphans}")
    return [Migration(v, name, sql, own.get(v, {}))
            for v, (name, sql) in sorted(portable.items())]


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
