"""The catalog export's rules: its files' columns, which exports make up the current one,
and how their parts read back as one catalog.

An export writes, per kind of entry (runway shows, street-style albums), two tables: the
entries changed since the previous export, and all the photos of those entries, the ones
each shows and the alternates of its looks, with their provenance. A later part holds an
entry whole again, so reading back keeps, for each entry, the rows of the last part that
holds it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pandas loads pyarrow, 35 MB: only the export and its readers pay for it
    import pandas as pd

PARTS = ("entries", "photos")
CONTENT_TYPE = "application/vnd.apache.parquet"

# The columns of each file, in order, with their pandas dtypes: nullable integers and
# strings, so an empty part and a full one have one schema.
ENTRY_COLUMNS: dict[str, dict[str, str]] = {
    "runway": {"entry_id": "Int64", "brand_slug": "string", "season_code": "string",
               "title": "string", "season": "string", "year": "Int64",
               "collection_type": "string", "city": "string", "expected_images": "Int64",
               "created_at": "datetime64[us]", "updated_at": "datetime64[us]",
               "revision": "Int64"},
    "street": {"entry_id": "Int64", "city": "string", "year": "Int64", "month": "Int64",
               "title": "string", "created_at": "datetime64[us]",
               "updated_at": "datetime64[us]", "revision": "Int64"},
}
PHOTO_COLUMNS: dict[str, str] = {
    "entry_id": "Int64",
    "position": "Int64",  # its place in the entry; null for an alternate
    "object_key": "string",  # the sha1 of its bytes: its key in the object store
    "alternate_of": "string",  # the object key of the photo shown in its stead, or null
    "source": "string", "source_image_url": "string", "content_type": "string",
    "width": "Int64", "height": "Int64", "byte_size": "Int64",
    "phash": "string", "dhash": "string",
    "distance": "Int64",  # an alternate's distance to the photo shown, in bits
    "fetched_at": "datetime64[us]",  # when the crawl first stored these bytes
}


def columns_of(kind: str, part: str) -> dict[str, str]:
    return ENTRY_COLUMNS[kind] if part == "entries" else PHOTO_COLUMNS


def frame(kind: str, part: str, rows: Sequence[Sequence[object]]) -> pd.DataFrame:
    """A file's rows as a frame of its columns and dtypes."""
    import pandas as pd

    columns = columns_of(kind, part)
    data = pd.DataFrame.from_records(list(rows), columns=list(columns))
    return data.astype(columns)


@dataclass(frozen=True)
class ExportRecord:
    """An export as the catalog keeps it: its id and whether it was a full rebuild."""

    export_id: int
    full_rebuild: bool


def current_exports(exports: Sequence[ExportRecord]) -> list[int]:
    """The exports that make up the current one, oldest first: the last full rebuild and
    every later export (all of them when none was full)."""
    ordered = sorted(exports, key=lambda e: e.export_id)
    full = [n for n, e in enumerate(ordered) if e.full_rebuild]
    return [e.export_id for e in ordered[full[-1] if full else 0:]]


def read_back(parts: Sequence[tuple[pd.DataFrame, pd.DataFrame]]
              ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One kind's (entries, photos) from its parts, oldest first: each entry as the last part
    that holds it has it, with that part's photos of it."""
    if not parts:
        raise ValueError("no parts to read")
    import pandas as pd

    latest: dict[int, int] = {}
    for n, (entries, _) in enumerate(parts):
        latest.update(dict.fromkeys(entries["entry_id"].tolist(), n))
    entries = pd.concat([e[e["entry_id"].map(latest) == n] for n, (e, _) in enumerate(parts)],
                        ignore_index=True)
    photos = pd.concat([p[p["entry_id"].map(latest) == n] for n, (_, p) in enumerate(parts)],
                       ignore_index=True)
    return (entries.sort_values("entry_id", ignore_index=True),
            photos.sort_values(["entry_id", "position", "object_key"], ignore_index=True,
                               na_position="last"))
