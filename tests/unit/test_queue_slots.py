"""A crawl's plan keeps every slot of the deployment's run queue busy (launch/crawl.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from dagster import DagsterInstance

from fashion_assets.launch.crawl import queue_slots
from fashion_assets.launch.instance import local_instance_yaml


@pytest.mark.parametrize("runs", [1, 3, 8])
def test_the_slots_are_the_queue_s_limit(tmp_path: Path, runs: int) -> None:
    (tmp_path / "dagster.yaml").write_text(local_instance_yaml(runs))
    with DagsterInstance.from_config(str(tmp_path)) as instance:
        assert queue_slots(instance) == runs


def test_a_queue_with_no_limit_gets_a_run_per_cpu(tmp_path: Path) -> None:
    (tmp_path / "dagster.yaml").write_text("run_queue:\n  max_concurrent_runs: -1\n")
    with DagsterInstance.from_config(str(tmp_path)) as instance:
        assert queue_slots(instance) == (os.cpu_count() or 1)


def test_a_dagster_yaml_that_sets_nothing_has_dagster_s_default_queue(tmp_path: Path) -> None:
    (tmp_path / "dagster.yaml").write_text("")
    with DagsterInstance.from_config(str(tmp_path)) as instance:
        assert queue_slots(instance) == 10  # Dagster's default max_concurrent_runs
