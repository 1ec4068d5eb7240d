"""The partition health rule: a partition an operator must look at, and how badly."""

from __future__ import annotations

import pytest

from fashion_assets.domain.health import Health, PartitionCounts, judge

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
