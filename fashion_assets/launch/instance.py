"""The command's Dagster instance: ``DAGSTER_HOME``, with a ``dagster.yaml`` for one machine.

The ``fashion-assets`` command, ``dagster dev`` and the status page open the same folder
(``settings.dagster_home``). When it has no ``dagster.yaml`` the command writes one: the
run queue of ``deploy/dagster.yaml`` tuned for one machine, with Dagster's default storage
(SQLite files in the folder) and default run launcher (a process per run).
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from fashion_assets import settings
from fashion_assets.folders import writable_folder

_LOCAL_INSTANCE_YAML = """\
# Written by fashion-assets for a DAGSTER_HOME that had no dagster.yaml; edit it freely, it
# is never written again. Production hosts use deploy/dagster.yaml instead (docs/operations.md).

# Every run (a crawl of the fashion-assets command, a schedule's, a sensor's, one launched
# from the UI) waits in Dagster's run queue; the daemon (`dagster dev` starts one, and so
# does the command when none runs) launches it under these limits, a process per run.
run_coordinator:
  module: dagster.core.run_coordinator
  class: QueuedRunCoordinator
  config:
    # Runs at once: a crawl's CPU is its HTTP client, one core per run.
    max_concurrent_runs: {runs}
    # A pass over the queue every second; the runs a pass dequeues start side by side.
    dequeue_interval_seconds: 1
    dequeue_use_threads: true
    dequeue_num_workers: 4
    tag_concurrency_limits:
      # One run per brand, season or week (or batch of them) at a time: two crawls of one
      # partition would fetch the same pages and race to draft the same articles.
      - key: fashion-assets/brand
        value:
          applyLimitPerUniqueValue: true
        limit: 1
      - key: dagster/partition
        value:
          applyLimitPerUniqueValue: true
        limit: 1
      - key: fashion-assets/promotion
        limit: 1

# No capture of each step's raw stdout and stderr: the steps log through Dagster's event log
# (what the UI shows, and what the command prints). Capturing costs two helper processes per
# step, about half a second of every run.
compute_logs:
  module: dagster.core.storage.noop_compute_log_manager
  class: NoOpComputeLogManager

# No usage statistics are sent to Dagster.
telemetry:
  enabled: false
"""


def local_instance_yaml(runs: int | None = None) -> str:
    """The ``dagster.yaml`` that ``dagster_instance`` writes into a ``DAGSTER_HOME`` without
    one: ``runs`` at once (the machine's CPUs when None)."""
    return _LOCAL_INSTANCE_YAML.replace("{runs}", json.dumps(runs or os.cpu_count() or 1))


def default_dagster_home() -> Path:
    """The instance folder (``settings.dagster_home``), created, with its ``dagster.yaml``,
    and exported as ``DAGSTER_HOME`` so that Dagster and the processes started from here
    open the same one."""
    home = settings.dagster_home().resolve()
    os.environ["DAGSTER_HOME"] = str(home)
    writable_folder(home, "DAGSTER_HOME")
    with _home_lock(home):
        _write_config(home)
    return home


def dagster_instance() -> Any:  # DagsterInstance (imported lazily: Dagster is slow to import)
    """The persistent instance of ``DAGSTER_HOME`` (``default_dagster_home``).

    Opening an instance the first time creates its storage; two commands started at once
    would race to create the same tables (and to write ``dagster.yaml``), so opening is
    serialized with a file lock.
    """
    from dagster import DagsterInstance

    home = default_dagster_home()
    with _home_lock(home):
        return DagsterInstance.get()


@contextmanager
def _home_lock(home: Path) -> Iterator[None]:
    with open(home / ".fashion-assets.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _write_config(home: Path) -> None:
    """``local_instance_yaml`` into ``home``, unless it has a ``dagster.yaml``."""
    with suppress(FileExistsError), open(home / "dagster.yaml", "x") as config:
        config.write(local_instance_yaml())
