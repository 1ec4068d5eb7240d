"""insert_rows: one multi-row INSERT per chunk, written in the driver's own placeholders."""

from __future__ import annotations

import pytest
from sqlalchemy import create_engine, text

from fashion_assets.catalog.sql import _insert_sql, insert_rows


def test_rows_go_in_by_chunks_and_the_count_leaves_out_conflicts() -> None:
    engine = create_engine("sqlite://")
    with engine.begin() as conn:
        conn.execute(text("CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)"))
        assert insert_rows(conn, "t", ["k", "v"], [(k, f"'{k}%?:x") for k in range(7)],
                           chunk=3) == 7
        assert insert_rows(conn, "t", ("k", "v"), [(5, "again"), (7, None)],
                           on_conflict="(k) DO NOTHING") == 1
        assert insert_rows(conn, "t", ("k", "v"), []) == 0
        rows = conn.execute(text("SELECT k, v FROM t ORDER BY k")).all()
    assert rows == [(k, f"'{k}%?:x") for k in range(7)] + [(7, None)]


def test_statement_text_per_paramstyle() -> None:
    assert _insert_sql("t", ("a", "b"), 2, "", "qmark") == (
        "INSERT INTO t (a, b) VALUES (?, ?), (?, ?)")
    assert _insert_sql("t", ("a",), 1, "(a) DO NOTHING", "pyformat") == (
        "INSERT INTO t (a) VALUES (%s) ON CONFLICT (a) DO NOTHING")
    with pytest.raises(ValueError, match="'named' paramstyle"):
        _insert_sql("t", ("a",), 1, "", "named")


@pytest.mark.parametrize(("table", "columns", "on_conflict"), [
    ("t%", ("a",), ""), ("t", ("a%",), ""), ("t", ("a",), "(a) DO UPDATE SET a = 'x%'"),
])
def test_a_percent_sign_in_the_statement_is_refused(table: str, columns: tuple[str, ...],
                                                     on_conflict: str) -> None:
    with pytest.raises(ValueError, match="'%'"):
        _insert_sql(table, columns, 1, on_conflict, "qmark")
