"""Partitions shared by the assets, sensors and CLI."""

from dagster import DynamicPartitionsDefinition

# One partition per brand slug of the catalog's ``brands`` table; kept in step by the
# ``brand_partitions_sensor`` and by ``fashion-assets brands add``.
brand_partitions = DynamicPartitionsDefinition(name="brands")
