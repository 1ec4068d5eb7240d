"""The store heal's rules: which bytes heal a lost object, what a failure records, how the
walk of the archive moves from tick to tick, and what a heal reports."""

from __future__ import annotations

import hashlib

import pytest

from fashion_assets.domain.store_heal import (
    CHANGED_AT_SOURCE,
    MAX_LISTED,
    NO_SOURCE_URL,
    Healing,
    HealReport,
    Refetch,
    Step,
    Unhealed,
    advance,
    judge,
    lost_object,
    nowhere_to_fetch,
)

PHOTO = b"the photo as it was stored"
KEY = hashlib.sha1(PHOTO).hexdigest()
URL = "https://assets.example/photos/1/look.jpg"


def test_the_lost_objects_own_bytes_heal_it() -> None:
    assert judge(KEY, Refetch(URL, sha1=KEY, size=len(PHOTO))) is None


def test_another_image_at_the_url_is_changed_at_source_and_never_stored_as_the_lost_one(
        ) -> None:
    other = hashlib.sha1(b"the photo the source serves now").hexdigest()

    failure = judge(KEY, Refetch(URL, sha1=other, size=31))

    assert failure is not None
    assert (failure.key, failure.url, failure.reason) == (KEY, URL, CHANGED_AT_SOURCE)
    assert other in failure.detail and "31 bytes" in failure.detail


@pytest.mark.parametrize(("reason", "detail"), [
    ("not_found", "HTTP 404"),
    ("http_403", "HTTP 403"),
    ("timeout", "no whole answer within the deadline of 60 s"),
    ("html", "the body is HTML/XML markup, not an image"),
    ("not_an_image", "the first bytes match no supported image signature"),
    ("host_not_allowed", "cdn.example is not an allowed host"),
])
def test_a_refusal_is_recorded_with_the_reason_and_detail_it_came_with(
        reason: str, detail: str) -> None:
    assert judge(KEY, Refetch(URL, reason, detail)) == Unhealed(KEY, URL, reason, detail)


def test_a_refusal_wins_over_bytes_that_would_have_matched() -> None:
    """A refused answer is never stored, whatever the caller hashed."""
    failure = judge(KEY, Refetch(URL, "too_large", "over the cap", sha1=KEY))
    assert failure is not None and failure.reason == "too_large"


def test_each_distinct_source_url_is_tried_once_in_a_stable_order() -> None:
    lost = lost_object(KEY, ["https://b.example/2.jpg", "", "https://a.example/1.jpg",
                             "https://b.example/2.jpg"])

    assert lost.key == KEY
    assert lost.urls == ("https://a.example/1.jpg", "https://b.example/2.jpg")


def test_a_lost_object_without_any_source_url_says_so() -> None:
    assert lost_object(KEY, ["", ""]).urls == ()
    failure = nowhere_to_fetch(KEY)
    assert (failure.key, failure.url, failure.reason) == (KEY, "", NO_SOURCE_URL)


def test_a_healing_is_still_missing_for_the_reason_of_its_last_try() -> None:
    first = Unhealed(KEY, "https://a.example/1.jpg", "not_found", "HTTP 404")
    last = Unhealed(KEY, "https://b.example/2.jpg", CHANGED_AT_SOURCE, "other bytes")

    assert Healing(KEY, None, (first, last)).reason == CHANGED_AT_SOURCE
    healed = Healing(KEY, "https://b.example/2.jpg", (first,))
    assert healed.healed and healed.reason == ""


def test_a_report_counts_checked_missing_healed_and_still_missing_by_reason() -> None:
    keys = [f"{n:040x}" for n in range(4)]
    gone = Unhealed(keys[1], URL, "not_found", "HTTP 404")
    changed = Unhealed(keys[2], URL, CHANGED_AT_SOURCE, "other bytes")
    nowhere = nowhere_to_fetch(keys[3])
    report = HealReport()

    report.add(10, [Healing(keys[0], URL), Healing(keys[1], None, (gone,)),
                    Healing(keys[2], None, (changed,))])
    report.add(5, [Healing(keys[3], None, (nowhere,))])

    assert (report.checked, report.missing, report.healed, report.unhealed_count) == (
        15, 4, 1, 3)
    assert report.still_missing == {"not_found": 1, CHANGED_AT_SOURCE: 1, NO_SOURCE_URL: 1}
    assert report.unhealed == [gone, changed, nowhere]
    assert report.line() == ("15 photos checked, 4 missing from the store, 1 fetched again, "
                             "3 still missing (1 changed_at_source, 1 no_source_url, "
                             "1 not_found)")


def test_a_report_keeps_a_bounded_number_of_examples_and_counts_them_all() -> None:
    failures = [Healing(f"{n:040x}", None, (Unhealed(f"{n:040x}", URL, "not_found", ""),))
                for n in range(MAX_LISTED + 7)]
    report = HealReport()

    report.add(len(failures), failures)

    assert len(report.unhealed) == MAX_LISTED
    assert report.still_missing == {"not_found": MAX_LISTED + 7}


def test_a_clean_heal_reports_nothing_missing() -> None:
    report = HealReport()
    report.add(12, [])
    assert report.line() == ("12 photos checked, 0 missing from the store, 0 fetched again, "
                             "0 still missing")


def test_a_full_page_moves_the_cursor_to_its_last_key() -> None:
    page = ["11" * 20, "22" * 20, "33" * 20]

    assert advance("", page, 3) == Step("", "33" * 20, "33" * 20, False)
    assert advance("0" * 40, page, 3) == Step("0" * 40, "33" * 20, "33" * 20, False)


def test_a_short_page_ends_the_pass_and_the_next_tick_starts_over() -> None:
    assert advance("1" * 40, ["2" * 40], 3) == Step("1" * 40, None, "", True)
    assert advance("f" * 40, [], 3) == Step("f" * 40, None, "", True)
    assert advance("", [], 5) == Step("", None, "", True)  # nothing referenced yet


def test_successive_ticks_cover_every_key_once_per_pass_then_start_over() -> None:
    """The walk as the job makes it: each tick the next ``batch`` keys after the cursor."""
    keys = sorted(hashlib.sha1(str(n).encode()).hexdigest() for n in range(11))
    batch, after, seen, wraps = 4, "", [], 0
    for _ in range(8):
        page = [k for k in keys if k > after][:batch]
        step = advance(after, page, batch)
        seen += page
        wraps += step.wrapped
        after = step.next_after

    assert wraps == 2  # ticks 3 and 6 (4 + 4 + 3 keys per pass), then a new pass
    assert seen[:11] == keys and seen[11:22] == keys and seen[22:] == keys[:8]


@pytest.mark.parametrize(("after", "page", "batch", "error"), [
    ("", ["a" * 40], 0, "at least 1"),
    ("", ["a" * 40, "b" * 40], 1, "longer than the batch"),
    ("", ["b" * 40, "a" * 40], 2, "in key order"),
    ("c" * 40, ["b" * 40], 2, "after the cursor"),
])
def test_a_page_that_breaks_the_walk_is_refused(after: str, page: list[str], batch: int,
                                                error: str) -> None:
    with pytest.raises(ValueError, match=error):
        advance(after, page, batch)
