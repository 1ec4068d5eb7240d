"""Small renderers for run metadata and the terminal."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

from dagster import (
    AssetExecutionContext,
    IntMetadataValue,
    MetadataValue,
    TableColumn,
    TableMetadataValue,
    TableRecord,
    TableSchema,
)

from fashion_assets.crawl.http import FetchCounters
from fashion_assets.domain.ingest import Outcome, count_outcomes, draft_photos_gained
from fashion_assets.domain.store_heal import HealReport

MAX_TABLE_ROWS = 500
# Text longer than this is cut, with a visible "…": a whole page pasted into a reason
# would swamp the table, while every real reason (the ingest log keeps as many
# characters) is shown whole.
MAX_CELL_CHARS = 2000

Cell = str | int | float | bool | None


def table(key: str, columns: Sequence[tuple[str, str]], rows: Iterable[Sequence[object]],
          *, max_rows: int = MAX_TABLE_ROWS) -> dict[str, TableMetadataValue | IntMetadataValue]:
    """The metadata entries of one table, to splat into a run's metadata.

    ``key`` holds a typed table: ``columns`` are (name, type) pairs ("string", "int",
    "url"...) and numbers stay numbers, so the UI shows the schema and whoever reads the
    event (a test, a script over Dagster's API) gets records instead of Markdown to parse.
    At most ``max_rows`` rows are kept; a table value has no caption, so
    ``<key>_rows_not_shown`` says how many were left out, when any were.
    """
    names = [name for name, _ in columns]
    records: list[TableRecord] = []
    total = 0
    for total, row in enumerate(rows, start=1):
        if total <= max_rows:
            records.append(TableRecord({name: _cell(value)
                                        for name, value in zip(names, row, strict=True)}))
    schema = TableSchema(columns=[TableColumn(name, kind) for name, kind in columns])
    entries: dict[str, TableMetadataValue | IntMetadataValue] = {
        key: MetadataValue.table(records, schema)}
    if total > max_rows:
        entries[f"{key}_rows_not_shown"] = MetadataValue.int(total - max_rows)
    return entries


def partition_table(context: AssetExecutionContext, key: str,
                    columns: Sequence[tuple[str, str]],
                    rows: Iterable[tuple[str, Sequence[object]]]
                    ) -> dict[str, TableMetadataValue | IntMetadataValue]:
    """The table ``key`` of a partitioned asset's materialization, each row under the
    partition it belongs to (``rows``: (partition key, row) pairs).

    A run of one partition gets the table in the returned entries (its result's metadata).
    A run of a batch of partitions materializes each partition apart: each gets the rows of
    its own (a brand's materialization lists that brand's shows, not the whole batch's) as
    partition-scoped metadata, and nothing is returned. Ten partitions each carrying the
    batch's whole table also cost a fifth of a second at the end of every step.
    """
    keys = list(context.partition_keys)
    if len(keys) < 2:
        return table(key, columns, [row for _, row in rows])
    by_partition: dict[str, list[Sequence[object]]] = {k: [] for k in keys}
    for partition, row in rows:
        by_partition[partition].append(row)  # a row of another partition is a bug: KeyError
    for partition, own in by_partition.items():
        context.add_asset_metadata(table(key, columns, own), partition_key=partition)
    return {}


def _cell(value: object) -> Cell:
    """Numbers, booleans and blanks stay as they are, so their columns keep their type;
    anything else is its text, cut only past ``MAX_CELL_CHARS``."""
    if value is None or isinstance(value, bool | int | float):
        return value
    text = str(value)
    return text if len(text) <= MAX_CELL_CHARS else text[:MAX_CELL_CHARS - 1] + "…"


def plain_value(value: MetadataValue) -> object:
    """A metadata value as JSON can hold it: a table as its rows (``TableMetadataValue``'s
    ``value`` is the table object itself), anything else as its value."""
    if isinstance(value, TableMetadataValue):
        return [dict(record.data) for record in value.records]
    return value.value


class _Ingested(Protocol):
    outcome: Outcome
    images_stored: int
    images_missing: int
    photos_added: int


def ingest_counts(prefix: str, results: Sequence[_Ingested], counters: FetchCounters,
                  store_url: str) -> dict[str, object]:
    """The counts every drafts asset reports, each with one meaning, read as they are by the
    command's lines and ``--json`` (``launch/summaries.py``): outcomes (zeros included);
    ``photos_added``, the photos drafts gained (``draft_photos_gained``);
    ``images_stored``, the photos of the step's items fetched into the store by this run
    (by this step, or by the run's manifests step before it); ``images_missing``; and this
    step's own traffic (``requests_by_this_step``: 0 when the manifests step fetched every
    photo already, beside hundreds stored)."""
    return {
        **{f"{prefix}{name}": count
           for name, count in count_outcomes(r.outcome for r in results).items()},
        "photos_added": sum(draft_photos_gained(r.outcome, r.images_stored, r.photos_added)
                            for r in results),
        "images_stored": sum(r.images_stored for r in results),
        "images_missing": sum(r.images_missing for r in results),
        "requests_by_this_step": counters.requests,
        "bytes_received_by_this_step": counters.bytes_received,
        "store": store_url,
    }


def heal_metadata(report: HealReport) -> dict[str, object]:
    """The store heal's counts (``heal_``: photos checked, missing from the store, damaged
    among those, fetched again, still missing), then, when any is still missing, its count
    by reason and the tries that failed (``domain/store_heal.py: MAX_LISTED`` of them)."""
    return {
        "heal_checked": report.checked,
        "heal_missing": report.missing,
        "heal_damaged": report.damaged,
        "heal_healed": report.healed,
        "heal_still_missing": report.unhealed_count,
        **(table("heal_still_missing_by_reason", [("reason", "string"), ("objects", "int")],
                 sorted(report.still_missing.items())) if report.still_missing else {}),
        **(table("heal_unhealed_table", [("object key", "string"), ("source URL", "string"),
                                          ("reason", "string"), ("detail", "string")],
                 [(u.key, u.url, u.reason, u.detail) for u in report.unhealed])
           if report.unhealed else {}),
    }
