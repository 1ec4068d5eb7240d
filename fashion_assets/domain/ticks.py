"""Missed schedule ticks: the cron's times that no evaluation saw.

Dagster's daemon evaluates only the latest tick a schedule missed while the daemon was down
(or the schedule stopped) and drops the others, saying so only in its own log. Each
schedule here remembers the tick it evaluated last, and the times of its cron strictly
between that one and the current one are the ticks missed: the schedule says how many, and
its runs cover them (a full crawl, a discovery or a cleanup of everything at once; the store
heal's walk simply goes on where it stopped).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from croniter import croniter

COUNT_LIMIT = 10_000
"""Missed ticks counted at most: an every-minute cron stopped for a month is 43,200 ticks,
and the count then reads "at least 10,000"."""


@dataclass(frozen=True)
class MissedTicks:
    """The ticks of a cron between two evaluations, exclusive (none: ``count`` 0)."""

    count: int
    first: datetime | None = None
    last: datetime | None = None
    capped: bool = False

    def describe(self, schedule: str) -> str:
        """One line for the tick's log and the operator."""
        if not self.count:
            return f"{schedule}: no tick missed"
        assert self.first is not None and self.last is not None
        many = f"at least {self.count:,}" if self.capped else f"{self.count:,}"
        return (f"{schedule}: {many} ticks missed, {self.first:%Y-%m-%d %H:%M} to "
                f"{self.last:%Y-%m-%d %H:%M} UTC (the daemon was down or the schedule "
                "stopped); this tick's runs cover them")


def missed_ticks(cron: str, previous: datetime | None, current: datetime,
                 limit: int = COUNT_LIMIT) -> MissedTicks:
    """The fire times of ``cron`` (UTC) after ``previous`` and before ``current``; none when
    the schedule was never evaluated before, or the clock went back."""
    if previous is None or _utc(previous) >= _utc(current):
        return MissedTicks(0)
    times = croniter(cron, _utc(previous))
    first = last = None
    count = 0
    while count < limit:
        tick = times.get_next(datetime)
        if tick >= _utc(current):
            return MissedTicks(count, first, last)
        first = first or tick
        last = tick
        count += 1
    return MissedTicks(count, first, last, capped=True)


def _utc(moment: datetime) -> datetime:
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
