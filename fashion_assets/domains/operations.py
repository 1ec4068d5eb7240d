"""Operations: what keeps the deployment healthy rather than the archive growing - stuck
crawl runs ended, unreferenced media cleaned up on a schedule."""

from collections.abc import Mapping

from dagster import Definitions

from fashion_assets.jobs.cleanup import build_media_cleanup_job, build_media_cleanup_schedule
from fashion_assets.sensors.stuck_runs import stuck_runs_sensor


def operations_definitions(env: Mapping[str, str] | None) -> Definitions:
    return Definitions(jobs=[build_media_cleanup_job(env)],
                       schedules=[build_media_cleanup_schedule(env)],
                       sensors=[stuck_runs_sensor])
