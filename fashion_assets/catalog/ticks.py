"""Each schedule's last evaluated tick, kept in the catalog (``sql/0018``): the missed-tick
rule (``domain/ticks.py``) compares it with the current one."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Engine, text

from fashion_assets.catalog.db import utc_naive


def last_tick(engine: Engine, schedule: str) -> datetime | None:
    """The tick ``schedule`` evaluated last (UTC, naive), or None if it never ran."""
    with engine.connect() as conn:
        value = conn.execute(text("SELECT scheduled_at FROM schedule_ticks"
                                  " WHERE schedule_name = :n"), {"n": schedule}).scalar()
    return None if value is None else utc_naive(value)


def record_tick(engine: Engine, schedule: str, scheduled_at: datetime, missed: int) -> None:
    """``scheduled_at`` is now ``schedule``'s last tick, ``missed`` more ticks were missed
    before it. An evaluation for a time before the recorded one (a tick run again by hand
    from the UI) leaves the record as it is."""
    params = {"n": schedule, "t": utc_naive(scheduled_at), "m": missed}
    with engine.begin() as conn:
        conn.execute(text(
            "INSERT INTO schedule_ticks (schedule_name, scheduled_at, missed_total)"
            " VALUES (:n, :t, :m) ON CONFLICT (schedule_name) DO UPDATE SET"
            " scheduled_at = excluded.scheduled_at,"
            " missed_total = schedule_ticks.missed_total + excluded.missed_total"
            " WHERE excluded.scheduled_at > schedule_ticks.scheduled_at"), params)
