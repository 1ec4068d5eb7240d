"""Failed sign-ins to the review page and the lockouts they lead to, kept in the catalog.

The rule is ``domain/sign_in_limits.py``; this module reads and writes its counters, one
row per subject: ``account:<name>`` or ``address:<client address>``. Kept in the catalog,
not in the server's memory, so a restart or a second server process does not reset them.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import Connection, Engine, bindparam, text

from fashion_assets.catalog.db import utc_naive, utc_naive_now
from fashion_assets.domain.sign_in_limits import (
    Failures,
    SignInLimits,
    admit,
    locked_for,
    refunded,
    spent_cutoffs,
)


def account_subject(name: str) -> str:
    return f"account:{name.strip().lower()[:64]}"


def address_subject(address: str) -> str:
    return f"address:{address}"


def locked_each(engine: Engine, subjects: Sequence[str], now: datetime | None = None
                ) -> dict[str, float]:
    """Seconds until each of ``subjects`` may sign in again (0: now), in one query."""
    now = now or utc_naive_now()
    with engine.connect() as conn:
        rows = conn.execute(text(
            "SELECT subject, failures, first_failure_at, locked_until FROM sign_in_failures"
            " WHERE subject IN :subjects").bindparams(bindparam("subjects", expanding=True)),
            {"subjects": list(subjects)}).all()
    found = {row.subject: locked_for(_failures(row), now) for row in rows}
    return {subject: found.get(subject, 0.0) for subject in subjects}


# Take the subject's row lock, creating the row on first use (a lock on no row would let two
# first attempts both count from zero); the no-op update is what takes the lock (a row lock
# on PostgreSQL; SQLite's BEGIN IMMEDIATE holds the write lock anyway).
_LOCK_SUBJECT = text(
    "INSERT INTO sign_in_failures (subject, failures, first_failure_at) VALUES (:subject, 0,"
    " :now) ON CONFLICT (subject) DO UPDATE SET subject = excluded.subject"
    " RETURNING failures, first_failure_at, locked_until")
_WRITE = text("UPDATE sign_in_failures SET failures = :failures, first_failure_at = :first,"
              " locked_until = :until WHERE subject = :subject")


def take_attempt(engine: Engine, limits: Sequence[tuple[str, int]], rules: SignInLimits,
                 now: datetime | None = None) -> float:
    """Admit one sign-in attempt of every subject of ``limits`` (subject, its limit), all in
    one transaction, the rows locked in subject order: 0.0 when admitted (each counted as a
    failure already: ``sign_in_limits.admit``), else the seconds until the lockout ends
    (nothing counted). Whatever the number of attempts at once, at most a subject's limit
    are admitted per window."""
    now = now or utc_naive_now()
    with engine.begin() as conn:
        decided = []
        for subject, limit in sorted(limits):
            row = conn.execute(_LOCK_SUBJECT, {"subject": subject, "now": now}).one()
            decided.append((subject, _failures(row), admit(_failures(row), now, limit, rules)))
        wait = max((locked_for(before, now) for _, before, (ok, _) in decided if not ok),
                   default=0.0)
        if wait > 0:
            return wait
        for subject, _, (_, after) in decided:
            _write(conn, subject, after)
    return 0.0


def refund_attempt(engine: Engine, subject: str) -> None:
    """Take back one admitted attempt of ``subject`` (it succeeded)."""
    with engine.begin() as conn:
        row = conn.execute(_LOCK_SUBJECT, {"subject": subject, "now": utc_naive_now()}).one()
        _write(conn, subject, refunded(_failures(row)))


def _write(conn: Connection, subject: str, failures: Failures) -> None:
    conn.execute(_WRITE, {"subject": subject, "failures": failures.count,
                          "first": failures.first_at, "until": failures.locked_until})


def clear_failures(engine: Engine, subject: str) -> bool:
    """Forget ``subject``'s failures and lift its lockout; whether there were any (a row
    of no failure is what an attempt's lock leaves)."""
    with engine.begin() as conn:
        rows = conn.execute(text("DELETE FROM sign_in_failures WHERE subject = :subject"
                                 " RETURNING failures, locked_until"),
                            {"subject": subject}).all()
    return any(row.failures > 0 or row.locked_until is not None for row in rows)


def forget_spent(engine: Engine, rules: SignInLimits, now: datetime | None = None) -> int:
    """Delete the counters that are spent at ``now`` (``sign_in_limits.is_spent``): what
    every name and address ever tried leaves behind. The number deleted."""
    window_began, lock_ended = spent_cutoffs(now or utc_naive_now(), rules)
    with engine.begin() as conn:
        deleted = conn.execute(text(
            "DELETE FROM sign_in_failures WHERE first_failure_at <= :window_began"
            " AND (locked_until IS NULL OR locked_until <= :lock_ended)"),
            {"window_began": window_began, "lock_ended": lock_ended})
    return int(deleted.rowcount or 0)


def _failures(row) -> Failures:  # type: ignore[no-untyped-def]
    return Failures(int(row.failures), utc_naive(row.first_failure_at),
                    None if row.locked_until is None else utc_naive(row.locked_until))
