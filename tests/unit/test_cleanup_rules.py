"""Media cleanup rules: which objects may go, and what a run reports."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from fashion_assets.domain.cleanup import MAX_LISTED_KEYS, CleanupSummary, cutoff, orphans
from fashion_assets.storage.base import StoredObject

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
GRACE = timedelta(hours=24)
KEY = "a" * 40


def _object(age: timedelta, key: str = KEY, size: int = 10) -> StoredObject:
    return StoredObject(key, size, NOW - age)


@pytest.mark.parametrize(("case", "age", "referenced", "goes"), [
    ("referenced and old: stays", timedelta(days=30), {KEY}, False),
    ("referenced and young: stays", timedelta(minutes=5), {KEY}, False),
    ("orphan older than the grace period: goes", GRACE + timedelta(seconds=1), set(), True),
    ("orphan much older: goes", timedelta(days=400), set(), True),
    ("young orphan (ingest in flight): stays", timedelta(hours=1), set(), False),
    # The boundary keeps: an object exactly grace old is not yet deleted.
    ("orphan exactly at the boundary: stays", GRACE, set(), False),
    ("orphan a microsecond past the boundary: goes", GRACE + timedelta(microseconds=1), set(),
     True),
    ("orphan from the future (clock skew): stays", -timedelta(hours=2), set(), False),
])
def test_orphan_rule(case: str, age: timedelta, referenced: set[str], goes: bool) -> None:
    item = _object(age)
    assert orphans([item], referenced, now=NOW, grace=GRACE) == ([item] if goes else []), case


def test_only_the_unreferenced_old_objects_of_a_listing_go() -> None:
    keys = [c * 40 for c in "abcd"]
    listing = [_object(timedelta(days=2), keys[0]), _object(timedelta(days=2), keys[1]),
               _object(timedelta(hours=2), keys[2]), _object(timedelta(days=9), keys[3])]

    found = orphans(iter(listing), {keys[1]}, now=NOW, grace=GRACE)

    assert [item.key for item in found] == [keys[0], keys[3]]


def test_a_zero_grace_period_takes_every_orphan_modified_before_now() -> None:
    assert orphans([_object(timedelta(seconds=1))], set(), now=NOW, grace=timedelta(0))
    assert not orphans([_object(timedelta(0))], set(), now=NOW, grace=timedelta(0))


@pytest.mark.parametrize(("now", "grace", "message"), [
    (NOW.replace(tzinfo=None), GRACE, "timezone-aware"),
    (NOW, -timedelta(hours=1), "must not be negative"),
])
def test_unsafe_clocks_and_grace_periods_are_refused(now: datetime, grace: timedelta,
                                                     message: str) -> None:
    with pytest.raises(ValueError, match=message):
        cutoff(now, grace)
    with pytest.raises(ValueError, match=message):
        orphans([], set(), now=now, grace=grace)


def test_summary_counts_removed_objects_and_bytes() -> None:
    summary = CleanupSummary(dry_run=False)
    first, second, third = (_object(GRACE * 2, c * 40, size) for c, size in
                            (("a", 100), ("b", 20), ("c", 3)))

    summary.add_batch(5, [first, second], [first])  # second vanished before its delete
    summary.add_batch(1, [third], [third])

    assert (summary.scanned, summary.orphans, summary.orphan_bytes) == (6, 3, 123)
    assert (summary.removed, summary.bytes_removed) == (2, 103)
    assert summary.listed_keys == [(first.key, 100), (third.key, 3)]


def test_dry_run_summary_lists_what_would_go() -> None:
    summary = CleanupSummary(dry_run=True)
    item = _object(GRACE * 2, size=7)

    summary.add_batch(1, [item], [])

    assert (summary.orphans, summary.orphan_bytes, summary.removed) == (1, 7, 0)
    assert summary.listed_keys == [(KEY, 7)]


def test_summary_lists_at_most_the_first_keys() -> None:
    summary = CleanupSummary(dry_run=False)
    batch = [_object(GRACE * 2, f"{n:040x}") for n in range(MAX_LISTED_KEYS + 30)]

    summary.add_batch(len(batch), batch[:60], batch[:60])
    summary.add_batch(len(batch), batch[60:], batch[60:])

    assert summary.removed == MAX_LISTED_KEYS + 30
    assert [key for key, _ in summary.listed_keys] == [i.key for i in batch[:MAX_LISTED_KEYS]]
