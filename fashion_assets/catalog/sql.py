"""SQL helpers every catalog writer shares."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Connection, text


def insert_rows(conn: Connection, table: str, columns: Sequence[str],
                rows: Sequence[Sequence[object]], *, on_conflict: str = "",
                chunk: int = 500) -> int:
    """Insert ``rows`` with one multi-row ``INSERT`` per chunk; return how many went in.

    A plain executemany costs one round trip per row on psycopg2; a show's 40 photo rows
    in one statement cost one. Table and column names come from the catalog modules, never
    from input; values are always bound parameters.
    """
    inserted = 0
    for start in range(0, len(rows), chunk):
        part = rows[start:start + chunk]
        values = ", ".join(
            "(" + ", ".join(f":r{n}c{c}" for c in range(len(columns))) + ")"
            for n in range(len(part)))
        params = {f"r{n}c{c}": value for n, row in enumerate(part)
                  for c, value in enumerate(row)}
        conflict = f" ON CONFLICT {on_conflict}" if on_conflict else ""
        result = conn.execute(text(f"INSERT INTO {table} ({', '.join(columns)}) VALUES {values}"
                                   f"{conflict}"), params)
        inserted += result.rowcount or 0
    return inserted
