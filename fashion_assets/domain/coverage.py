"""Coverage: whether the photos stored for a show reach what its source says it has.

Single photos vanish from the sources for good, so a show is complete a little below the
expected count (``tolerance``); a show whose source gave no count is complete once a
handful of photos are stored (``fallback``). Everything that decides whether a show is
re-fetched and repaired is here, as plain data:

- ``is_complete``: the coverage rule, and ``incomplete_sql``, its twin for the coverage
  sensor's one query (a test checks the two agree on the rule's table);
- ``show_coverage``: which counts a show is judged by (its draft's, or its catalog entry's
  once the draft contributes to one);
- ``merge_expected``: a re-crawl never lowers an expected count, and an observation older
  than the stored one never overwrites it;
- ``repair_step``: the sensor's back-off between re-fetches of one show, and when it gives up.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from fashion_assets.domain.promotion import CONTRIBUTING_STATUSES
from fashion_assets.domain.wording import counted

# Draft statuses an editor has not turned down: their shows are repaired.
ACTIVE_STATUSES = frozenset({"pending", "approved", "promoted"})


@dataclass(frozen=True)
class CoverageRules:
    """``FASHION_COVERAGE_TOLERANCE`` and ``FASHION_COVERAGE_FALLBACK``."""

    tolerance: int = 5
    fallback: int = 10

    def __post_init__(self) -> None:
        if self.tolerance < 0 or self.fallback < 1:
            raise ValueError("the coverage tolerance must be >= 0 and the fallback >= 1, got "
                             f"{self.tolerance} and {self.fallback}")


def required(expected: int, rules: CoverageRules) -> int:
    """Photos a show needs stored to be complete.

    ``expected - tolerance``, but never less than one photo when the source announced any
    (a show of 3 with nothing stored is not complete); ``fallback`` when the count is unknown.
    """
    if expected <= 0:
        return rules.fallback
    return max(expected - rules.tolerance, 1)


def is_complete(expected: int, stored: int, rules: CoverageRules) -> bool:
    """The coverage rule: ``stored`` photos reach what ``expected`` requires."""
    return stored >= required(expected, rules)


def incomplete_sql(expected: str, stored: str, rules: CoverageRules) -> str:
    """``not is_complete`` as a SQL predicate over the SQL expressions ``expected`` and
    ``stored`` (integers of this module only, never input)."""
    tolerance, fallback = int(rules.tolerance), int(rules.fallback)
    return (f"(CASE WHEN ({expected}) <= 0 THEN ({stored}) < {fallback}"
            f" WHEN ({expected}) - {tolerance} < 1 THEN ({stored}) < 1"
            f" ELSE ({stored}) < ({expected}) - {tolerance} END)")


@dataclass(frozen=True)
class Counts:
    """Photos expected and stored, of a draft or of a catalog entry."""

    expected: int
    stored: int


def show_coverage(*, manifest_expected: int, draft: Counts | None, draft_status: str | None,
                  draft_deleted: bool, entry: Counts | None) -> Counts | None:
    """The counts a show is judged by, or None when it is no subject for repair.

    A show whose draft an editor rejected or deleted is left alone. Once the draft
    contributes to a catalog entry (approved or promoted), the entry is what users see, so
    its counts decide; before that, the draft's. A show with no draft is judged by the
    entry of its entity key when there is one (another source may have filled it), else it
    has nothing stored. The expected count is the highest any of them knows (``merge``).
    """
    if draft is not None and (draft_deleted or draft_status not in ACTIVE_STATUSES):
        return None
    if draft is not None and (entry is None or draft_status not in CONTRIBUTING_STATUSES):
        return Counts(max(draft.expected, manifest_expected), draft.stored)
    if entry is not None:
        expected = max(entry.expected, manifest_expected, draft.expected if draft else 0)
        return Counts(expected, entry.stored)
    return Counts(manifest_expected, 0)


@dataclass(frozen=True)
class CoverageColumns:
    """Where ``show_coverage``'s inputs are in a query: SQL expressions (of this project's
    code, never input) for the manifest's count, the show's draft and its entry."""

    manifest_expected: str = "COALESCE(m.expected_images, 0)"
    draft_id: str = "d.id"
    draft_status: str = "d.status"
    draft_deleted: str = "d.is_deleted"
    draft_expected: str = "d.expected_images"
    draft_stored: str = "d.stored_images"
    entry_id: str = "e.id"
    entry_expected: str = "e.expected_images"
    entry_stored: str = "e.stored_images"


def _greatest(*values: str) -> str:
    """The largest of ``values`` in SQL both dialects read (SQLite has no GREATEST)."""
    first, *rest = values
    for value in rest:
        first = f"(CASE WHEN ({value}) > ({first}) THEN ({value}) ELSE ({first}) END)"
    return first


def _statuses(statuses: frozenset[str] | tuple[str, ...]) -> str:
    return ", ".join(f"'{status}'" for status in sorted(statuses))


def coverage_sql(c: CoverageColumns) -> tuple[str, str, str]:
    """``show_coverage`` in SQL: (is a subject, expected, stored) over the columns ``c``,
    for the coverage sensor's one query (a test checks it against ``show_coverage``)."""
    subject = (f"({c.draft_id} IS NULL OR (NOT {c.draft_deleted}"
               f" AND {c.draft_status} IN ({_statuses(ACTIVE_STATUSES)})))")
    uses_entry = (f"({c.entry_id} IS NOT NULL AND ({c.draft_id} IS NULL"
                  f" OR {c.draft_status} IN ({_statuses(CONTRIBUTING_STATUSES)})))")
    entry_expected = _greatest(c.entry_expected, c.manifest_expected,
                               f"COALESCE({c.draft_expected}, 0)")
    draft_expected = _greatest(c.draft_expected, c.manifest_expected)
    expected = (f"(CASE WHEN {uses_entry} THEN {entry_expected}"
                f" WHEN {c.draft_id} IS NOT NULL THEN {draft_expected}"
                f" ELSE {c.manifest_expected} END)")
    stored = (f"(CASE WHEN {uses_entry} THEN {c.entry_stored}"
              f" WHEN {c.draft_id} IS NOT NULL THEN {c.draft_stored} ELSE 0 END)")
    return subject, expected, stored


@dataclass(frozen=True)
class Observation:
    """An expected count as a source page reported it, and when the page was fetched."""

    count: int
    observed_at: datetime


def merge_expected(stored: Observation | None, new: Observation) -> Observation:
    """The expected count to keep after a page reported ``new``.

    Photos vanish from a source but a show never gains a reason to have fewer: the count
    kept is the highest seen (``max``), so a page that lost photos does not make the show
    look complete. An observation older than the stored one (a slow run finishing after a
    newer one) is ignored entirely.
    """
    if stored is None:
        return new
    if new.observed_at < stored.observed_at:
        return stored
    return Observation(max(stored.count, new.count), new.observed_at)


def kept_expected_sql(new: str, stored: str) -> str:
    """``merge_expected``'s rule in SQL, for writes that replace an expected count in place
    (a repaired draft, a re-promoted entry): the higher of ``new`` and ``stored``, so a page
    that lost photos never makes a show look complete."""
    return _greatest(new, stored)


@dataclass(frozen=True)
class RepairRules:
    """``FASHION_REPAIR_MAX_ATTEMPTS``, ``FASHION_REPAIR_BACKOFF`` and
    ``FASHION_REPAIR_BACKOFF_CAP`` (seconds)."""

    max_attempts: int = 5
    backoff_s: float = 3600.0
    backoff_cap_s: float = 7 * 24 * 3600.0

    def __post_init__(self) -> None:
        if self.max_attempts < 1 or self.backoff_s <= 0 or self.backoff_cap_s < self.backoff_s:
            raise ValueError("repair rules need max_attempts >= 1 and 0 < backoff <= cap")


@dataclass(frozen=True)
class RepairStep:
    """What the coverage sensor does with one due, incomplete show."""

    give_up: bool
    attempts: int  # attempts made once this step is taken
    next_attempt_at: datetime | None  # None when giving up


def backoff(attempts: int, rules: RepairRules) -> timedelta:
    """The wait after the ``attempts``-th re-fetch: 1 h, 2 h, 4 h, ... up to the cap."""
    exponent = min(max(attempts - 1, 0), 62)  # 2**62 s is past any cap: no overflow
    return timedelta(seconds=min(rules.backoff_s * 2 ** exponent, rules.backoff_cap_s))


def repair_step(attempts: int, now: datetime, rules: RepairRules) -> RepairStep:
    """After ``attempts`` re-fetches that left the show incomplete: try once more, or give up.

    The show is given up once ``max_attempts`` re-fetches did not complete it: the photos
    it lacks are gone from the source, and re-fetching it would loop forever.
    """
    if attempts >= rules.max_attempts:
        return RepairStep(True, attempts, None)
    made = attempts + 1
    return RepairStep(False, made, now + backoff(made, rules))


def give_up_reason(missing: dict[str, int], last_outcome: str, attempts: int) -> str:
    """Why a show was given up, for status and metadata: the reasons its photos are missing
    (``not_found`` x 9, ...), else the last recorded outcome of its crawl."""
    if missing:
        parts = ", ".join(f"{reason} x {count}" for reason, count in sorted(missing.items()))
        what = f"{counted(sum(missing.values()), 'photo')} missing ({parts})"
    else:
        what = last_outcome or "no photo stored"
    return f"still incomplete after {counted(attempts, 're-fetch')}: {what}"


@dataclass(frozen=True)
class DueShow:
    """An incomplete show whose back-off is over: where it is crawled, and its attempts."""

    show_id: int
    source: str
    partition_key: str  # the brand (Vogue) or season code (theImpression) it is crawled by
    attempts: int


@dataclass(frozen=True)
class RepairRun:
    """One repair run: the incomplete shows of one partition of one source."""

    source: str
    partition_key: str
    show_ids: tuple[int, ...]
    generation: int  # the highest attempt number among its shows

    @property
    def run_key(self) -> str:
        """Unique per set of shows and attempt: a later attempt of the same shows gets a new
        key, so Dagster never drops it as a repeat of the earlier run."""
        ids = ",".join(map(str, self.show_ids))
        digest = hashlib.sha1(ids.encode()).hexdigest()[:12]
        return f"coverage:{self.source}:{self.partition_key}:a{self.generation}:{digest}"


def waiting_for_crawls(due: Sequence[DueShow], crawling: Collection[str]
                      ) -> tuple[list[DueShow], list[DueShow]]:
    """The due shows split into those to repair now and those whose partition a run in
    progress (queued or running: a crawl, a batch of brands, another repair) is crawling.

    A waiting show gets no attempt: the run in progress may complete it, and a repair run
    beside it would find the show being drafted (``skipped_already_ingested``) and charge an
    attempt for nothing. It is due again at the next tick, once the run has ended. Partitions
    are compared by key alone (a brand slug, a season code): were a brand and a season ever
    to share a key, the show would only wait one run longer.
    """
    ready = [show for show in due if show.partition_key not in crawling]
    waiting = [show for show in due if show.partition_key in crawling]
    return ready, waiting


def plan_repairs(due: Sequence[DueShow], now: datetime, rules: RepairRules
                 ) -> tuple[list[RepairRun], dict[int, RepairStep]]:
    """The runs to request for ``due`` shows, one per (source, partition), and every show's
    step (the attempt it gets, or giving up, which requests nothing)."""
    steps = {show.show_id: repair_step(show.attempts, now, rules) for show in due}
    groups: dict[tuple[str, str], list[DueShow]] = {}
    for show in due:
        if not steps[show.show_id].give_up:
            groups.setdefault((show.source, show.partition_key), []).append(show)
    runs = [RepairRun(source, key, tuple(sorted(s.show_id for s in shows)),
                      max(steps[s.show_id].attempts for s in shows))
            for (source, key), shows in sorted(groups.items())]
    return runs, steps
