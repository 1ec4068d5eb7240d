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
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
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
    _add_partitions(instance, brand_partitions.name, [slug for slug, _ in brands])
    return new


@dataclass(frozen=True)
class CrawlKind:
    """One kind of crawl: its job, its partitions and the drafts asset that sums it up."""

    name: str
    job: str
    partitions: str
    drafts_asset: str
    outcome_prefix: str


CRAWL_KINDS = {
    "brand": CrawlKind("brand", "runway_crawl", "brands", "runway_drafts", "shows_"),
    "season": CrawlKind("season", "impression_runway_crawl", "runway_seasons",
                        "impression_runway_drafts", "shows_"),
    "week": CrawlKind("week", "street_style_crawl", "fashion_weeks", "street_snap_drafts",
                      "articles_"),
    # Consecutive brand partitions in one run (a partition range), keyed "first..last".
    "batch": CrawlKind("batch", "runway_crawl", "brands", "runway_drafts", "shows_"),
}


def all_brand_targets(instance: Any, env: Mapping[str, str] | None = None
                      ) -> list[tuple[str, str]]:
    """Every brand of the catalog, as ``("batch", "first..last")`` targets of
    ``FASHION_CRAWL_BATCH_BRANDS`` brands each (``fashion-assets crawl --all``)."""
    from fashion_assets.catalog.runway import list_brands
    from fashion_assets.jobs.crawl_schedule import brand_batches
    from fashion_assets.resources import catalog_engine

    brands = list_brands(catalog_engine(settings.database_url(env)))
    register_brands([(b.slug, b.display_name) for b in brands], instance, env)
    return [("batch", batch.label) for batch in brand_batches(instance, env)]


def crawl_brands(brands: list[str], instance: Any, env: Mapping[str, str] | None = None
                 ) -> list[dict[str, Any]]:
    """Materialize the Vogue runway assets of each brand in this process."""
    return crawl_partitions([("brand", b) for b in brands], instance, env)


def crawl_partitions(targets: Sequence[tuple[str, str]], instance: Any,
                     env: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """Run each ``(kind, partition key)``'s crawl job in this process; a summary for each.

    Brands are registered in the catalog too; seasons and fashion weeks only need their
    partition.
    """
    register_brands([(key, "") for kind, key in targets if kind == "brand"], instance, env)
    for kind in {kind for kind, _ in targets} - {"brand", "batch"}:
        _add_partitions(instance, CRAWL_KINDS[kind].partitions,
                        [key for k, key in targets if k == kind])
    env_items = tuple(sorted((env if env is not None else os.environ).items()))
    summaries = []
    for kind, key in targets:
        job = _crawl_job(env_items, CRAWL_KINDS[kind].job)
        if kind == "batch":
            from fashion_assets.domain.batches import Batch
            from fashion_assets.jobs.crawl_schedule import batch_tags

            result = job.execute_in_process(instance=instance, raise_on_error=False,
                                            tags=batch_tags(Batch.from_label(key)))
        else:
            result = job.execute_in_process(partition_key=key, instance=instance,
                                            raise_on_error=False)
        summaries.append(_summary(CRAWL_KINDS[kind], key, result))
    return summaries


def _add_partitions(instance: Any, name: str, keys: Iterable[str]) -> None:
    """Add the partitions not there yet. Two crawls of a new brand starting at once both
    try: the one that loses the race finds the partition added and goes on."""
    keys = set(keys)
    wanted = sorted(keys - set(instance.get_dynamic_partitions(name)))
    if not wanted:
        return
    try:
        instance.add_dynamic_partitions(name, wanted)
    except Exception:  # the storage's unique-key error, whichever the storage is
        if keys - set(instance.get_dynamic_partitions(name)):
            raise


@functools.cache
def _crawl_job(env_items: tuple[tuple[str, str], ...], name: str):  # -> JobDefinition
    """A crawl job for one environment, built once per process (resolving it is not free)."""
    from fashion_assets.definitions import build_definitions

    return build_definitions(dict(env_items)).resolve_job_def(name)


def crawl_in_workers(targets: Sequence[tuple[str, str]], workers: int,
                     env: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """Crawl ``(kind, key)`` targets in up to ``workers`` processes, summaries in order.

    The parent imports no Dagster: it only hands out targets, so its memory stays small.
    Workers fork from a server process that imported the pipeline once, so they start in
    milliseconds instead of each importing Dagster again.
    """
    if workers <= 1 or len(targets) <= 1:
        return crawl_partitions(targets, dagster_instance(), env)
    default_dagster_home()
    context = multiprocessing.get_context("forkserver")  # never forks a process with threads
    context.set_forkserver_preload(["fashion_assets.definitions"])
    with ProcessPoolExecutor(max_workers=min(workers, len(targets)), mp_context=context) as pool:
        return list(pool.map(_crawl_one, targets, [dict(env or os.environ)] * len(targets)))


def _crawl_one(target: tuple[str, str], env: dict[str, str]) -> dict[str, Any]:
    [summary] = crawl_partitions([target], _worker_instance(), env)
    return summary


@functools.cache
def _worker_instance():  # -> DagsterInstance
    return dagster_instance()


# The drafts assets' progress counts: "shows_done" shares the runway outcomes' prefix.
PROGRESS_KEYS = frozenset({"shows_done", "shows_total"})


def _summary(kind: CrawlKind, key: str, result: Any) -> dict[str, Any]:
    """Counts of the run from its drafts asset's metadata, or the failure."""
    summary: dict[str, Any] = {"kind": kind.name, kind.name: key, "partition": key,
                               "run_id": result.run_id, "success": result.success}
    for materialization in result.asset_materializations_for_node(kind.drafts_asset):
        meta = {k: v.value for k, v in materialization.metadata.items()}
        summary["shows"] = {k.removeprefix(kind.outcome_prefix): v for k, v in meta.items()
                            if k.startswith(kind.outcome_prefix) and not k.endswith("_table")
                            and k not in PROGRESS_KEYS}
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
    """One line per crawled partition for the terminal."""
    if not s["success"]:
        return f"{s['partition']}: FAILED ({s.get('error', 'see the run in the Dagster UI')})"
    shows = ", ".join(f"{v} {k}" for k, v in s.get("shows", {}).items() if v)
    return (f"{s['partition']}: {shows or 'nothing listed'}; "
            f"{s.get('images_stored', 0)} photos stored, {s.get('images_missing', 0)} missing")
