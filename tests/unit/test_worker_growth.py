"""When a crawl worker leaves for a fresh process (``memory.py: worker_leaves``)."""

from fashion_assets.memory import (
    LONG_RUN_S,
    WORKER_GROWTH,
    has_grown,
    resident_bytes,
    worker_leaves,
)


def test_a_worker_leaves_once_grown_past_the_bound_since_its_first_run() -> None:
    first = 200_000_000
    assert not has_grown(first, first)
    assert not has_grown(first, int(first * (1 + WORKER_GROWTH)))
    assert has_grown(first, int(first * (1 + WORKER_GROWTH)) + 1)
    assert not has_grown(first, first // 2)


def test_a_worker_leaves_after_a_long_run_and_stays_after_a_short_one_unless_grown() -> None:
    first = 200_000_000
    assert worker_leaves(first, first, LONG_RUN_S)
    assert not worker_leaves(first, first, LONG_RUN_S - 0.1)
    assert worker_leaves(first, int(first * (1 + WORKER_GROWTH)) + 1, 0.5)
    assert worker_leaves(None, first, 0.5)


def test_unknown_memory_counts_as_grown() -> None:
    assert has_grown(None, 1) and has_grown(1, None)


def test_this_process_resident_memory_is_read() -> None:
    size = resident_bytes()
    assert size is not None and 10_000_000 < size < 10_000_000_000
