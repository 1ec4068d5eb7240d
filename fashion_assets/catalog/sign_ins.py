"""Failed sign-ins to the review page and the lockouts they lead to, kept in the catalog.

The rule is ``domain/sign_in_limits.py``; this module reads and writes its counters, one
row per subject: ``account:<name>`` or ``address:<client address>``. Kept in the catalog,
not in the server's memory, so a restart or a second server process does not reset them.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import Engine, bindparam, text

from fashion_assets.catalog.db import is_postgres, utc_naive, utc_naive_now
from fashion_assets.domain.sign_in_limits import Failures, SignInLimits, after_failure, locked_for


def account_subject(name: str) -> str:
    return f"account:{name.strip().lower()[:64]}"


def address_subject(address: str) -> str:
    return f"address:{address}"


def locked_seconds(engine: Engine, subjects: Sequence[str], now: datetime | None = None
                   ) -> float:
    """Seconds until every one of ``subjects`` may sign in again (0: now)."""
    return max(locked_each(engine, subjects, now).values(), default=0.0)


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


def record_failure(engine: Engine, subject: str, limit: int, rules: SignInLimits,
                   now: datetime | None = None) -> Failures:
    """One more failed sign-in of ``subject``; its counter afterwards."""
    now = now or utc_naive_now()
    with engine.begin() as conn:
        lock = " FOR UPDATE" if is_postgres(engine) else ""
        row = conn.execute(text("SELECT failures, first_failure_at, locked_until"
                                f" FROM sign_in_failures WHERE subject = :subject{lock}"),
                           {"subject": subject}).first()
        failures = after_failure(Failures() if row is None else _failures(row), now, limit,
                                 rules)
        values = {"subject": subject, "failures": failures.count,
                  "first": failures.first_at, "until": failures.locked_until}
        conn.execute(text("INSERT INTO sign_in_failures (subject, failures, first_failure_at,"
                          " locked_until) VALUES (:subject, :failures, :first, :until)"
                          " ON CONFLICT (subject) DO UPDATE SET failures = excluded.failures,"
                          " first_failure_at = excluded.first_failure_at,"
                          " locked_until = excluded.locked_until"), values)
    return failures


def clear_failures(engine: Engine, subject: str) -> bool:
    """Forget ``subject``'s failures and lift its lockout; whether there were any."""
    with engine.begin() as conn:
        result = conn.execute(text("DELETE FROM sign_in_failures WHERE subject = :subject"),
                              {"subject": subject})
    return bool(result.rowcount)


def _failures(row) -> Failures:  # type: ignore[no-untyped-def]
    return Failures(int(row.failures), utc_naive(row.first_failure_at),
                    None if row.locked_until is None else utc_naive(row.locked_until))
