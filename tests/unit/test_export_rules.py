"""The catalog export's rules (``domain/export.py``): which exports are current, and how
their parts read back as one catalog."""

from __future__ import annotations

import pytest

from fashion_assets.domain.export import ExportRecord, current_exports, frame, read_back


def _entries(*rows: tuple[int, str, int]) -> object:
    return frame("street", "entries", [(i, "paris", 2026, 3, title, None, None, revision)
                                       for i, title, revision in rows])


def _photos(*rows: tuple[int, int, str]) -> object:
    return frame("street", "photos", [(i, position, key, None, "theimpression", "u",
                                       "image/jpeg", 1, 1, 10, None, None, None, None)
                                      for i, position, key in rows])


def test_the_current_export_is_the_last_full_rebuild_and_what_came_after() -> None:
    exports = [ExportRecord(4, False), ExportRecord(1, False), ExportRecord(2, True),
               ExportRecord(3, False)]
    assert current_exports(exports) == [2, 3, 4]
    assert current_exports([ExportRecord(1, False), ExportRecord(2, False)]) == [1, 2]
    assert current_exports([ExportRecord(5, True)]) == [5] and current_exports([]) == []


def test_an_entry_reads_back_as_the_last_part_that_holds_it_with_that_parts_photos() -> None:
    first = (_entries((1, "old", 1), (2, "kept", 1)), _photos((1, 1, "a"), (1, 2, "b"),
                                                              (2, 1, "c")))
    later = (_entries((1, "new", 2)), _photos((1, 1, "d")))

    entries, photos = read_back([first, later])

    assert entries[["entry_id", "title"]].values.tolist() == [[1, "new"], [2, "kept"]]
    assert photos[["entry_id", "object_key"]].values.tolist() == [[1, "d"], [2, "c"]]


def test_reading_no_part_is_an_error() -> None:
    with pytest.raises(ValueError, match="no parts"):
        read_back([])
