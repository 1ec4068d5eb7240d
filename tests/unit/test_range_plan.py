"""The command's plan of runs (``domain/batches.py: plan_ranges``): the keys asked for as
ranges of the partitions' order, never a key not asked for, bounded in size, enough runs for
the deployment's slots."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fashion_assets.domain.batches import Batch, plan_ranges


def covered(order: list[str], batch: Batch) -> list[str]:
    return order[order.index(batch.first):order.index(batch.last) + 1]


@given(order=st.lists(st.text(min_size=1, max_size=4), unique=True, max_size=40),
       data=st.data(), runs=st.integers(1, 12), max_size=st.integers(1, 15))
def test_every_key_asked_for_is_in_exactly_one_range_of_keys_asked_for(
        order: list[str], data: st.DataObject, runs: int, max_size: int) -> None:
    wanted = data.draw(st.sets(st.sampled_from(order))) if order else set()

    plan = plan_ranges(order, wanted, runs, max_size)

    spans = [covered(order, batch) for batch in plan]
    assert sorted(key for span in spans for key in span) == sorted(wanted)
    assert all(set(span) <= wanted and len(span) == b.size <= max_size
               for span, b in zip(spans, plan, strict=True))
    # As many runs as slots while keys can be split, and no more than the size bound needs.
    runs_of_wanted, length = [], 0
    for key in [*order, None]:
        if key is not None and key in wanted:
            length += 1
        elif length:
            runs_of_wanted.append(length)
            length = 0
    needed = sum(-(-n // max_size) for n in runs_of_wanted)
    assert len(plan) == max(needed, min(runs, len(wanted)))


def test_consecutive_keys_make_one_run_per_slot_and_a_gap_is_never_crawled() -> None:
    order = [f"b{i}" for i in range(10)]

    assert plan_ranges(order, order, 2, 50) == [Batch("b0", "b4", 5), Batch("b5", "b9", 5)]
    assert plan_ranges(order, ["b0", "b1", "b3"], 1, 50) == [
        Batch("b0", "b1", 2), Batch("b3", "b3", 1)]
    assert plan_ranges(order, order, 1, 4) == [
        Batch("b0", "b2", 3), Batch("b3", "b5", 3), Batch("b6", "b9", 4)]


def test_keys_not_in_the_order_are_ignored_and_bad_bounds_refused() -> None:
    assert plan_ranges(["a"], ["a", "zz"], 2, 5) == [Batch("a", "a", 1)]
    with pytest.raises(ValueError, match="at least 1"):
        plan_ranges(["a"], ["a"], 0, 5)
