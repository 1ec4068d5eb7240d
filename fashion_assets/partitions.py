"""Partitions shared by the assets, sensors and CLI."""

from dagster import DynamicPartitionsDefinition

from fashion_assets.sources.registry import RUNWAY_PARTITION_NAMES

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
