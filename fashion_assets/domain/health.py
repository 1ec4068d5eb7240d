"""Partition health: is one brand's (season's, week's) crawl in a state an operator must
look at?

A partition is judged on what the catalog holds for it, not on its last run alone (a repair
run touches a few shows): shows whose latest ingest failed and that have no draft, photos
recorded missing, shows the coverage sensor gave up on. Failed shows are what the crawl
could not do; given-up shows are losses the repair loop stopped chasing; missing photos are
still being repaired, so they are reported without failing the check.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Health(StrEnum):
    HEALTHY = "healthy"
    WARN = "warn"  # some shows failed, or were given up on
    ERROR = "error"  # every show failed: nothing of the partition could be drafted


@dataclass(frozen=True)
class PartitionCounts:
    """What the catalog holds for one partition."""

    shows: int  # shows, or a street-style week's articles
    drafted: int
    failed: int  # latest ingest failed, no draft
    photos_missing: int
    given_up: int


@dataclass(frozen=True)
class Verdict:
    health: Health
    description: str

    @property
    def passed(self) -> bool:
        return self.health is Health.HEALTHY


def judge(counts: PartitionCounts, unit: str = "shows") -> Verdict:
    """ERROR when every show (or ``unit``: articles) of the partition failed, WARN when some
    failed or were given up on, healthy otherwise; the description says the counts."""
    words = (f"{counts.failed} of {counts.shows} {unit} failed, {counts.given_up} given up, "
             f"{counts.photos_missing} photos missing, {counts.drafted} drafted")
    if counts.shows and counts.failed >= counts.shows:
        return Verdict(Health.ERROR, words)
    if counts.failed or counts.given_up:
        return Verdict(Health.WARN, words)
    return Verdict(Health.HEALTHY, words)


_ORDER = (Health.HEALTHY, Health.WARN, Health.ERROR)


def judge_range(verdicts: dict[str, Verdict]) -> Verdict:
    """The verdict of a run over several partitions (a batch of brands): the worst of its
    partitions' own verdicts, with how many were judged each way and which are not healthy
    (each partition keeps its own evaluation; this is the run's line)."""
    worst = max((v.health for v in verdicts.values()), key=_ORDER.index,
                default=Health.HEALTHY)
    by_health = {h: sorted(k for k, v in verdicts.items() if v.health is h) for h in _ORDER}
    words = ", ".join(f"{len(keys)} {h.value}" for h, keys in by_health.items() if keys)
    unhealthy = by_health[Health.ERROR] + by_health[Health.WARN]
    return Verdict(worst, f"{len(verdicts)} partitions judged: {words or 'none'}"
                   + (f" (not healthy: {', '.join(unhealthy)})" if unhealthy else ""))
