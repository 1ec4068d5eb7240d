"""The catalog's side of the store heal: which referenced objects the store lost, where each
came from, where the scheduled walk stands, and what could not be fetched again.

Two ways to choose the keys to check: the photos of the shows or articles a crawl just
handled (``keys_of``: their drafts by source key, the catalog entries of their entity
keys), and the whole archive, a page per tick in key order from a cursor kept in
``store_heal_cursor`` (``archive_page``: the asset checks' own query, resumed), so that
successive ticks cover every key and then start over. What could not be fetched again is
kept in ``lost_objects`` (``sql/0010_store_heal.sql``), a row per URL tried, replaced each
time its key is checked: a key healed, found stored again or no longer referenced leaves it.
The rule deciding what counts as healed is ``domain/store_heal.py``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, DateTime, Engine, bindparam, text

from fashion_assets.catalog.db import utc_naive
from fashion_assets.catalog.drafts import Listed
from fashion_assets.catalog.entities import EntityTables
from fashion_assets.catalog.integrity import referenced_page
from fashion_assets.catalog.media import IMAGE_TABLES
from fashion_assets.domain.store_heal import LostObject, Step, Unhealed, lost_object
from fashion_assets.domain.store_scrub import size_damage
from fashion_assets.storage import ObjectStore

WALK = "archive"
"""The one walk of ``store_heal_cursor``: every key any draft or catalog photo references."""
KEYS_PER_QUERY = 500
"""Bound keys or items per query: SQL size stays bounded, far below SQLite's limit."""

SCRUB_WALK = "scrub"
"""The store scrub's walk (``crawl/store_scrub.py``): the same keys, read in full."""
_SOURCE_URLS = {
    table: text(f"SELECT object_key, source_image_url, byte_size FROM {table}"
                " WHERE object_key IN :keys").bindparams(bindparam("keys", expanding=True))
    for table in IMAGE_TABLES
}
_REFERENCED = " OR ".join(f"EXISTS (SELECT 1 FROM {table} i WHERE i.object_key = l.object_key)"
                          for table in IMAGE_TABLES)


@dataclass(frozen=True)
class HealCursor:
    """Where the scheduled heal stands: the next tick checks the keys after ``after`` ("": a
    new pass); ``passes`` completed so far; when the current pass began."""

    after: str
    passes: int
    pass_started_at: datetime | None


@dataclass(frozen=True)
class LostRow:
    """One recorded try at a lost object: the URL, why it failed, when."""

    object_key: str
    url: str
    reason: str
    detail: str
    recorded_at: datetime


def archive_page(engine: Engine, after: str, limit: int) -> list[str]:
    """The first ``limit`` referenced keys after ``after``, drafts and catalog together."""
    return referenced_page(engine, "all", after=after, limit=limit)


def keys_of(engine: Engine, tables: EntityTables, items: Sequence[Listed]) -> list[str]:
    """The object keys the drafts of ``items`` (by source key) and the catalog entries of
    their entity keys reference, sorted: what a crawl of those items may heal."""
    keys: set[str] = set()
    with engine.connect() as conn:
        for start in range(0, len(items), KEYS_PER_QUERY):
            part = items[start:start + KEYS_PER_QUERY]
            drafts = " OR ".join(f"(d.source = :s{n} AND d.source_url = :u{n})"
                                 for n in range(len(part)))
            params: dict[str, Any] = {f"s{n}": item.source for n, item in enumerate(part)}
            params.update({f"u{n}": item.source_url for n, item in enumerate(part)})
            keys.update(conn.execute(text(
                f"SELECT DISTINCT i.object_key FROM {tables.draft_images} i"
                f" JOIN {tables.drafts} d ON d.id = i.draft_id WHERE {drafts}"), params).scalars())
            entries = " OR ".join("(" + " AND ".join(f"c.{column} = :k{n}_{j}"
                                                     for j, column in enumerate(tables.key)) + ")"
                                  for n in range(len(part)))
            params = {f"k{n}_{j}": getattr(item, column) for n, item in enumerate(part)
                      for j, column in enumerate(tables.key)}
            keys.update(conn.execute(text(
                f"SELECT DISTINCT i.object_key FROM {tables.catalog_images} i"
                f" JOIN {tables.catalog} c ON c.id = i.{tables.catalog_image_fk}"
                f" WHERE {entries}"), params).scalars())
    return sorted(keys)


def find_lost(engine: Engine, store: ObjectStore, keys: Sequence[str]) -> list[LostObject]:
    """Those of ``keys`` the store does not have or holds damaged (``size_damage``: empty,
    or not the size their rows recorded, seen by the lookup itself), each with the source
    URLs its photo rows record (drafts and catalog, both kinds), in key order."""
    stored = store.sizes(keys)
    recorded = photo_rows(engine, keys)
    lost = []
    for key in sorted(set(keys)):
        urls, sizes = recorded.get(key, (set(), set()))
        if key not in stored:
            lost.append(lost_object(key, urls))
        elif (damage := size_damage(key, stored[key], sizes)) is not None:
            lost.append(lost_object(key, urls, damage.line()))
    return lost


def photo_rows(engine: Engine, keys: Sequence[str]) -> dict[str, tuple[set[str], set[int]]]:
    """The source URLs ('' where none is) and sizes every photo row of ``keys`` records."""
    found: dict[str, tuple[set[str], set[int]]] = {}
    with engine.connect() as conn:
        for start in range(0, len(keys), KEYS_PER_QUERY):
            part = list(keys[start:start + KEYS_PER_QUERY])
            for query in _SOURCE_URLS.values():
                for key, url, size in conn.execute(query, {"keys": part}):
                    urls, sizes = found.setdefault(key, (set(), set()))
                    urls.add(url)
                    if size is not None:
                        sizes.add(int(size))
    return found


def read_cursor(engine: Engine, walk: str = WALK) -> HealCursor:
    """Where the walk stands (the heal's, or ``SCRUB_WALK``); a fresh catalog starts a
    first pass."""
    with engine.connect() as conn:
        row = conn.execute(text("SELECT after_key, passes, pass_started_at"
                                " FROM store_heal_cursor WHERE walk = :w"), {"w": walk}).first()
    if row is None:
        return HealCursor("", 0, None)
    started = None if row[2] is None else utc_naive(row[2])
    return HealCursor(str(row[0]), int(row[1]), started)


def finish_tick(engine: Engine, step: Step, unhealed: Sequence[Unhealed],
                now: datetime) -> None:
    """Record a tick of the walk in one transaction: the lost rows of the range it checked
    replaced by ``unhealed``, and the cursor moved on (a pass counted when it wrapped).

    Nothing is written before the tick's work is done, so a tick that fails (our store or
    database down) leaves the cursor where it was and the next one checks the same keys.
    """
    bound = "" if step.upto is None else " AND object_key <= :upto"
    with engine.begin() as conn:
        conn.execute(text(f"DELETE FROM lost_objects WHERE object_key > :after{bound}"),
                     {"after": step.after, "upto": step.upto})
        _insert_lost(conn, unhealed, now)
        _move_cursor(conn, step, now, WALK)


def finish_scrub(engine: Engine, step: Step, damaged: Sequence[str],
                 unhealed: Sequence[Unhealed], now: datetime) -> None:
    """Record a tick of the scrub in one transaction: the lost rows of the ``damaged`` keys
    it found replaced by ``unhealed``, and its cursor moved on. The other keys it read are
    the heal's to record (one the store lacks is not the scrub's to list)."""
    with engine.begin() as conn:
        _forget(conn, damaged)
        _insert_lost(conn, unhealed, now)
        _move_cursor(conn, step, now, SCRUB_WALK)


def record_checked(engine: Engine, keys: Sequence[str], unhealed: Sequence[Unhealed],
                   now: datetime) -> None:
    """Record a heal of ``keys`` (a crawl's shows): their lost rows replaced by ``unhealed``,
    in one transaction."""
    with engine.begin() as conn:
        _forget(conn, keys)
        _insert_lost(conn, unhealed, now)


def _forget(conn: Connection, keys: Sequence[str]) -> None:
    """Remove the lost rows of ``keys``."""
    forget = text("DELETE FROM lost_objects WHERE object_key IN :keys").bindparams(
        bindparam("keys", expanding=True))
    for start in range(0, len(keys), KEYS_PER_QUERY):
        conn.execute(forget, {"keys": list(keys[start:start + KEYS_PER_QUERY])})


def _insert_lost(conn: Connection, unhealed: Sequence[Unhealed], now: datetime) -> None:
    """Add the tries; a row a concurrent heal wrote for the same key and URL is updated."""
    if not unhealed:
        return
    conn.execute(_timed(
        "INSERT INTO lost_objects (object_key, url, reason, detail, recorded_at)"
        " VALUES (:key, :url, :reason, :detail, :now) ON CONFLICT (object_key, url) DO UPDATE"
        " SET reason = excluded.reason, detail = excluded.detail,"
        " recorded_at = excluded.recorded_at"),
        [{"key": u.key, "url": u.url, "reason": u.reason, "detail": u.detail,
          "now": utc_naive(now)} for u in unhealed])


def _move_cursor(conn: Connection, step: Step, now: datetime, walk: str) -> None:
    """The cursor after ``step``: its next key, a pass more when it wrapped, the pass's
    start when this tick began one."""
    conn.execute(_timed(
        "INSERT INTO store_heal_cursor (walk, after_key, passes, pass_started_at, updated_at)"
        " VALUES (:walk, :next, :wrapped, :now, :now) ON CONFLICT (walk) DO UPDATE"
        " SET after_key = excluded.after_key,"
        " passes = store_heal_cursor.passes + excluded.passes,"
        " pass_started_at = CASE WHEN :began THEN excluded.pass_started_at"
        "  ELSE store_heal_cursor.pass_started_at END,"
        " updated_at = excluded.updated_at"),
        {"walk": walk, "next": step.next_after, "wrapped": int(step.wrapped),
         "began": step.after == "", "now": utc_naive(now)})


def lost_rows(engine: Engine, limit: int) -> list[LostRow]:
    """The recorded tries at lost objects that some photo still references, by key."""
    with engine.connect() as conn:
        rows = conn.execute(text(
            "SELECT object_key, url, reason, detail, recorded_at FROM lost_objects l"
            f" WHERE {_REFERENCED} ORDER BY object_key, url LIMIT :n"), {"n": limit})
        return [LostRow(str(k), str(u), str(r), str(d), utc_naive(t)) for k, u, r, d, t in rows]


def lost_counts(engine: Engine) -> tuple[int, dict[str, int]]:
    """How many lost objects that some photo still references could not be fetched again,
    and how many by the reason of a recorded try (an object tried at several URLs counts
    once under each reason they gave)."""
    with engine.connect() as conn:
        total = conn.execute(text("SELECT count(DISTINCT object_key) FROM lost_objects l"
                                  f" WHERE {_REFERENCED}")).scalar_one()
        by_reason = {str(reason): int(count) for reason, count in conn.execute(text(
            "SELECT reason, count(DISTINCT object_key) FROM lost_objects l"
            f" WHERE {_REFERENCED} GROUP BY reason ORDER BY reason"))}
    return int(total), by_reason


def reasons_of(engine: Engine, keys: Iterable[str]) -> dict[str, str]:
    """The reasons recorded for each of ``keys`` that the heal could not fetch again
    (several URLs: their reasons joined by ", ")."""
    wanted = sorted(set(keys))
    if not wanted:
        return {}
    found: dict[str, list[str]] = {}
    query = text("SELECT object_key, reason FROM lost_objects WHERE object_key IN :keys"
                 " ORDER BY object_key, url").bindparams(bindparam("keys", expanding=True))
    with engine.connect() as conn:
        for start in range(0, len(wanted), KEYS_PER_QUERY):
            for key, reason in conn.execute(query,
                                            {"keys": wanted[start:start + KEYS_PER_QUERY]}):
                found.setdefault(str(key), []).append(str(reason))
    return {key: ", ".join(dict.fromkeys(reasons)) for key, reasons in found.items()}


def _timed(sql: str) -> Any:
    """``sql`` with its ``:now`` typed, so SQLite stores one sortable text form."""
    return text(sql).bindparams(bindparam("now", type_=DateTime()))
