"""The command plans, submits and follows its runs without importing Dagster: importing it
and opening the instance were 1.8 of the 3.1 seconds from a crawl command's start to its
first run's creation (docs/performance.md), on the crawl's path under equal politeness."""

from __future__ import annotations

import subprocess
import sys

from fashion_assets.tags import RANGE_END_TAG, RANGE_START_TAG

# What `fashion-assets crawl` runs before and while it follows its runs: the command's
# modules, the plan's rules and tags, the reading of a run's log and its summary.
COMMAND_PATH = """
import sys
from fashion_assets.cli import main
import fashion_assets.cli.crawl, fashion_assets.launch.crawl as crawl
import fashion_assets.launch.follow, fashion_assets.launch.webserver as webserver
from fashion_assets import settings
from fashion_assets.domain.batches import plan_ranges
from fashion_assets.launch.summaries import crawl_kinds, crawl_summary, outcome, summary_line
kinds = crawl_kinds()
plan = plan_ranges(["a", "b", "c"], ["a", "b", "c"], crawl.queue_slots(None),
                   settings.crawl_batch_brands({"FASHION_CRAWL_BATCH_BRANDS": "2"}))
tags = [crawl.crawl_tags(name, batch.label) for batch in plan for name in kinds]
event = webserver.run_event({"__typename": "MaterializationEvent", "stepKey": "s",
    "assetKey": {"path": [kinds["brand"].listing_asset]}, "metadataEntries": [
        {"__typename": "IntMetadataEntry", "label": "listed", "intRepr": "3"}]})
summary_line(crawl_summary(kinds["brand"], "a", outcome("r", True, [event])))
print(sorted(name for name in sys.modules if name.split(".")[0] == "dagster"))
"""


def test_the_command_s_path_does_not_import_dagster() -> None:
    found = subprocess.run([sys.executable, "-c", COMMAND_PATH], capture_output=True,
                           text=True, check=True, timeout=120)
    assert found.stdout.strip() == "[]", found.stdout[:2000]


def test_the_range_tags_are_dagster_s_own() -> None:
    """The command tags a range run as Dagster's backfills do (the steps and the UI read
    these tags); the constants are Dagster's private ones, pinned here."""
    from dagster._core.storage.tags import (
        ASSET_PARTITION_RANGE_END_TAG,
        ASSET_PARTITION_RANGE_START_TAG,
    )

    assert (RANGE_START_TAG, RANGE_END_TAG) == (ASSET_PARTITION_RANGE_START_TAG,
                                                ASSET_PARTITION_RANGE_END_TAG)
