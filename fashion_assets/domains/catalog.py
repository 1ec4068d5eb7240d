"""Catalog and review: approved drafts promoted into one entry per entity key, the checks
that guard promotion (source and entity keys unique, photos stored), the export of what
changed as Parquet, and the sensor that launches promotion when editors approved drafts."""

from dagster import AssetSelection, Definitions, define_asset_job

from fashion_assets.assets.catalog import (
    approved_drafts,
    catalog_entries,
    catalog_export,
    photo_hashes,
)
from fashion_assets.assets.checks import catalog_checks
from fashion_assets.sensors.approved_drafts import approved_drafts_sensor
from fashion_assets.tags import PROMOTION_TAG

promote_approved_drafts_job = define_asset_job(
    "promote_approved_drafts",
    selection=AssetSelection.assets(approved_drafts, photo_hashes, catalog_entries,
                                    catalog_export),
    tags={PROMOTION_TAG: "promotion"},
    description="Promote every approved draft into the catalog and export what changed "
                "(launched by approved_drafts_sensor, or at once by fashion-assets review "
                "promote).",
)


def catalog_definitions() -> Definitions:
    return Definitions(assets=[approved_drafts, photo_hashes, catalog_entries, catalog_export],
                       asset_checks=catalog_checks,
                       jobs=[promote_approved_drafts_job], sensors=[approved_drafts_sensor])
