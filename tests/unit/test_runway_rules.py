"""The runway keys and the ingest decision: pure rules, plain tests."""

from __future__ import annotations

import pytest

from fashion_assets.domain.ingest import (
    Action,
    Outcome,
    count_outcomes,
    decide_ingest,
    draft_photos_gained,
    photos_added,
    repair_outcome,
    show_failure,
)
from fashion_assets.domain.runway import (
    RunwayEntityKey,
    SourceKey,
    canonical_source_url,
    runway_show,
)
from fashion_assets.domain.titles import MAX_STORED_TITLE_CHARS, TitleParseError


@pytest.mark.parametrize(("base", "path", "expected"), [
    ("https://www.vogue.com", "/fashion-shows/spring-2020-ready-to-wear/chloe",
     "https://www.vogue.com/fashion-shows/spring-2020-ready-to-wear/chloe"),
    ("https://www.vogue.com/", "/fashion-shows/resort-2026/chloe?utm=x#3",
     "https://www.vogue.com/fashion-shows/resort-2026/chloe"),
    ("https://www.vogue.com", "fashion-shows/resort-2026/chloe",
     "https://www.vogue.com/fashion-shows/resort-2026/chloe"),
    ("https://www.vogue.com", "http://127.0.0.1:8801/fashion-shows/resort-2026/chloe",
     "https://www.vogue.com/fashion-shows/resort-2026/chloe"),
])
def test_the_source_url_is_the_public_address_whatever_the_crawl_went_through(
        base: str, path: str, expected: str) -> None:
    assert canonical_source_url(base, path) == expected


def show(**changes: object):
    args = {"source": "vogue", "public_base_url": "https://www.vogue.com",
            "brand_slug": "chloe", "path": "/fashion-shows/tokyo-fall-2015/chloe",
            "season_slug": "tokyo-fall-2015", "title": "Tokyo Fall 2015",
            "listing_position": 3}
    return runway_show(**{**args, **changes})


def test_a_listed_show_is_keyed_by_brand_and_season_slug() -> None:
    record = show()

    assert record.source_key == SourceKey(
        "vogue", "https://www.vogue.com/fashion-shows/tokyo-fall-2015/chloe")
    assert record.entity_key == RunwayEntityKey("chloe", "tokyo-fall-2015")
    assert (record.season, record.year, record.collection_type, record.city) == (
        "fall", 2015, "ready-to-wear", "Tokyo")


def test_the_slug_decides_when_the_title_is_garbled_or_disagrees() -> None:
    garbled = show(title="Untitled show \x00", season_slug="spring-2020-menswear",
                   path="/fashion-shows/spring-2020-menswear/chloe")
    other_year = show(title="Fall 2019 Menswear", season_slug="spring-2020-menswear")

    for record in (garbled, other_year):
        assert (record.season, record.year, record.collection_type) == (
            "spring", 2020, "menswear")
        assert record.entity_key.season_code == "spring-2020-menswear"


def test_absurd_titles_are_cut_and_bad_slugs_refused() -> None:
    assert len(show(title="A" * 100_000).title) == MAX_STORED_TITLE_CHARS
    with pytest.raises(TitleParseError):
        show(season_slug="../../etc")


@pytest.mark.parametrize(("drafted", "in_catalog", "complete", "repairable", "action",
                          "outcome"), [
    (False, False, True, False, Action.CREATE, None),
    (False, False, False, False, Action.CREATE, None),
    (True, False, True, True, Action.SKIP, Outcome.SKIPPED_ALREADY_INGESTED),
    (True, True, True, True, Action.SKIP, Outcome.SKIPPED_ALREADY_INGESTED),
    (False, True, True, False, Action.SKIP, Outcome.SKIPPED_IN_CATALOG),
    # incomplete with a draft an editor kept: repaired, never skipped (no endless loop)
    (True, False, False, True, Action.REPAIR, None),
    (True, True, False, True, Action.REPAIR, None),
    # incomplete but the draft was rejected or deleted: the article stays ingested once
    (True, False, False, False, Action.SKIP, Outcome.SKIPPED_ALREADY_INGESTED),
    # an incomplete catalog entry takes a new source's draft, for promotion to merge
    (False, True, False, False, Action.CREATE, None),
])
def test_the_ingest_decision(drafted: bool, in_catalog: bool, complete: bool, repairable: bool,
                             action: Action, outcome: Outcome | None) -> None:
    decision = decide_ingest(source_key_drafted=drafted, entity_in_catalog=in_catalog,
                             complete=complete, repairable=repairable)

    assert (decision.action, decision.outcome) == (action, outcome)
    assert decision.download == (action is not Action.SKIP)


@pytest.mark.parametrize(("draft_added", "entry_added", "outcome"), [
    (8, 8, Outcome.REPAIRED), (0, 3, Outcome.REPAIRED), (2, 0, Outcome.REPAIRED),
    (0, 0, Outcome.UNREPAIRED),
])
def test_a_repair_is_repaired_when_anything_gained_a_photo(
        draft_added: int, entry_added: int, outcome: Outcome) -> None:
    assert repair_outcome(draft_photos_added=draft_added, entry_photos_added=entry_added) \
        is outcome


HELD = {1: "https://cdn-a/1.jpg", 2: "https://cdn-a/2.jpg", 3: "https://cdn-a/3.jpg"}


@pytest.mark.parametrize(("fetched", "added"), [
    # the source moved its photos to new URLs: fetched again, in place, nothing gained
    ([(1, "https://cdn-b/1.jpg"), (2, "https://cdn-b/2.jpg"), (3, "https://cdn-b/3.jpg")], 0),
    ([(4, "https://cdn-a/4.jpg"), (5, "https://cdn-a/5.jpg")], 2),  # photos the draft lacked
    ([(1, "https://cdn-b/1.jpg"), (4, "https://cdn-b/4.jpg")], 1),  # one of each
    ([(4, "https://cdn-a/3.jpg")], 0),  # a photo that moved to another position
    ([], 0),
])
def test_a_repair_adds_only_photos_the_draft_did_not_hold(
        fetched: list[tuple[int, str]], added: int) -> None:
    assert photos_added(HELD, fetched) == added


def test_a_photo_whose_object_was_gone_counts_as_added_when_fetched_again() -> None:
    held_in_store = {p: u for p, u in HELD.items() if p != 2}  # photo 2's object is gone

    assert photos_added(held_in_store, [(2, HELD[2])]) == 1


def test_photos_fetched_again_under_new_urls_leave_the_show_unrepaired() -> None:
    moved = [(p, u.replace("cdn-a", "cdn-b")) for p, u in HELD.items()]

    assert repair_outcome(draft_photos_added=photos_added(HELD, moved),
                          entry_photos_added=0) is Outcome.UNREPAIRED


@pytest.mark.parametrize(("expected", "stored", "reasons", "fails"), [
    (10, 10, [], False),
    (10, 7, ["not_found", "timeout", "html"], False),   # some stored: draft the rest
    (10, 0, ["not_found"] * 10, False),                 # every photo bad for good: draft
    (10, 0, ["timeout"] * 10, True),                    # the source was down: retry later
    (10, 0, ["not_found"] * 9 + ["http_503"], True),
    (10, 0, ["bad_response"] * 10, True),               # malformed HTTP: a broken exchange
    (0, 0, [], False),                                  # a video-only show
])
def test_a_show_fails_only_when_the_source_was_unavailable_for_all_its_photos(
        expected: int, stored: int, reasons: list[str], fails: bool) -> None:
    assert (show_failure(expected=expected, stored=stored, missing_reasons=reasons)
            is not None) == fails


def test_outcome_counts_name_every_outcome() -> None:
    counts = count_outcomes([Outcome.CREATED, Outcome.CREATED, Outcome.FAILED])

    assert counts == {"created": 2, "skipped_already_ingested": 0, "skipped_in_catalog": 0,
                      "skipped_conflict": 0, "repaired": 0, "unrepaired": 0, "failed": 1}


@pytest.mark.parametrize(("outcome", "fetched", "repair_added", "gained"), [
    (Outcome.CREATED, 12, 0, 12),  # a new draft: every photo fetched for it
    (Outcome.REPAIRED, 33, 2, 2),  # a repair: only the photos the draft did not hold
    (Outcome.UNREPAIRED, 33, 0, 0),  # the same photos under new URLs: none
    (Outcome.SKIPPED_ALREADY_INGESTED, 0, 0, 0),
    (Outcome.FAILED, 5, 0, 0),
])
def test_photos_drafts_gained_is_one_count(outcome: Outcome, fetched: int, repair_added: int,
                                           gained: int) -> None:
    assert draft_photos_gained(outcome, fetched, repair_added) == gained
