"""Versioned SQL migrations from the packaged ``sql/`` folder, applied at start.

Each version ``NNNN`` is applied once, in order, inside one transaction together with its row
in ``schema_migrations``; running again applies nothing. A version is a portable file
``NNNN_name.sql``, and may add files for one dialect, ``NNNN_name.postgresql.sql`` and
``NNNN_name.sqlite.sql``, applied after the portable part on that dialect only: for what the
two spell too differently to share, such as triggers. Every file is ordinary SQL, statements
ending with ``;``, comments anywhere.

Where one statement ends is left to each database's own SQL parser, never to a split on ``;``
here, which broke on a ``;`` inside a string literal, a function body or a trigger:
PostgreSQL is sent a file whole (the simple query protocol runs several statements in the
transaction already open), and SQLite's statements are cut where ``sqlite3.complete_statement``
(SQLite's own ``sqlite3_complete``) says one ends, because pysqlite runs one statement per
call and its ``executescript`` commits the open transaction first. No parser of a third
grammar (sqlparse) or migration framework (Alembic) is needed for that.

Two processes starting at once serialize on a lock (an advisory lock on PostgreSQL, the write
lock on SQLite), so the loser sees the winner's rows and skips.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources

from sqlalchemy import Connection, Engine, text

from fashion_assets.catalog.db import is_postgres

MIGRATIONS_PACKAGE = "fashion_assets.sql"
_FILE_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)(?:\.(postgresql|sqlite))?\.sql$")
_AUTO_ID_TOKEN = re.compile(r"\bAUTO_ID\b")
_AS_WRITTEN = {"no_parameters": True}
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
        """What to send ``dialect``, in order, each item to one driver call: the portable part
        (``AUTO_ID`` spelled for the dialect), then the dialect's own part, if any. Whole
        files for PostgreSQL, single statements for SQLite (see the module docstring)."""
        scripts = [_AUTO_ID_TOKEN.sub(_AUTO_ID[dialect], self.sql),
                   self.dialect_sql.get(dialect, "")]
        if dialect == "sqlite":
            return [stmt for script in scripts for stmt in sqlite_statements(script)]
        return [script for script in scripts if script.strip()]


def sqlite_statements(script: str) -> list[str]:
    """``script`` cut into its statements where SQLite's own tokenizer says one is complete,
    so a ``;`` inside a literal, a quoted name, a comment or a trigger's body stays inside its
    statement. Text after the last ``;`` is kept as a statement if there is any, as SQLite
    would run it: a comment alone is a no-op there."""
    statements, start = [], 0
    for match in re.finditer(";", script):
        candidate = script[start:match.end()]
        if sqlite3.complete_statement(candidate):
            statements.append(candidate.strip())
            start = match.end()
    if tail := script[start:].strip():
        statements.append(tail)
    return statements


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


def apply_migrations(engine: Engine, migrations: Sequence[Migration] | None = None) -> list[str]:
    """Apply the pending migrations (the packaged ones unless ``migrations`` names others);
    return the names of those applied now."""
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
        for migration in packaged_migrations() if migrations is None else migrations:
            if migration.version in done:
                continue
            for script in migration.render(engine.dialect.name):
                # No parameters: the driver sends the SQL as written, a ``%`` included
                # (psycopg2 would read one as a placeholder).
                conn.exec_driver_sql(script, execution_options=_AS_WRITTEN)
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
