"""The store scrub's rules: what counts as a damaged object, what a failed heal of one
records, and how the walk of the archive moves under a byte budget."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fashion_assets.domain.store_heal import Unhealed
from fashion_assets.domain.store_scrub import (
    EMPTY,
    WRONG_SHA1,
    WRONG_SIZE,
    read_damage,
    scrub_walk,
    size_damage,
    with_damage,
)

PHOTO = b"the photo as it was stored"
KEY = hashlib.sha1(PHOTO).hexdigest()


def test_a_whole_object_is_not_damaged() -> None:
    assert read_damage(KEY, len(PHOTO), KEY) is None
    assert size_damage(KEY, len(PHOTO), {len(PHOTO)}) is None
    assert size_damage(KEY, len(PHOTO), set()) is None


def test_an_empty_object_is_damaged_whatever_its_rows_recorded() -> None:
    empty = read_damage(KEY, 0, hashlib.sha1(b"").hexdigest())
    assert empty is not None and empty.reason == EMPTY
    for recorded in (set(), {0}, {len(PHOTO)}):
        found = size_damage(KEY, 0, recorded)
        assert found is not None and found.reason == EMPTY


def test_another_size_or_sha1_is_damage_named_with_the_figures() -> None:
    short = size_damage(KEY, 3, {len(PHOTO)})
    assert short is not None and short.reason == WRONG_SIZE
    assert short.detail == f"3 bytes stored, {len(PHOTO)} recorded"
    other = hashlib.sha1(b"garbage").hexdigest()
    overwritten = read_damage(KEY, len(PHOTO), other)
    assert overwritten is not None and overwritten.reason == WRONG_SHA1
    assert other in overwritten.detail


def test_a_failed_heal_of_a_damaged_object_says_what_the_damage_was() -> None:
    failure = Unhealed(KEY, "https://a.example/1.jpg", "not_found", "HTTP 404")
    damage = read_damage(KEY, 7, hashlib.sha1(b"garbage").hexdigest())
    assert damage is not None

    recorded = with_damage(failure, damage.line())

    assert (recorded.reason, recorded.url) == ("not_found", failure.url)
    assert recorded.detail.startswith("damaged in the store (wrong_sha1: the 7 bytes")
    assert recorded.detail.endswith("; HTTP 404")
    assert with_damage(failure, "") == failure


def walker(sizes: dict[str, int]) -> tuple[Callable[[str, int], Sequence[str]],
                                           Callable[[str], int], list[str]]:
    """The walk's two callables over an archive of ``sizes`` by key, and the reads made."""
    keys = sorted(sizes)
    reads: list[str] = []

    def page(after: str, n: int) -> Sequence[str]:
        return [key for key in keys if key > after][:n]

    def read(key: str) -> int:
        reads.append(key)
        return sizes[key]

    return page, read, reads


ARCHIVES = st.dictionaries(st.text("0123456789abcdef", min_size=1, max_size=4),
                           st.integers(0, 50), max_size=40)


@given(sizes=ARCHIVES, budget=st.integers(1, 200), page_size=st.integers(1, 7))
def test_ticks_read_every_object_once_a_pass_within_the_budget_plus_one_object(
        sizes: dict[str, int], budget: int, page_size: int) -> None:
    page, read, reads = walker(sizes)
    after, ticks = "", 0
    while True:
        walked = scrub_walk(after, budget, page, read, page_size)
        ticks += 1
        assert walked.bytes_read == sum(sizes[key] for key in walked.read)
        if walked.read:
            # Over the budget by the last object at most; short of it only at the pass's end.
            assert walked.bytes_read - sizes[walked.read[-1]] < budget
        assert walked.step.wrapped or walked.bytes_read >= budget
        assert walked.step.wrapped or walked.read  # a tick always moves on
        after = walked.step.next_after
        if walked.step.wrapped:
            break
        assert ticks <= len(sizes)
    assert reads == sorted(sizes)


def test_a_tick_that_spends_its_budget_on_the_last_key_ends_the_pass() -> None:
    page, read, _ = walker({"a": 5, "b": 5})
    walked = scrub_walk("", 10, page, read, page_size=5)
    assert walked.read == ("a", "b") and walked.step.wrapped
    assert walked.step.next_after == ""


def test_a_page_out_of_order_or_a_budget_below_one_byte_is_refused() -> None:
    with pytest.raises(ValueError, match="budget"):
        scrub_walk("", 0, lambda after, n: [], lambda key: 0)
    with pytest.raises(ValueError, match="key order"):
        scrub_walk("", 10, lambda after, n: ["b", "a"], lambda key: 1)
    with pytest.raises(ValueError, match="key order"):
        scrub_walk("c", 10, lambda after, n: ["a"], lambda key: 1)
