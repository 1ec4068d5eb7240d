"""The catalog schema and its migrations, on SQLite and PostgreSQL."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest
from sqlalchemy import Engine, text
from sqlalchemy.exc import IntegrityError

from fashion_assets.catalog.db import create_catalog_engine, redact_url
from fashion_assets.catalog.migrations import apply_migrations, packaged_migrations


@pytest.fixture
def engine(database_url: str) -> Engine:
    engine = create_catalog_engine(database_url)
    yield engine
    engine.dispose()


def insert_draft(conn, source: str, source_url: str) -> None:
    conn.execute(text(
        "INSERT INTO brand_runway_drafts (source, source_url, brand_slug, season_code)"
        " VALUES (:s, :u, 'chloe', 'resort-2026')"), {"s": source, "u": source_url})


def test_migrations_apply_once_and_are_recorded(engine: Engine) -> None:
    first = apply_migrations(engine)
    second = apply_migrations(engine)

    assert first == [m.name for m in packaged_migrations()] and second == []
    with engine.connect() as conn:
        versions = [v for (v,) in conn.execute(text("SELECT version FROM schema_migrations"))]
    assert versions == [m.version for m in packaged_migrations()]


def test_concurrent_starts_apply_each_migration_once(database_url: str) -> None:
    engines = [create_catalog_engine(database_url) for _ in range(4)]
    results: list[list[str]] = []
    errors: list[BaseException] = []
    barrier = threading.Barrier(len(engines))

    def start(e: Engine) -> None:
        barrier.wait()
        try:
            results.append(apply_migrations(e))
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=start, args=(e,)) for e in engines]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for e in engines:
        e.dispose()

    assert not errors
    assert sorted(len(r) for r in results) == [0, 0, 0, len(packaged_migrations())]


def test_the_source_key_is_unique_except_for_drafts_without_a_source_url(
        engine: Engine) -> None:
    apply_migrations(engine)
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO brands (slug) VALUES ('chloe')"))
        insert_draft(conn, "vogue", "")
        insert_draft(conn, "vogue", "")
        insert_draft(conn, "vogue", "https://www.vogue.com/fashion-shows/resort-2026/chloe")
        insert_draft(conn, "theimpression", "https://www.vogue.com/fashion-shows/resort-2026/chloe")

    with pytest.raises(IntegrityError), engine.begin() as conn:
        insert_draft(conn, "vogue", "https://www.vogue.com/fashion-shows/resort-2026/chloe")
    with pytest.raises(IntegrityError), engine.begin() as conn:
        conn.execute(text(
            "INSERT INTO brand_runway_drafts (source, source_url, brand_slug, season_code)"
            " VALUES ('vogue', NULL, 'chloe', 'resort-2026')"))
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM brand_runway_drafts")).scalar() == 4


def test_the_catalog_is_unique_on_the_entity_key_and_statuses_are_checked(
        engine: Engine) -> None:
    apply_migrations(engine)
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO brands (slug) VALUES ('chloe')"))
        conn.execute(text("INSERT INTO brand_runways (brand_slug, season_code)"
                          " VALUES ('chloe', 'resort-2026')"))
    with pytest.raises(IntegrityError), engine.begin() as conn:
        conn.execute(text("INSERT INTO brand_runways (brand_slug, season_code)"
                          " VALUES ('chloe', 'resort-2026')"))
    with pytest.raises(IntegrityError), engine.begin() as conn:
        conn.execute(text(
            "INSERT INTO brand_runway_drafts (source, source_url, brand_slug, season_code,"
            " status) VALUES ('vogue', 'x', 'chloe', 'resort-2026', 'published')"))


def test_database_urls_never_show_their_password() -> None:
    assert "s3cret" not in redact_url("postgresql+psycopg2://u:s3cret@db.example/catalog")
    with pytest.raises(ValueError, match="psycopg2") as info:
        create_catalog_engine("postgresql://u:s3cret@db.example/catalog")
    assert "s3cret" not in str(info.value)


def test_photo_counts_follow_every_insert_move_and_delete(engine: Engine) -> None:
    """The triggers of migration 5 keep ``stored_images`` on drafts and entries true."""
    apply_migrations(engine)
    photo = ("INSERT INTO brand_runway_draft_images (draft_id, position, object_key,"
             " source_image_url, content_type, byte_size) VALUES (:d, :p, :k, '', 'image/jpeg', 1)")
    entry_photo = ("INSERT INTO brand_runway_images (runway_id, position, object_key,"
                   " content_type, byte_size) VALUES (:e, :p, :k, 'image/jpeg', 1)")
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO brands (slug) VALUES ('chloe')"))
        insert_draft(conn, "vogue", "a")
        insert_draft(conn, "theimpression", "b")
        conn.execute(text("INSERT INTO brand_runways (brand_slug, season_code)"
                          " VALUES ('chloe', 'resort-2026')"))
        first, second = [i for (i,) in conn.execute(text(
            "SELECT id FROM brand_runway_drafts ORDER BY id"))]
        entry = conn.execute(text("SELECT id FROM brand_runways")).scalar_one()
        conn.execute(text(photo), [{"d": first, "p": p, "k": f"{p:040x}"} for p in range(1, 6)])
        conn.execute(text(entry_photo), [{"e": entry, "p": p, "k": f"{p:040x}"}
                                         for p in range(1, 4)])

    def counts() -> tuple[int, int, int]:
        with engine.connect() as conn:
            drafts = [n for (n,) in conn.execute(text(
                "SELECT stored_images FROM brand_runway_drafts ORDER BY id"))]
            return (*drafts, conn.execute(text(
                "SELECT stored_images FROM brand_runways")).scalar_one())

    assert counts() == (5, 0, 3)
    with engine.begin() as conn:
        conn.execute(text("UPDATE brand_runway_draft_images SET draft_id = :s"
                          " WHERE draft_id = :f AND position <= 2"), {"s": second, "f": first})
        conn.execute(text("DELETE FROM brand_runway_images WHERE position = 1"))
    assert counts() == (3, 2, 2)
    with engine.begin() as conn:
        conn.execute(text("DELETE FROM brand_runway_draft_images WHERE draft_id = :f"),
                     {"f": first})
        conn.execute(text("DELETE FROM brand_runway_images"))
    assert counts() == (0, 2, 0)


def test_a_new_sqlite_catalog_is_readable_by_its_owner_alone(tmp_path: Path) -> None:
    """Issue 36: it holds the editors' password hashes; under umask 022 it was created 644.
    Its WAL and shared-memory files take its mode; an existing file keeps its own."""
    previous = os.umask(0o022)
    try:
        engine = create_catalog_engine(f"sqlite:///{tmp_path / 'new' / 'catalog.db'}")
        apply_migrations(engine)
        kept = tmp_path / "kept.db"
        kept.touch(mode=0o640)
        create_catalog_engine(f"sqlite:///{kept}").dispose()
    finally:
        os.umask(previous)
    files = sorted((tmp_path / "new").iterdir())
    assert [f.name for f in files] == ["catalog.db", "catalog.db-shm", "catalog.db-wal"]
    assert {stat.S_IMODE(f.stat().st_mode) for f in files} == {0o600}
    engine.dispose()
    assert stat.S_IMODE(kept.stat().st_mode) == 0o640
