"""Where the steps of a run execute: on the run's own host (Dagster's default), or on Celery
workers that can live on any machine (``FASHION_CELERY_CONFIG``).

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
from dagster import ExecutorDefinition

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


def step_executor(env: Mapping[str, str]) -> ExecutorDefinition | None:
    """The Celery executor configured by ``FASHION_CELERY_CONFIG``, or None (Dagster's
    default executor: a process per step on the run's host)."""
    path = settings.setting(env, "FASHION_CELERY_CONFIG")
    if not path:
        return None
    config = celery_config(Path(path).expanduser())
    # Imported only when asked for: Celery is not loaded by the CLI or a default deployment.
    from dagster_celery import celery_executor

    return celery_executor.configured(config, name="celery")
