"""Where the steps of a run execute: in the run's own process, or on Celery workers that can
live on any machine (``FASHION_CELERY_CONFIG``).

In the run's process, not a process per step (Dagster's default): a crawl run's steps are
seconds of work each, and a process per step loads the code location again for each. A
probe through the daemon with the default run launcher (a run of 5 replica brands, 2,000
photos) took 8.6 s with a process per step and 2.3-3.1 s with its steps in process;
``python -m bench.daemon_path`` measures the daemon's path as it is now
(docs/performance.md, "The daemon's path").

The workers and the code location read one and the same file, the executor block that
``dagster-celery worker start -y`` takes (``deploy/celery.yaml``): the broker the run
submits its steps to is the one the workers listen on, and the task settings that decide
what happens to a step whose worker dies (acknowledged late, handed back to the queue) are
the same on both sides. ``fashion-assets crawl`` is unaffected: it executes its runs in its
own processes (``execute_in_process``), whatever the executor.
"""

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml
from dagster import ExecutorDefinition, in_process_executor

from fashion_assets import settings


class CeleryConfigError(ValueError):
    """``FASHION_CELERY_CONFIG`` names no readable executor block; raised where the code
    location loads, so a wrong path never reaches a run."""


def celery_config(path: Path) -> dict[str, Any]:
    """The ``execution: config:`` block of a Celery executor YAML, as the workers read it
    (``dagster_celery.cli.get_config_value_from_yaml``)."""
    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise CeleryConfigError(f"FASHION_CELERY_CONFIG={path}: {error.strerror}") from error
    except yaml.YAMLError as error:
        raise CeleryConfigError(f"FASHION_CELERY_CONFIG={path}: not YAML ({error})") from error
    block = (document or {}).get("execution", {}).get("config") if isinstance(
        document, dict) else None
    if not isinstance(block, dict) or not block:
        raise CeleryConfigError(f"FASHION_CELERY_CONFIG={path}: no `execution: config:` block "
                                "(see deploy/celery.yaml)")
    return block


def step_executor(env: Mapping[str, str]) -> ExecutorDefinition:
    """The Celery executor configured by ``FASHION_CELERY_CONFIG``, or Dagster's in-process
    executor (every step in the run's own process)."""
    path = settings.setting(env, "FASHION_CELERY_CONFIG")
    if not path:
        return in_process_executor
    config = celery_config(Path(path).expanduser())
    # Imported only when asked for: Celery is not loaded by the CLI or a default deployment.
    from dagster_celery import celery_executor

    return celery_executor.configured(config, name="celery")
