"""Partition health in Dagster: a partitioned asset check on each drafts asset (runway by
brand and by season, street style by week), so the asset's partition view tells a brand
whose shows failed from a clean one.

The drafts step evaluates the check for every partition it crawled, right after it wrote
(``report_partition_health``): a batch run of 25 brands records 25 evaluations, each on its
partition. The check's own step does the same for every partition of its run: the UI adds
it to every run of an asset backfill, whose runs are ranges of brands (the backfill
policy), and it can be run alone on one partition. Dagster records a check step's result
on the run's partition, and a range has none: there the result is the range's verdict
(``judge_range``), beside one evaluation per partition. The rules are ``domain/health.py``.
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
    EventLogRecord,
    PartitionsDefinition,
    PreviewWarning,
    asset_check,
)
from dagster._core.definitions.asset_checks.asset_check_evaluation import (
    AssetCheckEvaluationTargetMaterializationData,
)
from sqlalchemy import Engine

from fashion_assets.catalog.health import PartitionKind, partition_counts
from fashion_assets.domain.health import Health, PartitionCounts, Verdict, judge, judge_range
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


def report_partition_health(context: AssetExecutionContext | AssetCheckExecutionContext,
                            engine: Engine, drafts: DraftsAsset) -> dict[str, Verdict]:
    """Record the health check of every partition of the run (``context.partition_keys``:
    the partitions the drafts step just materialized); the verdict of each.

    Each evaluation names the partition's materialization it judges: Dagster shows a check
    as the partition's status only while it targets the latest materialization, so the
    drafts step calls this after it yielded its result (and Dagster stored it).
    """
    counts = partition_counts(engine, drafts.kind, drafts.source, context.partition_keys)
    asset_key = AssetKey(drafts.name)
    latest = _latest_materializations(context, asset_key, list(counts))
    verdicts = {}
    for key, partition in counts.items():
        verdicts[key] = verdict = judge(partition, drafts.unit)
        context.op_execution_context.log_event(AssetCheckEvaluation(
            asset_key=asset_key, check_name=CHECK_NAME, passed=verdict.passed,
            severity=_severity(verdict), description=verdict.description,
            metadata=_metadata(partition, drafts.unit), partition=key,
            target_materialization_data=latest.get(key)))
    return verdicts


def _latest_materializations(context: AssetExecutionContext | AssetCheckExecutionContext,
                             asset_key: AssetKey, partitions: list[str]
                             ) -> dict[str, AssetCheckEvaluationTargetMaterializationData]:
    """The latest materialization of each partition that has one.

    The step has just materialized every partition of its run, so the newest records of
    the partitions are those, one each: one query for a batch of brands instead of one per
    brand (a tenth of a second at the end of a ten-brand run). A partition that query
    missed (another run materialized some partitions twice since) is asked for alone.
    """
    def query(keys: list[str]) -> list[EventLogRecord]:
        return list(context.instance.fetch_materializations(
            AssetRecordsFilter(asset_key=asset_key, asset_partitions=keys),
            limit=len(keys)).records) if keys else []

    latest: dict[str, AssetCheckEvaluationTargetMaterializationData] = {}
    for record in query(partitions):
        latest.setdefault(record.partition_key, _target(record))
    for key in partitions:
        if key not in latest:
            latest.update({r.partition_key: _target(r) for r in query([key])})
    return latest


def _target(record: EventLogRecord) -> AssetCheckEvaluationTargetMaterializationData:
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
        if context.has_partition_key:  # Dagster records the result on the partition
            key = context.partition_key
            counts = partition_counts(catalog.engine(), drafts.kind, drafts.source, [key])[key]
            verdict = judge(counts, drafts.unit)
            return AssetCheckResult(passed=verdict.passed, severity=_severity(verdict),
                                    description=verdict.description,
                                    metadata=_metadata(counts, drafts.unit))
        verdicts = report_partition_health(context, catalog.engine(), drafts)
        verdict = judge_range(verdicts)
        return AssetCheckResult(
            passed=verdict.passed, severity=_severity(verdict), description=verdict.description,
            metadata={"partitions": len(verdicts),
                      "partitions_not_healthy": sum(not v.passed for v in verdicts.values())})

    return partition_health

