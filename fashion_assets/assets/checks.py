"""Asset checks of the catalog: keys unique, no mixed-up entry, no dangling photo.

The checks on ``approved_drafts`` are blocking: they run before promotion in the same job,
and a failure stops ``catalog_entries`` from being materialized. Each check names the
offending rows in its metadata. Thin shell over ``catalog/integrity.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dagster import (
    AssetCheckResult,
    AssetChecksDefinition,
    AssetCheckSeverity,
    TableMetadataValue,
    asset_check,
)

from fashion_assets.catalog import integrity, store_heal
from fashion_assets.report import table
from fashion_assets.resources import CatalogResource, ObjectStoreResource


def _result(violations: Sequence[dict[str, Any]], what: str, *, count: int | None = None,
            **metadata: Any) -> AssetCheckResult:
    """The check's outcome; ``violations`` are examples when ``count`` says there are more.

    The examples' columns are the union of their rows' (runway and street rows name their
    entity keys differently), each typed by its first value; a passing check has none.
    """
    total = len(violations) if count is None else count
    names = list(dict.fromkeys(name for row in violations for name in row))
    columns = [(name, TableMetadataValue.infer_column_type(
        next((row[name] for row in violations if row.get(name) is not None), None)))
        for name in names]
    return AssetCheckResult(
        passed=total == 0,
        severity=AssetCheckSeverity.ERROR,
        description=f"{total} {what}" if total else f"no {what}",
        metadata={"violations": total,
                  **(table("examples", columns, [[row.get(name) for name in names]
                                                 for row in violations])
                     if violations else {}),
                  **metadata},
    )


@asset_check(asset="approved_drafts", blocking=True,
             description="No two drafts share a non-empty source key (source, source_url).")
def drafts_source_key_unique(catalog: CatalogResource) -> AssetCheckResult:
    return _result(integrity.duplicate_source_keys(catalog.engine()),
                   "source keys held by several drafts")


HEAL_HINT = ("store_heal_job fetches lost photos again from their source URLs (a crawl does "
             "for the shows it touches); `fashion-assets store missing` lists those it could "
             "not fetch, with the reason")


def _photos_stored(asset: str, where: str, photos: str, *, blocking: bool
                   ) -> AssetChecksDefinition:
    """Every photo the drafts or the catalog (``where``) reference is in the object store;
    each example says what the store heal recorded for it, if it tried."""
    @asset_check(asset=asset, name=f"{photos.replace(' ', '_')}_stored", blocking=blocking,
                 description=f"Every photo the {where} reference is in the object store.")
    def photos_stored(catalog: CatalogResource, store: ObjectStoreResource
                      ) -> AssetCheckResult:
        engine = catalog.engine()
        checked, missing, examples = integrity.missing_objects(engine, store.open(), where)
        reasons = store_heal.reasons_of(engine, examples)
        return _result([{"object_key": key, "heal": reasons.get(key, "not tried yet")}
                        for key in examples],
                       f"{photos} missing from the store", count=missing, checked=checked,
                       **({"heal": HEAL_HINT} if missing else {}))

    return photos_stored


draft_photos_stored = _photos_stored("approved_drafts", "drafts", "draft photos", blocking=True)


@asset_check(asset="catalog_entries",
             description="No two catalog entries share an entity key.")
def catalog_entity_key_unique(catalog: CatalogResource) -> AssetCheckResult:
    return _result(integrity.duplicate_entity_keys(catalog.engine()),
                   "entity keys with several catalog entries")


@asset_check(asset="catalog_entries",
             description="Every catalog photo comes from an approved draft with the same "
                         "entity key as its entry.")
def catalog_photos_from_own_drafts(catalog: CatalogResource) -> AssetCheckResult:
    return _result(integrity.mixed_photos(catalog.engine()),
                   "catalog photos that no approved draft of their entry holds")


catalog_photos_stored = _photos_stored("catalog_entries", "catalog", "catalog photos",
                                       blocking=False)


catalog_checks = [drafts_source_key_unique, draft_photos_stored, catalog_entity_key_unique,
                  catalog_photos_from_own_drafts, catalog_photos_stored]
