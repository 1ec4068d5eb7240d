"""A crawl's plan keeps every slot of the deployment's run queue busy (launch/crawl.py):
the slots are the queue's limit as the webserver reports it (test_cli_runs.py plans a crawl
on a deployment whose dagster.yaml sets it)."""

from __future__ import annotations

import os

import pytest

from fashion_assets.launch.crawl import queue_slots


@pytest.mark.parametrize("runs", [1, 3, 8])
def test_the_slots_are_the_queue_s_limit(runs: int) -> None:
    assert queue_slots(runs) == runs


@pytest.mark.parametrize("limit", [-1, 0, None], ids=["unlimited", "zero", "no-queue"])
def test_a_queue_with_no_limit_gets_a_run_per_cpu(limit: int | None) -> None:
    assert queue_slots(limit) == (os.cpu_count() or 1)
