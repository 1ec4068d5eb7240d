"""The catalog export: Parquet files in the object store, only what changed since the last.

Per kind of entry, an export reads the entries whose revision (``catalog_revisions``, raised
by every promotion and every merge of an entry) is above the one the kind was last exported
at, and all their photos, shown and alternates, with their provenance and perceptual hashes
(``domain/export.py`` has the columns). Each table goes to the store as one Parquet file
under the sha1 of its bytes, like any object, and the catalog records the export and its
files once they are durable. With nothing changed, nothing is written. A full rebuild
exports every entry, and the exports before it are forgotten (their files become orphans,
for media cleanup).

The rows are read in one snapshot (PostgreSQL's repeatable read; SQLite's transactions
serialize), so an entry and its photos agree; a promotion that commits meanwhile raises the
revision past the one exported, and the next export takes its entries.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sqlalchemy import Connection, Engine, text

from fashion_assets.catalog.db import is_postgres
from fashion_assets.catalog.entities import RUNWAY, STREET, EntityTables
from fashion_assets.domain.export import (
    CONTENT_TYPE,
    PARTS,
    ExportRecord,
    columns_of,
    current_exports,
    frame,
    read_back,
)
from fashion_assets.storage import ObjectStore, object_key

if TYPE_CHECKING:  # pandas and pyarrow weigh 35 MB: only an export or a reader loads them
    import pandas as pd

KINDS: tuple[EntityTables, ...] = (RUNWAY, STREET)
ROWS_PER_GROUP = 50_000  # rows fetched and written at a time: bounds the export's memory


@dataclass(frozen=True)
class ExportFile:
    kind: str
    part: str
    revision: int
    object_key: str
    row_count: int
    byte_size: int


@dataclass
class ExportResult:
    """What an export wrote; ``export_id`` None when nothing had changed."""

    full_rebuild: bool
    export_id: int | None = None
    files: list[ExportFile] = field(default_factory=list)


def export_catalog(engine: Engine, store: ObjectStore, *, full_rebuild: bool = False
                   ) -> ExportResult:
    """Export what changed since the last export (everything with ``full_rebuild``)."""
    result = ExportResult(full_rebuild)
    exported = {} if full_rebuild else exported_revisions(engine)
    for t in KINDS:
        with _snapshot(engine) as conn:
            upto = _revision(conn, t)
            after = exported.get(t.kind, -1)
            if upto <= after and not full_rebuild:
                continue
            changed = _changed(t, after)
            for part in PARTS:
                data, rows = _parquet(t.kind, part, _rows(conn, t, part, changed, upto))
                key = object_key(data)
                store.put(key, data, CONTENT_TYPE)
                result.files.append(ExportFile(t.kind, part, upto, key, rows, len(data)))
    if not result.files:
        return result
    store.sync()  # durable before the catalog names them
    with engine.begin() as conn:
        result.export_id = int(conn.execute(text(
            "INSERT INTO catalog_exports (full_rebuild) VALUES (:full) RETURNING id"),
            {"full": full_rebuild}).scalar_one())
        for f in result.files:
            conn.execute(text(
                "INSERT INTO catalog_export_files (export_id, kind, part, revision,"
                " object_key, row_count, byte_size) VALUES (:e, :k, :p, :r, :o, :n, :b)"),
                {"e": result.export_id, "k": f.kind, "p": f.part, "r": f.revision,
                 "o": f.object_key, "n": f.row_count, "b": f.byte_size})
        if full_rebuild:
            conn.execute(text("DELETE FROM catalog_exports WHERE id < :e"),
                         {"e": result.export_id})
    return result


def exported_revisions(engine: Engine) -> dict[str, int]:
    """Per kind, the catalog revision the current export holds every change up to."""
    with engine.connect() as conn:
        return {kind: int(revision) for kind, revision in conn.execute(text(
            "SELECT kind, max(revision) FROM catalog_export_files GROUP BY kind"))}


def read_export(engine: Engine, store: ObjectStore) -> dict[str, tuple[pd.DataFrame,
                                                                      pd.DataFrame]]:
    """The current export read back from the store: per kind, its entries and photos."""
    import pandas as pd

    with engine.connect() as conn:
        exports = [ExportRecord(int(i), bool(full)) for i, full in conn.execute(text(
            "SELECT id, full_rebuild FROM catalog_exports"))]
        files = conn.execute(text(
            "SELECT export_id, kind, part, object_key FROM catalog_export_files")).all()
    keys = {(int(e), kind, part): key for e, kind, part, key in files}
    current = current_exports(exports)
    catalog = {}
    for t in KINDS:
        parts = [tuple(pd.read_parquet(io.BytesIO(store.get(keys[(e, t.kind, part)])))
                       for part in PARTS)
                 for e in current if (e, t.kind, "entries") in keys]
        catalog[t.kind] = read_back(parts) if parts else tuple(
            frame(t.kind, part, []) for part in PARTS)
    return catalog  # type: ignore[return-value]


@contextmanager
def _snapshot(engine: Engine) -> Iterator[Connection]:
    """A read-only transaction that sees one state of the catalog throughout."""
    with engine.connect() as conn:
        if is_postgres(engine):
            conn = conn.execution_options(isolation_level="REPEATABLE READ")
        with conn.begin() as transaction:
            yield conn
            transaction.rollback()  # it only read


def _revision(conn: Connection, t: EntityTables) -> int:
    return int(conn.execute(text("SELECT revision FROM catalog_revisions WHERE kind = :k"),
                            {"k": t.kind}).scalar_one())


def _changed(t: EntityTables, after: int) -> str:
    return f"c.revision > {int(after)} AND c.revision <= :upto"


def _rows(conn: Connection, t: EntityTables, part: str, changed: str, upto: int
          ) -> Iterator[list[tuple[object, ...]]]:
    """The part's rows for the changed entries, ``ROWS_PER_GROUP`` at a time."""
    fk = t.catalog_image_fk
    if part == "entries":
        columns = [c for c in columns_of(t.kind, "entries") if c != "entry_id"]
        sql = (f"SELECT c.id, {', '.join(f'c.{c}' for c in columns)} FROM {t.catalog} c"
               f" WHERE {changed} ORDER BY c.id")
    else:
        hashed = "LEFT JOIN photo_hashes h ON h.photo_key = {0}.object_key"
        sql = (
            f"SELECT i.{fk}, i.position, i.object_key, NULL, i.source, i.source_image_url,"
            " i.content_type, i.width, i.height, i.byte_size, h.phash, h.dhash, NULL,"
            f" h.created_at FROM {t.catalog_images} i JOIN {t.catalog} c ON c.id = i.{fk}"
            f" {hashed.format('i')} WHERE {changed}"
            f" UNION ALL SELECT a.{fk}, NULL, a.object_key, a.kept_key, a.source,"
            " a.source_image_url, a.content_type, a.width, a.height, a.byte_size, h.phash,"
            f" h.dhash, a.distance, h.created_at FROM {t.catalog_alternates} a"
            f" JOIN {t.catalog} c ON c.id = a.{fk} {hashed.format('a')} WHERE {changed}"
            " ORDER BY 1, 2, 3")
    result = conn.execution_options(stream_results=True).execute(text(sql), {"upto": upto})
    while rows := result.fetchmany(ROWS_PER_GROUP):
        yield [tuple(row) for row in rows]


def _parquet(kind: str, part: str, chunks: Iterator[list[tuple[object, ...]]]
             ) -> tuple[bytes, int]:
    """The rows as one Parquet file (a row group per chunk), and how many there were."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.Schema.from_pandas(frame(kind, part, []), preserve_index=False)
    out, count = io.BytesIO(), 0
    with pq.ParquetWriter(out, schema) as writer:
        for rows in chunks:
            count += len(rows)
            writer.write_table(pa.Table.from_pandas(frame(kind, part, rows), schema=schema,
                                                    preserve_index=False))
    return out.getvalue(), count
