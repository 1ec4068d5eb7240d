"""The code location: each domain's ``Definitions`` (runway, street style, catalog and
review, operations) merged, with the resources of every source of the registry and the
executor the environment names (``execution.py``)."""

import os
from collections.abc import Mapping, Sequence

from dagster import Definitions

from fashion_assets.domains.catalog import catalog_definitions
from fashion_assets.domains.operations import operations_definitions
from fashion_assets.domains.runway import runway_definitions
from fashion_assets.domains.street import street_definitions
from fashion_assets.execution import step_executor
from fashion_assets.resources import resources_from_env
from fashion_assets.sources.registry import SOURCES, Source


def build_definitions(env: Mapping[str, str] | None = None,
                      sources: Sequence[Source] = SOURCES) -> Definitions:
    """The definitions with resources configured from ``env`` (default: os.environ), for
    the registry's sources (a test adds its own source here)."""
    executor = step_executor(os.environ if env is None else env)
    return Definitions.merge(
        runway_definitions(env, sources),
        street_definitions(),
        catalog_definitions(),
        operations_definitions(env, sources),
        Definitions(
            resources=resources_from_env(env, sources),
            # Every job's steps: on Celery workers when FASHION_CELERY_CONFIG names the
            # executor's file, else in the run's own process (execution.py says why).
            executor=executor),
    )


defs = build_definitions()
