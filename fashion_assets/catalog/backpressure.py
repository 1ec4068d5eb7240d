"""Backpressure in the catalog: the two backlogs in one query, and each gate's stored state.

Implements ``domain/backpressure.py`` (the rule, the backlog definitions and their tests are
there). ``evaluate`` is what the crawl schedule and the coverage sensor call before they
launch anything; ``peek`` is the same decision without a write, for ``fashion-assets
status``.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import Connection, Engine, text

from fashion_assets.catalog.db import is_postgres, utc_naive
from fashion_assets.catalog.entities import ENTITIES, has_draft, same_source
from fashion_assets.domain.backpressure import Backlog, Backpressure, BackpressureRules, decide

CRAWL_GATE = "crawl"
# pg_advisory_xact_lock(int, int): this namespace, and the gate's crc32.
_PG_LOCK_NAMESPACE = 0x62707265  # "bpre"

_DRAFT_TABLES = tuple(t.drafts for t in ENTITIES.values())
_ARTICLE_STAGES = "('ingest', 'manifest')"


def _no_draft(table: str) -> str:
    return f"NOT {has_draft(table, 'f')}"


# One statement, two counts:
# - pending review: a range of ix_brand_runway_drafts_status and ix_street_snap_drafts_status
#   (status, updated_at) per kind, as promotion's sensor reads approved drafts;
# - failed ingests: the failed entries of ix_ingest_log_failed (a partial index holding
#   failures of stage ingest/manifest only), each kept if no later entry of its article
#   exists (one probe of ix_ingest_log_article, source key then id) and no draft has its
#   source key (one probe of each kind's unique source index). Kept entries are the latest
#   of their article, so each article counts once. The cost follows the number of failed
#   entries in the log, never the number of entries.
def pending_review_sql(table: str) -> str:
    """SQL counting the drafts of ``table`` that wait for an editor: the review backlog, as
    backpressure and the status line count it."""
    return f"(SELECT count(*) FROM {table} WHERE status = 'pending' AND NOT is_deleted)"


BACKLOG_SQL = (
    "SELECT "
    + " + ".join(pending_review_sql(t) for t in _DRAFT_TABLES)
    + ", (SELECT count(*) FROM ingest_log f"
    f" WHERE f.outcome = 'failed' AND f.stage IN {_ARTICLE_STAGES}"
    f" AND NOT EXISTS (SELECT 1 FROM ingest_log l WHERE {same_source('l', 'f')}"
    f"  AND l.id > f.id AND l.stage IN {_ARTICLE_STAGES})"
    + "".join(f" AND {_no_draft(t)}" for t in _DRAFT_TABLES)
    # A show the coverage sensor gave up on is a known loss, shown apart in status; left
    # in, a few hundred pages gone for good would hold the crawls back forever.
    + " AND NOT EXISTS (SELECT 1 FROM coverage_repairs r JOIN runway_shows s"
    f"  ON s.id = r.show_id WHERE {same_source('s', 'f')}"
    "  AND r.gave_up_at IS NOT NULL)"
    + ")"
)


@dataclass(frozen=True)
class GateState:
    """A gate's stored state: as of its last flip (``changed_at``, UTC), with that reason."""

    gate: str
    paused: bool
    reason: str
    changed_at: datetime | None


def read_backlog(engine: Engine) -> Backlog:
    """The review and failed-ingest backlogs, in one bounded query (``BACKLOG_SQL``)."""
    with engine.connect() as conn:
        return _backlog(conn)


def _backlog(conn: Connection) -> Backlog:
    pending, failed = conn.execute(text(BACKLOG_SQL)).one()
    return Backlog(pending_review=int(pending or 0), failed_ingests=int(failed or 0))


def read_state(engine: Engine, gate: str = CRAWL_GATE) -> GateState | None:
    """The stored state of ``gate``, or None when it never paused."""
    with engine.connect() as conn:
        return _state(conn, gate)


def _state(conn: Connection, gate: str) -> GateState | None:
    row = conn.execute(text("SELECT paused, reason, changed_at FROM backpressure_state"
                            " WHERE gate = :gate"), {"gate": gate}).first()
    if row is None:
        return None
    changed = None if row[2] is None else utc_naive(row[2])
    return GateState(gate, bool(row[0]), str(row[1]), changed)


def peek(engine: Engine, rules: BackpressureRules, gate: str = CRAWL_GATE) -> Backpressure:
    """The decision ``evaluate`` would make now, without writing it (for status pages)."""
    with engine.connect() as conn:
        state = _state(conn, gate)
        return decide(rules, _backlog(conn), state is not None and state.paused)


def evaluate(engine: Engine, rules: BackpressureRules, gate: str = CRAWL_GATE, *,
             now: datetime | None = None) -> Backpressure:
    """Decide whether ``gate`` lets new crawls start, and store the decision if it flips.

    One transaction: the gate is locked (an advisory lock per gate on PostgreSQL, the write
    lock on SQLite), its state read, the backlog counted, ``decide`` called, and the state
    upserted only when ``paused`` changed, so callers ticking at once (the schedule and the
    coverage sensor share the crawl gate) see one sequence of decisions. The upsert is
    ``ON CONFLICT (gate)`` all the same, for a writer that takes no lock.
    """
    with engine.begin() as conn:
        if is_postgres(engine):
            conn.execute(text("SELECT pg_advisory_xact_lock(:ns, :key)"),
                         {"ns": _PG_LOCK_NAMESPACE, "key": _signed32(zlib.crc32(gate.encode()))})
        state = _state(conn, gate)
        was_paused = state is not None and state.paused
        decision = decide(rules, _backlog(conn), was_paused)
        if decision.paused != was_paused:
            conn.execute(text(
                "INSERT INTO backpressure_state (gate, paused, reason, changed_at)"
                " VALUES (:gate, :paused, :reason, :at)"
                " ON CONFLICT (gate) DO UPDATE SET paused = excluded.paused,"
                " reason = excluded.reason, changed_at = excluded.changed_at"),
                {"gate": gate, "paused": decision.paused, "reason": decision.reason,
                 "at": utc_naive(now or datetime.now(UTC))})
    return decision


def _signed32(value: int) -> int:
    return value - (1 << 32) if value >= 1 << 31 else value
