"""The catalog: approved drafts promoted into one entry per entity key.

Materialized by the ``promote_approved_drafts`` job, which the ``approved_drafts_sensor``
launches when approved drafts wait (``fashion-assets review promote`` at once): first
``approved_drafts`` (what waits), whose blocking checks guard promotion, then
``photo_hashes`` (what promotion will compare), then ``catalog_entries``, then
``catalog_export`` (what changed, as Parquet). Thin shell over
``catalog/photo_hashes.py``, ``catalog/promotion.py`` and ``catalog/export.py``.
"""

import time
from collections.abc import Callable

from dagster import (
    AssetExecutionContext,
    Config,
    MaterializeResult,
    TableColumn,
    TableSchema,
    asset,
)

from fashion_assets.catalog.entities import RUNWAY, STREET
from fashion_assets.catalog.export import export_catalog
from fashion_assets.catalog.photo_hashes import HashCounts, hash_photos, unhashed_for_promotion
from fashion_assets.catalog.promotion import approved_backlog, promote
from fashion_assets.domain.export import PARTS, columns_of
from fashion_assets.report import table
from fashion_assets.resources import CatalogResource, ObjectStoreResource, ReviewPageResource
from fashion_assets.sources.registry import runway_sources

GROUP = "catalog"
HASH_PROGRESS_INTERVAL_S = 10.0  # how often the photo_hashes step says how far it is
# The entity key's columns in the promotion preview, in the crawl tables' words.
_KEY_COLUMNS = {RUNWAY.kind: [("brand", "string"), ("season code", "string")],
                STREET.kind: [("city", "string"), ("year", "int"), ("month", "int")]}


@asset(
    group_name=GROUP,
    owners=["team:fashion-assets"],
    kinds={"sql"},
    deps=[*(s.runway_names.drafts for s in runway_sources() if s.runway_names),
          "street_snap_drafts"],
    description="The drafts editors approved that wait for promotion. Its blocking checks "
                "(source keys unique, photos stored) must pass before catalog_entries runs.",
)
def approved_drafts(catalog: CatalogResource) -> MaterializeResult:
    backlog = approved_backlog(catalog.engine(), (RUNWAY, STREET))
    return MaterializeResult(metadata={f"{b.kind}_approved": b.approved for b in backlog})


@asset(
    group_name=GROUP,
    owners=["team:fashion-assets"],
    kinds={"python"},
    deps=[approved_drafts],
    description="The perceptual hashes (pHash, dHash) of every photo promotion will compare: "
                "each photo of the entity keys with an approved draft, hashed once from its "
                "stored bytes and kept by object key.",
)
def photo_hashes(context: AssetExecutionContext, catalog: CatalogResource,
                 store: ObjectStoreResource) -> MaterializeResult:
    engine, opened = catalog.engine(), store.open()
    started = time.perf_counter()
    counts = HashCounts()
    for tables in (RUNWAY, STREET):
        keys = unhashed_for_promotion(engine, tables)
        counts += hash_photos(engine, opened, keys,
                              on_batch=_hash_progress(context, tables.kind, len(keys)))
    seconds = time.perf_counter() - started
    context.log.info(f"{counts.hashed} photos hashed in {seconds:.1f} s; {counts.unhashable} "
                     f"not decodable, {counts.missing} not in the store")
    return MaterializeResult(metadata={
        "photos_hashed": counts.hashed, "photos_not_decodable": counts.unhashable,
        "photos_not_in_store": counts.missing, "seconds": round(seconds, 2)})


def _hash_progress(context: AssetExecutionContext, kind: str, total: int
                   ) -> Callable[[HashCounts], None]:
    """A log line every ``HASH_PROGRESS_INTERVAL_S`` while photos are hashed."""
    last = time.monotonic()

    def report(counts: HashCounts) -> None:
        nonlocal last
        if time.monotonic() - last >= HASH_PROGRESS_INTERVAL_S:
            last = time.monotonic()
            context.log.info(f"{kind}: {counts.done:,} of {total:,} photos hashed")
    return report


@asset(
    group_name=GROUP,
    owners=["team:fashion-assets"],
    kinds={"sql"},
    deps=[approved_drafts, photo_hashes],
    description="One catalog entry per entity key (a show; a street-style album), holding the "
                "union of the photos of its approved drafts from every source, each photo "
                "once, Vogue's first; a look two sources publish is shown once, the other "
                "photo kept as its alternate. Promoting again changes nothing.",
)
def catalog_entries(context: AssetExecutionContext, catalog: CatalogResource,
                    review_page: ReviewPageResource) -> MaterializeResult:
    engine = catalog.engine()
    results = [promote(engine, tables) for tables in (RUNWAY, STREET)]
    metadata: dict[str, object] = {}
    for r in results:
        context.log.info(f"{r.kind}: {r.drafts_promoted} drafts promoted into "
                         f"{r.entries_created} new and {r.entries_updated} updated entries, "
                         f"{r.photos_added} photos added, {r.alternates} photos kept as another "
                         f"source's alternate of a look, {r.uncertain_pairs} pairs of photos "
                         "left for an editor")
        metadata.update({
            f"{r.kind}_entries_created": r.entries_created,
            f"{r.kind}_entries_updated": r.entries_updated,
            f"{r.kind}_photos_added": r.photos_added,
            f"{r.kind}_drafts_promoted": r.drafts_promoted,
            f"{r.kind}_alternates": r.alternates,
            f"{r.kind}_uncertain_pairs": r.uncertain_pairs,
            # Photos and drafts are linked through the review page, never the store.
            **table(f"{r.kind}_preview",
                    [*_KEY_COLUMNS[r.kind], ("title", "string"), ("photos", "int"),
                     ("thumbnail", "url"), ("first photo", "url"), ("lead draft", "int"),
                     ("review page", "url")],
                    [(*e.key, e.title, e.photos,
                      review_page.thumbnail_url(e.first_object_key)
                      if e.first_object_key else None,
                      review_page.photo_url(e.first_object_key) if e.first_object_key else None,
                      e.lead_draft_id, review_page.draft_url(r.kind, e.lead_draft_id))
                     for e in r.preview]),
        })
    return MaterializeResult(metadata=metadata)


class ExportConfig(Config):
    """``full_rebuild``: export every entry again, and forget the earlier exports."""

    full_rebuild: bool = False


_DAGSTER_TYPES = {"Int64": "int", "string": "string", "datetime64[us]": "timestamp"}


@asset(
    group_name=GROUP,
    owners=["team:fashion-assets"],
    kinds={"parquet"},
    deps=[catalog_entries],
    description="The catalog as Parquet files in the object store, for others to read: per "
                "kind, the entries and their photos (shown and alternates) with provenance "
                "and perceptual hashes. Only the entries changed since the last export; "
                "nothing when nothing changed; everything with full_rebuild.",
)
def catalog_export(context: AssetExecutionContext, config: ExportConfig,
                   catalog: CatalogResource, store: ObjectStoreResource) -> MaterializeResult:
    result = export_catalog(catalog.engine(), store.open(), full_rebuild=config.full_rebuild)
    metadata: dict[str, object] = {"full_rebuild": result.full_rebuild,
                                   "export_id": result.export_id if result.export_id else 0,
                                   "files_written": len(result.files)}
    for f in result.files:
        name = f"{f.kind}_{f.part}"
        metadata[f"{name}_rows"] = f.row_count
        metadata[f"{name}_object_key"] = f.object_key
        metadata[f"{name}_bytes"] = f.byte_size
    for kind in ("runway", "street"):
        for part in PARTS:
            metadata[f"{kind}_{part}_schema"] = TableSchema(columns=[
                TableColumn(name, _DAGSTER_TYPES[dtype])
                for name, dtype in columns_of(kind, part).items()])
    context.log.info(
        "catalog export: nothing changed since the last one, nothing written"
        if not result.files else
        f"catalog export {result.export_id}: " + ", ".join(
            f"{f.kind} {f.part} {f.row_count} rows ({f.byte_size} bytes)" for f in result.files))
    return MaterializeResult(metadata=metadata)
