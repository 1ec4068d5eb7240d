"""The command's runs, submitted to the deployment's run queue and followed to their end.

In a ``command_session`` (the deployment, the command's stop signals), ``crawl`` turns
brands, seasons and weeks into runs of their crawl jobs (tags as a schedule gives them: the
partition or the range, the queue's limits), submits them in one call and reports a summary
per run as it ends; ``run_job`` does the same for one run of another job (designer
discovery, a store heal tick). Every run carries the command's mark (``COMMAND_TAG``), so a
stop ends exactly the runs this command made.

SIGTERM or SIGINT stops the command: its runs not ended are terminated through the
deployment (queued ones canceled), and ``CrawlStopped`` exits with 128 + the signal.
"""

from __future__ import annotations

import os
import signal
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import Any

from fashion_assets.launch.deployment import (
    Deployment,
    DeploymentError,
    deployment,
    fail_runs_of_ended,
)
from fashion_assets.launch.follow import RunLog, follow_runs
from fashion_assets.launch.graphql import (
    RunRequest,
    job_selectors,
    launch_runs,
    terminate_runs,
)
from fashion_assets.launch.instance import dagster_instance
from fashion_assets.launch.partitions import (
    add_partitions,
    catalog_brands,
    forget_unlisted_brand,
)
from fashion_assets.launch.summaries import (
    crawl_kinds,
    crawl_summary,
    job_summary,
    run_outcome,
)

COMMAND_TAG = "fashion-assets/command"
"""On every run the command submits: an id of the command's invocation."""
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)
STOP_GRACE_S = 60.0
"""How long a stopped command waits for its terminated runs to end; then they are marked
canceled as they stand."""


class CrawlStopped(SystemExit):
    """A command stopped by a signal. A ``SystemExit`` with 128 + the signal, the shell's
    code for a process the signal ended (143 for SIGTERM), so a caller that does not catch
    it exits with that code and no traceback; ``message`` says what was ended."""

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
        self.ended: list[str] = []  # the command's runs it ended


def crawl_tags(kind_name: str, key: str) -> dict[str, str]:
    """The tags of a crawl run of one partition, or of a range ``first..last``, as the
    schedules and sensors tag theirs: the queue limits them the same way."""
    from fashion_assets.domain.batches import Batch
    from fashion_assets.jobs.crawl_schedule import batch_tags
    from fashion_assets.tags import BRAND_TAG, CRAWL_TAG, PARTITION_TAG

    batch = Batch.from_label(key)
    if batch.first != batch.last:
        return batch_tags(batch, kind_name)
    return {PARTITION_TAG: key, CRAWL_TAG: kind_name,
            **({BRAND_TAG: key} if kind_name == "brand" else {})}


def plan_runs(instance: Any, targets: Sequence[tuple[str, str]],
              env: Mapping[str, str] | None) -> tuple[list[tuple[str, str]], set[str]]:
    """The runs for ``(kind, key)`` targets: each kind's keys added as partitions, then cut
    into ranges of its partitions' order (``domain/batches.py: plan_ranges``: at most
    ``FASHION_CRAWL_BATCH_BRANDS`` keys a run, at least a run per slot of the run queue
    while keys can be split: ``queue_slots``); ``(kind, key or first..last)`` per run,
    and the brands this call added."""
    from fashion_assets.domain.batches import plan_ranges
    from fashion_assets.jobs.crawl_schedule import batch_size

    kinds = crawl_kinds()
    runs: list[tuple[str, str]] = []
    added_brands: set[str] = set()
    for name in dict.fromkeys(kind for kind, _ in targets):
        keys = [key for kind, key in targets if kind == name]
        added = add_partitions(instance, kinds[name].partitions, keys)
        if name == "brand":
            added_brands.update(added)
        order = instance.get_dynamic_partitions(kinds[name].partitions)
        runs += [(name, batch.label) for batch in
                 plan_ranges(order, keys, queue_slots(instance), batch_size(env))]
    return runs, added_brands


def queue_slots(instance: Any) -> int:
    """How many runs the instance's run queue runs at once (its ``dagster.yaml``'s
    ``max_concurrent_runs``), so a plan keeps every slot busy; the CPU count when the
    queue sets no limit."""
    config = instance.get_concurrency_config().run_queue_config
    limit = config.max_concurrent_runs if config is not None else -1
    return limit if limit > 0 else (os.cpu_count() or 1)


@dataclass
class Session:
    """What the command's runs share: the instance, the deployment (started, or joined, at
    the first launch: a command with nothing to run starts nothing), the command's mark for
    their tags, the catalog, the environment of their settings."""

    instance: Any
    mark: Mapping[str, str]
    engine: Any  # the catalog's
    env: Mapping[str, str] | None
    _stack: ExitStack
    _note: Callable[[str], None]
    _deployed: Deployment | None = None

    @property
    def deployed(self) -> Deployment | None:
        """The deployment, once the command has launched a run."""
        return self._deployed

    def watch(self) -> bool:
        """At every poll of the runs: if the deployment another command started has ended
        with it (killed), the runs it had are failed, so the follow sees them end."""
        if self._deployed is not None and self._deployed.ended():
            fail_runs_of_ended(self.instance, self.engine)
        return True

    def launch(self, requests: Sequence[RunRequest]) -> list[str]:
        """Submit ``requests``, each tagged with the command's mark; their run ids."""
        if not requests:
            return []
        if self._deployed is None:
            self._deployed = self._stack.enter_context(deployment(self.env, self._note))
        deployed = self._deployed
        tags = {**self.mark, **deployed.tags()}
        run_ids = launch_runs(deployed.graphql, job_selectors(deployed.graphql),
                              [RunRequest(r.job, {**r.tags, **tags}, r.run_config)
                               for r in requests])
        if run_ids and self.instance.get_run_by_id(run_ids[0]) is None:
            raise DeploymentError(
                f"the deployment at {deployed.url} runs on another Dagster instance than "
                f"DAGSTER_HOME={os.environ['DAGSTER_HOME']}, so its runs cannot be followed "
                f"from here (they were launched: {', '.join(run_ids)}); set DAGSTER_HOME to a "
                "folder with the deployment's dagster.yaml (and its DAGSTER_PG_* settings)")
        return run_ids


@contextmanager
def command_session(env: Mapping[str, str] | None = None,
                    note: Callable[[str], None] = lambda line: None) -> Iterator[Session]:
    """The block's session: the deployment for its runs (``deployment.deployment``, at the
    first launch), with the command's stop signals handled: a stop in the block ends its
    runs and exits ``CrawlStopped``. Runs that a command killed outright left behind are
    failed first, with a line each."""
    from fashion_assets import settings
    from fashion_assets.catalog.engines import catalog_engine

    instance = dagster_instance()
    engine = catalog_engine(settings.database_url(env))
    for run_id in fail_runs_of_ended(instance, engine):
        note(f"run {run_id} failed: the command that started its `dagster dev` was killed")
    with _stop_signals(), _stopping(instance, engine) as mark, ExitStack() as stack:
        session = Session(instance, mark, engine, env, stack, note)
        with _terminating(session):
            yield session


def crawl(session: Session, targets: Sequence[tuple[str, str]], *, all_brands: bool = False,
          run_log: RunLog = RunLog.PROGRESS,
          on_summary: Callable[[dict[str, Any]], None] = lambda summary: None,
          on_line: Callable[[str], None] = lambda line: None) -> list[dict[str, Any]]:
    """Crawl ``(kind, key)`` targets (with ``all_brands``, every brand of the catalog too)
    as runs on the session's deployment (``plan_runs``); a summary per run, in the plan's
    order, each handed to ``on_summary`` as its run ends.

    A brand partition added here for a slug whose listing could not be read (a slug the
    source does not know) is removed again once its run ended."""
    from fashion_assets.domain.batches import Batch

    kinds, instance, env = crawl_kinds(), session.instance, session.env
    if all_brands:
        targets = [*targets, *(("brand", slug) for slug in catalog_brands(instance, env))]
    runs, added_brands = plan_runs(instance, targets, env)
    run_ids = session.launch([RunRequest(kinds[kind].job, crawl_tags(kind, key))
                              for kind, key in runs])
    by_run = dict(zip(run_ids, runs, strict=True))
    summaries: dict[str, dict[str, Any]] = {}

    def ended(run_id: str) -> None:
        kind, key = by_run[run_id]
        summary = crawl_summary(kinds[kind], key, run_outcome(instance, run_id))
        if kind == "brand":
            order = instance.get_dynamic_partitions(kinds[kind].partitions)
            batch = Batch.from_label(key)
            span = order[order.index(batch.first):order.index(batch.last) + 1]
            for slug in added_brands.intersection(span):
                forget_unlisted_brand(instance, kinds[kind].partitions, slug, env)
        summaries[run_id] = summary
        on_summary(summary)

    follow_runs(instance, run_ids, run_log=run_log, on_line=on_line, on_end=ended,
                keep_going=session.watch)
    return [summaries[run_id] for run_id in run_ids]


def run_job(session: Session, job: str, *, run_config: Mapping[str, Any] | None = None,
            asset: str = "", step: str = "", run_log: RunLog = RunLog.PROGRESS,
            on_line: Callable[[str], None] = lambda line: None) -> dict[str, Any]:
    """One run of ``job`` on the session's deployment, followed to its end; its summary
    (the metadata of ``asset``'s materialization or ``step``'s output, the failure)."""
    [run_id] = session.launch([RunRequest(job, {}, run_config or {})])
    follow_runs(session.instance, [run_id], run_log=run_log, on_line=on_line,
                on_end=lambda run_id: None, keep_going=session.watch)
    return job_summary(run_outcome(session.instance, run_id), asset=asset, step=step)


@contextmanager
def _stopping(instance: Any, engine: Any) -> Iterator[dict[str, str]]:
    """The command's mark for its runs' tags; on a stop signal, the block exits with
    ``CrawlStopped``, naming the runs it ended, and any of them the deployment did not end
    (it was stopped first) is marked canceled, its progress row ended ``terminated``: its
    run process went with the deployment before it could end the row itself."""
    from fashion_assets.catalog import progress as progress_catalog

    mark = {COMMAND_TAG: uuid.uuid4().hex}
    try:
        yield mark
    except _Stop as stop:
        reason = f"crawl stopped by {signal.Signals(stop.signum).name}"
        for run in _runs(instance, mark, live=True):
            instance.report_run_canceled(run, reason)
            progress_catalog.finish(engine, run.run_id, "terminated", reason)
            stop.ended.append(run.run_id)
        raise CrawlStopped(stop.signum, sorted(set(stop.ended))) from None


@contextmanager
def _terminating(session: Session) -> Iterator[None]:
    """On a stop signal, the deployment terminates the command's runs not ended (queued
    ones are canceled), and the block waits up to ``STOP_GRACE_S`` for them to end."""
    try:
        yield
    except _Stop as stop:
        stop.ended = [run.run_id for run in _runs(session.instance, session.mark, live=True)]
        if session.deployed is not None and stop.ended:
            terminate_runs(session.deployed.graphql, stop.ended)
            deadline = time.monotonic() + STOP_GRACE_S
            while (_runs(session.instance, session.mark, live=True)
                   and time.monotonic() < deadline):
                time.sleep(0.25)  # polling the runs' status, a real condition
        raise


def _runs(instance: Any, mark: Mapping[str, str], *, live: bool = False) -> list[Any]:
    """The command's runs (``live``: those not ended)."""
    from dagster import DagsterRunStatus, RunsFilter

    statuses = [DagsterRunStatus.QUEUED, DagsterRunStatus.NOT_STARTED,
                DagsterRunStatus.STARTING, DagsterRunStatus.STARTED,
                DagsterRunStatus.CANCELING] if live else []
    return instance.get_runs(RunsFilter(tags=dict(mark), statuses=statuses))


@contextmanager
def _stop_signals() -> Iterator[None]:
    """While the command runs, the first SIGTERM or SIGINT raises ``_Stop`` in the main
    thread; later ones are ignored, so they cannot break off the stopping. Handlers are the
    main thread's: called from another thread (a test harness), signals are left alone."""
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
