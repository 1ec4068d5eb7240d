"""Sensors, evaluated against a real Dagster instance and catalog."""

from __future__ import annotations

from dagster import DagsterInstance, SkipReason, build_sensor_context
from sqlalchemy import text

from fashion_assets.catalog.runway import add_brand
from fashion_assets.partitions import brand_partitions, runway_season_partitions
from fashion_assets.resources import CatalogResource
from fashion_assets.sensors.brand_partitions import brand_partitions_sensor
from fashion_assets.sensors.runway_seasons import runway_season_partitions_sensor


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


def test_runway_season_partitions_follow_the_seasons_vogue_lists(database_url: str) -> None:
    catalog = CatalogResource(database_url=database_url)
    engine = catalog.engine()
    add_brand(engine, "chloe")
    with engine.begin() as conn:
        for source, code in (("vogue", "fall-2024-ready-to-wear"), ("vogue", "resort-2025"),
                             ("theimpression", "spring-1999-couture")):
            conn.execute(text(
                "INSERT INTO runway_shows (brand_slug, source, source_url, source_path,"
                " season_code) VALUES ('chloe', :s, :u, '/p', :c)"),
                {"s": source, "u": f"https://example.com/{source}/{code}", "c": code})
    instance = DagsterInstance.ephemeral()
    instance.add_dynamic_partitions(runway_season_partitions.name, ["resort-2025"])

    with build_sensor_context(instance=instance, resources={"catalog": catalog}) as context:
        result = runway_season_partitions_sensor(context)

    [request] = result.dynamic_partitions_requests
    assert (request.partitions_def_name, list(request.partition_keys)) == (
        "runway_seasons", ["fall-2024-ready-to-wear"])
