"""The coverage sensor's reads and writes: incomplete shows due for a re-fetch, and attempts.

One bounded query per tick finds the shows to repair (``due_repairs``): the coverage rule and
the counts it reads come from ``domain/coverage.py`` as SQL, over the photo counts that
triggers keep on drafts and catalog entries, so a tick reads two numbers per show and never
counts photo rows. The attempts the sensor makes are written in the same transaction as
the decision to make them (``record_attempts``), so a crashed tick never re-fetches early.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, bindparam, text

from fashion_assets.catalog.db import utc_naive
from fashion_assets.catalog.entities import same_source
from fashion_assets.catalog.runway import SHOW_JOINS
from fashion_assets.catalog.sql import insert_rows
from fashion_assets.domain.coverage import (
    CoverageColumns,
    CoverageRules,
    DueShow,
    RepairStep,
    coverage_sql,
    give_up_reason,
    incomplete_sql,
)
from fashion_assets.sources.registry import SOURCES

# The show ids of an ``IN``: one statement whatever their number, so SQLAlchemy compiles
# and caches it once (a placeholder per id made a statement of every length, each cached).
_IDS = bindparam("ids", expanding=True)


def _incomplete(rules: CoverageRules) -> str:
    subject, expected, stored = coverage_sql(CoverageColumns())
    return f"{subject} AND {incomplete_sql(expected, stored, rules)}"


# The partition a show is crawled by, as its source declares (sources/registry.py): the brand
# for Vogue's, the season code for theImpression's.
_PARTITION_KEY = "CASE s.source {} ELSE s.season_code END".format(" ".join(
    f"WHEN '{s.name}' THEN s.brand_slug" for s in SOURCES if s.runway_partitioning == "brand"))

# The incomplete shows, with the partition each is crawled by. Computed first, on its own
# (MATERIALIZED): joined with the sensor's attempts in one query, the planner misjudged the
# attempts' filter and read the 100,000 shows by nested index lookups, 5x slower
# (docs/catalog-benchmarks.md).
_INCOMPLETE_SHOWS = (
    f"SELECT s.id, s.source, {_PARTITION_KEY} AS partition_key" + SHOW_JOINS
    + " WHERE {rule}")


def due_repairs(engine: Engine, rules: CoverageRules, now: datetime, limit: int
                ) -> list[DueShow]:
    """Up to ``limit`` incomplete shows not given up whose back-off is over, never tried
    first, then the longest waiting; each with the partition it is crawled by (Vogue's
    brands, theImpression's seasons)."""
    sql = text(
        f"WITH incomplete AS MATERIALIZED ({_INCOMPLETE_SHOWS.format(rule=_incomplete(rules))})"
        " SELECT c.id, c.source, c.partition_key, COALESCE(r.attempts, 0) FROM incomplete c"
        " LEFT JOIN coverage_repairs r ON r.show_id = c.id WHERE r.gave_up_at IS NULL"
        " AND (r.next_attempt_at IS NULL OR r.next_attempt_at <= :now)"
        " ORDER BY CASE WHEN r.next_attempt_at IS NULL THEN 0 ELSE 1 END,"
        " r.next_attempt_at, c.id LIMIT :limit")
    with engine.connect() as conn:
        rows = conn.execute(sql, {"now": utc_naive(now), "limit": limit,
}).all()
    return [DueShow(int(i), str(src), str(key), int(a)) for i, src, key, a in rows]


def record_attempts(engine: Engine, steps: Mapping[int, RepairStep], now: datetime
                    ) -> dict[int, str]:
    """Write each show's step: an attempt with its next time, or giving up with the reason.

    Returns the reasons of the shows given up, by show id.
    """
    now = utc_naive(now)
    given_up = [show_id for show_id, step in steps.items() if step.give_up]
    with engine.begin() as conn:
        reasons = _give_up_reasons(conn, given_up)
        rows = [(show_id, step.attempts, None if step.give_up else now,
                 None if step.next_attempt_at is None else utc_naive(step.next_attempt_at),
                 now if step.give_up else None, reasons.get(show_id, ""))
                for show_id, step in sorted(steps.items())]
        insert_rows(conn, "coverage_repairs", ("show_id", "attempts", "last_attempt_at",
                                               "next_attempt_at", "gave_up_at", "reason"),
                    rows, on_conflict=(
                        "(show_id) DO UPDATE SET attempts = excluded.attempts,"
                        " last_attempt_at = COALESCE(excluded.last_attempt_at,"
                        "  coverage_repairs.last_attempt_at),"
                        " next_attempt_at = excluded.next_attempt_at,"
                        " gave_up_at = excluded.gave_up_at, reason = excluded.reason"))
    return reasons


def refund_attempts(engine: Engine, show_ids: Sequence[int]) -> None:
    """Take back the attempt the coverage sensor charged each show when it launched a repair
    run that an outage of our own (the store, the database) then failed: our outage is no
    reason to give up on a show."""
    if not show_ids:
        return
    with engine.begin() as conn:
        conn.execute(text(
            "UPDATE coverage_repairs SET attempts = attempts - 1 WHERE attempts > 0"
            " AND gave_up_at IS NULL AND show_id IN :ids").bindparams(_IDS),
            {"ids": list(show_ids)})


def _give_up_reasons(conn, show_ids: Sequence[int]) -> dict[int, str]:
    """Why each show stays incomplete: its missing photos' reasons, else its last failure."""
    if not show_ids:
        return {}
    params = {"ids": list(show_ids)}
    missing: dict[int, dict[str, int]] = defaultdict(dict)
    for show_id, reason, count in conn.execute(text(
            "SELECT show_id, reason, count(*) FROM runway_missing_images"
            " WHERE show_id IN :ids GROUP BY show_id, reason").bindparams(_IDS), params):
        missing[int(show_id)][str(reason)] = int(count)
    last: dict[int, str] = {}
    for show_id, outcome, reason in conn.execute(text(
            "SELECT s.id, l.outcome, l.reason FROM runway_shows s JOIN ingest_log l"
            f" ON {same_source('l', 's')}"
            " WHERE s.id IN :ids ORDER BY l.id").bindparams(_IDS), params):
        last[int(show_id)] = f"{outcome}: {reason}" if reason else str(outcome)
    attempts = dict(conn.execute(text(
        "SELECT show_id, attempts FROM coverage_repairs WHERE show_id IN :ids"
    ).bindparams(_IDS), params).all())
    return {i: give_up_reason(missing.get(i, {}), last.get(i, ""), int(attempts.get(i, 0)))
            for i in show_ids}


class UnknownShows(ValueError):
    """``retry_given_up`` was named a show or a brand the catalog does not have: a typo,
    said as one, rather than "0 given-up shows" as if the shows were fine."""


def retry_given_up(engine: Engine, *, brand_slug: str | None = None,
                   show_ids: Sequence[int] = ()) -> int:
    """Let the sensor try shows it gave up on again, from a fresh back-off (an editor's
    call, e.g. after the source restored the photos); return how many. ``UnknownShows``
    when a show id or the brand is not in the catalog (nothing is changed then)."""
    _check_known(engine, brand_slug, show_ids)
    where, params = ["gave_up_at IS NOT NULL"], {}
    if brand_slug:
        where.append("show_id IN (SELECT id FROM runway_shows WHERE brand_slug = :brand)")
        params["brand"] = brand_slug
    if show_ids:
        where.append("show_id IN :ids")
        params["ids"] = [int(i) for i in show_ids]
    query = text(f"DELETE FROM coverage_repairs WHERE {' AND '.join(where)}")
    with engine.begin() as conn:
        return int(conn.execute(query.bindparams(_IDS) if show_ids else query,
                                params).rowcount or 0)


def _check_known(engine: Engine, brand_slug: str | None, show_ids: Sequence[int]) -> None:
    """Raise ``UnknownShows`` naming the show ids and the brand the catalog lacks."""
    with engine.connect() as conn:
        known = set(conn.execute(text("SELECT id FROM runway_shows WHERE id IN :ids")
                                 .bindparams(_IDS), {"ids": [int(i) for i in show_ids]}
                                 ).scalars()) if show_ids else set()
        brand_known = not brand_slug or conn.execute(
            text("SELECT 1 FROM brands WHERE slug = :b"), {"b": brand_slug}).first()
    missing = sorted(set(show_ids) - known)
    parts = []
    if missing:
        shows = "show" if len(missing) == 1 else "shows"
        parts.append(f"no {shows} {', '.join(map(str, missing))}")
    if not brand_known:
        parts.append(f"no brand {brand_slug!r}")
    if parts:
        raise UnknownShows(" and ".join(parts) + " in the catalog")


@dataclass(frozen=True)
class RepairCounts:
    """The sensor's own bookkeeping at a glance (``coverage_repairs`` alone, a small table)."""

    backing_off: int
    given_up: int


def repair_counts(engine: Engine, now: datetime) -> RepairCounts:
    """Shows waiting out a back-off, and shows given up: for the sensor's skip reason."""
    with engine.connect() as conn:
        waiting, given_up = conn.execute(text(
            "SELECT COALESCE(sum(CASE WHEN gave_up_at IS NULL AND next_attempt_at > :now"
            " THEN 1 ELSE 0 END), 0), COALESCE(sum(CASE WHEN gave_up_at IS NOT NULL THEN 1"
            " ELSE 0 END), 0) FROM coverage_repairs"), {"now": utc_naive(now)}).one()
    return RepairCounts(int(waiting), int(given_up))


@dataclass(frozen=True)
class GivenUp:
    show_id: int
    brand_slug: str
    source_url: str
    attempts: int
    gave_up_at: str
    reason: str


def given_up_shows(engine: Engine, show_ids: Sequence[int]) -> list[GivenUp]:
    """The shows of ``show_ids`` the coverage sensor gave up on, for a run's metadata."""
    found: list[GivenUp] = []
    with engine.connect() as conn:
        for start in range(0, len(show_ids), 500):
            chunk = [int(i) for i in show_ids[start:start + 500]]
            found += _given_up(conn.execute(text(
                f"{_GIVEN_UP} AND r.show_id IN :ids ORDER BY s.id").bindparams(_IDS),
                {"ids": chunk}))
    return found


_GIVEN_UP = ("SELECT s.id, s.brand_slug, s.source_url, r.attempts, r.gave_up_at, r.reason"
             " FROM coverage_repairs r JOIN runway_shows s ON s.id = r.show_id"
             " WHERE r.gave_up_at IS NOT NULL")


def _given_up(rows: Iterable[Any]) -> list[GivenUp]:
    return [GivenUp(int(i), str(b), str(u), int(a), str(g), str(r)) for i, b, u, a, g, r in rows]


@dataclass(frozen=True)
class IncompleteShow:
    """One show the coverage sensor repairs or gave up on, as ``coverage list`` shows it."""

    show_id: int
    source: str
    brand_slug: str
    season_code: str
    source_url: str
    stored: int  # photos stored, of the draft or the catalog entry (``show_coverage``)
    expected: int  # 0: the source gave no count
    attempts: int  # the sensor's re-fetches so far
    next_attempt_at: str | None  # ISO 8601 UTC; None: due now (or given up)
    gave_up_at: str | None  # ISO 8601 UTC; None: not given up
    reason: str  # why it was given up
    last_reason: str  # why it is incomplete: the latest reason the ingest log has for it


def incomplete_shows(engine: Engine, rules: CoverageRules, *, limit: int = 100
                     ) -> list[IncompleteShow]:
    """Up to ``limit`` incomplete shows with their counts and the sensor's attempts: those it
    still repairs first (due ones, then by next attempt), then those it gave up on, latest
    first. Counts and rule are the sensor's own (``coverage_sql``, ``incomplete_sql``).

    Each with the latest reason the ingest log holds for the show (its manifest's failure,
    its drafts step's "no manifest: ..."), so a show never re-fetched says why it is
    incomplete too: a look-up per listed show on the log's (source, source_url, id) index."""
    subject, expected, stored = coverage_sql(CoverageColumns())
    sql = text(
        f"SELECT s.id, s.source, s.brand_slug, s.season_code, s.source_url, {stored},"
        f" {expected}, COALESCE(r.attempts, 0), r.next_attempt_at, r.gave_up_at,"
        f" COALESCE(r.reason, ''), COALESCE((SELECT l.reason FROM ingest_log l"
        f" WHERE l.source = s.source AND l.source_url = s.source_url AND l.reason <> ''"
        f" ORDER BY l.id DESC LIMIT 1), '')"
        f"{SHOW_JOINS} LEFT JOIN coverage_repairs r ON r.show_id = s.id"
        f" WHERE ({subject} AND {incomplete_sql(expected, stored, rules)})"
        " OR r.gave_up_at IS NOT NULL"
        " ORDER BY CASE WHEN r.gave_up_at IS NULL THEN 0 ELSE 1 END, r.gave_up_at DESC,"
        " CASE WHEN r.next_attempt_at IS NULL THEN 0 ELSE 1 END, r.next_attempt_at, s.id"
        " LIMIT :limit")
    with engine.connect() as conn:
        rows = conn.execute(sql, {"limit": limit}).all()
    return [IncompleteShow(int(i), str(src), str(b), str(season), str(url), int(st), int(ex),
                           int(a), _iso(next_at), _iso(gave_up), str(reason), str(last))
            for i, src, b, season, url, st, ex, a, next_at, gave_up, reason, last in rows]


def _iso(value: datetime | str | None) -> str | None:
    """A catalog timestamp (naive UTC; text on SQLite) as ISO 8601 with its zone."""
    if value is None:
        return None
    return utc_naive(value).replace(tzinfo=UTC).isoformat(timespec="seconds")


@dataclass(frozen=True)
class CoverageReport:
    """Coverage at a glance, for status, metadata and the sensor's log."""

    incomplete: int  # incomplete shows the sensor has not given up on
    backing_off: int  # of those, waiting out their back-off
    given_up: int
    given_up_shows: tuple[GivenUp, ...]  # the latest, up to the limit asked


def coverage_report(engine: Engine, rules: CoverageRules, now: datetime, *,
                    limit: int = 20) -> CoverageReport:
    """Counts of incomplete, backing-off and given-up shows, and the latest given up."""
    with engine.connect() as conn:
        incomplete, backing_off = conn.execute(text(
            f"WITH incomplete AS MATERIALIZED"
            f" ({_INCOMPLETE_SHOWS.format(rule=_incomplete(rules))})"
            " SELECT count(*), COALESCE(sum(CASE WHEN r.next_attempt_at > :now THEN 1 ELSE 0"
            " END), 0) FROM incomplete c LEFT JOIN coverage_repairs r ON r.show_id = c.id"
            " WHERE r.gave_up_at IS NULL"),
            {"now": utc_naive(now)}).one()
        latest = _given_up(conn.execute(text(
            f"{_GIVEN_UP} ORDER BY r.gave_up_at DESC, s.id LIMIT :n"), {"n": limit}))
    return CoverageReport(int(incomplete), int(backing_off),
                          repair_counts(engine, now).given_up, tuple(latest))
