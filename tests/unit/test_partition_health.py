"""The partition health rule: a partition an operator must look at, and how badly."""

from __future__ import annotations

import pytest

from fashion_assets.domain.health import Health, PartitionCounts, judge, judge_range

# (shows, drafted, failed, photos missing, given up) -> health
CASES = [
    ((30, 30, 0, 0, 0), Health.HEALTHY),
    ((30, 30, 0, 12, 0), Health.HEALTHY),  # missing photos are being repaired: reported only
    ((30, 15, 15, 3, 0), Health.WARN),
    ((30, 30, 0, 4, 1), Health.WARN),  # a show given up on is a loss to look at
    ((30, 0, 30, 0, 0), Health.ERROR),
    ((0, 0, 0, 0, 0), Health.HEALTHY),  # nothing listed yet: nothing failed
]


@pytest.mark.parametrize(("numbers", "health"), CASES)
def test_partition_health(numbers: tuple[int, int, int, int, int], health: Health) -> None:
    counts = PartitionCounts(*numbers)
    verdict = judge(counts)
    assert verdict.health is health
    assert verdict.passed is (health is Health.HEALTHY)
    assert verdict.description.startswith(f"{counts.failed} of {counts.shows} shows failed")


def test_a_range_is_as_healthy_as_its_worst_partition_and_names_the_others() -> None:
    healthy = judge(PartitionCounts(shows=3, drafted=3, failed=0, photos_missing=0,
                                    given_up=0))
    warn = judge(PartitionCounts(shows=3, drafted=2, failed=1, photos_missing=0, given_up=0))
    error = judge(PartitionCounts(shows=2, drafted=0, failed=2, photos_missing=0, given_up=0))

    assert judge_range({"a": healthy, "b": healthy}).health is Health.HEALTHY
    assert judge_range({"a": healthy, "b": healthy}).description == (
        "2 partitions judged: 2 healthy")
    mixed = judge_range({"a": healthy, "c": error, "b": warn})
    assert mixed.health is Health.ERROR and not mixed.passed
    assert mixed.description == ("3 partitions judged: 1 healthy, 1 warn, 1 error "
                                 "(not healthy: c, b)")
    assert judge_range({"a": warn, "b": healthy}).health is Health.WARN
    assert judge_range({}).passed
