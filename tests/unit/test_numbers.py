"""The one rule for whole numbers from outside (``domain/numbers.py``), against generated text:
ASCII digits within the range and nothing else, never an exception, whatever the text."""

from __future__ import annotations

import re

import click
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from fashion_assets.cli.common import WholeNumber
from fashion_assets.crawl.responses import retry_after_s
from fashion_assets.domain.numbers import (
    INT64_MAX,
    MAX_DIGITS,
    delay_seconds,
    in_int64,
    whole_number,
)
from fashion_assets.domain.paging import PagingError, decode_cursor, encode_cursor, page_request
from fashion_assets.domain.text import refused_character

ORACLE = re.compile(f"[0-9]{{1,{MAX_DIGITS}}}")  # [0-9] is ASCII whatever the flags
# Digits of other scripts and lookalikes, signs, separators, NUL: what ``int`` or
# ``str.isdigit`` take and the rule must not.
TRICKY = st.sampled_from(["\u00b2", "\u0663", "\uff13", "\u2460", "_", "+", "-", " ", "\x00",
                          "\u00a0", "e", ".", "0x"])
TEXTS = st.one_of(st.text(), st.lists(st.one_of(st.sampled_from("0123456789"), TRICKY),
                                      max_size=45).map("".join),
                  st.integers(min_value=0, max_value=2**200).map(str))


@given(TEXTS, st.integers(0, 2**64), st.integers(0, 2**64))
@example("\u00b2", 0, 10)
@example("99999999999999999999999", 0, 2**70)
def test_a_whole_number_is_ascii_digits_within_the_range(text: str, low: int, high: int) -> None:
    number = whole_number(text, low, high)
    if ORACLE.fullmatch(text) and low <= int(text) <= min(high, INT64_MAX):
        assert number == int(text)
    else:
        assert number is None


@given(TEXTS)
@example("\u00b2")
def test_retry_after_reads_seconds_or_a_date_and_never_raises(text: str) -> None:
    seconds = retry_after_s(text)
    stripped = text.strip()
    if stripped and stripped.isascii() and stripped.isdigit():
        assert seconds == float(stripped)
    assert seconds is None or seconds >= 0


@given(TEXTS)
def test_delay_seconds_takes_ascii_digits_of_any_length(text: str) -> None:
    seconds = delay_seconds(text)
    assert (seconds is not None) == bool(re.fullmatch(r"[0-9]+", text))


@given(st.lists(st.integers(-(2**90), 2**90), min_size=1, max_size=3))
def test_a_cursor_carries_only_numbers_a_column_holds(key: list[int]) -> None:
    cursor = encode_cursor(key)
    if all(in_int64(part) for part in key):
        assert decode_cursor(cursor, [int] * len(key)) == tuple(key)
    else:
        with pytest.raises(PagingError):
            decode_cursor(cursor, [int] * len(key))


@given(TEXTS)
def test_a_page_limit_is_a_whole_number_from_1_to_the_maximum(text: str) -> None:
    expected = whole_number(text, 1, 200)
    if text == "" or expected is not None:
        assert page_request(text, None, [int]).limit == (expected or 50)
    else:
        with pytest.raises(PagingError):
            page_request(text, None, [int])


@given(TEXTS)
def test_a_command_line_number_follows_the_rule(text: str) -> None:
    kind = WholeNumber(1)
    expected = whole_number(text.strip(), 1)
    if expected is None:
        with pytest.raises(click.BadParameter):
            kind.convert(text, None, None)
    else:
        assert kind.convert(text, None, None) == expected


@pytest.mark.parametrize("args", [["review", "list", "--limit", "\u00b2"],
                                  ["review", "list", "--offset", "\u0663"],
                                  ["names", "dismiss", "99999999999999999999999"],
                                  ["store", "missing", "--limit", "1_0"]])
def test_a_command_refuses_a_number_outside_the_rule_in_one_usage_line(args: list[str]) -> None:
    from click.testing import CliRunner

    from fashion_assets.cli import main

    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2 and "is not a whole number" in result.output, result.output


@given(st.lists(st.text(), min_size=1, max_size=3))
def test_a_cursor_carries_no_control_character(key: list[str]) -> None:
    """A NUL in a cursor's text reached PostgreSQL (a 500), half a surrogate pair no
    database encodes: such a cursor is refused."""
    cursor = encode_cursor(key)
    if any(refused_character(part) or any("\ud800" <= c <= "\udfff" for c in part)
           for part in key):
        with pytest.raises(PagingError):
            decode_cursor(cursor, [str] * len(key))
    else:
        assert decode_cursor(cursor, [str] * len(key)) == tuple(key)
