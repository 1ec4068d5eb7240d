"""The code location: each domain's ``Definitions`` (runway, street style, catalog and
review, operations) merged, with the resources of every source of the registry.

Every job executes its steps in its run's own process (``in_process_executor``), not a
process per step (Dagster's default): a crawl run's steps are seconds of work each, and a
process per step loads the code location again for each (a run of 5 replica brands took
8.6 s with a process per step and 2.3-3.1 s in process). Where runs execute is the run
launcher's business (``deploy/dagster.yaml``): a process per run on one host, or whole runs
on warm Celery workers (``launch/celery_runs.py``)."""

from collections.abc import Mapping, Sequence

from dagster import Definitions, in_process_executor

from fashion_assets.domains.catalog import catalog_definitions
from fashion_assets.domains.operations import operations_definitions
from fashion_assets.domains.runway import runway_definitions
from fashion_assets.domains.street import street_definitions
from fashion_assets.resources import resources_from_env
from fashion_assets.sources.registry import SOURCES, Source


def build_definitions(env: Mapping[str, str] | None = None,
                      sources: Sequence[Source] = SOURCES) -> Definitions:
    """The definitions with resources configured from ``env`` (default: os.environ), for
    the registry's sources (a test adds its own source here)."""
    return Definitions.merge(
        runway_definitions(env, sources),
        street_definitions(),
        catalog_definitions(),
        operations_definitions(env, sources),
        Definitions(resources=resources_from_env(env, sources), executor=in_process_executor),
    )


defs = build_definitions()
