"""``status``'s per-brand table (``cli.common.text_table``): the columns pandas printed, without
importing pandas (more than half a second of the command's CPU)."""

from __future__ import annotations

import pandas as pd

from fashion_assets.cli.common import text_table

ROWS = [{"brand": "brand-0", "shows": 0, "drafts": 10, "photos": 400, "missing_photos": 0},
        {"brand": "maison-martin-margiela", "shows": 12, "drafts": 3, "photos": 123456,
         "missing_photos": 7}]


def test_columns_are_right_aligned_two_spaces_apart() -> None:
    assert text_table(ROWS).splitlines() == [
        "                 brand  shows  drafts  photos  missing_photos",
        "               brand-0      0      10     400               0",
        "maison-martin-margiela     12       3  123456               7"]


def test_the_table_is_the_one_pandas_printed() -> None:
    assert text_table(ROWS) == pd.DataFrame(ROWS).to_string(index=False)


def test_no_rows_no_table() -> None:
    assert text_table([]) == ""
