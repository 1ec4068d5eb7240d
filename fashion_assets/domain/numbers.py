"""The one rule for whole numbers that come from outside: a query parameter, a form field,
a cursor, a header the crawler reads, a command-line option, a setting, a page's field.

Python's own tests say yes too often: ``str.isdigit`` accepts superscripts ("²") that
``int`` then refuses with a ValueError (a crawl run failed on ``Retry-After: ²``, the
review page answered 500 to ``?offset=²``), and ``int`` accepts any script's decimal digits
("٣", "３"), signs, spaces and underscores ("1_000"). A number past 64 bits fits no column
of the catalog (SQLite's INTEGER and PostgreSQL's BIGINT alike) and fails the query that
binds it. So a whole number is ASCII digits only, at most ``MAX_DIGITS`` of them (no huge
string is converted), within the caller's range, and no range goes past a 64-bit column's.
"""

from __future__ import annotations

INT64_MAX = 2**63 - 1
"""The largest value a catalog column holds (SQLite INTEGER, PostgreSQL BIGINT)."""
MAX_DIGITS = 40
"""Longer digit strings are refused without conversion (leading zeros allowed up to it)."""


def ascii_digits(text: str) -> bool:
    """Whether ``text`` is 1 to ``MAX_DIGITS`` ASCII digits and nothing else."""
    return 0 < len(text) <= MAX_DIGITS and text.isascii() and text.isdigit()


def whole_number(text: str, low: int = 0, high: int = INT64_MAX) -> int | None:
    """``text`` as a whole number from ``low`` to ``high`` (both kept within 64 bits); None
    when it is not one: any character but ASCII digits (a sign, a space, another script's
    digit), more than ``MAX_DIGITS`` digits, or a value outside the range."""
    if not ascii_digits(text):
        return None
    value = int(text)
    return value if max(low, 0) <= value <= min(high, INT64_MAX) else None


def in_int64(value: int) -> bool:
    """Whether ``value`` fits a 64-bit signed column (a number a cursor or a JSON body
    carries, already parsed)."""
    return -INT64_MAX - 1 <= value <= INT64_MAX


def delay_seconds(text: str) -> float | None:
    """A count of seconds a server sends (``Retry-After``'s delta-seconds): ASCII digits of
    any length, as a float (infinite past 1e308, never an error), else None."""
    return float(text) if text and text.isascii() and text.isdigit() else None
