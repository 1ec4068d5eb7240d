"""Run metadata tables: typed columns, a row cap that says what it left out, long text cut
visibly and nowhere else, and the review page links the tables carry."""

from __future__ import annotations

import json

import pytest
from dagster import MetadataValue, TableMetadataValue

from fashion_assets.report import MAX_CELL_CHARS, plain_value, table
from fashion_assets.resources import ReviewPageResource

COLUMNS = [("brand", "string"), ("draft", "int"), ("share", "float"), ("complete", "bool"),
           ("reason", "string")]


def test_rows_keep_their_types_under_the_schema_given() -> None:
    [(key, value)] = table("shows_table", COLUMNS,
                           [("chloe", 12, 0.5, True, None)]).items()

    assert key == "shows_table" and isinstance(value, TableMetadataValue)
    assert [(c.name, c.type) for c in value.schema.columns] == COLUMNS
    assert [r.data for r in value.records] == [
        {"brand": "chloe", "draft": 12, "share": 0.5, "complete": True, "reason": None}]


def test_an_empty_table_still_has_its_columns() -> None:
    value = table("failed_table", [("brand", "string"), ("error", "string")], [])["failed_table"]

    assert value.records == [] and [c.name for c in value.schema.columns] == ["brand", "error"]


def test_rows_past_the_cap_are_counted_in_an_entry_of_their_own() -> None:
    rows = ((f"brand-{n}", n, 0.0, False, "") for n in range(7))

    entries = table("shows_table", COLUMNS, rows, max_rows=5)

    assert [r.data["draft"] for r in entries["shows_table"].records] == [0, 1, 2, 3, 4]
    assert entries["shows_table_rows_not_shown"] == MetadataValue.int(2)
    assert set(table("shows_table", COLUMNS, [], max_rows=5)) == {"shows_table"}


def test_only_very_long_text_is_cut_and_the_cut_shows() -> None:
    fits, too_long = "y" * MAX_CELL_CHARS, "x" * (MAX_CELL_CHARS + 1)
    rows = [("a", 1, 0.0, False, fits), ("b", 2, 0.0, False, too_long)]

    kept, cut = (r.data["reason"] for r in table("t", COLUMNS, rows)["t"].records)

    assert kept == fits
    assert cut == too_long[:MAX_CELL_CHARS - 1] + "…" and len(cut) == MAX_CELL_CHARS


def test_text_is_kept_as_it_came() -> None:
    """Markdown cells were escaped and folded onto one line; table cells are plain text."""
    text = "a | b <i>\nsecond line"

    [record] = table("t", [("reason", "string")], [(text,)])["t"].records

    assert record.data["reason"] == text


def test_a_row_that_does_not_fit_the_columns_is_refused() -> None:
    with pytest.raises(ValueError):
        table("t", COLUMNS, [("chloe", 12)])


def test_a_table_becomes_its_rows_for_json() -> None:
    value = table("new_table", [("designer", "string"), ("slug", "string")],
                  [("Chloé", "chloe")])["new_table"]

    assert json.dumps(plain_value(value)) == '[{"designer": "Chlo\\u00e9", "slug": "chloe"}]'
    assert plain_value(MetadataValue.int(3)) == 3


def test_drafts_link_to_their_review_page_with_their_kind() -> None:
    page = ReviewPageResource(base_url="https://review.example/")

    assert page.draft_url("runway", 12) == "https://review.example/drafts/runway:12"
    assert page.draft_url("street", 7) == "https://review.example/drafts/street:7"
    assert page.draft_url("runway", None) is None
