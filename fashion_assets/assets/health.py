"""Partition health in Dagster: a partitioned asset check on each runway drafts asset, so the
asset's partition view tells a brand whose shows failed from a clean one.

The drafts step evaluates the check for every partition it crawled, right after it wrote
(``report_partition_health``): a batch run of 25 brands records 25 evaluations, each on its
partition, which a check of its own could not (a check run covers the run's partition, and
a batch run has a range). The same check can be run alone from the UI on one partition; it
reads the same counts. The rule is ``domain/health.py``.
"""

import warnings

from dagster import (
    AssetCheckEvaluation,
    AssetCheckExecutionContext,
    AssetCheckResult,
    AssetChecksDefinition,
    AssetCheckSeverity,
    AssetExecutionContext,
    AssetKey,
    AssetRecordsFilter,
    PartitionsDefinition,
    PreviewWarning,
    asset_check,
)
from dagster._core.definitions.asset_checks.asset_check_evaluation import (
    AssetCheckEvaluationTargetMaterializationData,
)
from sqlalchemy import Engine

from fashion_assets.catalog.health import PartitionColumn, runway_partition_counts
from fashion_assets.domain.health import Health, PartitionCounts, Verdict, judge
from fashion_assets.partitions import brand_partitions, runway_season_partitions
from fashion_assets.resources import CatalogResource
from fashion_assets.sources import theimpression, vogue

CHECK_NAME = "partition_health"

# Partitioned asset checks are a preview in Dagster 1.13 and this module relies on them (one
# evaluation per brand of a batch run): the definition would warn at every import.
warnings.filterwarnings("ignore", category=PreviewWarning,
                        message=".*partitions_def on an AssetCheckSpec")

# The runway drafts assets: source, partitions and the runway_shows column they key.
RUNWAY_DRAFTS = {
    "runway_drafts": (vogue.SOURCE, brand_partitions, "brand_slug"),
    "impression_runway_drafts": (theimpression.SOURCE, runway_season_partitions,
                                 "season_code"),
}


def _metadata(counts: PartitionCounts) -> dict[str, int]:
    return {"shows": counts.shows, "drafted": counts.drafted, "shows_failed": counts.failed,
            "photos_missing": counts.photos_missing, "shows_given_up": counts.given_up}


def _severity(verdict: Verdict) -> AssetCheckSeverity:
    return AssetCheckSeverity.ERROR if verdict.health is Health.ERROR else (
        AssetCheckSeverity.WARN)


def report_partition_health(context: AssetExecutionContext, engine: Engine) -> None:
    """Record the health check of every partition the drafts step just materialized.

    Each evaluation names the partition's materialization it judges: Dagster shows a check
    as the partition's status only while it targets the latest materialization, so this
    runs after the step yielded its result (and Dagster stored it).
    """
    source, _, column = RUNWAY_DRAFTS[context.asset_key.to_user_string()]
    counts = runway_partition_counts(engine, source, column, context.partition_keys)
    for key, partition_counts in counts.items():
        verdict = judge(partition_counts)
        context.log_event(AssetCheckEvaluation(
            asset_key=context.asset_key, check_name=CHECK_NAME, passed=verdict.passed,
            severity=_severity(verdict), description=verdict.description,
            metadata=_metadata(partition_counts), partition=key,
            target_materialization_data=_latest_materialization(context, key)))


def _latest_materialization(context: AssetExecutionContext, partition: str
                            ) -> AssetCheckEvaluationTargetMaterializationData | None:
    records = context.instance.fetch_materializations(
        AssetRecordsFilter(asset_key=context.asset_key, asset_partitions=[partition]),
        limit=1).records
    if not records:
        return None
    record = records[0]
    return AssetCheckEvaluationTargetMaterializationData(
        storage_id=record.storage_id, run_id=record.run_id, timestamp=record.timestamp)


def _health_check(asset_name: str, source: str, partitions: PartitionsDefinition,
                  column: PartitionColumn) -> AssetChecksDefinition:
    @asset_check(asset=AssetKey(asset_name), name=CHECK_NAME, partitions_def=partitions,
                 description="Shows failed, photos missing and shows given up in this "
                             "partition: WARN when some shows failed or were given up on, "
                             "ERROR when every show failed. Evaluated by each crawl's drafts "
                             "step for every partition it crawled; runnable alone on one.")
    def partition_health(context: AssetCheckExecutionContext,
                         catalog: CatalogResource) -> AssetCheckResult:
        key = context.partition_key
        counts = runway_partition_counts(catalog.engine(), source, column, [key])[key]
        verdict = judge(counts)
        return AssetCheckResult(passed=verdict.passed, severity=_severity(verdict),
                                description=verdict.description, metadata=_metadata(counts))

    return partition_health


health_checks = [_health_check(name, source, partitions, column)
                 for name, (source, partitions, column) in RUNWAY_DRAFTS.items()]
