"""Partition health in Dagster: a partitioned asset check on each drafts asset (runway by
brand and by season, street style by week), so the asset's partition view tells a brand
whose shows failed from a clean one.

The drafts step evaluates the check for every partition it crawled, right after it wrote
(``report_partition_health``): a batch run of 25 brands records 25 evaluations, each on its
partition, which a check of its own could not (a check run covers the run's partition, and
a batch run has a range). The same check can be run alone from the UI on one partition; it
reads the same counts. The rule is ``domain/health.py``.
"""

import warnings
from dataclasses import dataclass

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

from fashion_assets.catalog.health import PartitionKind, partition_counts
from fashion_assets.domain.health import Health, PartitionCounts, Verdict, judge
from fashion_assets.resources import CatalogResource

CHECK_NAME = "partition_health"

# Partitioned asset checks are a preview in Dagster 1.13 and this module relies on them (one
# evaluation per brand of a batch run): the definition would warn at every import.
warnings.filterwarnings("ignore", category=PreviewWarning,
                        message=".*partitions_def on an AssetCheckSpec")

@dataclass(frozen=True)
class DraftsAsset:
    """A drafts asset as its health is judged: its name, source, partitions, kind of
    partition and what its partitions hold."""

    name: str
    source: str
    partitions: PartitionsDefinition
    kind: PartitionKind
    unit: str


def _metadata(counts: PartitionCounts, unit: str) -> dict[str, int]:
    return {unit: counts.shows, "drafted": counts.drafted, f"{unit}_failed": counts.failed,
            "photos_missing": counts.photos_missing, f"{unit}_given_up": counts.given_up}


def _severity(verdict: Verdict) -> AssetCheckSeverity:
    return AssetCheckSeverity.ERROR if verdict.health is Health.ERROR else (
        AssetCheckSeverity.WARN)


def report_partition_health(context: AssetExecutionContext, engine: Engine,
                            drafts: DraftsAsset) -> None:
    """Record the health check of every partition the drafts step just materialized.

    Each evaluation names the partition's materialization it judges: Dagster shows a check
    as the partition's status only while it targets the latest materialization, so this
    runs after the step yielded its result (and Dagster stored it).
    """
    counts = partition_counts(engine, drafts.kind, drafts.source, context.partition_keys)
    for key, partition in counts.items():
        verdict = judge(partition, drafts.unit)
        context.log_event(AssetCheckEvaluation(
            asset_key=context.asset_key, check_name=CHECK_NAME, passed=verdict.passed,
            severity=_severity(verdict), description=verdict.description,
            metadata=_metadata(partition, drafts.unit), partition=key,
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


def health_check(drafts: DraftsAsset) -> AssetChecksDefinition:
    """The partition health check of a drafts asset."""
    @asset_check(asset=AssetKey(drafts.name), name=CHECK_NAME, partitions_def=drafts.partitions,
                 description=f"{drafts.unit.capitalize()} failed, photos missing and "
                             f"{drafts.unit} given up in this partition: WARN when some "
                             f"failed or were given up on, ERROR when every one failed. "
                             "Evaluated by each crawl's drafts step for every partition it "
                             "crawled; runnable alone on one.")
    def partition_health(context: AssetCheckExecutionContext,
                         catalog: CatalogResource) -> AssetCheckResult:
        key = context.partition_key
        counts = partition_counts(catalog.engine(), drafts.kind, drafts.source, [key])[key]
        verdict = judge(counts, drafts.unit)
        return AssetCheckResult(passed=verdict.passed, severity=_severity(verdict),
                                description=verdict.description,
                                metadata=_metadata(counts, drafts.unit))

    return partition_health

