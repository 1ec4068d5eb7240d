"""Whole runs on Celery workers: dagster-celery's run launcher, read from the one file the
workers read, with what the run monitor needs to end a run whose worker is gone.

Runs, not steps, are the unit sent to a worker: a crawl run's steps are seconds of work
each, and handing each step over the broker cost about a second of hand-off and most of
the run process's CPU (issue 34; ``python -m bench.daemon_path`` measures both). A worker
started with ``-i fashion_assets.definitions`` has imported the code location before it
takes its first run, so a run starts in a warm process instead of a fresh one.

dagster-celery 0.29's launcher needs three things a crawl cannot do without:

- **one file for both sides.** The daemon's launcher and every worker read the
  ``execution: config:`` block of ``FASHION_CELERY_CONFIG`` (``deploy/celery.yaml``) with
  the workers' own reader, so the broker the runs are sent to is the one the workers
  listen on, and the task settings (acknowledged late, handed back when a worker dies) are
  the same on both sides;
- **a redelivered run is a lost run.** A worker killed in the middle of a run (a machine
  lost, SIGKILL, out of memory) leaves the run STARTED; the broker hands its task to
  another worker, whose execution finds the run already started and ends at once, the task
  SUCCESS. The stock health check reads SUCCESS as healthy, so the run stayed STARTED for
  ever. Here a task that ended while its run did not, or a task whose worker no longer
  answers, is a failed worker: the run monitor fails the run with that reason, and the next
  crawl of its brand picks up what it left (drafts and photos already stored are skipped);
- **a terminated run is canceled.** The stock ``terminate`` revokes the run's task (SIGTERM
  to the pool process running it) without first marking the run CANCELING, as Dagster's
  own launchers do; the interrupted step then failed an ordinary run, reported FAILURE, not
  CANCELED. Here the run is marked CANCELING first, so it ends CANCELED, and a run not
  sent to a worker yet (no task) is refused instead of raising;
- **no resume.** The stock ``resume_run`` sends its arguments under a name the resume task
  does not take (a TypeError on the worker), so this launcher says it cannot resume and
  Dagster refuses an instance that asks the run monitor to (``max_resume_run_attempts``).
"""

from pathlib import Path
from typing import Any

from dagster import DagsterInstance, DagsterRun, Field, StringSource
from dagster_celery.cli import get_validated_config
from dagster_celery.defaults import task_default_queue

# The run launcher interface (its health result types) as dagster-celery's launcher module
# imports it; Dagster does not export these names at its top level.
from dagster_celery.launcher import CeleryRunLauncher, CheckRunHealthResult, WorkerStatus
from dagster_celery.tags import DAGSTER_CELERY_TASK_ID_TAG

# How long the health check waits for a worker to answer a ping (the monitor's thread).
PING_TIMEOUT_S = 5.0


class CeleryConfigError(ValueError):
    """The run launcher's file is missing or holds no valid executor block; raised where
    the instance loads, so a wrong path never reaches a run."""


def celery_config(path: str) -> dict[str, Any]:
    """The ``execution: config:`` block of ``path``, validated and with its ``env:``
    values resolved, exactly as ``dagster-celery worker start -y`` reads it."""
    where = f"FASHION_CELERY_CONFIG={path}"
    if not path:
        raise CeleryConfigError("FASHION_CELERY_CONFIG is not set: it must name the Celery "
                                "file the workers read (deploy/celery.yaml)")
    if not Path(path).is_file():
        raise CeleryConfigError(f"{where}: no such file")
    try:
        block = get_validated_config(path)
    except Exception as error:  # the YAML or the schema: either way, say which file
        raise CeleryConfigError(f"{where}: not a Celery executor block "
                                f"(see deploy/celery.yaml): {error}") from error
    if not block or not block.get("broker"):
        raise CeleryConfigError(f"{where}: no `execution: config: broker:` "
                                "(see deploy/celery.yaml)")
    backend = str(block.get("backend") or "")
    if not backend or backend.startswith("rpc://"):
        # An rpc:// result goes back to the process that sent the task, not to the daemon's
        # run monitor, which must read every run's task state to know its worker is alive.
        raise CeleryConfigError(f"{where}: `backend: {backend or '(none)'}` cannot be read by "
                                "the run monitor; use a persistent result backend such as "
                                "db+postgresql+psycopg2://... (CELERY_RESULT_BACKEND)")
    return dict(block)


def lost_worker_reason(task_state: str, run_finished: bool,
                       worker: str | None, worker_answers: bool | None) -> str | None:
    """Why a STARTED run's worker is gone, or None while it may still be working.

    ``worker_answers`` is None when no ping was made (no worker recorded)."""
    if task_state == "SUCCESS" and not run_finished:
        return ("its Celery task ended but the run did not: the worker that ran it was lost "
                "and the task was handed to another worker, which does not start a run twice")
    if task_state == "STARTED" and worker and worker_answers is False:
        return f"the Celery worker that runs it ({worker}) no longer answers"
    return None


class CeleryCrawlRunLauncher(CeleryRunLauncher):
    """dagster-celery's run launcher configured by one file (``config_file``), failing the
    runs of lost workers, canceling terminated runs and refusing to resume (the module's
    docstring says why)."""

    _instance: DagsterInstance

    @classmethod
    def config_type(cls) -> dict[str, Field]:
        return {"config_file": Field(
            StringSource, description="The Celery executor YAML the workers read "
            "(`dagster-celery worker start -y`), usually {env: FASHION_CELERY_CONFIG}.")}

    @classmethod
    def from_config_value(cls, inst_data: Any, config_value: Any) -> "CeleryCrawlRunLauncher":
        block = celery_config(config_value["config_file"])
        return cls(inst_data=inst_data, default_queue=task_default_queue,
                   broker=block["broker"], backend=block.get("backend"),
                   include=block.get("include"), config_source=block.get("config_source"))

    @property
    def supports_resume_run(self) -> bool:
        return False

    def terminate(self, run_id: str) -> bool:
        run = self._instance.get_run_by_id(run_id)
        if run is None or DAGSTER_CELERY_TASK_ID_TAG not in run.tags:
            return False
        self._instance.report_run_canceling(run)
        return super().terminate(run_id)

    def check_run_worker_health(self, run: DagsterRun) -> CheckRunHealthResult:
        task_id = run.tags.get(DAGSTER_CELERY_TASK_ID_TAG)
        if task_id is None:
            return CheckRunHealthResult(WorkerStatus.UNKNOWN, "no Celery task recorded")
        result = self.celery.AsyncResult(task_id)
        state = result.state
        worker = result.info.get("hostname") if state == "STARTED" and isinstance(
            result.info, dict) else None
        answers = None
        if worker:
            answers = bool(self.celery.control.ping(destination=[worker],
                                                    timeout=PING_TIMEOUT_S))
        current = self._instance.get_run_by_id(run.run_id)
        reason = lost_worker_reason(state, current is None or current.is_finished,
                                    worker, answers)
        if reason is not None:
            return CheckRunHealthResult(WorkerStatus.FAILED, reason)
        return super().check_run_worker_health(run)
