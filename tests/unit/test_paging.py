"""Keyset paging: a cursor carries the last key of a page, and a bad one is a clear error."""

import pytest

from fashion_assets.domain.paging import (
    DEFAULT_LIMIT,
    MAX_LIMIT,
    PagingError,
    decode_cursor,
    encode_cursor,
    page_request,
)


def test_a_cursor_gives_back_the_key_it_was_made_of() -> None:
    for key, shape in ((["chanel", "fall-2024-ready-to-wear"], (str, str)),
                       (["Zürich ☂", 2025, 3], (str, int, int))):
        cursor = encode_cursor(key)
        assert "=" not in cursor and "/" not in cursor and "+" not in cursor
        assert decode_cursor(cursor, shape) == tuple(key)


@pytest.mark.parametrize("cursor", ["%%%", "bm90IGpzb24", encode_cursor(["a"]),
                                    encode_cursor(["a", 2]), encode_cursor({"a": 1})])
def test_a_cursor_this_listing_did_not_give_is_refused(cursor: str) -> None:
    with pytest.raises(PagingError):
        decode_cursor(cursor, (str, str))


def test_a_page_request_defaults_and_bounds_its_limit() -> None:
    assert page_request(None, None, (str,)).limit == DEFAULT_LIMIT
    assert page_request("", "", (str,)).after is None
    assert page_request(str(MAX_LIMIT), encode_cursor(["dior"]), (str,)).after == ("dior",)
    for bad in ("0", str(MAX_LIMIT + 1), "ten", "-3"):
        with pytest.raises(PagingError):
            page_request(bad, None, (str,))
