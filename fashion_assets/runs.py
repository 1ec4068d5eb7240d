"""Running the crawl job: in this process, or brand by brand in worker processes.

The CLI and the demo crawl through here, on the persistent instance in ``DAGSTER_HOME``
(a folder under ``FASHION_HOME`` when unset), so every run they make shows up in the
Dagster UI afterwards. A crawl's CPU is its HTTP stack, in one thread: on a machine with
several cores, brands go to that many worker processes, each one run per brand, like a
Dagster daemon launching runs side by side.
"""

from __future__ import annotations

import fcntl
import functools
import multiprocessing
import os
from collections.abc import Iterable, Mapping
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from fashion_assets import settings


def default_dagster_home() -> Path:
    """``DAGSTER_HOME``, set to ``FASHION_HOME/dagster`` when unset, and created."""
    if not os.environ.get("DAGSTER_HOME"):
        os.environ["DAGSTER_HOME"] = str(settings.home_dir() / "dagster")
    home = Path(os.environ["DAGSTER_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    return home


def dagster_instance():  # -> DagsterInstance (imported lazily: Dagster is slow to import)
    """The persistent instance of ``DAGSTER_HOME``.

    Opening an instance the first time creates its storage; two crawls started at once would
    race to create the same tables, so opening is serialized with a file lock.
    """
    from dagster import DagsterInstance

    home = default_dagster_home()
    with open(home / ".fashion-assets.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        (home / "dagster.yaml").touch(exist_ok=True)
        return DagsterInstance.get()


def register_brands(brands: Iterable[tuple[str, str]], instance: Any,
                    env: Mapping[str, str] | None = None) -> list[str]:
    """Add brands to the catalog and their partitions to the instance; return the new ones."""
    from fashion_assets.catalog.runway import add_brand
    from fashion_assets.partitions import brand_partitions
    from fashion_assets.resources import catalog_engine

    engine = catalog_engine(settings.database_url(env))
    brands = list(brands)
    new = [slug for slug, name in brands if add_brand(engine, slug, name)]
    assert brand_partitions.name is not None
    known = set(instance.get_dynamic_partitions(brand_partitions.name))
    wanted = sorted({slug for slug, _ in brands} - known)
    if wanted:
        instance.add_dynamic_partitions(brand_partitions.name, wanted)
    return new


def crawl_brands(brands: list[str], instance: Any, env: Mapping[str, str] | None = None
                 ) -> list[dict[str, Any]]:
    """Materialize the runway assets of each brand in this process; one summary per brand."""
    register_brands([(b, "") for b in brands], instance, env)
    job = _crawl_job(tuple(sorted((env if env is not None else os.environ).items())))
    summaries = []
    for brand in brands:
        result = job.execute_in_process(partition_key=brand, instance=instance,
                                        raise_on_error=False)
        summaries.append(_summary(brand, result))
    return summaries


@functools.cache
def _crawl_job(env_items: tuple[tuple[str, str], ...]):  # -> JobDefinition
    """The crawl job for one environment, built once per process (resolving it is not free)."""
    from fashion_assets.definitions import build_definitions

    return build_definitions(dict(env_items)).resolve_job_def("runway_crawl")


def crawl_in_workers(brands: list[str], workers: int,
                     env: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """Crawl brands in up to ``workers`` processes, one run per brand, summaries in order.

    The parent imports no Dagster: it only hands out brands, so its memory stays small.
    Workers fork from a server process that imported the pipeline once, so they start in
    milliseconds instead of each importing Dagster again.
    """
    if workers <= 1 or len(brands) <= 1:
        return crawl_brands(brands, dagster_instance(), env)
    default_dagster_home()
    context = multiprocessing.get_context("forkserver")  # never forks a process with threads
    context.set_forkserver_preload(["fashion_assets.definitions"])
    with ProcessPoolExecutor(max_workers=min(workers, len(brands)), mp_context=context) as pool:
        return list(pool.map(_crawl_one, brands, [dict(env or os.environ)] * len(brands)))


def _crawl_one(brand: str, env: dict[str, str]) -> dict[str, Any]:
    [summary] = crawl_brands([brand], _worker_instance(), env)
    return summary


@functools.cache
def _worker_instance():  # -> DagsterInstance
    return dagster_instance()


def _summary(brand: str, result: Any) -> dict[str, Any]:
    """Counts of the run from the drafts asset's metadata, or the failure."""
    summary: dict[str, Any] = {"brand": brand, "run_id": result.run_id,
                               "success": result.success}
    for materialization in result.asset_materializations_for_node("runway_drafts"):
        meta = {k: v.value for k, v in materialization.metadata.items()}
        summary["shows"] = {k.removeprefix("shows_"): v for k, v in meta.items()
                            if k.startswith("shows_") and k != "shows_table"}
        summary["images_stored"] = meta["images_stored"]
        summary["images_missing"] = meta["images_missing"]
    if not result.success:
        failures = [_root_message(e) for e in result.all_events if e.is_step_failure]
        summary["error"] = failures[0] if failures else "run failed"
    return summary


def _root_message(event: Any) -> str:
    """The message of the exception that failed a step, not Dagster's wrapper of it."""
    error = event.step_failure_data.error
    while error is not None and error.cause is not None:
        error = error.cause
    return error.message.strip() if error is not None else event.message


def summary_line(s: Mapping[str, Any]) -> str:
    """One line per brand for the terminal."""
    if not s["success"]:
        return f"{s['brand']}: FAILED ({s.get('error', 'see the run in the Dagster UI')})"
    shows = ", ".join(f"{v} {k}" for k, v in s.get("shows", {}).items() if v)
    return (f"{s['brand']}: {shows or 'no shows'}; {s.get('images_stored', 0)} photos stored, "
            f"{s.get('images_missing', 0)} missing")
