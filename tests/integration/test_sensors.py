"""Sensors, evaluated against a real Dagster instance and catalog."""

from __future__ import annotations

from dagster import DagsterInstance, SkipReason, build_sensor_context

from fashion_assets.catalog.runway import add_brand
from fashion_assets.partitions import brand_partitions
from fashion_assets.resources import CatalogResource
from fashion_assets.sensors.brand_partitions import brand_partitions_sensor


def test_brand_partitions_follow_the_brands_table(database_url: str) -> None:
    catalog = CatalogResource(database_url=database_url)
    add_brand(catalog.engine(), "chloe")
    add_brand(catalog.engine(), "acne-studios")
    instance = DagsterInstance.ephemeral()
    instance.add_dynamic_partitions(brand_partitions.name, ["chloe"])

    with build_sensor_context(instance=instance, resources={"catalog": catalog}) as context:
        result = brand_partitions_sensor(context)
    [request] = result.dynamic_partitions_requests
    assert (request.partitions_def_name, list(request.partition_keys)) == (
        "brands", ["acne-studios"])

    instance.add_dynamic_partitions(brand_partitions.name, list(request.partition_keys))
    with build_sensor_context(instance=instance, resources={"catalog": catalog}) as context:
        assert isinstance(brand_partitions_sensor(context), SkipReason)
