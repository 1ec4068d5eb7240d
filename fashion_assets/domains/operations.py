"""Operations: what keeps the deployment healthy rather than the archive growing - stuck
crawl runs ended, unreferenced media cleaned up, lost media fetched again and stored media
checked against its keys, on schedules."""

from collections.abc import Mapping, Sequence

from dagster import Definitions

from fashion_assets.jobs.cleanup import build_media_cleanup_job, build_media_cleanup_schedule
from fashion_assets.jobs.store_heal import build_store_heal_job, build_store_heal_schedule
from fashion_assets.jobs.store_scrub import build_store_scrub_job, build_store_scrub_schedule
from fashion_assets.sensors.stuck_runs import stuck_runs_sensor
from fashion_assets.sources.registry import Source


def operations_definitions(env: Mapping[str, str] | None, sources: Sequence[Source]
                           ) -> Definitions:
    """The operations domain; the store heal fetches from the hosts of ``sources``."""
    return Definitions(jobs=[build_media_cleanup_job(env), build_store_heal_job(env, sources),
                             build_store_scrub_job(env, sources)],
                       schedules=[build_media_cleanup_schedule(env),
                                  build_store_heal_schedule(env),
                                  build_store_scrub_schedule(env)],
                       sensors=[stuck_runs_sensor])
