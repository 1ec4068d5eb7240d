"""Ends crawl runs whose heartbeat stopped, so the next tick can crawl their brand again.

A crawl beats every ``FASHION_HEARTBEAT_SECONDS`` from its event loop while it works and
gets somewhere (``CrawlProgress``), so a long show keeps beating; a process that hangs, is
frozen or died stops, and so does a step that finished nothing for
``FASHION_STUCK_AFTER_SECONDS`` (one request held for ever). A run whose last beat is older
than ``FASHION_STUCK_AFTER_SECONDS`` is reported, terminated through the instance's run
launcher, and, if the launcher cannot reach it (a run of the CLI, or a process already
gone), its process on this machine is killed with every process it started
(``fashion_assets.processes``) and the run marked failed, which frees its queue slot and its
brand's concurrency tag.

A run of ``fashion-assets crawl`` whose process on this machine is gone (the crawl was
killed outright) is failed at once, without waiting for its heartbeat to age
(``runs.fail_runs_of_gone_processes``, which the next crawl also does).
"""

import os
import socket
from pathlib import Path

from dagster import DagsterRunStatus, SensorEvaluationContext, SkipReason, sensor
from dagster_shared.check import CheckError

from fashion_assets.catalog import progress
from fashion_assets.domain.progress import format_age, heartbeat_age, is_stuck
from fashion_assets.processes import kill_process_tree
from fashion_assets.resources import CatalogResource, CrawlerResource
from fashion_assets.runs import fail_runs_of_gone_processes

ALIVE = (DagsterRunStatus.STARTING, DagsterRunStatus.STARTED, DagsterRunStatus.NOT_STARTED)


@sensor(minimum_interval_seconds=60,
        description="Terminates crawl runs whose heartbeat has not moved for "
                    "FASHION_STUCK_AFTER_SECONDS (default 5 minutes), and fails at once the "
                    "runs of fashion-assets crawl whose process is gone; runs that keep "
                    "beating are never touched.")
def stuck_runs_sensor(context: SensorEvaluationContext, catalog: CatalogResource,
                      crawler: CrawlerResource) -> SkipReason:
    """Runs whose process is gone fail; then one query of the running progress rows, and
    each stuck one ends, in Dagster and there."""
    engine, threshold = catalog.engine(), crawler.stuck_after_seconds
    gone = fail_runs_of_gone_processes(context.instance, engine)
    for run_id in gone:
        context.log.warning(f"run {run_id}: its process is gone, the run is failed")
    now = progress.utc_now()
    ended = []
    for row in progress.running(engine):
        if not is_stuck(row.heartbeat_at, now, threshold):
            continue
        note = (f"stuck: no heartbeat for {format_age(heartbeat_age(row.heartbeat_at, now))}"
                f" (limit {format_age(threshold)}), terminated by stuck_runs_sensor")
        run = context.instance.get_run_by_id(row.run_id)
        if run is not None and run.status in ALIVE:
            context.log.warning(f"run {row.run_id} ({row.kind} {row.partition_key}): {note}")
            if not _terminate(context, row.run_id):
                _kill_local(context, row)
                context.instance.report_run_failed(run, note)
        progress.finish(engine, row.run_id, "terminated", note)
        ended.append(f"{row.partition_key} ({row.run_id[:8]})")
    said = [f"terminated {len(ended)} stuck crawl runs: {', '.join(ended)}"] if ended else []
    if gone:
        said.append(f"failed {len(gone)} crawl runs whose process is gone: "
                    + ", ".join(run_id[:8] for run_id in gone))
    return SkipReason("; ".join(said) or "no stuck crawl run")


def _terminate(context: SensorEvaluationContext, run_id: str) -> bool:
    """Ask the run launcher to end the run's process; False when it cannot (the process is
    gone, or the launcher, like the in-process one of tests, cannot terminate)."""
    try:
        return bool(context.instance.run_launcher.terminate(run_id))
    except (NotImplementedError, CheckError) as exc:
        context.log.info(f"run {run_id}: the run launcher cannot terminate it ({exc})")
        return False


def _kill_local(context: SensorEvaluationContext, row: progress.ProgressRow) -> None:
    """End a frozen crawl process on this machine that no run launcher knows (a run of
    ``fashion-assets crawl``): SIGKILL, as the process may be stopped or hung past any
    signal it could handle, and to its whole tree and process group, so Dagster's helper
    processes it froze with it are not left stopped for ever. Only a process of this
    pipeline (its command line names fashion_assets or dagster), so a recycled process id
    is never hit."""
    if row.host != socket.gethostname() or row.pid <= 0 or row.pid == os.getpid():
        return
    try:
        command = Path(f"/proc/{row.pid}/cmdline").read_bytes().replace(b"\0", b" ")
    except OSError:
        return  # gone already, or not a Linux /proc: nothing to end here
    if b"fashion" not in command and b"dagster" not in command:
        return
    killed = kill_process_tree(row.pid)
    context.log.warning(f"run {row.run_id}: killed its process {row.pid}, its process group"
                        f" if it leads one, and the {len(killed) - 1} processes below it")
