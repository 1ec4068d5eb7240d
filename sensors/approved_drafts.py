"""Launches promotion when approved drafts wait."""

from dagster import (
    DagsterRunStatus,
    DefaultSensorStatus,
    RunRequest,
    RunsFilter,
    SensorEvaluationContext,
    SkipReason,
    sensor,
)

from fashion_assets.catalog.entities import RUNWAY, STREET
from fashion_assets.catalog.promotion import approved_backlog
from fashion_assets.resources import CatalogResource
from fashion_assets.tags import PROMOTION_TAG

IN_FLIGHT = [DagsterRunStatus.QUEUED, DagsterRunStatus.NOT_STARTED, DagsterRunStatus.STARTING,
             DagsterRunStatus.STARTED]


# Running from the start: an editor's approval must reach the catalog without anyone
# finding this sensor first; it reads the catalog only (docs/operations.md).
@sensor(job_name="promote_approved_drafts", minimum_interval_seconds=60,
        default_status=DefaultSensorStatus.RUNNING,
        description="Requests a promotion run when approved, unpromoted drafts exist.")
def approved_drafts_sensor(context: SensorEvaluationContext,
                           catalog: CatalogResource) -> RunRequest | SkipReason:
    """One bounded query per tick. The run key is the backlog's fingerprint per kind: a batch
    launches once, and a later approval makes a new key. While a promotion run (the
    command's ``review promote``, or this sensor's) is queued or in progress, the tick waits:
    that run takes the approved drafts, and a second one behind it would promote nothing."""
    if context.instance.get_runs_count(RunsFilter(tags={PROMOTION_TAG: "promotion"},
                                                  statuses=IN_FLIGHT)):
        return SkipReason("a promotion run is queued or in progress: it takes the approved "
                          "drafts")
    backlog = approved_backlog(catalog.engine(), (RUNWAY, STREET))
    waiting = sum(b.approved for b in backlog)
    if not waiting:
        return SkipReason("no approved draft waits for promotion")
    key = "promote:" + ";".join(f"{b.kind}={b.fingerprint}" for b in backlog)
    context.log.info(f"{waiting} approved drafts wait: {key}")
    return RunRequest(run_key=key, tags={"fashion-assets/approved": str(waiting),
                                         PROMOTION_TAG: "promotion"})
