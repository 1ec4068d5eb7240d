"""Small renderers for run metadata and the terminal."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

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
