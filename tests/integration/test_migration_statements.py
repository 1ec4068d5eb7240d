"""Where a migration's statements end is the database's call, not a split on ``;`` (issue 38).

The catalog's migrations used to be cut on every ``;`` (and the dialect files on every line
holding only ``/``), and comments were stripped with a pattern that knew nothing of literals:
a ``;``, a ``--`` or a ``/`` line inside a string literal, a function body or a trigger cut a
statement in two. Each migration must still be one transaction on both databases.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import Engine, inspect, text
from sqlalchemy.exc import DBAPIError

from fashion_assets.catalog.db import create_catalog_engine
from fashion_assets.catalog.migrations import Migration, apply_migrations

PORTABLE = """\
-- Each of these once cut a statement: 'a; b', 'c -- d'.
CREATE TABLE literals (id AUTO_ID, v TEXT NOT NULL);
INSERT INTO literals (v) VALUES ('one; two -- three, 100%');
"""
# A function body and a trigger whose bodies hold ``;``, and a literal holding a line that
# is only ``/``, the dialect files' old separator.
POSTGRESQL = """\
CREATE FUNCTION literal_tag() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.v = 'tag me' THEN
        NEW.v := 'tagged; in a body';
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER literals_tagged BEFORE INSERT ON literals
    FOR EACH ROW EXECUTE FUNCTION literal_tag();
INSERT INTO literals (v) VALUES ('four
/
five');
"""
SQLITE = """\
CREATE TRIGGER literals_tagged AFTER INSERT ON literals WHEN NEW.v = 'tag me' BEGIN
    UPDATE literals SET v = 'tagged; in a body' WHERE id = NEW.id;
END;
INSERT INTO literals (v) VALUES ('four
/
five'); -- a comment after the last statement; with a semicolon
"""


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    engine = create_catalog_engine(database_url)
    yield engine
    engine.dispose()


def test_literals_and_bodies_holding_semicolons_stay_whole(engine: Engine) -> None:
    migration = Migration("9001", "9001_literals.sql", PORTABLE,
                          {"postgresql": POSTGRESQL, "sqlite": SQLITE})
    assert apply_migrations(engine, [migration]) == ["9001_literals.sql"]
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO literals (v) VALUES ('tag me')"))
    with engine.connect() as conn:
        values = [v for (v,) in conn.execute(text("SELECT v FROM literals ORDER BY id"))]
        versions = [v for (v,) in conn.execute(text("SELECT version FROM schema_migrations"))]
    assert values == ["one; two -- three, 100%", "four\n/\nfive", "tagged; in a body"]
    assert versions == ["9001"]
    assert apply_migrations(engine, [migration]) == []


def test_a_migration_failing_in_its_dialect_part_leaves_nothing(engine: Engine) -> None:
    """The portable part is one driver call on PostgreSQL, the dialect part another, and
    SQLite's statements one call each: all of them are still one transaction."""
    broken = "CREATE TABLE dialect_half (id INTEGER);\nINSERT INTO nowhere VALUES (1);\n"
    migration = Migration("9002", "9002_broken.sql", PORTABLE,
                          {"postgresql": broken, "sqlite": broken})
    with pytest.raises(DBAPIError, match="nowhere"):
        apply_migrations(engine, [migration])
    assert inspect(engine).get_table_names() == []
