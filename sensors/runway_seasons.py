"""Adds a theImpression runway partition for every season Vogue's listings have shown."""

from dagster import (
    DefaultSensorStatus,
    SensorEvaluationContext,
    SensorResult,
    SkipReason,
    sensor,
)

from fashion_assets.catalog.runway import listed_season_codes
from fashion_assets.partitions import runway_season_partitions
from fashion_assets.resources import CatalogResource
from fashion_assets.sources.registry import SOURCES


# Running from the start: it only adds partitions for seasons the catalog already lists.
@sensor(minimum_interval_seconds=300, default_status=DefaultSensorStatus.RUNNING,
        description="Adds a runway_seasons partition (theImpression's second source) for each "
                    "season code of the shows the brand-partitioned sources (Vogue) list.")
def runway_season_partitions_sensor(context: SensorEvaluationContext,
                                    catalog: CatalogResource) -> SensorResult | SkipReason:
    assert runway_season_partitions.name is not None
    known = set(context.instance.get_dynamic_partitions(runway_season_partitions.name))
    listed = set().union(*(listed_season_codes(catalog.engine(), source.name)
                           for source in SOURCES if source.runway_partitioning == "brand"))
    missing = sorted(listed - known)
    if not missing:
        return SkipReason(f"all {len(known)} seasons have a partition")
    context.log.info(f"adding {len(missing)} season partitions")
    return SensorResult(
        dynamic_partitions_requests=[runway_season_partitions.build_add_request(missing)])
