"""Keyset paging for the read API: a page ends with a cursor naming its last row's key.

A page is asked as "the ``limit`` rows after this key", never as an offset, so its query
costs the same on page 1 and page 1,000 of 26,000 entries, and a row promoted between two
requests never shifts what the next page holds. The cursor is the key as URL-safe base64
of JSON: opaque to a client, and checked when it comes back, so a damaged one is a clear
error, not a query.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Sequence
from dataclasses import dataclass

from fashion_assets.domain.numbers import in_int64, whole_number
from fashion_assets.domain.text import refused_character

DEFAULT_LIMIT = 50
MAX_LIMIT = 200


class PagingError(ValueError):
    """A limit or cursor that names no page: the request is wrong, not the server."""


@dataclass(frozen=True)
class PageRequest:
    """The rows after ``after`` (None: from the first), at most ``limit`` of them."""

    limit: int
    after: tuple[str | int, ...] | None


def encode_cursor(key: Sequence[str | int]) -> str:
    return base64.urlsafe_b64encode(json.dumps(list(key)).encode()).decode().rstrip("=")


def decode_cursor(cursor: str, shape: Sequence[type]) -> tuple[str | int, ...]:
    """The key a cursor carries, checked against the ``shape`` of the listing's key (the
    type of each part); ``PagingError`` when it is not one."""
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        key = json.loads(base64.urlsafe_b64decode(padded.encode()))
    except (binascii.Error, ValueError, UnicodeDecodeError) as error:
        raise PagingError(f"the cursor {cursor[:40]!r} is not one this API gave") from error
    if (not isinstance(key, list) or len(key) != len(shape)
            or not all(type(part) is kind for part, kind in zip(key, shape, strict=True))
            or not all(in_int64(part) for part in key if type(part) is int)
            or any(refused_character(part) or (not part.isascii() and _lone_surrogate(part))
                   for part in key if type(part) is str)):
        raise PagingError(f"the cursor {cursor[:40]!r} is not one this listing gave")
    return tuple(key)


def _lone_surrogate(text: str) -> bool:
    """Whether ``text`` holds half a surrogate pair (JSON's ``\\ud800``): no database
    encoding takes one."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def page_request(limit: str | None, cursor: str | None, shape: Sequence[type]) -> PageRequest:
    """A page request from the query string's ``limit`` and ``cursor``."""
    if limit is None or limit == "":
        size = DEFAULT_LIMIT
    else:
        size = whole_number(limit, low=1, high=MAX_LIMIT)
        if size is None:
            raise PagingError(f"limit must be a whole number from 1 to {MAX_LIMIT}, "
                              f"not {limit[:20]!r}")
    return PageRequest(size, decode_cursor(cursor, shape) if cursor else None)
