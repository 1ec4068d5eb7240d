"""The archive benchmark's report: a two-hour crawl's memory, shown every few minutes
(bench/common.py, which the tests can import without the benchmarks' extra packages)."""

from itertools import pairwise

from bench.common import busy_by_minute, every_few, last_as_busy


def test_a_short_crawl_shows_every_minute() -> None:
    minutes = tuple(float(m) for m in range(13))
    assert every_few(minutes) == (1, minutes)


def test_a_long_crawl_shows_at_most_thirteen_peaks_from_the_first_to_the_last() -> None:
    for length in (14, 25, 119, 120, 121):
        minutes = tuple(float(m) for m in range(length))
        apart, shown = every_few(minutes)
        assert len(shown) <= 13
        assert shown[0] == minutes[0] and shown[-1] == minutes[-1]
        assert all(b - a <= apart for a, b in pairwise(shown))


def test_a_minute_counts_the_most_runs_in_progress_at_once_in_it() -> None:
    # Two workers from second 3; one ends at 150 s, the other's last run goes on to 200 s.
    spans = [(1003.0, 1090.0), (1090.5, 1150.0), (1003.0, 1200.0)]
    busy = busy_by_minute(spans, started_at=1000.0, minutes=4)
    assert busy == (2, 2, 2, 1)
    assert last_as_busy(busy) == 2


def test_with_no_run_in_the_first_minute_the_first_minute_is_the_last_as_busy() -> None:
    assert busy_by_minute([(1070.0, 1100.0)], started_at=1000.0, minutes=3) == (0, 1, 0)
    assert last_as_busy((0, 1, 0)) == 2
    assert last_as_busy(()) is None
