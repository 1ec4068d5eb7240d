"""Keeps the brand partitions in step with the catalog's ``brands`` table."""

from dagster import (
    DefaultSensorStatus,
    SensorEvaluationContext,
    SensorResult,
    SkipReason,
    sensor,
)

from fashion_assets.catalog.runway import list_brands
from fashion_assets.partitions import brand_partitions
from fashion_assets.resources import CatalogResource


# Running from the start: it only adds partitions for brands the catalog already holds.
@sensor(minimum_interval_seconds=60, default_status=DefaultSensorStatus.RUNNING,
        description="Adds a brand partition for every brand registered in the catalog.")
def brand_partitions_sensor(context: SensorEvaluationContext,
                            catalog: CatalogResource) -> SensorResult | SkipReason:
    assert brand_partitions.name is not None
    known = set(context.instance.get_dynamic_partitions(brand_partitions.name))
    missing = sorted({b.slug for b in list_brands(catalog.engine())} - known)
    if not missing:
        return SkipReason(f"all {len(known)} brands have a partition")
    context.log.info(f"adding {len(missing)} brand partitions")
    return SensorResult(dynamic_partitions_requests=[brand_partitions.build_add_request(missing)])
