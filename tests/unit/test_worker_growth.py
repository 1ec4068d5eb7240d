"""When a crawl worker leaves for a fresh process (``memory.py: has_grown``)."""

from fashion_assets.memory import WORKER_GROWTH, has_grown, resident_bytes


def test_a_worker_leaves_once_grown_past_the_bound_since_its_first_run() -> None:
    first = 200_000_000
    assert not has_grown(first, first)
    assert not has_grown(first, int(first * (1 + WORKER_GROWTH)))
    assert has_grown(first, int(first * (1 + WORKER_GROWTH)) + 1)
    assert not has_grown(first, first // 2)


def test_unknown_memory_counts_as_grown() -> None:
    assert has_grown(None, 1) and has_grown(1, None)


def test_this_process_resident_memory_is_read() -> None:
    size = resident_bytes()
    assert size is not None and 10_000_000 < size < 10_000_000_000
