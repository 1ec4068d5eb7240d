"""Small renderers for run metadata and the terminal."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

from fashion_assets.crawl.http import FetchCounters
from fashion_assets.domain.ingest import Outcome, count_outcomes

MAX_TABLE_ROWS = 500


def markdown_table(headers: Sequence[str], rows: Iterable[Sequence[object]],
                   *, max_rows: int = MAX_TABLE_ROWS) -> str:
    """A markdown table; cells are escaped so page text cannot break the layout."""
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    total = 0
    for total, row in enumerate(rows, start=1):
        if total <= max_rows:
            lines.append("| " + " | ".join(_cell(value) for value in row) + " |")
    if total > max_rows:
        lines.append(f"\n{total - max_rows} more rows not shown.")
    return "\n".join(lines)


def _cell(value: object) -> str:
    text = "" if value is None else str(value)
    text = " ".join(text.split())[:200]
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("<", "&lt;")


class _Ingested(Protocol):
    outcome: Outcome
    images_stored: int
    images_missing: int


def ingest_counts(prefix: str, results: Sequence[_Ingested], counters: FetchCounters,
                  store_url: str) -> dict[str, object]:
    """The counts every drafts asset reports: outcomes (zeros included), photos, traffic."""
    return {
        **{f"{prefix}{name}": count
           for name, count in count_outcomes(r.outcome for r in results).items()},
        "images_stored": sum(r.images_stored for r in results),
        "images_missing": sum(r.images_missing for r in results),
        "requests": counters.requests,
        "bytes_received": counters.bytes_received,
        "store": store_url,
    }
