"""The one rule for how a count reads (fashion_assets/domain/wording.py)."""

from __future__ import annotations

import pytest

from fashion_assets.domain.coverage import give_up_reason
from fashion_assets.domain.wording import counted, plural


@pytest.mark.parametrize(("noun", "many"), [
    ("photo", "photos"), ("waiting article", "waiting articles"), ("city", "cities"),
    ("gallery", "galleries"), ("day", "days"), ("pass", "passes"), ("re-fetch", "re-fetches"),
    ("box", "boxes"), ("given-up show", "given-up shows")])
def test_the_plural_changes_the_last_word_by_its_ending(noun: str, many: str) -> None:
    assert plural(noun) == many


@pytest.mark.parametrize(("count", "text"), [
    (0, "0 waiting articles"), (1, "1 waiting article"), (2, "2 waiting articles"),
    (12400, "12,400 waiting articles")])
def test_one_is_singular_and_every_other_count_plural(count: int, text: str) -> None:
    assert counted(count, "waiting article") == text


def test_a_plural_the_rule_does_not_make_is_the_callers() -> None:
    assert counted(1, "pair of photos", "pairs of photos") == "1 pair of photos"
    assert counted(3, "pair of photos", "pairs of photos") == "3 pairs of photos"


def test_a_show_given_up_after_one_re_fetch_says_it_in_the_singular() -> None:
    assert give_up_reason({"not_found": 1}, "", 1) == (
        "still incomplete after 1 re-fetch: 1 photo missing (not_found x 1)")
    assert give_up_reason({"not_found": 2, "timeout": 1}, "", 3) == (
        "still incomplete after 3 re-fetches: 3 photos missing (not_found x 2, timeout x 1)")


def test_a_verb_agrees_with_its_count_by_the_counted_rule() -> None:
    from fashion_assets.domain.wording import agreeing

    assert [agreeing(n, "waits", "wait") for n in (0, 1, 2, 1_000)] == [
        "wait", "waits", "wait", "wait"]
