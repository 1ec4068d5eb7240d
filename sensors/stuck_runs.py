"""Ends crawl runs whose heartbeat stopped, so the next tick can crawl their brand again.

A crawl beats every ``FASHION_HEARTBEAT_SECONDS`` from its event loop while it works and
gets somewhere (``CrawlProgress``), so a long show keeps beating; a process that hangs, is
frozen or died stops, and so does a step that finished nothing for
``FASHION_STUCK_AFTER_SECONDS`` (one request held for ever). A run whose last beat is older
than ``FASHION_STUCK_AFTER_SECONDS`` is reported and terminated through the instance's run
launcher; if the launcher cannot reach it (its process is gone: killed, out of memory, its
machine lost), the run is marked failed, which frees its queue slot and its brand's
concurrency tag. A run process on the sensor's machine that is frozen (stopped) is killed
instead: the launcher's termination waits for the process to answer, a minute, and holds
the code server's execution lock meanwhile. Dagster's run monitoring ends a run whose
worker is gone where the run launcher can tell (production's Celery launcher,
``launch/celery_runs.py``; containers), but not one whose worker lives and hangs, and not
with the default run launcher: this sensor is the bound for those.
"""

import signal
import socket
from datetime import timedelta

from dagster import (
    DagsterRunStatus,
    DefaultSensorStatus,
    SensorEvaluationContext,
    SkipReason,
    sensor,
)
from dagster_shared.check import CheckError

from fashion_assets.catalog import progress
from fashion_assets.domain.progress import format_age, heartbeat_age, is_stuck
from fashion_assets.resources import CatalogResource, CrawlerResource

ALIVE = (DagsterRunStatus.STARTING, DagsterRunStatus.STARTED, DagsterRunStatus.NOT_STARTED)


# Running from the start: a hung run otherwise holds its brand's queue slot for ever.
@sensor(minimum_interval_seconds=60, default_status=DefaultSensorStatus.RUNNING,
        description="Terminates crawl runs whose heartbeat has not moved for "
                    "FASHION_STUCK_AFTER_SECONDS (default 5 minutes), or fails them when "
                    "their process is gone; runs that keep beating are never touched.")
def stuck_runs_sensor(context: SensorEvaluationContext, catalog: CatalogResource,
                      crawler: CrawlerResource) -> SkipReason:
    """One query of the running progress rows, and each stuck one ends, in Dagster and
    there."""
    engine, threshold = catalog.engine(), crawler.stuck_after_seconds
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
            if _kill_frozen(row):
                note += "; its process was frozen, and is killed"
                context.instance.report_run_failed(run, note)
            elif not _terminate(context, row.run_id):
                context.instance.report_run_failed(run, note)
        progress.finish(engine, row.run_id, "terminated", note)
        ended.append(f"{row.partition_key} ({row.run_id[:8]})")
    return SkipReason(f"terminated {len(ended)} stuck crawl runs: {', '.join(ended)}"
                      if ended else "no stuck crawl run")


def _terminate(context: SensorEvaluationContext, run_id: str) -> bool:
    """Ask the run launcher to end the run's process; False when it cannot (the process is
    gone, or the launcher, like the in-process one of tests, cannot terminate)."""
    try:
        return bool(context.instance.run_launcher.terminate(run_id))
    except (NotImplementedError, CheckError) as exc:
        context.log.info(f"run {run_id}: the run launcher cannot terminate it ({exc})")
        return False
    except Exception as exc:  # its code server unreachable, say: the run is failed instead
        context.log.warning(f"run {run_id}: the run launcher failed to terminate it: "
                            f"{type(exc).__name__}: {exc}")
        return False


def _kill_frozen(row: progress.ProgressRow) -> bool:
    """Kill the row's run process if it runs on this machine and is stopped (SIGSTOP, a
    debugger): such a process never answers the launcher. The process must be older than
    the row, so a process id reused since is never touched."""
    import psutil  # here, not where the code location loads: a tenth of a second of it

    if row.host != socket.gethostname() or row.pid <= 0:
        return False
    try:
        process = psutil.Process(row.pid)
        born = process.create_time()
        frozen = process.status() in (psutil.STATUS_STOPPED, psutil.STATUS_TRACING_STOP)
        if not frozen or born > (row.started_at + timedelta(seconds=1)).timestamp():
            return False
        process.send_signal(signal.SIGKILL)
    except psutil.Error:  # gone meanwhile, or not ours to kill
        return False
    return True
