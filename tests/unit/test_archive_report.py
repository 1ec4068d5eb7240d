"""The archive benchmark's report: a two-hour crawl's memory, shown every few minutes
(bench/common.py, which the tests can import without the benchmarks' extra packages)."""

from itertools import pairwise

from bench.common import every_few


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
