"""The ingest log: one entry per step a crawl took with an article (listing, manifest, ingest).

An entry that describes a write is written in that write's transaction (``write_log_in``), so
the log never claims a draft that was rolled back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import Connection, Engine

from fashion_assets.catalog.sql import insert_rows


@dataclass(frozen=True)
class LogEntry:
    run_id: str
    brand_slug: str
    source: str
    source_url: str
    stage: str
    outcome: str
    draft_id: int | None = None
    images_stored: int = 0
    images_missing: int = 0
    reason: str = ""
    partition_key: str = ""  # the run's partition; the brand for Vogue's brand partitions


def write_log(engine: Engine, entries: Sequence[LogEntry]) -> None:
    if entries:
        with engine.begin() as conn:
            write_log_in(conn, entries)


def write_log_in(conn: Connection, entries: Sequence[LogEntry]) -> None:
    """Log entries inside the caller's transaction (committed with the data they describe)."""
    insert_rows(conn, "ingest_log",
                ("run_id", "brand_slug", "partition_key", "source", "source_url", "stage",
                 "outcome", "draft_id", "images_stored", "images_missing", "reason"),
                [(e.run_id, e.brand_slug, e.partition_key or e.brand_slug, e.source,
                  e.source_url, e.stage, e.outcome, e.draft_id, e.images_stored,
                  e.images_missing, e.reason[:2000])
                 for e in entries])
