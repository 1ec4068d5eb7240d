"""The coverage rule, the counts a show is judged by, the max rule and the repair back-off."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import create_engine, text

from fashion_assets.domain.coverage import (
    Counts,
    CoverageColumns,
    CoverageRules,
    DueShow,
    Observation,
    RepairRules,
    backoff,
    coverage_sql,
    incomplete_sql,
    is_complete,
    kept_expected_sql,
    merge_expected,
    repair_step,
    required,
    show_coverage,
    waiting_for_crawls,
)

DEFAULT = CoverageRules()
# (expected, stored, rules, complete)
COVERAGE_TABLE = [
    (40, 40, DEFAULT, True),
    (40, 35, DEFAULT, True),     # expected - 5: single photos vanish for good
    (40, 34, DEFAULT, False),
    (40, 0, DEFAULT, False),
    (40, 60, DEFAULT, True),     # more than announced (a second source merged in)
    (0, 10, DEFAULT, True),      # no count from the source: 10 stored are enough
    (0, 9, DEFAULT, False),
    (0, 0, DEFAULT, False),
    (3, 0, DEFAULT, False),      # a small show needs at least one photo
    (3, 1, DEFAULT, True),
    (6, 1, DEFAULT, True),
    (7, 1, DEFAULT, False),
    (40, 39, CoverageRules(tolerance=0), False),
    (40, 40, CoverageRules(tolerance=0), True),
    (0, 2, CoverageRules(fallback=2), True),
    (-1, 9, DEFAULT, False),     # a negative count is as unknown as 0
]


@pytest.mark.parametrize(("expected", "stored", "rules", "complete"), COVERAGE_TABLE)
def test_the_coverage_rule(expected: int, stored: int, rules: CoverageRules,
                           complete: bool) -> None:
    assert is_complete(expected, stored, rules) is complete
    assert (stored >= required(expected, rules)) is complete


def test_the_sql_twin_of_the_rule_agrees_with_it_on_the_whole_table() -> None:
    engine = create_engine("sqlite://")
    with engine.connect() as conn:
        for expected, stored, rules, complete in COVERAGE_TABLE:
            incomplete = conn.execute(text(
                f"SELECT {incomplete_sql(':e', ':s', rules)}"), {"e": expected, "s": stored}
            ).scalar_one()
            assert bool(incomplete) is not complete, (expected, stored, rules)


def test_settings_out_of_range_are_refused() -> None:
    with pytest.raises(ValueError):
        CoverageRules(tolerance=-1)
    with pytest.raises(ValueError):
        CoverageRules(fallback=0)
    with pytest.raises(ValueError):
        RepairRules(max_attempts=0)
    with pytest.raises(ValueError):
        RepairRules(backoff_s=3600, backoff_cap_s=60)


DRAFT = Counts(40, 30)
ENTRY = Counts(42, 41)


SHOW_TABLE = [
    (40, None, None, False, None, Counts(40, 0)),           # never drafted
    (0, None, None, False, None, Counts(0, 0)),             # manifest failed too
    (40, DRAFT, "pending", False, None, DRAFT),
    (40, DRAFT, "pending", False, ENTRY, DRAFT),            # not merged yet: its own photos
    (45, DRAFT, "approved", False, None, Counts(45, 30)),   # the page now says 45
    (40, DRAFT, "approved", False, ENTRY, Counts(42, 41)),  # contributes: the entry decides
    (40, DRAFT, "promoted", False, ENTRY, Counts(42, 41)),
    (50, DRAFT, "promoted", False, ENTRY, Counts(50, 41)),
    (40, DRAFT, "rejected", False, ENTRY, None),            # an editor turned it down
    (40, DRAFT, "promoted", True, ENTRY, None),             # deleted
    (40, None, None, False, ENTRY, Counts(42, 41)),         # another source's entry
    (40, DRAFT, "approved", False, Counts(10, 50), Counts(40, 50)),
]


@pytest.mark.parametrize(("manifest", "draft", "status", "deleted", "entry", "expected"),
                         SHOW_TABLE)
def test_the_counts_a_show_is_judged_by(manifest: int, draft: Counts | None, status: str | None,
                                        deleted: bool, entry: Counts | None,
                                        expected: Counts | None) -> None:
    assert show_coverage(manifest_expected=manifest, draft=draft, draft_status=status,
                         draft_deleted=deleted, entry=entry) == expected


def test_the_sql_twin_of_show_coverage_agrees_with_it_on_the_whole_table() -> None:
    columns = CoverageColumns(
        manifest_expected=":manifest", draft_id=":draft_id", draft_status=":status",
        draft_deleted=":deleted", draft_expected=":draft_expected", draft_stored=":draft_stored",
        entry_id=":entry_id", entry_expected=":entry_expected", entry_stored=":entry_stored")
    subject, expected, stored = coverage_sql(columns)
    engine = create_engine("sqlite://")
    with engine.connect() as conn:
        for manifest, draft, status, deleted, entry, counts in SHOW_TABLE:
            row = conn.execute(text(f"SELECT {subject}, {expected}, {stored}"), {
                "manifest": manifest, "draft_id": 1 if draft else None, "status": status,
                "deleted": deleted, "draft_expected": draft.expected if draft else None,
                "draft_stored": draft.stored if draft else None,
                "entry_id": 1 if entry else None,
                "entry_expected": entry.expected if entry else None,
                "entry_stored": entry.stored if entry else None}).one()
            got = Counts(int(row[1]), int(row[2])) if row[0] else None
            assert got == counts, (manifest, draft, status, deleted, entry)


T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(("stored", "new", "kept"), [
    (None, Observation(40, T0), Observation(40, T0)),
    (Observation(40, T0), Observation(38, T0 + timedelta(hours=1)),
     Observation(40, T0 + timedelta(hours=1))),              # fewer reported: never lowered
    (Observation(40, T0), Observation(44, T0 + timedelta(hours=1)),
     Observation(44, T0 + timedelta(hours=1))),              # more: raised
    (Observation(40, T0), Observation(44, T0 - timedelta(seconds=1)),
     Observation(40, T0)),                                   # older: ignored entirely
    (Observation(40, T0), Observation(40, T0), Observation(40, T0)),
])
def test_the_max_rule_for_expected_counts(stored: Observation | None, new: Observation,
                                          kept: Observation) -> None:
    assert merge_expected(stored, new) == kept


@pytest.mark.parametrize(("new", "stored"), [(38, 40), (44, 40), (40, 40), (0, 12)])
def test_the_max_rule_in_sql_keeps_what_merge_expected_keeps(new: int, stored: int) -> None:
    """The SQL twin, run by SQLite (the dialect without GREATEST), agrees with the rule."""
    with create_engine("sqlite://").connect() as conn:
        kept = conn.execute(text(f"SELECT {kept_expected_sql(':new', ':stored')}"),
                            {"new": new, "stored": stored}).scalar_one()
    assert kept == merge_expected(Observation(stored, T0), Observation(new, T0)).count


def test_re_fetches_back_off_doubling_up_to_the_cap_then_give_up() -> None:
    rules = RepairRules(max_attempts=5, backoff_s=3600, backoff_cap_s=4 * 3600)
    waits = [backoff(n, rules) for n in range(1, 6)]
    assert waits == [timedelta(hours=h) for h in (1, 2, 4, 4, 4)]

    steps, attempts, now = [], 0, T0
    while not (step := repair_step(attempts, now, rules)).give_up:
        steps.append(step.next_attempt_at - now)
        attempts, now = step.attempts, step.next_attempt_at
    assert attempts == 5 and steps == waits
    assert step.next_attempt_at is None and step.attempts == 5
    assert backoff(10_000, rules) == timedelta(hours=4)  # no overflow far past the cap


def test_shows_whose_partition_is_being_crawled_wait_and_the_others_are_repaired() -> None:
    due = [DueShow(1, "vogue", "acne-studios", 0), DueShow(2, "vogue", "dior", 2),
           DueShow(3, "theimpression", "spring-2020-ready-to-wear", 1)]
    ready, waiting = waiting_for_crawls(due, {"dior", "spring-2020-ready-to-wear"})
    assert [s.show_id for s in ready] == [1]
    assert [s.show_id for s in waiting] == [2, 3]
    assert waiting_for_crawls(due, set()) == (due, [])
