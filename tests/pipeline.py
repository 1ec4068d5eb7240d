"""The pipeline's jobs executed in the test's own process, for tests of what the steps do.

``execute_in_process`` (Dagster's public API for tests) on the test's instance, with the
tags the command gives each run (``launch.crawl.crawl_tags``), and each run's summary read
back from the instance by the command's own rule (``launch.summaries``): a test sees what
``fashion-assets crawl`` would print. How runs reach the run queue and the daemon is tested
through the real command (test_cli.py, test_crawl_processes.py, test_demo.py).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

from fashion_assets.launch.crawl import crawl_tags
from fashion_assets.launch.partitions import add_partitions
from fashion_assets.launch.summaries import (
    crawl_kinds,
    crawl_summary,
    job_summary,
    run_outcome,
    unlisted_partitions,
)


@functools.cache
def _job(env_items: tuple[tuple[str, str], ...], name: str) -> Any:  # JobDefinition
    """A job built for one environment, once per test process (building is not free)."""
    from fashion_assets.definitions import build_definitions

    return build_definitions(dict(env_items)).resolve_job_def(name)


def _env_items(env: Mapping[str, str] | None) -> tuple[tuple[str, str], ...]:
    import os

    return tuple(sorted((os.environ if env is None else env).items()))


def crawl_partitions(targets: Sequence[tuple[str, str]], instance: Any,
                     env: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """Run each ``(kind, partition key)``'s crawl job here, as the command submits it (a
    new partition added first, removed again when its listing was not read); a summary
    each."""
    kinds = crawl_kinds()
    added: set[tuple[str, str]] = set()
    for name in {kind for kind, _ in targets}:  # a range's partitions are there already
        keys = [key for kind, key in targets if kind == name and ".." not in key]
        added |= {(name, key) for key in add_partitions(instance, kinds[name].partitions, keys)}
    summaries = []
    for kind, key in targets:
        result = _job(_env_items(env), kinds[kind].job).execute_in_process(
            instance=instance, raise_on_error=False, tags=crawl_tags(kind, key))
        summary = crawl_summary(kinds[kind], key, run_outcome(instance, result.run_id))
        for unlisted in unlisted_partitions(summary, {k for n, k in added if n == kind}
                                            & {key}):
            instance.delete_dynamic_partition(kinds[kind].partitions, unlisted)
        summaries.append(summary)
    return summaries


def crawl_brands(brands: Sequence[str], instance: Any, env: Mapping[str, str] | None = None
                 ) -> list[dict[str, Any]]:
    """Crawl each Vogue brand here (``crawl_partitions``)."""
    return crawl_partitions([("brand", b) for b in brands], instance, env)


def discover_designers(instance: Any, env: Mapping[str, str] | None = None) -> dict[str, Any]:
    """A run of designer discovery here; its summary, as ``brands discover`` prints it."""
    result = _job(_env_items(env), "designer_discovery").execute_in_process(
        instance=instance, raise_on_error=False)
    return job_summary(run_outcome(instance, result.run_id), asset="vogue_designer_discovery")


def heal_store(instance: Any, env: Mapping[str, str] | None = None, *,
               batch: int | None = None) -> dict[str, Any]:
    """A tick of store_heal_job here (``batch`` photos, else ``FASHION_HEAL_BATCH``); its
    summary, as ``store heal`` prints it."""
    from fashion_assets.jobs.store_heal import JOB_NAME, OP_NAME

    config = {"ops": {OP_NAME: {"config": {"batch": batch}}}} if batch is not None else {}
    result = _job(_env_items(env), JOB_NAME).execute_in_process(
        instance=instance, raise_on_error=False, run_config=config)
    return job_summary(run_outcome(instance, result.run_id), step=OP_NAME)


def scrub_store(instance: Any, env: Mapping[str, str] | None = None, *,
                budget: int | None = None) -> dict[str, Any]:
    """A tick of store_scrub_job here (``budget`` bytes, else ``FASHION_SCRUB_BYTES``); its
    summary, as ``store scrub`` prints it."""
    from fashion_assets.jobs.store_scrub import JOB_NAME, OP_NAME

    config = {"ops": {OP_NAME: {"config": {"budget": budget}}}} if budget is not None else {}
    result = _job(_env_items(env), JOB_NAME).execute_in_process(
        instance=instance, raise_on_error=False, run_config=config)
    return job_summary(run_outcome(instance, result.run_id), step=OP_NAME)
