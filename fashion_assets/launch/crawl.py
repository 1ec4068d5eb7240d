"""The command's runs, submitted to the deployment's run queue and followed to their end.

In a ``command_session`` (the deployment, the command's stop signals), ``crawl`` turns
brands, seasons and weeks into runs of their crawl jobs (tags as a schedule gives them: the
partition or the range, the queue's limits), submits them in one call and reports a summary
per run as it ends; ``run_job`` does the same for one run of another job (designer
discovery, a store heal tick). Every run carries the command's mark (``COMMAND_TAG``), so a
stop ends exactly the runs this command made. Everything goes through the deployment's
webserver (``graphql.py``, ``webserver.py``): the command never imports Dagster on its way.

SIGTERM or SIGINT stops the command, saying so: its runs not ended are terminated through
the deployment (queued ones canceled), those still going after ``STOP_GRACE_S`` marked
canceled, and ``CrawlStopped`` exits with 128 + the signal.
"""

from __future__ import annotations

import os
import signal
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from typing import Any

from fashion_assets.launch.deployment import (
    KILLED_NOTE,
    Deployment,
    deployment,
    fail_runs_of_ended,
)
from fashion_assets.launch.follow import RunLog, follow_runs
from fashion_assets.launch.graphql import (
    GraphQL,
    JobSelector,
    RunRequest,
    cancel_runs,
    job_selectors,
    launch_runs,
    selector_of,
    terminate_runs,
)
from fashion_assets.launch.partitions import catalog_brands
from fashion_assets.launch.summaries import (
    RunOutcome,
    crawl_kinds,
    crawl_summary,
    job_summary,
    stopping_line,
    unlisted_partitions,
)
from fashion_assets.launch.webserver import (
    add_partitions,
    delete_partitions,
    partition_keys,
    queue_limit,
    tagged_runs,
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
    from fashion_assets.tags import BRAND_TAG, CRAWL_TAG, PARTITION_TAG, batch_tags

    batch = Batch.from_label(key)
    if batch.first != batch.last:
        return batch_tags(batch, kind_name)
    return {PARTITION_TAG: key, CRAWL_TAG: kind_name,
            **({BRAND_TAG: key} if kind_name == "brand" else {})}


def queue_slots(limit: int | None) -> int:
    """How many runs the deployment's run queue runs at once, from its ``dagster.yaml``'s
    ``max_concurrent_runs`` (``limit``), so a plan keeps every slot busy; the CPU count when
    the queue sets no limit, or there is no queue."""
    return limit if limit is not None and limit > 0 else (os.cpu_count() or 1)


@dataclass
class Session:
    """What the command's runs share: the deployment (started, or joined, when the command
    first needs it: a command with nothing to run starts nothing), the command's mark for
    their tags, the catalog, the environment of their settings."""

    mark: Mapping[str, str]
    _catalog: Future[Any]  # the catalog's engine, being opened
    env: Mapping[str, str] | None
    _stack: ExitStack
    _note: Callable[[str], None]
    _deployed: Deployment | None = None
    _selectors: dict[str, JobSelector] = field(default_factory=dict)  # every job's, once read

    @property
    def engine(self) -> Any:
        """The catalog's engine, once open (migrated and seeded); its error if it cannot be.

        It opens in the background from the session's start, while the command plans its
        runs with a deployment that is up (a fresh catalog's migrations were a third of the
        time to the first run); it is waited for before a ``dagster dev`` is started and
        before any run is submitted, so a catalog the runs could not use still ends the
        command in one line with nothing started."""
        return self._catalog.result()

    @property
    def deployed(self) -> Deployment | None:
        """The deployment, once the command has needed it."""
        return self._deployed

    @property
    def graphql(self) -> GraphQL:
        """The deployment's webserver, the deployment started or joined on first use."""
        if self._deployed is None:
            self._deployed = self._stack.enter_context(
                deployment(self.env, self._note, before_start=lambda: self.engine))
        return self._deployed.graphql

    def selectors(self) -> dict[str, JobSelector]:
        """Where the deployment serves each job (listed once, on first use)."""
        if not self._selectors:
            self._selectors.update(job_selectors(self.graphql))
        return self._selectors

    def watch(self) -> bool:
        """At every poll of the runs: whether to go on. A private deployment another command
        started that ended with it (killed) takes its webserver along: the runs it had are
        failed in the instance, and the command stops following them."""
        if self._deployed is not None and self._deployed.ended():
            fail_runs_of_ended(self.env, also=[self._deployed.id])
            return False
        return True

    def launch(self, requests: Sequence[RunRequest]) -> list[str]:
        """Submit ``requests``, each tagged with the command's mark; their run ids."""
        if not requests:
            return []
        self.engine  # noqa: B018 - a catalog the runs could not use: none is submitted
        graphql, selectors = self.graphql, self.selectors()
        assert self._deployed is not None
        tags = {**self.mark, **self._deployed.tags()}
        return launch_runs(graphql, selectors,
                           [RunRequest(r.job, {**r.tags, **tags}, r.run_config)
                            for r in requests])


def plan_runs(session: Session, targets: Sequence[tuple[str, str]]
              ) -> tuple[list[tuple[str, str]], list[set[str]]]:
    """The runs for ``(kind, key)`` targets: each kind's keys added as partitions on the
    deployment, then cut into ranges of its partitions' order (``domain/batches.py:
    plan_ranges``: at most ``FASHION_CRAWL_BATCH_BRANDS`` keys a run, at least a run per
    slot of the run queue while keys can be split: ``queue_slots``); ``(kind, key or
    first..last)`` per run, and per run the partitions of its range that this call added."""
    from fashion_assets import settings
    from fashion_assets.domain.batches import plan_ranges

    kinds, graphql = crawl_kinds(), session.graphql
    slots = queue_slots(queue_limit(graphql))
    runs: list[tuple[str, str]] = []
    added_by_run: list[set[str]] = []
    for name in dict.fromkeys(kind for kind, _ in targets):
        kind = kinds[name]
        keys = [key for k, key in targets if k == name]
        added = set(add_partitions(graphql, selector_of(session.selectors(), kind.job),
                                   kind.listing_asset, kind.partitions, keys))
        order = partition_keys(graphql, kind.listing_asset)
        for batch in plan_ranges(order, keys, slots, settings.crawl_batch_brands(session.env)):
            span = order[order.index(batch.first):order.index(batch.last) + 1]
            runs.append((name, batch.label))
            added_by_run.append(added.intersection(span))
    return runs, added_by_run


@contextmanager
def command_session(env: Mapping[str, str] | None = None,
                    note: Callable[[str], None] = lambda line: None) -> Iterator[Session]:
    """The block's session: the deployment for its runs (``deployment.deployment``, on
    first use), with the command's stop signals handled: a stop in the block ends its runs
    and exits ``CrawlStopped``. Runs that a command killed outright left behind are failed
    first, with a line each."""
    from fashion_assets import settings
    from fashion_assets.catalog.engines import catalog_engine
    from fashion_assets.storage import writable_store

    # A store the runs could not write to, and a catalog they could not use (opened beside
    # the planning: ``Session.engine``), end the command in one line before a deployment is
    # started or a run submitted: in the run, they would fail each step and its retries.
    writable_store(settings.store_url(env), home=settings.home_dir(env))
    url = settings.database_url(env)
    with ThreadPoolExecutor(1, thread_name_prefix="catalog") as opening:
        catalog = opening.submit(catalog_engine, url)
        for run_id in fail_runs_of_ended(env):
            note(f"run {run_id} failed: the command that started its `dagster dev` was killed")
        with _stop_signals(), _stopping() as mark, ExitStack() as stack:
            session = Session(mark, catalog, env, stack, note)
            with _terminating(session):
                yield session
            session.engine  # noqa: B018 - its error, even when nothing needed the catalog


def crawl(session: Session, targets: Sequence[tuple[str, str]], *, all_brands: bool = False,
          run_log: RunLog = RunLog.PROGRESS,
          on_summary: Callable[[dict[str, Any]], None] = lambda summary: None,
          on_line: Callable[[str], None] = lambda line: None) -> list[dict[str, Any]]:
    """Crawl ``(kind, key)`` targets (with ``all_brands``, every brand of the catalog too)
    as runs on the session's deployment (``plan_runs``); a summary per run, in the plan's
    order, each handed to ``on_summary`` as its run ends.

    A partition added here (a brand, a season, a week) whose listing its run did not read
    (one the source does not have) is removed again once its run ended
    (``unlisted_partitions``)."""
    kinds = crawl_kinds()
    if all_brands:
        targets = [*targets, *(("brand", slug) for slug in catalog_brands(session.env))]
    if not targets:
        return []
    runs, added_by_run = plan_runs(session, targets)
    try:
        run_ids = session.launch([RunRequest(kinds[kind].job, crawl_tags(kind, key))
                                  for kind, key in runs])
    except BaseException:
        forget_unsubmitted(session, _by_kind(runs, added_by_run))
        raise
    by_run = dict(zip(run_ids, zip(runs, added_by_run, strict=True), strict=True))
    summaries: dict[str, dict[str, Any]] = {}

    def ended(outcome: RunOutcome) -> None:
        (kind, key), added = by_run[outcome.run_id]
        summary = crawl_summary(kinds[kind], key, outcome)
        close_progress(session.engine, outcome.run_id, summary)
        unlisted = unlisted_partitions(summary, added)
        if unlisted and session.watch():
            _delete_partitions(session, kind, unlisted)
        summaries[outcome.run_id] = summary
        on_summary(summary)

    lost = follow_runs(session.graphql, run_ids, run_log=run_log, on_line=on_line,
                       on_end=ended, keep_going=session.watch)
    for run_id in lost:
        ended(RunOutcome(run_id, False, errors=[KILLED_NOTE]))
    return [summaries[run_id] for run_id in run_ids]


def close_progress(engine: Any, run_id: str, summary: Mapping[str, Any]) -> None:
    """End the progress row of a run Dagster has ended, if its step could not (its process
    killed while writing): it stayed "running" in status and /crawler until the stuck-run
    sensor, which starts stopped, ended it; a later good crawl did not clear it. A row the
    run's steps ended is left as they ended it."""
    from fashion_assets.catalog import progress as progress_catalog

    if summary["success"]:
        progress_catalog.finish(engine, run_id)
    else:
        progress_catalog.finish(engine, run_id, "failed", summary.get("error", "run failed"))


def forget_unsubmitted(session: Session, added: Mapping[str, set[str]]) -> None:
    """Remove the partitions ``added`` (by kind) for runs never submitted (the catalog or
    the deployment failed first): nothing crawls them, and one added for a key no source
    knows would stay in the UI. When that fails too, a note line names them and why: the
    error that stopped the command is the one it reports."""
    for kind, keys in added.items():
        try:
            _delete_partitions(session, kind, keys)
        except Exception as error:
            session._note(f"the {kind} partitions added for runs never submitted stay: "
                          f"{', '.join(sorted(keys))} ({error})")


def _by_kind(runs: Sequence[tuple[str, str]], added_by_run: Sequence[set[str]]
             ) -> dict[str, set[str]]:
    """The partitions added for ``runs``, by kind."""
    added: dict[str, set[str]] = {}
    for (kind, _), keys in zip(runs, added_by_run, strict=True):
        added.setdefault(kind, set()).update(keys)
    return added


def _delete_partitions(session: Session, kind_name: str, keys: set[str]) -> None:
    """Remove partitions of ``kind_name`` this command added: for a key whose run did not
    read its listing (no source has it), or for runs it never submitted."""
    if keys:
        kind = crawl_kinds()[kind_name]
        delete_partitions(session.graphql, selector_of(session.selectors(), kind.job),
                          kind.partitions, sorted(keys))


def run_job(session: Session, job: str, *, run_config: Mapping[str, Any] | None = None,
            asset: str = "", step: str = "", run_log: RunLog = RunLog.PROGRESS,
            on_line: Callable[[str], None] = lambda line: None,
            join: Mapping[str, str] | None = None) -> dict[str, Any]:
    """One run of ``job`` on the session's deployment, followed to its end; its summary
    (the metadata of ``asset``'s materialization or ``step``'s output, the failure).

    With ``join``, a run carrying those tags that is already queued or in progress (a
    sensor's run of the same work) is followed instead: a second run behind it would find
    its work done."""
    joined = tagged_runs(session.graphql, join, live=True) if join else []
    if joined:
        on_line(f"following run {joined[0]}, already under way (a sensor launched it)")
    [run_id] = joined[:1] or session.launch([RunRequest(job, {}, run_config or {})])
    outcomes: list[RunOutcome] = []
    lost = follow_runs(session.graphql, [run_id], run_log=run_log, on_line=on_line,
                       on_end=outcomes.append, keep_going=session.watch)
    outcome = RunOutcome(run_id, False, errors=[KILLED_NOTE]) if lost else outcomes[0]
    return job_summary(outcome, asset=asset, step=step)


@contextmanager
def _stopping() -> Iterator[dict[str, str]]:
    """The command's mark for its runs' tags; on a stop signal, the block exits with
    ``CrawlStopped``, naming the runs it ended."""
    mark = {COMMAND_TAG: uuid.uuid4().hex}
    try:
        yield mark
    except _Stop as stop:
        raise CrawlStopped(stop.signum, sorted(set(stop.ended))) from None


@contextmanager
def _terminating(session: Session) -> Iterator[None]:
    """On a stop signal, the deployment terminates the command's runs not ended (queued ones
    canceled); after ``STOP_GRACE_S``, those still going are marked canceled as they stand,
    their progress rows ended ``terminated`` (their steps could not end them)."""
    from fashion_assets.catalog import progress as progress_catalog

    try:
        yield
    except _Stop as stop:
        deployed = session.deployed
        if deployed is not None and not deployed.ended():
            graphql = deployed.graphql
            stop.ended = tagged_runs(graphql, session.mark, live=True)
            terminate_runs(graphql, stop.ended)
            session._note(stopping_line(len(stop.ended), STOP_GRACE_S))
            deadline = time.monotonic() + STOP_GRACE_S
            while (stop.ended and tagged_runs(graphql, session.mark, live=True)
                   and time.monotonic() < deadline):
                time.sleep(0.25)  # polling the runs' status, a real condition
            going = tagged_runs(graphql, session.mark, live=True)
            cancel_runs(graphql, going)
            for run_id in going:
                progress_catalog.finish(session.engine, run_id, "terminated",
                                        f"crawl stopped by {signal.Signals(stop.signum).name}")
        raise


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
