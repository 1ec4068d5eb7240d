"""Running the crawl job: in this process, or brand by brand in worker processes.

The CLI and the demo crawl through here, on the persistent instance in ``DAGSTER_HOME``
(a folder under ``FASHION_HOME`` when unset), so every run they make shows up in the
Dagster UI afterwards. A crawl's CPU is its HTTP stack, in one thread: on a machine with
several cores, runs go to that many worker processes at once, as a Dagster daemon launches
runs side by side; a worker leaves for a fresh one after a long run or once its memory has
grown. A single run is executed in the command's own process.

Every run made here carries the mark of the process executing it (``PROCESS_TAG``), so a run
whose process is gone is told from one that runs: a crawl fails those of this machine before
it starts (``fail_runs_of_gone_processes``), as stuck_runs_sensor does every minute. A crawl
ends with all its processes: its workers die with it whatever kills it, and SIGTERM or
SIGINT stops it, its runs ended (``CrawlStopped``).
"""

from __future__ import annotations

import fcntl
import functools
import json
import multiprocessing
import multiprocessing.connection
import os
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fashion_assets import settings
from fashion_assets.fresh_processes import Task, run_in_fresh_processes
from fashion_assets.memory import release_freed_memory, resident_bytes, worker_leaves
from fashion_assets.processes import (
    ProcessMark,
    is_gone,
    kill_process_tree,
    process_mark,
)
from fashion_assets.sources.registry import RUNWAY_PARTITION_NAMES, Source, runway_sources

if TYPE_CHECKING:
    from multiprocessing.context import BaseContext

PROCESS_TAG = "fashion-assets/process"
"""On every run executed here: ``host:pid:start`` of the process executing it
(``processes.ProcessMark``)."""
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)
STOP_GRACE_S = 30.0
"""How long a crawl stopped by a signal waits for the run it executes in its own process to
end (its step is cancelled where it waits); then the run is canceled as it stands."""


def default_dagster_home() -> Path:
    """The instance folder (``settings.dagster_home``), created, and exported as
    ``DAGSTER_HOME`` so that Dagster and the worker processes open the same one."""
    home = settings.dagster_home()
    os.environ["DAGSTER_HOME"] = str(home)
    home.mkdir(parents=True, exist_ok=True)
    return home


_LOCAL_INSTANCE_YAML = """\
# Written by fashion-assets for a DAGSTER_HOME that had no dagster.yaml; edit it freely, it
# is never written again. Production hosts use deploy/dagster.yaml instead (docs/operations.md).

# No capture of each step's raw stdout and stderr: the steps log through Dagster's event log
# (what the UI shows) and the crawl prints their progress itself. Capturing costs two helper
# processes per step (`tail -F` and a watcher), about half a second of every run.
compute_logs:
  module: dagster._core.storage.noop_compute_log_manager
  class: NoOpComputeLogManager

# Dagster's SQLite storage, in the default layout, with each run's events stored at half
# the CPU (fashion_assets/instance_storage.py says how). base_dir is this folder (written
# out, so that a process that opens the folder without DAGSTER_HOME set finds it too):
# change it if the folder moves.
storage:
  custom:
    module: fashion_assets.instance_storage
    class: LocalStorage
    config:
      base_dir: {home}

# No usage statistics are sent to Dagster.
telemetry:
  enabled: false
"""


def local_instance_yaml(home: Path) -> str:
    """The ``dagster.yaml`` that ``dagster_instance`` writes into ``home``, a
    ``DAGSTER_HOME`` without one."""
    return _LOCAL_INSTANCE_YAML.replace("{home}", json.dumps(str(home.resolve())))


def dagster_instance():  # -> DagsterInstance (imported lazily: Dagster is slow to import)
    """The persistent instance of ``DAGSTER_HOME``, with ``local_instance_yaml`` as its
    config if it had none.

    Opening an instance the first time creates its storage; two crawls started at once would
    race to create the same tables, so opening is serialized with a file lock.
    """
    from dagster import DagsterInstance

    home = default_dagster_home()
    with open(home / ".fashion-assets.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        with suppress(FileExistsError), open(home / "dagster.yaml", "x") as config:
            config.write(local_instance_yaml(home))
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
    """One kind of crawl: its job, its partitions, the listing asset that says how much was
    listed and the drafts asset that sums up the rest, and what name its entries can wait
    for (``""``: none wait)."""

    name: str
    job: str
    partitions: str
    listing_asset: str
    drafts_asset: str
    outcome_prefix: str
    waits_for: str = ""


def _runway_kind(name: str, source: Source) -> CrawlKind:
    """A runway source's crawl, as its declaration names its job and assets."""
    names, by = source.runway_names, source.runway_partitioning
    assert names is not None and by is not None
    return CrawlKind(name, names.crawl_job, RUNWAY_PARTITION_NAMES[by], names.listings,
                     names.drafts, "shows_", waits_for="brand" if by == "season" else "")


def _by_partitioning() -> dict[str, CrawlKind]:
    """--brand and --season: the registry's runway source partitioned that way (Vogue,
    theImpression). A second source partitioned like one of them is crawled by the
    schedules, sensors, backfills and the UI; the command line would need an option to
    choose between them, so it refuses to guess."""
    kinds: dict[str, CrawlKind] = {}
    for source in runway_sources():
        by = source.runway_partitioning
        assert by is not None
        if by in kinds:
            raise ValueError(f"two runway sources are partitioned by {by}: "
                             f"fashion-assets crawl cannot tell which --{by} means")
        kinds[by] = _runway_kind(by, source)
    return kinds


CRAWL_KINDS = {
    **_by_partitioning(),
    "week": CrawlKind("week", "street_style_crawl", "fashion_weeks", "street_style_listings",
                      "street_snap_drafts", "articles_", waits_for="city"),
    # Consecutive brand partitions in one run (a partition range), keyed "first..last".
    "batch": _runway_kind("batch", next(s for s in runway_sources()
                                        if s.runway_partitioning == "brand")),
}


class RunLog(StrEnum):
    """What a crawl's runs print while they go (the run's log in the instance is complete
    either way)."""

    EVENTS = "events"  # Dagster's console logger: every event, DEBUG up (--verbose)
    PROGRESS = "progress"  # the steps' own lines: progress per show, warnings (crawl)
    QUIET = "quiet"  # nothing: the caller prints a line per partition (demo)

    def run_config(self) -> dict[str, Any]:
        """The run config's ``loggers`` section (``progress_logger`` for the last two)."""
        if self is RunLog.EVENTS:
            return {}
        level = "INFO" if self is RunLog.PROGRESS else "ERROR"  # it prints no errors
        return {"loggers": {"progress": {"config": {"log_level": level}}}}


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
                     env: Mapping[str, str] | None = None, *,
                     run_log: RunLog = RunLog.EVENTS) -> list[dict[str, Any]]:
    """Run each ``(kind, partition key)``'s crawl job in this process; a summary for each.

    Each target gets its partition; a brand is registered in the catalog by its listing
    step, once the source's page for it was read. A brand partition added here for a run
    that could not read the listing (a slug the source does not know) is removed again, so
    a typo leaves nothing behind.
    """
    added: set[tuple[str, str]] = set()
    for kind in {kind for kind, _ in targets} - {"batch"}:
        added |= {(kind, key) for key in _add_partitions(
            instance, CRAWL_KINDS[kind].partitions, [key for k, key in targets if k == kind])}
    env_items = _env_items(env if env is not None else os.environ)
    mark = {PROCESS_TAG: str(process_mark())}
    summaries = []
    for kind, key in targets:
        job = _crawl_job(env_items, CRAWL_KINDS[kind].job)
        if kind == "batch":
            from fashion_assets.domain.batches import Batch
            from fashion_assets.jobs.crawl_schedule import batch_tags

            result = job.execute_in_process(run_config=run_log.run_config(), instance=instance,
                                            raise_on_error=False,
                                            tags={**batch_tags(Batch.from_label(key)), **mark})
        else:
            result = job.execute_in_process(run_config=run_log.run_config(), partition_key=key,
                                            instance=instance, raise_on_error=False, tags=mark)
        if kind == "brand" and (kind, key) in added and not result.success:
            _forget_unlisted_brand(instance, key, env)
        summaries.append(_summary(CRAWL_KINDS[kind], key, result))
        del result  # its events: the run's memory, released before the next run
        release_freed_memory()
    return summaries


def discover_designers(instance: Any, env: Mapping[str, str] | None = None, *,
                       run_log: RunLog = RunLog.EVENTS) -> dict[str, Any]:
    """Run designer discovery in this process, as designer_discovery_schedule launches it;
    its metadata's counts and tables (as rows, for ``--json``), and the failure if it
    failed."""
    from fashion_assets.report import plain_value

    env_items = tuple(sorted((env if env is not None else os.environ).items()))
    result = _crawl_job(env_items, "designer_discovery").execute_in_process(
        run_config=run_log.run_config(), instance=instance, raise_on_error=False,
        tags={PROCESS_TAG: str(process_mark())})
    summary: dict[str, Any] = {"run_id": result.run_id, "success": result.success}
    for materialization in result.asset_materializations_for_node("vogue_designer_discovery"):
        summary.update({k: plain_value(v) for k, v in materialization.metadata.items()})
    if not result.success:
        failures = [_root_message(e) for e in result.all_events if e.is_step_failure]
        summary["error"] = failures[0] if failures else "run failed"
    return summary


def heal_store(instance: Any, env: Mapping[str, str] | None = None, *,
               batch: int | None = None, run_log: RunLog = RunLog.EVENTS) -> dict[str, Any]:
    """Run a tick of store_heal_job in this process, as store_heal_schedule launches it
    (``batch``: photos to check instead of ``FASHION_HEAL_BATCH``); its metadata's counts
    and tables (as rows, for ``--json``), and the failure if it failed."""
    from fashion_assets.jobs.store_heal import JOB_NAME, OP_NAME
    from fashion_assets.report import plain_value

    env_items = tuple(sorted((env if env is not None else os.environ).items()))
    config: dict[str, Any] = run_log.run_config()
    if batch is not None:
        config = {**config, "ops": {OP_NAME: {"config": {"batch": batch}}}}
    result = _crawl_job(env_items, JOB_NAME).execute_in_process(
        run_config=config, instance=instance, raise_on_error=False,
        tags={PROCESS_TAG: str(process_mark())})
    summary: dict[str, Any] = {"run_id": result.run_id, "success": result.success}
    for event in result.events_for_node(OP_NAME):
        if event.is_successful_output:
            summary.update({k: plain_value(v)
                            for k, v in event.step_output_data.metadata.items()})
    if not result.success:
        failures = [_root_message(e) for e in result.all_events if e.is_step_failure]
        summary["error"] = failures[0] if failures else "run failed"
    return summary


def _forget_unlisted_brand(instance: Any, slug: str, env: Mapping[str, str] | None) -> None:
    """Remove the partition of a brand whose listing was never read (it is not in the
    catalog), which this crawl added: nothing but the failed run and its ingest log entry
    remember the slug."""
    from fashion_assets.catalog.runway import list_brands
    from fashion_assets.resources import catalog_engine

    if slug not in {b.slug for b in list_brands(catalog_engine(settings.database_url(env)))}:
        instance.delete_dynamic_partition(CRAWL_KINDS["brand"].partitions, slug)


def _add_partitions(instance: Any, name: str, keys: Iterable[str]) -> list[str]:
    """Add the partitions not there yet; return the ones this call added. Two crawls of a
    new brand starting at once both try: the one that loses the race finds the partition
    added and goes on, and leaves it to the winner (which alone may remove it again)."""
    keys = set(keys)
    wanted = sorted(keys - set(instance.get_dynamic_partitions(name)))
    if not wanted:
        return []
    try:
        instance.add_dynamic_partitions(name, wanted)
    except Exception:  # the storage's unique-key error, whichever the storage is
        if keys - set(instance.get_dynamic_partitions(name)):
            raise
        return []
    return wanted


def _env_items(env: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted(env.items()))


def build_crawl_jobs() -> None:
    """Every crawl job, built for this process's environment: the fork server does it once,
    so each worker it forks (one per run) finds its job built for the crawl's environment."""
    for kind in CRAWL_KINDS.values():
        _crawl_job(_env_items(os.environ), kind.job)


@functools.cache
def _crawl_job(env_items: tuple[tuple[str, str], ...], name: str):  # -> JobDefinition
    """A crawl job for one environment, built once per process (resolving it is not free)."""
    from fashion_assets.definitions import build_definitions

    return build_definitions(dict(env_items)).resolve_job_def(name)


def crawl_in_workers(targets: Sequence[tuple[str, str]], workers: int,
                     env: Mapping[str, str] | None = None, *, all_brands: bool = False,
                     run_log: RunLog = RunLog.EVENTS,
                     on_summary: Callable[[dict[str, Any]], None] = lambda summary: None,
                     ) -> list[dict[str, Any]]:
    """Crawl ``(kind, key)`` targets in up to ``workers`` processes, summaries in order;
    with ``all_brands``, every brand of the catalog too (``all_brand_targets``, listed in a
    worker: this process would otherwise import Dagster and hold it, 80 MB, to the end).

    ``on_summary`` gets each partition's summary as soon as its run ends (the progress a
    terminal shows), in the order they end. The parent imports no Dagster: it only hands
    out targets, so its memory stays small. Workers are forked from a server process that
    imported the pipeline once, so one starts in milliseconds instead of importing Dagster
    again; a worker executes run after run until one takes 30 s or more or its memory has
    grown 10% past what it was after its first run (``memory.worker_leaves``), then leaves
    for a fresh one (with one worker too: a process that executed every run would keep the
    heap of its biggest runs). One target is crawled in this process.

    Runs left by processes that are gone are failed as it starts. SIGTERM or SIGINT stops the
    crawl: no further partition starts, the runs in progress end, and ``CrawlStopped``
    exits with 128 + the signal.
    """
    with _stop_signals():
        if len(targets) <= 1 and not all_brands:
            return _crawl_here(targets, env, run_log, on_summary)
        return _crawl_in_pool(targets, workers, env, run_log, on_summary, all_brands)


class CrawlStopped(SystemExit):
    """A crawl stopped by a signal. A ``SystemExit`` with 128 + the signal, the shell's code
    for a process the signal ended (143 for SIGTERM), so a caller that does not catch it
    exits with that code and no traceback; ``message`` says what was ended."""

    def __init__(self, signum: int, canceled: Sequence[str]) -> None:
        super().__init__(128 + signum)
        self.message = (f"crawl stopped by {signal.Signals(signum).name}: no further partition"
                        " started" + (f"; runs canceled: {', '.join(canceled)}"
                                      if canceled else ""))


class _Stop(BaseException):
    """Raised in the main thread by a stop signal. A BaseException, as KeyboardInterrupt is,
    so no ``except Exception`` on its way swallows it."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum
        self.reason = f"crawl stopped by {signal.Signals(signum).name}"


@contextmanager
def _stop_signals() -> Iterator[None]:
    """While a crawl runs, the first SIGTERM or SIGINT raises ``_Stop`` in the main thread;
    later ones are ignored, so they cannot break off the stopping. Handlers are the main
    thread's: called from another thread (a test harness), the signals are left alone."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []

    def stop(signum: int, frame: Any) -> None:
        if not received:
            received.append(signum)
            raise _Stop(signum)

    previous = {sig: signal.signal(sig, stop) for sig in STOP_SIGNALS}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler if handler is not None else signal.SIG_DFL)


def _crawl_here(targets: Sequence[tuple[str, str]], env: Mapping[str, str] | None,
                run_log: RunLog, on_summary: Callable[[dict[str, Any]], None]
                ) -> list[dict[str, Any]]:
    """The target (the one of a crawl of one) in this process, on a thread of its own: Dagster
    takes SIGINT and SIGTERM over while it executes a run on the main thread (it fails the
    run and returns), so the crawl could neither tell a stop nor stop; on another thread it
    leaves them to this one. A stop cancels the running step (``progress.stop_steps``)."""
    outcome: dict[str, Any] = {}
    stopping, finished = threading.Event(), threading.Event()

    def crawl() -> None:
        try:
            instance = dagster_instance()
            fail_runs_of_gone_processes(instance, _catalog(env))
            outcome["summaries"] = summaries = []
            for target in targets:
                if stopping.is_set():
                    return
                [summary] = crawl_partitions([target], instance, env, run_log=run_log)
                on_summary(summary)
                summaries.append(summary)
        except BaseException as error:  # handed to the main thread, which raises it
            outcome["error"] = error
        finally:
            finished.set()

    try:
        threading.Thread(target=crawl, name="crawl", daemon=True).start()
        # Not Thread.join: on Python 3.11, a join a signal breaks off takes the thread for
        # ended while it runs on.
        finished.wait()
    except _Stop as stop:
        from fashion_assets import progress

        stopping.set()
        progress.stop_steps(stop.reason)
        if finished.wait(STOP_GRACE_S):
            progress.allow_steps()
        raise _stopped(stop, {process_mark()}, env) from None
    if "error" in outcome:
        raise outcome["error"]
    return outcome["summaries"]


def _crawl_in_pool(targets: Sequence[tuple[str, str]], workers: int,
                   env: Mapping[str, str] | None, run_log: RunLog,
                   on_summary: Callable[[dict[str, Any]], None], all_brands: bool = False
                   ) -> list[dict[str, Any]]:
    """The targets (with ``all_brands``, and every brand's batches, listed by a first worker)
    in up to ``workers`` processes at once. A worker executes run after run until
    ``memory.worker_leaves`` says it should leave for a fresh one (a long run, or grown past
    ``memory.WORKER_GROWTH``; ``fresh_processes``): memory stays bounded, and short runs
    start warm. A worker that
    dies mid-run (killed, out of memory) leaves its target a failed summary, the others go on,
    and its run is failed at the end. A stop cancels the targets not started and kills the
    workers with everything they started; their runs are then canceled."""
    default_dagster_home()
    context = multiprocessing.get_context("forkserver")  # never forks a process with threads
    context.set_forkserver_preload(["fashion_assets.fork_server"])
    worker_env = dict(env or os.environ)
    done: dict[int, dict[str, Any]] = {}

    def finished(index: int, summary: Any) -> None:
        if index:
            done[index - 1] = summary
            on_summary(summary)

    def died(index: int, exitcode: int | None) -> None:
        if index:
            done[index - 1] = summary = _died(targets[index - 1], exitcode)
            on_summary(summary)

    try:
        if all_brands:
            targets = [*targets, *_in_a_worker(context, Task(_all_brand_targets, (worker_env,)))]
        # Dagster in a worker, not here; beside the first partitions, not before them: the
        # runs it fails belong to processes that are gone, never to this crawl.
        tasks = [Task(_fail_dead_runs, (worker_env,)),
                 *(Task(_crawl_one, (target, worker_env, run_log)) for target in targets)]
        run_in_fresh_processes(tasks, max(1, min(workers, len(targets))), context,
                               on_result=finished, on_died=died,
                               initializer=_die_with_parent, retire=_leaves)
        if any("run_id" not in summary for summary in done.values()):
            run_in_fresh_processes([tasks[0]], 1, context, on_result=finished, on_died=died)
        return [done[n] for n in range(len(targets))]
    except _Stop as stop:
        marks = {process_mark(worker.pid) for worker in multiprocessing.active_children()
                 if worker.pid is not None}
        for mark in marks:
            kill_process_tree(mark.pid)
        raise _stopped(stop, marks, env) from None


def _in_a_worker(context: BaseContext, task: Task) -> Any:
    """What ``task`` returns, executed in a worker of its own (an error it raises is raised
    here)."""
    result: list[Any] = []

    def died(index: int, exitcode: int | None) -> None:
        raise RuntimeError(f"the worker listing what to crawl ended (exit code {exitcode})")

    run_in_fresh_processes([task], 1, context, on_result=lambda index, value:
                           result.append(value), on_died=died, initializer=_die_with_parent)
    return result[0]


def _all_brand_targets(env: dict[str, str]) -> list[tuple[str, str]]:
    _take_crawl_env(env)
    return all_brand_targets(worker_instance(), env)


def _died(target: tuple[str, str], exitcode: int | None) -> dict[str, Any]:
    """The summary of a target whose worker process ended mid-run: its run is failed once
    the crawl's other runs end (or by the next crawl, or stuck_runs_sensor)."""
    kind, key = target
    how = (f"killed by {signal.Signals(-exitcode).name}" if exitcode is not None
           and exitcode < 0 and -exitcode in signal.valid_signals() else f"exit code {exitcode}")
    return {"kind": kind, kind: key, "partition": key, "success": False,
            "error": f"its worker process ended mid-run ({how})"}


def _die_with_parent() -> None:
    """Each worker's first act: a thread that ends the worker the
    moment the crawl command that started it is gone, whatever ended it, SIGKILL too.

    It waits on the command's end of a pipe (``parent_process().sentinel``), which the
    kernel closes when that process dies; if it died already, the wait returns at once.
    Linux's parent-death signal would not do: a worker's parent is the fork server, which
    stays as long as a worker holds its pipe. Left alone, a worker would crawl on, then
    idle for ever.
    """
    parent = multiprocessing.parent_process()
    assert parent is not None  # a worker of the pool
    threading.Thread(target=_exit_when_ready, args=(parent.sentinel,), name="parent-watch",
                     daemon=True).start()


def _exit_when_ready(sentinel: int) -> None:
    multiprocessing.connection.wait([sentinel])
    os._exit(1)  # at once: the next crawl or stuck_runs_sensor fails the run it leaves


def _fail_dead_runs(env: dict[str, str]) -> list[str]:
    _take_crawl_env(env)
    return fail_runs_of_gone_processes(worker_instance(), _catalog(env))


def _crawl_one(target: tuple[str, str], env: dict[str, str], run_log: RunLog
               ) -> dict[str, Any]:
    _take_crawl_env(env)
    _run_began[:] = [time.monotonic()]
    [summary] = crawl_partitions([target], worker_instance(), env, run_log=run_log)
    return summary


def _take_crawl_env(env: dict[str, str]) -> None:
    """A worker's environment becomes its crawl's: it inherits the fork server's, which is
    that of the crawl that started the server, another one's in a process that crawls more
    than once with other settings (tests, the demo)."""
    if os.environ != env:
        os.environ.clear()
        os.environ.update(env)


_after_first_run: list[int | None] = []  # a worker's resident memory after its first run
_run_began: list[float] = []  # when its last run began (time.monotonic)


def _leaves() -> bool:
    """After each task of a worker: whether it leaves for a fresh process (``memory.py:
    worker_leaves``)."""
    now = resident_bytes()
    if not _after_first_run:
        _after_first_run.append(now)
    run_s = time.monotonic() - _run_began[0] if _run_began else 0.0
    return worker_leaves(_after_first_run[0], now, run_s)


def worker_instance():  # -> DagsterInstance
    """The instance of a worker process, its crawl's ``DAGSTER_HOME``'s: opened by the fork
    server (``fork_server.py``) before it forks the workers, so each has it at once, unless
    the crawl's home is another than the server's."""
    return instance_of_home(str(settings.dagster_home()))


@functools.cache
def instance_of_home(home: str):  # -> DagsterInstance
    """The instance of ``home``, the ``DAGSTER_HOME`` that ``dagster_instance`` opens."""
    return dagster_instance()


def _catalog(env: Mapping[str, str] | None):  # -> Engine (imported lazily, as Dagster is)
    from fashion_assets.resources import catalog_engine

    return catalog_engine(settings.database_url(env))


def _alive_runs(instance: Any, which: Callable[[ProcessMark], bool]
                ) -> list[tuple[Any, ProcessMark]]:
    """The runs not ended yet (NOT_STARTED, STARTING, STARTED) whose process mark ``which``
    accepts, with the mark; runs without one (launched by the daemon) are never among them."""
    from dagster import DagsterRunStatus, RunsFilter

    runs = instance.get_runs(RunsFilter(statuses=[
        DagsterRunStatus.NOT_STARTED, DagsterRunStatus.STARTING, DagsterRunStatus.STARTED]))
    marked = [(run, ProcessMark.parse(run.tags.get(PROCESS_TAG, ""))) for run in runs]
    return [(run, mark) for run, mark in marked if mark is not None and which(mark)]


def runs_of_gone_processes(instance: Any) -> list[tuple[Any, ProcessMark]]:
    """The runs not ended yet whose process, on this machine, is gone: dead runs, though
    Dagster still says they run."""
    return _alive_runs(instance, is_gone)


def fail_runs_of_gone_processes(instance: Any, engine: Any) -> list[str]:
    """Fail each run of ``runs_of_gone_processes`` and end its progress row; their ids.

    A crawl killed outright (SIGKILL, the machine's OOM killer) writes nothing more: its
    runs would hold their queue slots and show as running until the stuck-run sensor saw
    their heartbeat age past the threshold.
    """
    from fashion_assets.catalog import progress as progress_catalog

    failed = []
    for run, mark in runs_of_gone_processes(instance):
        note = (f"its process {mark.pid} on {mark.host} is gone (killed, or crashed), so "
                "the run can no longer end itself")
        instance.report_run_failed(run, note)
        progress_catalog.finish(engine, run.run_id, "failed", note)
        failed.append(run.run_id)
    return failed


def _stopped(stop: _Stop, marks: set[ProcessMark], env: Mapping[str, str] | None
             ) -> CrawlStopped:
    """Cancel the runs the stopped processes ``marks`` left not ended, with their progress
    rows (``terminated``, the stop as the note); the exit that says so."""
    from fashion_assets.catalog import progress as progress_catalog

    instance, engine = dagster_instance(), _catalog(env)
    canceled = []
    for run, _ in _alive_runs(instance, marks.__contains__):
        instance.report_run_canceled(run, stop.reason)
        progress_catalog.finish(engine, run.run_id, "terminated", stop.reason)
        canceled.append(run.run_id)
    return CrawlStopped(stop.signum, canceled)


def _summary(kind: CrawlKind, key: str, result: Any) -> dict[str, Any]:
    """Counts of the run from its drafts asset's metadata, or the failure."""
    from fashion_assets.domain.ingest import Outcome

    summary: dict[str, Any] = {"kind": kind.name, kind.name: key, "partition": key,
                               "run_id": result.run_id, "success": result.success}
    for materialization in result.asset_materializations_for_node(kind.listing_asset):
        meta = {k: v.value for k, v in materialization.metadata.items()}
        summary["listed"] = meta.get("listed", 0)
        summary["waiting_for_name"] = meta.get("waiting_for_name", 0)
        if kind.waits_for:
            summary["waits_for"] = kind.waits_for
    for materialization in result.asset_materializations_for_node(kind.drafts_asset):
        meta = {k: v.value for k, v in materialization.metadata.items()}
        # Named one by one: other keys share the prefix ("shows_done", "shows_table"...).
        summary["shows"] = {o.value: meta[kind.outcome_prefix + o.value] for o in Outcome}
        summary["images_stored"] = meta["images_stored"]
        summary["images_missing"] = meta["images_missing"]
        # The store heal of the partition's photos: lost ones found, fetched again, not.
        summary["photos_lost"] = meta.get("heal_missing", 0)
        summary["photos_healed"] = meta.get("heal_healed", 0)
    if not result.success:
        failures = [_root_message(e) for e in result.all_events if e.is_step_failure]
        summary["error"] = failures[0] if failures else "run failed"
    return summary


def _root_message(event: Any) -> str:
    """The message of the exception that failed a step, not Dagster's wrapper of it, and
    without its class name (``dagster...Failure: ``): the message says what went wrong."""
    error = event.step_failure_data.error
    while error is not None and error.cause is not None:
        error = error.cause
    if error is None:
        return event.message
    named, _, message = error.message.strip().partition(": ")
    return message if message and named.rsplit(".", 1)[-1] == error.cls_name else (
        error.message.strip())


def summary_line(s: Mapping[str, Any], *, program: str = "fashion-assets") -> str:
    """One line per crawled partition for the terminal: outcomes and photos, or how many
    entries were listed and how many wait for a name (``program``: how the user types
    ``fashion-assets``, for the command that lists the names)."""
    if not s["success"]:
        return f"{s['partition']}: FAILED - {s.get('error', 'see the run in the Dagster UI')}"
    outcomes = ", ".join(f"{v} {k}" for k, v in s.get("shows", {}).items() if v)
    listed, waiting = s.get("listed", 0), s.get("waiting_for_name", 0)
    if not outcomes and not listed:
        return f"{s['partition']}: nothing listed"
    text = outcomes or f"{listed} listed"
    if waiting:
        count = "" if waiting == listed and not outcomes else f"{waiting} "
        text += (f", {count}waiting for a {s.get('waits_for', 'brand or city')} name"
                 f" ({program} names list)")
    if not outcomes:
        return f"{s['partition']}: {text}"
    lost = s.get("photos_lost", 0)
    return (f"{s['partition']}: {text}; "
            f"{s.get('images_stored', 0)} photos stored, {s.get('images_missing', 0)} missing"
            + (f"; {s.get('photos_healed', 0)} of {lost} photos lost from the store fetched "
               "again" if lost else ""))


def crawl_totals(summaries: Sequence[Mapping[str, Any]]) -> str:
    """The whole crawl in one line: runs, failures, drafts created, photos, waiting."""
    failed = sum(not s["success"] for s in summaries)
    created = sum(s.get("shows", {}).get("created", 0) for s in summaries)
    stored = sum(s.get("images_stored", 0) for s in summaries)
    missing = sum(s.get("images_missing", 0) for s in summaries)
    waiting = sum(s.get("waiting_for_name", 0) for s in summaries)
    return (f"{len(summaries)} crawls, {failed} failed: {created} drafts created, {stored}"
            f" photos stored, {missing} missing; {waiting} articles wait for a name")
