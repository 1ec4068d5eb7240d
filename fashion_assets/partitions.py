"""Partitions shared by the assets, sensors and CLI."""

from dagster import DagsterInstance, DagsterRunStatus, DynamicPartitionsDefinition, RunsFilter

from fashion_assets.sources.registry import RUNWAY_PARTITION_NAMES
from fashion_assets.tags import PARTITION_TAG, RANGE_END_TAG, RANGE_START_TAG

# One partition per brand slug of the catalog's ``brands`` table; kept in step by the
# ``brand_partitions_sensor`` and by ``fashion-assets brands add``.
brand_partitions = DynamicPartitionsDefinition(name=RUNWAY_PARTITION_NAMES["brand"])

# One partition per theImpression street-style listing (fashion week slug, e.g.
# ``copenhagen-fashion-week``), so one week's listing can be re-run or backfilled alone;
# added by ``fashion-assets crawl --week`` or from the UI.
fashion_week_partitions = DynamicPartitionsDefinition(name="fashion_weeks")

# One partition per season code (``spring-2020-ready-to-wear``) for theImpression's runway
# galleries, the second source of Vogue's shows; the ``runway_season_partitions_sensor`` adds
# every season Vogue's listings have shown, ``fashion-assets crawl --season`` adds one.
runway_season_partitions = DynamicPartitionsDefinition(name=RUNWAY_PARTITION_NAMES["season"])

# The partitions of a runway source, by the way it lists its shows (sources/registry.py).
RUNWAY_PARTITIONS = {"brand": brand_partitions, "season": runway_season_partitions}

PARTITION_SETS = (brand_partitions, runway_season_partitions, fashion_week_partitions)


def partitions_in_progress(instance: DagsterInstance) -> set[str]:
    """The partition keys that runs not ended yet (queued, starting, running, canceling) are
    crawling: a run's own partition, or every key of its range (a batch of brands), in the
    order of the dynamic partitions that hold both ends. One query of the run storage."""
    runs = instance.get_runs(RunsFilter(statuses=[
        DagsterRunStatus.QUEUED, DagsterRunStatus.NOT_STARTED, DagsterRunStatus.STARTING,
        DagsterRunStatus.STARTED, DagsterRunStatus.CANCELING]))
    keys: set[str] = set()
    ordered: dict[str, list[str]] = {}
    for run in runs:
        if PARTITION_TAG in run.tags:
            keys.add(run.tags[PARTITION_TAG])
        first = run.tags.get(RANGE_START_TAG)
        last = run.tags.get(RANGE_END_TAG)
        if first is None or last is None:
            continue
        for partitions in PARTITION_SETS:
            assert partitions.name is not None
            if partitions.name not in ordered:
                ordered[partitions.name] = instance.get_dynamic_partitions(partitions.name)
            names = ordered[partitions.name]
            if first in names and last in names:
                keys.update(names[names.index(first):names.index(last) + 1])
    return keys
